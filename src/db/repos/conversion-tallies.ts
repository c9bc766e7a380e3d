// What a conversion summary or goal report counts over a window, read in one snapshot with the
// clicks of its rate (click-counts.ts).
// A window's conversions are counted from 32-day blocks, daily aggregates and raw events, added
// and taken away as domain/conversion-reads planReads chooses: a 400-day summary reads about a
// dozen blocks per key and a few raw events at its ends, not a million events. Every block counts
// exactly the kept events of its days (conversions.ts adds to it, retention takes from it). A
// summary filtered by event type (and custom name) reads the blocks by type and link, campaign or
// QR code; one filtered by a link, campaign or QR code reads that object's events through its
// index, which holds every column the summary counts.
import type { Knex } from 'knex';
import {
  CONVERSION_FUTURE_SKEW_MS,
  CONVERSION_RETENTION_DAYS,
  DAY_MS,
  Tally,
  type EventType,
  type TallyData,
  type Window,
} from '../../domain/conversions.ts';
import { planReads, type ReadCosts, type ReadPiece } from '../../domain/conversion-reads.ts';
import { readSnapshot } from '../knex.ts';
import { type ClickCounts, countClicks } from './click-counts.ts';
import type { ConversionFilters } from './conversions.ts';

const n = (v: unknown) => Number(v ?? 0);

function applyFilters(q: Knex.QueryBuilder, f: ConversionFilters, sqlite: boolean) {
  if (f.attributedOnly) q.whereNotNull('link_id');
  // SQLite plans without statistics: with a link, campaign or QR code named, the index by type
  // (conversions_by_type) looks as good to it as the object's own and may read a whole type's
  // events; a unary + keeps the type's term off every index.
  if (f.eventType && sqlite && (f.linkId || f.campaignId || f.qrCodeId)) q.whereRaw('+event_type = ?', [f.eventType]);
  else if (f.eventType) q.where('event_type', f.eventType);
  if (f.customName !== undefined) q.where('custom_name', f.customName);
  if (f.linkId) q.where('link_id', f.linkId);
  if (f.campaignId) q.where('campaign_id', f.campaignId);
  if (f.qrCodeId) q.where('qr_code_id', f.qrCodeId);
  return q;
}

/** The events of a summary or goal filtered by a link, campaign or QR code, through that object's index. */
async function tallyRaw(knex: Knex, workspaceId: string, w: Window, f: ConversionFilters, tally: Tally) {
  const rows = await applyFilters(
    knex('conversions')
      .where('workspace_id', workspaceId)
      .where('occurred_at', '>=', w.from)
      .where('occurred_at', '<', w.to),
    f,
    knex.client.config.client !== 'pg',
  )
    .groupBy('event_type', 'custom_name', 'link_id', 'campaign_id', 'qr_code_id', 'currency')
    .select('event_type', 'custom_name', 'link_id', 'campaign_id', 'qr_code_id', 'currency')
    .count({ c: '*' })
    .sum({ v: 'amount_minor' });
  for (const r of rows as any[]) {
    const currency = r.currency ?? '';
    const c = n(r.c);
    const v = n(r.v);
    tally.addTotals(r.event_type, r.custom_name, !!r.link_id, currency, c, v);
    if (r.link_id) tally.addTo(tally.byLink, r.link_id, currency, c, v);
    if (r.campaign_id) tally.addTo(tally.byCampaign, r.campaign_id, currency, c, v);
    if (r.qr_code_id) tally.addTo(tally.byQr, r.qr_code_id, currency, c, v);
  }
}

/** Where conversion rows are complete and how late they can occur (domain/conversion-reads). */
const conversionRows = (now: number) => ({
  rawSince: now - CONVERSION_RETENTION_DAYS * DAY_MS,
  latest: now + CONVERSION_FUTURE_SKEW_MS,
});

// What a read costs, relative (domain/conversion-reads ReadCosts), from the bench's data: a block
// of every type holds about as many rows as a day and a half of daily aggregates, and as a fifth
// of a day of raw events (each of which counts in the totals and in a breakdown or two).
const EVERY_TYPE: ReadCosts = { block: 1, day: 0.7, rawDay: 3.5 };
// One type's breakdowns have no daily aggregates; a block of them holds about a day or two of its events.
const ONE_TYPE: ReadCosts = { block: 1, day: null, rawDay: 1 };
// One type's totals alone: a handful of rows per block or day, hundreds of events a day.
const ONE_TYPE_TOTALS: ReadCosts = { block: 1, day: 1, rawDay: 40 };

/** One event type, and a custom event's name: the blocks by type, the events of that type. */
interface TypeFilter {
  eventType: EventType;
  customName?: string;
}

type Dimension = 'type' | 'link' | 'campaign' | 'qr';
const DIMENSION_COLUMNS: Record<Exclude<Dimension, 'type'>, string> = {
  link: 'link_id',
  campaign: 'campaign_id',
  qr: 'qr_code_id',
};

/**
 * One part of a dimension's count as rows of (key columns, c, v): a block or day range of an
 * aggregate, or raw events, with its sign. The aggregates keep '' for no custom name and no
 * currency; the events' NULLs read the same.
 */
function readArm(
  piece: ReadPiece,
  dim: Dimension,
  workspaceId: string,
  only: TypeFilter | undefined,
  sqlite: boolean,
): [string, Knex.RawBinding[]] {
  const neg = piece.sign === -1 ? '-' : '';
  const bindings: Knex.RawBinding[] = [workspaceId, piece.from, piece.to];
  const named = (columns: string[]) => columns.map((c, i) => `${c} AS k${i + 1}`).join(', ');
  if (piece.level === 'raw') {
    const keys = named(
      dim === 'type'
        ? [
            'event_type',
            `coalesce(custom_name, '')`,
            'CASE WHEN link_id IS NULL THEN 0 ELSE 1 END',
            `coalesce(currency, '')`,
          ]
        : [DIMENSION_COLUMNS[dim], `coalesce(currency, '')`],
    );
    // SQLite plans without statistics: named, it reads the window through the events' index by
    // time (or by type and time), never a walk of every event of the workspace with a link.
    const index = sqlite
      ? ` INDEXED BY ${only ? 'conversions_by_type' : 'conversions_workspace_id_occurred_at_index'}`
      : '';
    let where = 'workspace_id = ? AND occurred_at >= ? AND occurred_at < ?';
    if (only) {
      where += ' AND event_type = ?';
      bindings.push(only.eventType);
      if (only.customName !== undefined) {
        where += ' AND custom_name = ?';
        bindings.push(only.customName);
      }
    }
    if (dim !== 'type') where += ` AND ${DIMENSION_COLUMNS[dim]} IS NOT NULL`;
    return [
      `SELECT ${keys}, ${neg}1 AS c, ${neg}coalesce(amount_minor, 0) AS v FROM conversions${index} WHERE ${where}`,
      bindings,
    ];
  }
  const keys = named(
    dim === 'type' ? ['event_type', 'custom_name', 'attributed', 'currency'] : [DIMENSION_COLUMNS[dim], 'currency'],
  );
  const column = piece.level === 'block' ? 'block' : 'day';
  const grain = piece.level === 'block' ? 'block' : 'daily';
  let table = `conversion_${grain}_${dim}`;
  let where = `workspace_id = ? AND ${column} >= ? AND ${column} < ?`;
  if (only) {
    if (dim === 'type') {
      where += ' AND event_type = ?';
      bindings.push(only.eventType);
      if (only.customName !== undefined) {
        where += ' AND custom_name = ?';
        bindings.push(only.customName);
      }
    } else {
      // One type's breakdowns are kept in blocks only; '' is every name of a custom event together.
      if (piece.level !== 'block') throw new Error(`no daily ${dim} aggregates by type`);
      table = `conversion_block_type_${dim}`;
      where += ' AND event_type = ? AND custom_name = ?';
      bindings.push(only.eventType, only.customName ?? '');
    }
  }
  return [`SELECT ${keys}, ${neg}conversions AS c, ${neg}value_minor AS v FROM ${table} WHERE ${where}`, bindings];
}

/**
 * A dimension's counts over the pieces of a window, summed in one statement: whole blocks, days
 * and raw events added and taken away, grouped once. Keys whose conversions add up to none are
 * left out.
 */
async function readDimension(
  knex: Knex,
  workspaceId: string,
  pieces: ReadPiece[],
  dim: Dimension,
  only: TypeFilter | undefined,
): Promise<any[]> {
  if (!pieces.length) return [];
  const sqlite = knex.client.config.client !== 'pg';
  const arms = pieces.map((p) => readArm(p, dim, workspaceId, only, sqlite));
  const keys = dim === 'type' ? ['k1', 'k2', 'k3', 'k4'] : ['k1', 'k2'];
  const sql = `SELECT ${keys.join(', ')}, SUM(c) AS c, SUM(v) AS v FROM (${arms.map(([a]) => a).join(' UNION ALL ')}) AS u
    GROUP BY ${keys.join(', ')} HAVING SUM(c) <> 0`;
  const result = await knex.raw(
    sql,
    arms.flatMap(([, b]) => b),
  );
  return Array.isArray(result) ? result : result.rows;
}

/**
 * A window's conversions from the blocks, days and raw events planReads chooses for each
 * dimension (all read in the caller's snapshot, so they agree). With `only`, those of one type
 * (and custom name), whose totals have daily aggregates and whose breakdowns have none; `dims`
 * false: the totals alone (a goal's report).
 */
async function tallyWindow(
  knex: Knex,
  workspaceId: string,
  w: Window,
  now: number,
  only: TypeFilter | undefined,
  dims: boolean,
): Promise<Tally> {
  const tally = new Tally();
  const bounds = conversionRows(now);
  for (const r of await readDimension(
    knex,
    workspaceId,
    planReads(w, bounds, only ? ONE_TYPE_TOTALS : EVERY_TYPE),
    'type',
    only,
  )) {
    tally.addTotals(r.k1, r.k2 || null, n(r.k3) === 1, r.k4, n(r.c), n(r.v));
  }
  if (!dims) return tally;
  const pieces = planReads(w, bounds, only ? ONE_TYPE : EVERY_TYPE);
  const maps: Array<[Exclude<Dimension, 'type'>, Map<string, any>]> = [
    ['link', tally.byLink],
    ['campaign', tally.byCampaign],
    ['qr', tally.byQr],
  ];
  for (const [dim, map] of maps) {
    for (const r of await readDimension(knex, workspaceId, pieces, dim, only))
      tally.addTo(map, r.k1, r.k2, n(r.c), n(r.v));
  }
  return tally;
}

/** Every figure of the conversion summary over [from, to), optionally filtered. */
export async function tallyConversions(
  knex: Knex,
  workspaceId: string,
  w: Window,
  f: ConversionFilters,
  now: number,
): Promise<Tally> {
  // A link, campaign or QR code named: that object's events, through its index.
  if (f.linkId || f.campaignId || f.qrCodeId || f.attributedOnly) {
    const tally = new Tally();
    await tallyRaw(knex, workspaceId, w, f, tally);
    return tally;
  }
  // A custom event's name narrows custom events.
  const eventType = f.eventType ?? (f.customName !== undefined ? 'custom' : undefined);
  return tallyWindow(knex, workspaceId, w, now, eventType ? { eventType, customName: f.customName } : undefined, true);
}

export interface GoalMatch {
  eventType: EventType;
  customName: string | null;
  linkId: string | null;
  qrCodeId: string | null;
  campaignId: string | null;
}

/**
 * Conversions a goal matches. A goal without a scope reads the totals by type of blocks and days;
 * a scoped goal reads the raw events through its scope's index.
 */
export async function tallyGoal(
  knex: Knex,
  workspaceId: string,
  w: Window,
  match: GoalMatch,
  now: number,
): Promise<Tally> {
  const f: ConversionFilters = { eventType: match.eventType };
  if (match.eventType === 'custom' && match.customName) f.customName = match.customName;
  if (match.linkId) f.linkId = match.linkId;
  if (match.qrCodeId) f.qrCodeId = match.qrCodeId;
  if (match.campaignId) f.campaignId = match.campaignId;
  // Only a goal with no scope counts conversions that named no link.
  if (match.linkId || match.qrCodeId || match.campaignId) {
    f.attributedOnly = true;
    const tally = new Tally();
    await tallyRaw(knex, workspaceId, w, f, tally);
    return tally;
  }
  return tallyWindow(knex, workspaceId, w, now, { eventType: match.eventType, customName: f.customName }, false);
}

/**
 * A summary's or report's conversions and the clicks of its rate, read in one snapshot, so that
 * a day's aggregate and the raw rows taken from it agree, and so do numerator and denominator.
 * Clicks that cannot be read leave the conversions standing (the rate says clicks_unavailable):
 * they are read in a savepoint of their own.
 */
async function withClicks<T>(
  knex: Knex,
  tallyOf: (trx: Knex) => Promise<T>,
  clicksOf: ((trx: Knex) => Promise<ClickCounts>) | null,
): Promise<{ tally: T; clicks: ClickCounts | null; clicksError?: string }> {
  return readSnapshot(knex, async (trx) => {
    const tally = await tallyOf(trx);
    if (!clicksOf) return { tally, clicks: null };
    try {
      return { tally, clicks: await trx.transaction((sp) => clicksOf(sp)) };
    } catch (err) {
      return { tally, clicks: null, clicksError: (err as Error)?.message ?? String(err) };
    }
  });
}

/** What GET /api/v1/conversions reports, read in one snapshot (plain data: it may cross threads). */
export async function readConversionSummary(
  knex: Knex,
  workspaceId: string,
  w: Window,
  f: ConversionFilters,
  now: number,
) {
  const data = await withClicks(
    knex,
    (trx) => tallyConversions(trx, workspaceId, w, f, now),
    (trx) => countClicks(trx, workspaceId, w, {}, now),
  );
  return data as { tally: TallyData; clicks: ClickCounts | null; clicksError?: string };
}

/** What a goal report counts over its (intersected) window; `disjoint` windows count nothing. */
export async function readGoalTally(knex: Knex, workspaceId: string, w: Window, match: GoalMatch, now: number) {
  const data = await withClicks(
    knex,
    (trx) => tallyGoal(trx, workspaceId, w, match, now),
    (trx) =>
      countClicks(
        trx,
        workspaceId,
        w,
        { onlyLink: match.linkId ?? undefined, onlyQr: match.qrCodeId ?? undefined },
        now,
      ),
  );
  return data as { tally: TallyData; clicks: ClickCounts | null; clicksError?: string };
}
