// How a flushed batch of clicks is written, per engine. Both write the same rows: raw events,
// daily counts per link (whose sum is the Link's clicks), daily scans per QR code and, for
// workspaces that want traffic alerts (traffic-windows.ts), clicks per link, 5-minute window and
// country (what the alerts read), inside the caller's transaction. Written without Knex's query
// builder on purpose: building and preparing thousands of statements per second cost more than
// the writes themselves (bench/README.md).
import type { Knex } from 'knex';
import { CLICK_WINDOW_MS } from '../../domain/analytics-alerts.ts';
import type { ServiceEvent } from '../../domain/events.ts';
import { upsertColumns } from '../pg-arrays.ts';
import { preparedOn, type Statement } from '../sqlite-statements.ts';
import { enqueueEvents, subscriptionTargets, type SubscriptionTarget } from './outbox.ts';
import { writePageVisits, type PageVisitRow } from './bio-pages.ts';
import { SQL_RAW_EVENTS, type StoredClick } from './raw-events.ts';
import { workspacesWithTrafficAlerts } from './traffic-windows.ts';

export type { StoredClick } from './raw-events.ts';

/**
 * The events a written batch of clicks raises (link.clicked, qr.scanned, the traffic alerts,
 * page.viewed), built inside the flush's transaction; `targets` are the enabled subscriptions of
 * the batch's workspaces. The click writer writes what it returns to the outbox.
 */
export type ClickSink = (
  trx: Knex.Transaction,
  clicks: StoredClick[],
  targets: SubscriptionTarget[],
  pageVisits: PageVisitRow[],
) => Promise<ServiceEvent[]>;

/**
 * A bio page's view or block click travels with the clicks (src/clicks/buffer.ts,
 * PageVisitEvent): its page id where a click has its link id, its block id where a click has its
 * QR code id.
 */
const isPageVisit = (r: StoredClick) => r.link_id.startsWith('pg_');

/** The batch's clicks and its page visits apart; the batch itself when it has no page visit. */
export function splitPageVisits(rows: StoredClick[]): { clicks: StoredClick[]; pageVisits: PageVisitRow[] } {
  if (!rows.some(isPageVisit)) return { clicks: rows, pageVisits: [] };
  const clicks: StoredClick[] = [];
  const pageVisits: PageVisitRow[] = [];
  for (const r of rows) {
    if (!isPageVisit(r)) clicks.push(r);
    else {
      pageVisits.push({
        workspace_id: r.workspace_id,
        page_id: r.link_id,
        block_id: r.qr_code_id,
        occurred_at: r.occurred_at,
        referrer_host: r.referrer_host,
        country: r.country,
        city: r.city,
        device: r.device,
        browser: r.browser,
        os: r.os,
      });
    }
  }
  return { clicks, pageVisits };
}

const DAY_MS = 86_400_000;

export interface ClickAggregates {
  // Sorted by key: every process upserts (and so locks) rows in one order, so concurrent
  // flushes cannot deadlock on Postgres.
  daily: Array<{ link_id: string; workspace_id: string; day: number; clicks: number; scans: number }>;
  scans: Array<{ qr_code_id: string; workspace_id: string; day: number; scans: number }>;
}
type WindowRow = { window_start: number; link_id: string; country: string; workspace_id: string; clicks: number };

type DailyRow = ClickAggregates['daily'][number];
type ScanRow = ClickAggregates['scans'][number];

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Daily clicks and scans per link and QR code. Grouped by link first, then by day, without a
 * composite string key per click: the link id is the same string object for every click of it
 * in a batch (ClickBuffer keeps and sends each distinct string once), so its hash is computed
 * once, where building and hashing `${day}|${link}` for each click took a tenth of the writer
 * thread's CPU.
 */
export function aggregateClicks(rows: StoredClick[]): ClickAggregates {
  const links = new Map<string, DailyRow[]>();
  const daily: DailyRow[] = [];
  const scans = new Map<string, ScanRow[]>();
  const scanRows: ScanRow[] = [];
  for (const r of rows) {
    const day = Math.floor(r.occurred_at / DAY_MS);
    let days = links.get(r.link_id);
    if (!days) links.set(r.link_id, (days = []));
    let d = days.find((x) => x.day === day);
    if (!d) {
      d = { link_id: r.link_id, workspace_id: r.workspace_id, day, clicks: 0, scans: 0 };
      days.push(d);
      daily.push(d);
    }
    d.clicks++;
    if (r.qr_code_id) {
      d.scans++;
      let qr = scans.get(r.qr_code_id);
      if (!qr) scans.set(r.qr_code_id, (qr = []));
      let s = qr.find((x) => x.day === day);
      if (!s) {
        s = { qr_code_id: r.qr_code_id, workspace_id: r.workspace_id, day, scans: 0 };
        qr.push(s);
        scanRows.push(s);
      }
      s.scans++;
    }
  }
  return {
    daily: daily.sort((a, b) => byKey(a.workspace_id, b.workspace_id) || byKey(a.link_id, b.link_id) || a.day - b.day),
    scans: scanRows.sort((a, b) => byKey(a.qr_code_id, b.qr_code_id) || a.day - b.day),
  };
}

/**
 * Clicks per link, 5-minute window and country, for the clicks of workspaces `wanted` accepts
 * (by default all), sorted by key. Only workspaces with a traffic-alert subscription get these
 * rows (traffic-windows.ts), so a flush computes them only for those: building them for every
 * click cost a tenth of the writer's CPU for rows nobody reads.
 */
export function clickWindows(rows: StoredClick[], wanted: (workspaceId: string) => boolean = () => true): WindowRow[] {
  const links = new Map<string, Array<{ start: number; byCountry: Map<string, WindowRow> }>>();
  const windows: WindowRow[] = [];
  for (const r of rows) {
    if (!wanted(r.workspace_id)) continue;
    const windowStart = Math.floor(r.occurred_at / CLICK_WINDOW_MS) * CLICK_WINDOW_MS;
    const country = r.country ?? '';
    let starts = links.get(r.link_id);
    if (!starts) links.set(r.link_id, (starts = []));
    let w = starts.find((x) => x.start === windowStart);
    if (!w) starts.push((w = { start: windowStart, byCountry: new Map() }));
    const wr = w.byCountry.get(country);
    if (wr) wr.clicks++;
    else {
      const row = { window_start: windowStart, link_id: r.link_id, country, workspace_id: r.workspace_id, clicks: 1 };
      w.byCountry.set(country, row);
      windows.push(row);
    }
  }
  return windows.sort(
    (a, b) => a.window_start - b.window_start || byKey(a.link_id, b.link_id) || byKey(a.country, b.country),
  );
}

const SQLITE_SQL = {
  daily: `INSERT INTO link_daily_clicks (link_id, workspace_id, day, clicks, scans) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (workspace_id, link_id, day) DO UPDATE SET clicks = clicks + excluded.clicks, scans = scans + excluded.scans`,
  scans: `INSERT INTO qr_daily_scans (qr_code_id, workspace_id, day, scans) VALUES (?, ?, ?, ?)
          ON CONFLICT (qr_code_id, day) DO UPDATE SET scans = scans + excluded.scans`,
  windows: `INSERT INTO link_click_windows (window_start, link_id, country, workspace_id, clicks) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (window_start, link_id, country) DO UPDATE SET clicks = clicks + excluded.clicks`,
};
const prepared = new WeakMap<object, Record<keyof typeof SQLITE_SQL, Statement>>();

async function writeSqlite(trx: Knex.Transaction, rows: StoredClick[], agg: ClickAggregates) {
  await SQL_RAW_EVENTS.appendClicks(trx, 'sqlite', rows);
  const st = await preparedOn(trx, prepared, SQLITE_SQL);
  // After the raw clicks: their write holds the write lock (src/db/repos/traffic-windows.ts).
  const windows = await alertWindows(trx, rows);
  for (const d of agg.daily) st.daily.run(d.link_id, d.workspace_id, d.day, d.clicks, d.scans);
  for (const s of agg.scans) st.scans.run(s.qr_code_id, s.workspace_id, s.day, s.scans);
  for (const w of windows) st.windows.run(w.window_start, w.link_id, w.country, w.workspace_id, w.clicks);
}

const PG_CHUNK = 5_000;

async function writePostgres(trx: Knex.Transaction, rows: StoredClick[], agg: ClickAggregates) {
  await SQL_RAW_EVENTS.appendClicks(trx, 'postgres', rows);
  await upsertColumns(
    trx,
    `INSERT INTO link_daily_clicks (link_id, workspace_id, day, clicks, scans)
       SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::bigint[], ?::bigint[])
       ON CONFLICT (workspace_id, link_id, day) DO UPDATE SET clicks = link_daily_clicks.clicks + excluded.clicks, scans = link_daily_clicks.scans + excluded.scans`,
    agg.daily,
    [(d) => d.link_id, (d) => d.workspace_id, (d) => d.day, (d) => d.clicks, (d) => d.scans],
    PG_CHUNK,
  );
  await upsertColumns(
    trx,
    `INSERT INTO qr_daily_scans (qr_code_id, workspace_id, day, scans)
       SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::bigint[])
       ON CONFLICT (qr_code_id, day) DO UPDATE SET scans = qr_daily_scans.scans + excluded.scans`,
    agg.scans,
    [(s) => s.qr_code_id, (s) => s.workspace_id, (s) => s.day, (s) => s.scans],
    PG_CHUNK,
  );
}

async function writePostgresWindows(trx: Knex.Transaction, rows: StoredClick[]) {
  await upsertColumns(
    trx,
    `INSERT INTO link_click_windows (window_start, link_id, country, workspace_id, clicks)
       SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::bigint[])
       ON CONFLICT (window_start, link_id, country) DO UPDATE SET clicks = link_click_windows.clicks + excluded.clicks`,
    await alertWindows(trx, rows),
    [(w) => w.window_start, (w) => w.link_id, (w) => w.country, (w) => w.workspace_id, (w) => w.clicks],
    PG_CHUNK,
  );
}

/** The batch's window rows of the workspaces that want traffic alerts (the only readers). */
async function alertWindows(trx: Knex.Transaction, rows: StoredClick[]): Promise<WindowRow[]> {
  if (!rows.length) return [];
  // A batch's clicks share each workspace id string object, so this Set is cheap.
  const wanted = await workspacesWithTrafficAlerts(trx, [...new Set(rows.map((r) => r.workspace_id))]);
  return wanted.size ? clickWindows(rows, (ws) => wanted.has(ws)) : [];
}

export async function writeClicks(
  trx: Knex.Transaction,
  engine: 'sqlite' | 'postgres',
  rows: StoredClick[],
): Promise<void> {
  const agg = aggregateClicks(rows);
  if (engine === 'sqlite') await writeSqlite(trx, rows, agg);
  else {
    await writePostgres(trx, rows, agg);
    await writePostgresWindows(trx, rows);
  }
}

/**
 * One transaction of the click writer: the clicks with their counts and windows, and the events
 * the sinks raise from them (written to the outbox with the clicks, so a click and its
 * link.clicked commit or roll back together).
 */
export async function writeClickBatch(
  knex: Knex,
  engine: 'sqlite' | 'postgres',
  rows: StoredClick[],
  sinks: ClickSink[],
): Promise<void> {
  const { clicks, pageVisits } = splitPageVisits(rows);
  await knex.transaction(async (trx) => {
    await writeClicks(trx, engine, clicks);
    await writePageVisits(trx, engine, pageVisits);
    if (!sinks.length || !rows.length) return;
    // A batch's clicks share each workspace id string object, so this Set is cheap.
    const targets = await subscriptionTargets(trx, [...new Set(rows.map((r) => r.workspace_id))]);
    if (!targets.length) return;
    const events: ServiceEvent[] = [];
    for (const sink of sinks) events.push(...(await sink(trx, clicks, targets, pageVisits)));
    await enqueueEvents(trx, events, targets);
  });
}
