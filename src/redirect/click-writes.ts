// How a flushed batch of clicks is written, per engine. Both write the same rows: raw events,
// daily counts per link (whose sum is the Link's clicks) and daily scans per QR code, inside the
// caller's transaction. Written without Knex's query builder on purpose: a flush runs on the
// redirect process's event loop, and building and preparing thousands of statements per second
// cost more than the writes themselves (bench/redirect measured it).
import type { Knex } from 'knex';
import type { StoredClick } from './clicks';

const DAY_MS = 86_400_000;

export interface ClickAggregates {
  // Sorted by key: every process upserts (and so locks) rows in one order, so concurrent
  // flushes cannot deadlock on Postgres.
  daily: Array<{ link_id: string; workspace_id: string; day: number; clicks: number; scans: number }>;
  scans: Array<{ qr_code_id: string; workspace_id: string; day: number; scans: number }>;
}

export function aggregateClicks(rows: StoredClick[]): ClickAggregates {
  const daily = new Map<string, ClickAggregates['daily'][number]>();
  const scans = new Map<string, ClickAggregates['scans'][number]>();
  for (const r of rows) {
    const day = Math.floor(r.occurred_at / DAY_MS);
    const dk = `${r.link_id}|${day}`;
    const d = daily.get(dk) ?? { link_id: r.link_id, workspace_id: r.workspace_id, day, clicks: 0, scans: 0 };
    d.clicks++;
    if (r.qr_code_id) {
      d.scans++;
      const sk = `${r.qr_code_id}|${day}`;
      const s = scans.get(sk) ?? { qr_code_id: r.qr_code_id, workspace_id: r.workspace_id, day, scans: 0 };
      s.scans++;
      scans.set(sk, s);
    }
    daily.set(dk, d);
  }
  const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    daily: [...daily.values()].sort((a, b) => byKey(a.workspace_id, b.workspace_id) || byKey(a.link_id, b.link_id) || a.day - b.day),
    scans: [...scans.values()].sort((a, b) => byKey(a.qr_code_id, b.qr_code_id) || a.day - b.day),
  };
}

const SQLITE_SQL = {
  click: `INSERT INTO clicks (workspace_id, link_id, qr_code_id, occurred_at, referrer_host, country, device, browser, os)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  daily: `INSERT INTO link_daily_clicks (link_id, workspace_id, day, clicks, scans) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (workspace_id, link_id, day) DO UPDATE SET clicks = clicks + excluded.clicks, scans = scans + excluded.scans`,
  scans: `INSERT INTO qr_daily_scans (qr_code_id, workspace_id, day, scans) VALUES (?, ?, ?, ?)
          ON CONFLICT (qr_code_id, day) DO UPDATE SET scans = scans + excluded.scans`,
};
type Prepared = Record<keyof typeof SQLITE_SQL, { run(...args: unknown[]): unknown }>;
const prepared = new WeakMap<object, Prepared>();

async function writeSqlite(trx: Knex.Transaction, rows: StoredClick[], agg: ClickAggregates) {
  // Inside a transaction Knex hands out the transaction's own better-sqlite3 connection.
  const conn = await (trx.client as any).acquireConnection();
  let st = prepared.get(conn);
  if (!st) {
    st = Object.fromEntries(Object.entries(SQLITE_SQL).map(([k, sql]) => [k, conn.prepare(sql)])) as Prepared;
    prepared.set(conn, st);
  }
  for (const r of rows) st.click.run(r.workspace_id, r.link_id, r.qr_code_id, r.occurred_at, r.referrer_host, r.country, r.device, r.browser, r.os);
  for (const d of agg.daily) st.daily.run(d.link_id, d.workspace_id, d.day, d.clicks, d.scans);
  for (const s of agg.scans) st.scans.run(s.qr_code_id, s.workspace_id, s.day, s.scans);
}

const PG_CHUNK = 5_000;

async function writePostgres(trx: Knex.Transaction, rows: StoredClick[], agg: ClickAggregates) {
  for (let i = 0; i < rows.length; i += PG_CHUNK) {
    const c = rows.slice(i, i + PG_CHUNK);
    await trx.raw(
      `INSERT INTO clicks (workspace_id, link_id, qr_code_id, occurred_at, referrer_host, country, device, browser, os)
       SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])`,
      [
        c.map((r) => r.workspace_id), c.map((r) => r.link_id), c.map((r) => r.qr_code_id), c.map((r) => r.occurred_at),
        c.map((r) => r.referrer_host), c.map((r) => r.country), c.map((r) => r.device), c.map((r) => r.browser), c.map((r) => r.os),
      ] as any,
    );
  }
  for (let i = 0; i < agg.daily.length; i += PG_CHUNK) {
    const c = agg.daily.slice(i, i + PG_CHUNK);
    await trx.raw(
      `INSERT INTO link_daily_clicks (link_id, workspace_id, day, clicks, scans)
       SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::bigint[], ?::bigint[])
       ON CONFLICT (workspace_id, link_id, day) DO UPDATE SET clicks = link_daily_clicks.clicks + excluded.clicks, scans = link_daily_clicks.scans + excluded.scans`,
      [c.map((d) => d.link_id), c.map((d) => d.workspace_id), c.map((d) => d.day), c.map((d) => d.clicks), c.map((d) => d.scans)] as any,
    );
  }
  for (let i = 0; i < agg.scans.length; i += PG_CHUNK) {
    const c = agg.scans.slice(i, i + PG_CHUNK);
    await trx.raw(
      `INSERT INTO qr_daily_scans (qr_code_id, workspace_id, day, scans)
       SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::bigint[])
       ON CONFLICT (qr_code_id, day) DO UPDATE SET scans = qr_daily_scans.scans + excluded.scans`,
      [c.map((s) => s.qr_code_id), c.map((s) => s.workspace_id), c.map((s) => s.day), c.map((s) => s.scans)] as any,
    );
  }
}

export async function writeClicks(trx: Knex.Transaction, engine: 'sqlite' | 'postgres', rows: StoredClick[]): Promise<void> {
  const agg = aggregateClicks(rows);
  if (engine === 'sqlite') await writeSqlite(trx, rows, agg);
  else await writePostgres(trx, rows, agg);
}
