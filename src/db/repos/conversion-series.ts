// Conversions per UTC day over a window, with the filters of a conversion summary: the series of
// the dashboard's Conversions screen. Whole days come from the daily aggregate that holds exactly
// the filter's conversions (conversion_daily_type with no filter or an event type and custom
// name; conversion_daily_link, _campaign or _qr with one of those ids alone); the window's
// partial first and last day from their raw rows, or from their day's aggregate less the raw rows
// outside the window when those are fewer (planWindow, as the summary reads them). A combination
// of filters no aggregate holds reads the raw `conversions` rows through the index of its object
// ((workspace_id, link_id | campaign_id | qr_code_id, occurred_at)).
import type { Knex } from 'knex';
import { addToDay, daysOf, type DailyTally } from '../../domain/conversion-series.ts';
import {
  CONVERSION_FUTURE_SKEW_MS,
  CONVERSION_RETENTION_DAYS,
  DAY_MS,
  planWindow,
  type Window,
} from '../../domain/conversions.ts';
import { readSnapshot } from '../knex.ts';
import { readConversionSummary } from './conversion-tallies.ts';
import type { ConversionFilters } from './conversions.ts';

const n = (v: unknown) => Number(v ?? 0);

interface Aggregate {
  table: string;
  /** Column values that narrow it to the filter's conversions. */
  match: Record<string, string>;
}

/** The daily aggregate holding exactly the conversions `f` selects, or null when none does. */
export function aggregateFor(f: ConversionFilters): Aggregate | null {
  if (f.attributedOnly) return null;
  const byId = (
    [
      ['conversion_daily_link', 'link_id', f.linkId],
      ['conversion_daily_campaign', 'campaign_id', f.campaignId],
      ['conversion_daily_qr', 'qr_code_id', f.qrCodeId],
    ] as const
  ).filter(([, , id]) => id !== undefined);
  if (byId.length === 0) {
    const match: Record<string, string> = {};
    if (f.eventType !== undefined) match.event_type = f.eventType;
    // The aggregate keeps a custom event's name, '' for the other types.
    if (f.customName !== undefined) match.custom_name = f.customName;
    return { table: 'conversion_daily_type', match };
  }
  if (byId.length > 1 || f.eventType !== undefined || f.customName !== undefined) return null;
  const [table, column, id] = byId[0];
  return { table, match: { [column]: id! } };
}

async function fromAggregate(
  knex: Knex,
  workspaceId: string,
  agg: Aggregate,
  [d0, d1]: [number, number],
  days: DailyTally,
) {
  const q = knex(agg.table).where('workspace_id', workspaceId).where(agg.match);
  // The aggregates are keyed (workspace, day, ...) with the filter's column next: narrowed, the
  // days are named one by one, each a seek to the filter's rows of that day, instead of a walk
  // over every row of every day in the window.
  if (Object.keys(agg.match).length) q.whereIn('day', daysOf({ from: d0 * DAY_MS, to: d1 * DAY_MS }));
  else q.where('day', '>=', d0).where('day', '<', d1);
  const rows = await q.groupBy('day', 'currency').select('day', 'currency').sum({ c: 'conversions', v: 'value_minor' });
  for (const r of rows as any[]) addToDay(days, n(r.day), r.currency, n(r.c), n(r.v));
}

const DAY_OF = `CAST(occurred_at / ${DAY_MS} AS INTEGER)`;

async function fromRaw(
  knex: Knex,
  workspaceId: string,
  part: Window,
  f: ConversionFilters,
  days: DailyTally,
  sign: 1 | -1,
) {
  const q = knex('conversions')
    .where('workspace_id', workspaceId)
    .where('occurred_at', '>=', part.from)
    .where('occurred_at', '<', part.to);
  if (f.attributedOnly) q.whereNotNull('link_id');
  // As the summary's raw reads do (repos/conversion-tallies.ts): SQLite, planning without statistics,
  // would take the index by type over the named object's own; a unary + keeps the type off it.
  const sqlite = knex.client.config.client !== 'pg';
  if (f.eventType !== undefined && sqlite && (f.linkId || f.campaignId || f.qrCodeId))
    q.whereRaw('+event_type = ?', [f.eventType]);
  else if (f.eventType !== undefined) q.where('event_type', f.eventType);
  if (f.customName !== undefined) q.where('custom_name', f.customName);
  if (f.linkId !== undefined) q.where('link_id', f.linkId);
  if (f.campaignId !== undefined) q.where('campaign_id', f.campaignId);
  if (f.qrCodeId !== undefined) q.where('qr_code_id', f.qrCodeId);
  const rows = await q
    .select(knex.raw(`${DAY_OF} AS day`), 'currency')
    .count({ c: '*' })
    .sum({ v: 'amount_minor' })
    .groupByRaw(`${DAY_OF}, currency`);
  for (const r of rows as any[]) addToDay(days, n(r.day), r.currency ?? '', n(r.c), n(r.v), sign);
}

/** Conversions and value per currency of each UTC day of [from, to) that `f` selects. */
export async function conversionSeries(
  knex: Knex,
  workspaceId: string,
  w: Window,
  f: ConversionFilters,
  now: number,
): Promise<DailyTally> {
  const days: DailyTally = new Map();
  const agg = aggregateFor(f);
  if (!agg) {
    await fromRaw(knex, workspaceId, w, f, days, 1);
    return days;
  }
  // As the summary plans it (repos/conversion-tallies.ts): raw rows are complete for the retention, and
  // none occurs later than the clock skew a conversion may be recorded with.
  const plan = planWindow(w, {
    rawSince: now - CONVERSION_RETENTION_DAYS * DAY_MS,
    latest: now + CONVERSION_FUTURE_SKEW_MS,
  });
  if (plan.aggregateDays) await fromAggregate(knex, workspaceId, agg, plan.aggregateDays, days);
  for (const { minus } of plan.partialDays) for (const m of minus) await fromRaw(knex, workspaceId, m, f, days, -1);
  for (const part of plan.raw) await fromRaw(knex, workspaceId, part, f, days, 1);
  return days;
}

/**
 * What GET /api/v1/conversions reports (readConversionSummary, as it reads it) and the series of
 * the same window and filters, in one snapshot: the days add up to the summary's total.
 * readConversionSummary's own snapshot becomes a savepoint inside this one.
 */
export async function readConversionSummaryWithSeries(
  knex: Knex,
  workspaceId: string,
  w: Window,
  f: ConversionFilters,
  now: number,
) {
  return readSnapshot(knex, async (trx) => {
    const summary = await readConversionSummary(trx, workspaceId, w, f, now);
    const series = await conversionSeries(trx, workspaceId, w, f, now);
    return { ...summary, series };
  });
}
