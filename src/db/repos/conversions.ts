// Conversions, their daily aggregates, click counts for rates, idempotency keys.
// Whole days of a window are read from the daily aggregates, the partial days at its edges
// from the raw events: a 400-day summary reads a few thousand aggregate rows, not a million
// events. A filtered summary reads the raw events through the index of its filter.
import type { Knex } from 'knex';
import { DAY_MS, splitWindow, Tally, type EventType, type Window } from '../../domain/conversions';
import { BLOCK_DAYS } from '../migrations/20261122060000_conversion_blocks';

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

/** Inserts the event and adds it to every daily aggregate, in the caller's transaction. */
export async function insertConversion(trx: Knex, row: ConversionRow): Promise<void> {
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
  }
}

function applyFilters(q: Knex.QueryBuilder, f: ConversionFilters) {
  if (f.attributedOnly) q.whereNotNull('link_id');
  if (f.eventType) q.where('event_type', f.eventType);
  if (f.customName !== undefined) q.where('custom_name', f.customName);
  if (f.linkId) q.where('link_id', f.linkId);
  if (f.campaignId) q.where('campaign_id', f.campaignId);
  if (f.qrCodeId) q.where('qr_code_id', f.qrCodeId);
  return q;
}

async function tallyRaw(knex: Knex, workspaceId: string, w: Window, f: ConversionFilters, tally: Tally) {
  const rows = await applyFilters(
    knex('conversions')
      .where('workspace_id', workspaceId)
      .where('occurred_at', '>=', w.from)
      .where('occurred_at', '<', w.to),
    f,
  )
    .groupBy('event_type', 'custom_name', 'link_id', 'campaign_id', 'qr_code_id', 'currency')
    .select('event_type', 'custom_name', 'link_id', 'campaign_id', 'qr_code_id', 'currency')
    .count({ c: '*' })
    .sum({ v: 'amount_minor' });
  for (const r of rows as any[]) {
    const currency = r.currency ?? '';
    tally.addTotals(r.event_type, r.custom_name, !!r.link_id, currency, n(r.c), n(r.v));
    if (r.link_id) tally.addTo(tally.byLink, r.link_id, currency, n(r.c), n(r.v));
    if (r.campaign_id) tally.addTo(tally.byCampaign, r.campaign_id, currency, n(r.c), n(r.v));
    if (r.qr_code_id) tally.addTo(tally.byQr, r.qr_code_id, currency, n(r.c), n(r.v));
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

/** Every figure of the conversion summary over [from, to), optionally filtered. */
export async function tallyConversions(knex: Knex, workspaceId: string, w: Window, f: ConversionFilters = {}): Promise<Tally> {
  const tally = new Tally();
  const filtered = Object.values(f).some((v) => v !== undefined);
  if (filtered) {
    await tallyRaw(knex, workspaceId, w, f, tally);
    return tally;
  }
  const { days, edges } = splitWindow(w);
  if (days) await tallyDays(knex, workspaceId, days, tally);
  for (const edge of edges) await tallyRaw(knex, workspaceId, edge, {}, tally);
  return tally;
}

/**
 * Conversions a goal matches. A goal without a scope reads the per-type aggregates for whole
 * days; a scoped goal reads the raw events through its scope's index.
 */
export async function tallyGoal(
  knex: Knex,
  workspaceId: string,
  w: Window,
  match: { eventType: EventType; customName: string | null; linkId: string | null; qrCodeId: string | null; campaignId: string | null },
): Promise<Tally> {
  const f: ConversionFilters = { eventType: match.eventType };
  if (match.eventType === 'custom' && match.customName) f.customName = match.customName;
  if (match.linkId) f.linkId = match.linkId;
  if (match.qrCodeId) f.qrCodeId = match.qrCodeId;
  if (match.campaignId) f.campaignId = match.campaignId;
  // Only a goal with no scope counts conversions that named no link.
  if (match.linkId || match.qrCodeId || match.campaignId) f.attributedOnly = true;
  const tally = new Tally();
  if (match.linkId || match.qrCodeId || match.campaignId) {
    await tallyRaw(knex, workspaceId, w, f, tally);
    return tally;
  }
  const { days, edges } = splitWindow(w);
  if (days) await tallyDays(knex, workspaceId, days, tally, { eventType: f.eventType, customName: f.customName });
  for (const edge of edges) await tallyRaw(knex, workspaceId, edge, f, tally);
  return tally;
}

export interface ClickCounts {
  total: number;
  byLink: Map<string, number>;
  byQr: Map<string, number>;
}

/**
 * Clicks (and QR scans) in [from, to): daily counts for whole days, raw events for the edges,
 * grouped per link and per QR code in one pass each (no id lists), so it can run alongside the
 * conversion tally. Scoped to the workspace; `onlyLink`/`onlyQr` narrow to one link or QR code.
 */
export async function countClicks(
  knex: Knex,
  workspaceId: string,
  w: Window,
  scope: { onlyLink?: string; onlyQr?: string } = {},
): Promise<ClickCounts> {
  const { days, edges } = splitWindow(w);
  const out: ClickCounts = { total: 0, byLink: new Map(), byQr: new Map() };
  const bump = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  const wantLinks = !scope.onlyQr;
  const wantQrs = !scope.onlyLink;
  const queries: Array<Promise<void>> = [];
  // SQLite (which runs no ANALYZE here) would group through the (workspace, day) index and a
  // temporary B-tree; the covering (workspace, id, day, count) index streams the groups.
  const sqlite = knex.client.config.client !== 'pg';
  const table = (name: string, index: string) => (sqlite ? knex.raw(`?? INDEXED BY ??`, [name, index]) : name);
  const run = (q: Knex.QueryBuilder, into: Map<string, number>, column: string) =>
    queries.push(q.then((rows: any[]) => void rows.forEach((r) => bump(into, r[column], n(r.c)))));
  if (days) {
    const [d0, d1] = days;
    if (wantLinks) {
      // The table's own key is (workspace, link, day) with the counts in its leaves.
      const q = knex('link_daily_clicks').where('workspace_id', workspaceId).where('day', '>=', d0).where('day', '<', d1);
      if (scope.onlyLink) q.where('link_id', scope.onlyLink);
      run(q.groupBy('link_id').select('link_id').sum({ c: 'clicks' }), out.byLink, 'link_id');
    }
    if (wantQrs) {
      const q = knex(table('qr_daily_scans', 'qr_daily_scans_ws_qr_day')).where('workspace_id', workspaceId).where('day', '>=', d0).where('day', '<', d1);
      if (scope.onlyQr) q.where('qr_code_id', scope.onlyQr);
      run(q.groupBy('qr_code_id').select('qr_code_id').sum({ c: 'scans' }), out.byQr, 'qr_code_id');
    }
  }
  for (const e of edges) {
    const inEdge = () => knex('clicks').where('workspace_id', workspaceId).where('occurred_at', '>=', e.from).where('occurred_at', '<', e.to);
    if (wantLinks) {
      const q = inEdge();
      if (scope.onlyLink) q.where('link_id', scope.onlyLink);
      run(q.groupBy('link_id').select('link_id').count({ c: '*' }), out.byLink, 'link_id');
    }
    if (wantQrs) {
      const q = inEdge().whereNotNull('qr_code_id');
      if (scope.onlyQr) q.where('qr_code_id', scope.onlyQr);
      run(q.groupBy('qr_code_id').select('qr_code_id').count({ c: '*' }), out.byQr, 'qr_code_id');
    }
  }
  await Promise.all(queries);
  // Every click belongs to a link, so the links' counts add up to the workspace's.
  for (const c of out.byLink.values()) out.total += c;
  return out;
}


export async function findIdempotencyKey(knex: Knex, workspaceId: string, key: string) {
  return knex('idempotency_keys').where({ workspace_id: workspaceId, key }).first() as Promise<
    { request_hash: string; status_code: number | null; response: string | null; created_at: number } | undefined
  >;
}
