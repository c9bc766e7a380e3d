// Conversions, their daily aggregates, click counts for rates, idempotency keys.
// Whole days of a window are read from the daily aggregates, and so is a partial day at its
// edges when the rest of that day holds fewer rows (domain/conversions planWindow), the other
// partial days from the raw events: a 400-day summary reads a few thousand aggregate rows, not
// a million events. A summary filtered by event type alone reads 32-day blocks by type and link,
// campaign or QR code for its whole blocks (tallyByType); one filtered by a link, campaign or QR
// code reads that object's raw events through its index.
import type { Knex } from 'knex';
import {
  BLOCK_DAYS, CLICK_RETENTION_DAYS, CONVERSION_FUTURE_SKEW_MS, CONVERSION_RETENTION_DAYS, DAY_MS, MAX_VALUE_TOTAL_MINOR, planWindow, Tally, type EventType, type TallyData, type Window,
} from '../../domain/conversions.ts';
import { conflict, invalid } from '../../domain/errors.ts';
import { isUniqueViolation, readSnapshot } from '../knex.ts';
import { enqueueEvents, type EmitEvents } from './outbox.ts';

export interface ConversionRow {
  id: string;
  workspace_id: string;
  event_type: EventType;
  custom_name: string | null;
  link_id: string | null;
  campaign_id: string | null;
  qr_code_id: string | null;
  amount_minor: number | null;
  currency: string | null;
  metadata: string | null;
  occurred_at: number;
  created_at: number;
}

export interface ConversionFilters {
  /** Only conversions that name a link (a scoped goal never counts unattributed ones). */
  attributedOnly?: boolean;
  eventType?: EventType;
  customName?: string;
  linkId?: string;
  campaignId?: string;
  qrCodeId?: string;
}

const n = (v: unknown) => Number(v ?? 0);

/**
 * Adds a value to the workspace's kept total in its currency, unless that would take the total
 * above MAX_VALUE_TOTAL_MINOR (then a 400 naming value.amountMinor). One statement, so two conversions
 * racing for the last room cannot both get it: the row is locked (Postgres) or the write lock
 * held (SQLite) while the condition is checked.
 */
async function addToValueTotal(trx: Knex, workspaceId: string, currency: string, amountMinor: number): Promise<void> {
  const result = await trx.raw(
    `INSERT INTO conversion_value_totals (workspace_id, currency, value_minor) VALUES (?, ?, ?)
     ON CONFLICT (workspace_id, currency) DO UPDATE SET value_minor = conversion_value_totals.value_minor + excluded.value_minor
     WHERE conversion_value_totals.value_minor <= ${MAX_VALUE_TOTAL_MINOR} - excluded.value_minor
     RETURNING value_minor`,
    [workspaceId, currency, amountMinor],
  );
  const rows = Array.isArray(result) ? result : result.rows;
  if (!rows.length) {
    throw invalid(
      `value.amountMinor would take this workspace's ${currency} total over its kept conversions above ${MAX_VALUE_TOTAL_MINOR} minor units, the most a total can be and stay exact`,
      'value.amountMinor',
    );
  }
}

/** Inserts the event and adds it to its value total and every daily aggregate, in the caller's transaction. */
export async function insertConversion(trx: Knex, row: ConversionRow): Promise<void> {
  if (row.currency) await addToValueTotal(trx, row.workspace_id, row.currency, Number(row.amount_minor ?? 0));
  await trx('conversions').insert(row);
  const day = Math.floor(row.occurred_at / DAY_MS);
  const currency = row.currency ?? '';
  const value = row.amount_minor ?? 0;
  const upsert = (table: string, keys: Record<string, unknown>) =>
    trx(table)
      .insert({ ...keys, conversions: 1, value_minor: value })
      .onConflict(Object.keys(keys))
      .merge({
        conversions: trx.raw(`${table}.conversions + excluded.conversions`),
        value_minor: trx.raw(`${table}.value_minor + excluded.value_minor`),
      });
  const block = Math.floor(day / BLOCK_DAYS);
  const keys = {
    type: { event_type: row.event_type, custom_name: row.custom_name ?? '', currency, attributed: row.link_id ? 1 : 0 },
    link: row.link_id ? { link_id: row.link_id, currency } : null,
    campaign: row.campaign_id ? { campaign_id: row.campaign_id, currency } : null,
    qr: row.qr_code_id ? { qr_code_id: row.qr_code_id, currency } : null,
  };
  for (const [name, k] of Object.entries(keys)) {
    if (!k) continue;
    await upsert(`conversion_daily_${name}`, { workspace_id: row.workspace_id, day, ...k });
    await upsert(`conversion_block_${name}`, { workspace_id: row.workspace_id, block, ...k });
    // The same by event type, for summaries filtered by it (blocks only: tallyByType).
    if (name !== 'type') await upsert(`conversion_block_type_${name}`, { workspace_id: row.workspace_id, event_type: row.event_type, custom_name: row.custom_name ?? '', block, ...k });
  }
}

function applyFilters(q: Knex.QueryBuilder, f: ConversionFilters, sqlite: boolean) {
  if (f.attributedOnly) q.whereNotNull('link_id');
  // SQLite plans without statistics: with a link, campaign or QR code named, the index by type
  // (conversions_ws_type_time) looks as good to it as the object's own and may read a whole
  // type's events; a unary + keeps the type's term off every index.
  if (f.eventType && sqlite && (f.linkId || f.campaignId || f.qrCodeId)) q.whereRaw('+event_type = ?', [f.eventType]);
  else if (f.eventType) q.where('event_type', f.eventType);
  if (f.customName !== undefined) q.where('custom_name', f.customName);
  if (f.linkId) q.where('link_id', f.linkId);
  if (f.campaignId) q.where('campaign_id', f.campaignId);
  if (f.qrCodeId) q.where('qr_code_id', f.qrCodeId);
  return q;
}

type Sign = 1 | -1;

async function tallyRaw(knex: Knex, workspaceId: string, w: Window, f: ConversionFilters, tally: Tally, sign: Sign = 1) {
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
    const c = sign * n(r.c);
    const v = sign * n(r.v);
    tally.addTotals(r.event_type, r.custom_name, !!r.link_id, currency, c, v);
    if (r.link_id) tally.addTo(tally.byLink, r.link_id, currency, c, v);
    if (r.campaign_id) tally.addTo(tally.byCampaign, r.campaign_id, currency, c, v);
    if (r.qr_code_id) tally.addTo(tally.byQr, r.qr_code_id, currency, c, v);
  }
}

type Level = { tables: 'daily' | 'block'; column: 'day' | 'block'; from: number; to: number };

/** Whole days [d0, d1) as whole 32-day blocks plus the leftover days on either side. */
function levelsOf([d0, d1]: [number, number]): Level[] {
  const b0 = Math.ceil(d0 / BLOCK_DAYS);
  const b1 = Math.floor(d1 / BLOCK_DAYS);
  if (b0 >= b1) return [{ tables: 'daily', column: 'day', from: d0, to: d1 }];
  const levels: Level[] = [{ tables: 'block', column: 'block', from: b0, to: b1 }];
  if (d0 < b0 * BLOCK_DAYS) levels.push({ tables: 'daily', column: 'day', from: d0, to: b0 * BLOCK_DAYS });
  if (b1 * BLOCK_DAYS < d1) levels.push({ tables: 'daily', column: 'day', from: b1 * BLOCK_DAYS, to: d1 });
  return levels;
}

async function tallyDays(knex: Knex, workspaceId: string, days: [number, number], tally: Tally, only?: { eventType?: EventType; customName?: string }) {
  for (const level of levelsOf(days)) {
    const within = (name: string) =>
      knex(`conversion_${level.tables}_${name}`).where('workspace_id', workspaceId).where(level.column, '>=', level.from).where(level.column, '<', level.to);
    const typeQuery = within('type');
    if (only?.eventType) typeQuery.where('event_type', only.eventType);
    if (only?.customName !== undefined) typeQuery.where('custom_name', only.customName);
    const types = await typeQuery
      .groupBy('event_type', 'custom_name', 'currency', 'attributed')
      .select('event_type', 'custom_name', 'currency', 'attributed')
      .sum({ c: 'conversions', v: 'value_minor' });
    for (const r of types as any[]) tally.addTotals(r.event_type, r.custom_name || null, n(r.attributed) === 1, r.currency, n(r.c), n(r.v));
    if (only) continue;
    const dims: Array<[string, string, Map<string, any>]> = [
      ['link', 'link_id', tally.byLink],
      ['campaign', 'campaign_id', tally.byCampaign],
      ['qr', 'qr_code_id', tally.byQr],
    ];
    for (const [name, column, map] of dims) {
      const rows = await within(name).groupBy(column, 'currency').select(column, 'currency').sum({ c: 'conversions', v: 'value_minor' });
      for (const r of rows as any[]) tally.addTo(map, r[column], r.currency, n(r.c), n(r.v));
    }
  }
}

/** Where conversion rows are complete and how late they can occur (domain/conversions planWindow). */
const conversionRows = (now: number) => ({ rawSince: now - CONVERSION_RETENTION_DAYS * DAY_MS, latest: now + CONVERSION_FUTURE_SKEW_MS });

/**
 * The aggregates and raw rows of a window (planWindow): whole days and partial days from the
 * aggregates (`only` narrows them to a type), raw rows (`f`) for the rest.
 */
async function tallyPlanned(knex: Knex, workspaceId: string, w: Window, now: number, f: ConversionFilters, only?: { eventType?: EventType; customName?: string }) {
  const tally = new Tally();
  const plan = planWindow(w, conversionRows(now));
  if (plan.aggregateDays) await tallyDays(knex, workspaceId, plan.aggregateDays, tally, only);
  for (const { minus } of plan.partialDays) for (const m of minus) await tallyRaw(knex, workspaceId, m, f, tally, -1);
  for (const part of plan.raw) await tallyRaw(knex, workspaceId, part, f, tally);
  return tally;
}

/**
 * A summary filtered by event type (and custom name) alone: the window's whole 32-day blocks from
 * the blocks by type (conversion_block_type and conversion_block_type_link, _campaign, _qr), the
 * rest of the window, at most 31 days at either end, from the events of that type
 * (conversions_ws_type_time). A block holds every conversion of its days (insertConversion writes
 * it with the event), so the two parts add up to the events of the window. A window reaching past
 * the raw retention counts the blocks' days retention has not dropped yet (as the unfiltered
 * summary counts its aggregates), and says `unavailable`.
 */
async function tallyByType(knex: Knex, workspaceId: string, w: Window, f: { eventType: EventType; customName?: string }): Promise<Tally> {
  const tally = new Tally();
  const b0 = Math.ceil(Math.ceil(w.from / DAY_MS) / BLOCK_DAYS);
  const b1 = Math.floor(Math.floor(w.to / DAY_MS) / BLOCK_DAYS);
  if (b0 >= b1) {
    await tallyRaw(knex, workspaceId, w, f, tally);
    return tally;
  }
  const blocks = (table: string) => {
    const q = knex(table).where('workspace_id', workspaceId).where('event_type', f.eventType).where('block', '>=', b0).where('block', '<', b1);
    if (f.customName !== undefined) q.where('custom_name', f.customName);
    return q;
  };
  const types = await blocks('conversion_block_type')
    .groupBy('event_type', 'custom_name', 'currency', 'attributed')
    .select('event_type', 'custom_name', 'currency', 'attributed')
    .sum({ c: 'conversions', v: 'value_minor' });
  for (const r of types as any[]) tally.addTotals(r.event_type, r.custom_name || null, n(r.attributed) === 1, r.currency, n(r.c), n(r.v));
  const dims: Array<[string, string, Map<string, any>]> = [
    ['link', 'link_id', tally.byLink],
    ['campaign', 'campaign_id', tally.byCampaign],
    ['qr', 'qr_code_id', tally.byQr],
  ];
  for (const [name, column, map] of dims) {
    const rows = await blocks(`conversion_block_type_${name}`).groupBy(column, 'currency').select(column, 'currency').sum({ c: 'conversions', v: 'value_minor' });
    for (const r of rows as any[]) tally.addTo(map, r[column], r.currency, n(r.c), n(r.v));
  }
  const start = b0 * BLOCK_DAYS * DAY_MS;
  const end = b1 * BLOCK_DAYS * DAY_MS;
  if (w.from < start) await tallyRaw(knex, workspaceId, { from: w.from, to: start }, f, tally);
  if (end < w.to) await tallyRaw(knex, workspaceId, { from: end, to: w.to }, f, tally);
  return tally;
}

/** Every figure of the conversion summary over [from, to), optionally filtered. */
export async function tallyConversions(knex: Knex, workspaceId: string, w: Window, f: ConversionFilters, now: number): Promise<Tally> {
  const filtered = Object.values(f).some((v) => v !== undefined);
  // By type alone (eventType, customName): blocks by type and the events at the ends.
  if (filtered && f.eventType && !f.linkId && !f.campaignId && !f.qrCodeId && !f.attributedOnly) {
    return tallyByType(knex, workspaceId, w, { eventType: f.eventType, customName: f.customName });
  }
  if (filtered) {
    const tally = new Tally();
    await tallyRaw(knex, workspaceId, w, f, tally);
    return tally;
  }
  return tallyPlanned(knex, workspaceId, w, now, {});
}

export interface GoalMatch {
  eventType: EventType;
  customName: string | null;
  linkId: string | null;
  qrCodeId: string | null;
  campaignId: string | null;
}

/**
 * Conversions a goal matches. A goal without a scope reads the per-type aggregates for whole
 * days; a scoped goal reads the raw events through its scope's index.
 */
export async function tallyGoal(knex: Knex, workspaceId: string, w: Window, match: GoalMatch, now: number): Promise<Tally> {
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
  return tallyPlanned(knex, workspaceId, w, now, f, { eventType: f.eventType, customName: f.customName });
}

export interface ClickCounts {
  total: number;
  byLink: Map<string, number>;
  byQr: Map<string, number>;
}

/**
 * Clicks (and QR scans) in [from, to): daily counts for whole days and for partial days whose
 * rest holds fewer raw clicks than the part inside the window (less those raw clicks), raw
 * clicks for the other partial days; grouped per link and per QR code (no id lists). Scoped to
 * the workspace; `onlyLink`/`onlyQr` narrow to one link or QR code.
 */
export async function countClicks(
  knex: Knex,
  workspaceId: string,
  w: Window,
  scope: { onlyLink?: string; onlyQr?: string },
  now: number,
): Promise<ClickCounts> {
  const plan = planWindow(w, { rawSince: now - CLICK_RETENTION_DAYS * DAY_MS, latest: now });
  const out: ClickCounts = { total: 0, byLink: new Map(), byQr: new Map() };
  const wantLinks = !scope.onlyQr;
  const wantQrs = !scope.onlyLink;
  // Run one after another: they share the snapshot's one connection.
  const queries: Array<() => Promise<void>> = [];
  // SQLite (which runs no ANALYZE here) would group through the (workspace, day) index and a
  // temporary B-tree; the covering (workspace, id, day, count) index streams the groups.
  const sqlite = knex.client.config.client !== 'pg';
  const table = (name: string, index: string) => (sqlite ? knex.raw(`?? INDEXED BY ??`, [name, index]) : name);
  const run = (q: Knex.QueryBuilder, into: Map<string, number>, column: string, sign: Sign) =>
    queries.push(async () => {
      for (const r of (await q) as any[]) into.set(r[column], (into.get(r[column]) ?? 0) + sign * n(r.c));
    });
  const daily = ([d0, d1]: [number, number], sign: Sign) => {
    if (wantLinks) {
      // The table's own key is (workspace, link, day) with the counts in its leaves.
      const q = knex('link_daily_clicks').where('workspace_id', workspaceId).where('day', '>=', d0).where('day', '<', d1);
      if (scope.onlyLink) q.where('link_id', scope.onlyLink);
      run(q.groupBy('link_id').select('link_id').sum({ c: 'clicks' }), out.byLink, 'link_id', sign);
    }
    if (wantQrs) {
      const q = knex(table('qr_daily_scans', 'qr_daily_scans_ws_qr_day')).where('workspace_id', workspaceId).where('day', '>=', d0).where('day', '<', d1);
      if (scope.onlyQr) q.where('qr_code_id', scope.onlyQr);
      run(q.groupBy('qr_code_id').select('qr_code_id').sum({ c: 'scans' }), out.byQr, 'qr_code_id', sign);
    }
  };
  const raw = (e: Window, sign: Sign) => {
    const inPart = () => knex('clicks').where('workspace_id', workspaceId).where('occurred_at', '>=', e.from).where('occurred_at', '<', e.to);
    if (wantLinks) {
      const q = inPart();
      if (scope.onlyLink) q.where('link_id', scope.onlyLink);
      run(q.groupBy('link_id').select('link_id').count({ c: '*' }), out.byLink, 'link_id', sign);
    }
    if (wantQrs) {
      const q = inPart().whereNotNull('qr_code_id');
      if (scope.onlyQr) q.where('qr_code_id', scope.onlyQr);
      run(q.groupBy('qr_code_id').select('qr_code_id').count({ c: '*' }), out.byQr, 'qr_code_id', sign);
    }
  };
  if (plan.aggregateDays) daily(plan.aggregateDays, 1);
  for (const { minus } of plan.partialDays) for (const m of minus) raw(m, -1);
  for (const part of plan.raw) raw(part, 1);
  for (const query of queries) await query();
  // Every click belongs to a link, so the links' counts add up to the workspace's.
  for (const c of out.byLink.values()) out.total += c;
  return out;
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
export async function readConversionSummary(knex: Knex, workspaceId: string, w: Window, f: ConversionFilters, now: number) {
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
    (trx) => countClicks(trx, workspaceId, w, { onlyLink: match.linkId ?? undefined, onlyQr: match.qrCodeId ?? undefined }, now),
  );
  return data as { tally: TallyData; clicks: ClickCounts | null; clicksError?: string };
}

/**
 * Records a conversion: the event, its value total and aggregates, what `emit` raises
 * (conversion.created) and, with an Idempotency-Key, the answer to replay, all in one
 * transaction, so once the 201 is sent nothing of it can be lost. Returns null, or the first
 * answer (JSON) when the key was used before with the same body within its time to live; the
 * same key with another body is a conflict.
 */
export async function recordConversion(
  knex: Knex,
  row: ConversionRow,
  opts: { idempotency?: { key: string; requestHash: string; response: string; ttlMs: number }; emit: EmitEvents },
): Promise<string | null> {
  const idem = opts.idempotency;
  try {
    await knex.transaction(async (trx) => {
      if (idem) {
        await trx('idempotency_keys').where({ workspace_id: row.workspace_id, key: idem.key }).where('created_at', '<', row.created_at - idem.ttlMs).delete();
        await trx('idempotency_keys').insert({
          workspace_id: row.workspace_id, key: idem.key, request_hash: idem.requestHash, status_code: 201, response: idem.response, created_at: row.created_at,
        });
      }
      await insertConversion(trx, row);
      await enqueueEvents(trx, await opts.emit(trx));
    });
    return null;
  } catch (err) {
    if (!idem || !isUniqueViolation(err)) throw err;
    const first = await findIdempotencyKey(knex, row.workspace_id, idem.key);
    if (!first || first.request_hash !== idem.requestHash) throw conflict('This Idempotency-Key was already used with a different request body');
    if (!first.response) throw conflict('A request with this Idempotency-Key is still being processed');
    return first.response;
  }
}

export async function findIdempotencyKey(knex: Knex, workspaceId: string, key: string) {
  return knex('idempotency_keys').where({ workspace_id: workspaceId, key }).first() as Promise<
    { request_hash: string; status_code: number | null; response: string | null; created_at: number } | undefined
  >;
}
