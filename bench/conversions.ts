// Conversion summary and goal report benchmark: latency of GET /api/v1/conversions and
// GET /api/v1/goals/{id}/report over a year of data, through the real service and in-process.
// It prints figures and asserts nothing.
//
//   npx tsx bench/conversions.ts [--engine sqlite|postgres|both] [--conversions 1000000]
//                                [--clicks 5000000] [--requests 50] [--explain auto|always|never]
//                                [--keep] [--cases REGEXP] [--time-limit SECONDS]
//
// What it does, per engine:
//  1. creates a fresh database (a SQLite file in a temp dir, or a Postgres database created on
//     TEST_POSTGRES_URL and dropped at the end) and migrates it; adds a workspace, a member and
//     an API key through the repositories, 200 links, 20 campaigns and 50 QR codes;
//  2. bulk-loads the conversions (default 1,000,000), spread uniformly and in time order over the
//     last 400 days: ~30% custom events under 5 names, the rest over the 5 standard types; 60% with
//     a value in EUR, USD or GBP; 80% naming a link (5% through a QR code, attributed to its link,
//     as the API does), 20% a campaign. The daily aggregate rows are computed in memory exactly
//     as insertConversion writes them (checked once against insertConversion itself on a sample)
//     and bulk-inserted too. Raw rows go in through better-sqlite3 prepared statements in
//     transactions, or Postgres INSERT … SELECT FROM unnest(arrays) in batches;
//  3. bulk-loads the clicks (default 5,000,000) over the same 400 days, 10% of them QR scans:
//     daily counts (link_daily_clicks, qr_daily_scans; links.served) for all 400 days, raw `clicks`
//     rows only for the last 90 (raw retention), as the click recorder and retention leave them;
//  4. settles the database as a running deployment would find it (SQLite: WAL checkpoint; Postgres:
//     VACUUM ANALYZE, what autovacuum does after a bulk load), prints seeding times and sizes;
//  5. creates a goal of each kind: unscoped (purchase with a value target, custom with and without
//     a customName, signup with a window of its own), scoped to a link (purchase, and custom with
//     a customName), to a QR code, to a campaign;
//  6. starts `node bin/shortlink.mjs serve` (TLS=off TRUST_PROXY=1, free port, fresh DATA_DIR,
//     LOG_LEVEL=warn) and waits for /healthz;
//  7. per case (casesFor: every filter and combination of the summary, and each kind of goal, over
//     30 and 400 days, odd hours and 63 days between blocks; --cases REGEXP keeps only the cases
//     whose names match), sends sequential requests on one keep-alive connection (3 warm-ups, then
//     --requests measured; X-Forwarded-Proto: https; Bearer key, a fresh key minted every 50
//     requests because of the 60 requests/minute/key limit) and records p50/p99/max; then runs
//     the same repository calls in-process (tallyConversions/tallyGoal + countClicks, as the
//     handlers call them), so HTTP and handler overhead separate from query time;
//  8. prints a table per engine (target: p50 under 100 ms) and, for each case over the target
//     (--explain auto) or every case (--explain always), the queries of one traced run with their
//     times and the plans of the slow ones (EXPLAIN QUERY PLAN on SQLite, EXPLAIN (ANALYZE,
//     BUFFERS) on Postgres).
// Every child process, temp file and database is removed at the end, on error, on Ctrl-C and when
// --time-limit runs out; with --keep the seeded databases stay (their addresses are printed), for
// trying indexes and queries on them by hand.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { migrateLatest, openDatabase, type Engine } from '../src/db/knex';
import { recordConversion, type ConversionFilters } from '../src/db/repos/conversions';
import { countClicks } from '../src/db/repos/click-counts';
import { tallyConversions, tallyGoal } from '../src/db/repos/conversion-tallies';
import { createGoal, getGoal, type GoalDefinition, type GoalRow } from '../src/db/repos/goals';
import { addMember, createWorkspace } from '../src/db/repos/workspaces';
import { createKey } from '../src/db/repos/api-keys';
import { createCampaign, createQrCode } from '../src/db/repos/workspace-objects';
import { breakdownEntries, DAY_MS, intersectWindow, type Window } from '../src/domain/conversions';
import { newId } from '../src/domain/ids';
import { benchCleanups, finishBench, guardBenchRun, watchChild } from './lifecycle';
import {
  checkAggregatesAgainstInsertConversion,
  ClickAggregates,
  ConversionAggregates,
  createDatabase,
  CUSTOM_NAMES,
  generateClicks,
  generateConversions,
  insertBlockRollups,
  insertClickCounts,
  insertConversionAggregates,
  insertStream,
  type BenchDatabase,
  type Catalog,
} from './seed-analytics';
import {
  fmtInt,
  fmtMs,
  freePort,
  log,
  percentile,
  sleep,
  table,
  buildService,
  intOption,
  printHeaderAndExit,
} from './util';

// ---------------------------------------------------------------------------------------------
// Options

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'both' },
    conversions: { type: 'string', default: '1000000' },
    clicks: { type: 'string', default: '5000000' },
    requests: { type: 'string', default: '50' },
    explain: { type: 'string', default: 'auto' },
    keep: { type: 'boolean', default: false },
    cases: { type: 'string' },
    'time-limit': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
  allowPositionals: false,
});
if (args.help) printHeaderAndExit(import.meta.url);
const positiveInt = intOption;
const CONVERSIONS = positiveInt('conversions', args.conversions);
const CLICKS = positiveInt('clicks', args.clicks, 0);
const REQUESTS = positiveInt('requests', args.requests);
if (!['sqlite', 'postgres', 'both'].includes(args.engine!)) {
  process.stderr.write(`--engine must be sqlite, postgres or both; got ${args.engine}\n`);
  process.exit(2);
}
const ENGINES: Engine[] = args.engine === 'both' ? ['sqlite', 'postgres'] : [args.engine as Engine];
if (!['auto', 'always', 'never'].includes(args.explain!)) {
  process.stderr.write(`--explain must be auto, always or never; got ${args.explain}\n`);
  process.exit(2);
}
const EXPLAIN = args.explain as 'auto' | 'always' | 'never';
const KEEP = args.keep!;
// Only the cases whose names match (a regular expression), for a change to one kind of read.
const CASES = args.cases ? new RegExp(args.cases) : null;
// Generous: seeding at a pessimistic rate per row, then two passes over every case at a second
// per request.
const TIME_LIMIT_S = args['time-limit']
  ? positiveInt('time-limit', args['time-limit'])
  : Math.ceil(ENGINES.length * (300 + (CONVERSIONS + CLICKS / 2) / 2_000 + 2 * 100 * (REQUESTS + 3)));

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
buildService(ROOT);
const TARGET_P50_MS = 100;
const WARMUPS = 3;
const REQUESTS_PER_KEY = 50; // under the limit of 60 requests per minute per key
const WINDOW_400_MS = 400 * DAY_MS - 60_000; // from = now - 400 days + 1 minute
const WINDOW_30_MS = 30 * DAY_MS;
const RAW_CLICK_DAYS = 90;
const SHAPE = { links: 200, campaigns: 20, qrCodes: 50 };

// ---------------------------------------------------------------------------------------------
// Cleanup: every resource registers how to release itself; released in reverse order, once.
// An engine's resources are released when that engine is done (releaseTo), the rest at exit.

const children = new Set<ChildProcess>();
const cleanups = benchCleanups({ timeoutMs: 30_000 });
const { onCleanup, releaseTo, cleanup } = cleanups;
const run = guardBenchRun({ children, cleanup, timeLimitS: TIME_LIMIT_S });

// ---------------------------------------------------------------------------------------------
// Small helpers

const fmtS = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const fmtBytes = (b: number) => (b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(2)} GiB` : `${(b / 2 ** 20).toFixed(0)} MiB`);

interface Stats {
  p50: number;
  p99: number;
  max: number;
}
function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN };
}

// ---------------------------------------------------------------------------------------------
// Seeding

interface Seeded {
  cat: Catalog;
  now: number;
  goals: GoalRow[];
}

async function seed(bdb: BenchDatabase, knex: Knex): Promise<Seeded> {
  const now = Date.now();
  const t0 = performance.now();
  const workspaceId = await createWorkspace(knex, 'Bench', 'business');
  const userId = await addMember(knex, workspaceId, 'bench@bench.test', 'OWNER');
  const campaigns: string[] = [];
  for (let i = 0; i < SHAPE.campaigns; i++)
    campaigns.push(await createCampaign(knex, workspaceId, `Campaign ${i + 1}`));
  // Links go straight into the table (the link repository also writes the change feed and
  // webhook events, which are beside the point here).
  const links = Array.from({ length: SHAPE.links }, () => newId('lnk'));
  await knex('links').insert(
    links.map((id, i) => ({
      id,
      workspace_id: workspaceId,
      created_by: userId,
      domain_id: null,
      domain_key: '',
      slug: `conv${i.toString(36).padStart(4, '0')}`,
      original_url: `https://example.com/p/${i}`,
      title: null,
      status: 'ACTIVE',
      policy_locked: false,
      redirect_type: 'TEMPORARY',
      served: 0,
      created_at: now - 401 * DAY_MS,
      updated_at: now - 401 * DAY_MS,
    })),
  );
  const qrCodes: Catalog['qrCodes'] = [];
  for (let i = 0; i < SHAPE.qrCodes; i++) {
    const linkId = links[(i * 4) % links.length];
    qrCodes.push({ id: (await createQrCode(knex, workspaceId, linkId)).id, linkId });
  }
  const cat: Catalog = { workspaceId, userId, links, campaigns, qrCodes };
  log(
    `workspace, member, ${SHAPE.links} links, ${SHAPE.campaigns} campaigns, ${SHAPE.qrCodes} QR codes: ${fmtS(performance.now() - t0)}`,
  );

  const writer = await bdb.bulkWriter();
  try {
    // Conversions over [now − 400 days, now), raw rows and aggregates.
    let t = performance.now();
    const convAgg = new ConversionAggregates();
    await insertStream(
      bdb,
      writer,
      'conversions',
      generateConversions(cat, CONVERSIONS, now - 400 * DAY_MS, now, now, 1),
      (row) => convAgg.add(row),
    );
    const convMs = performance.now() - t;
    t = performance.now();
    await insertConversionAggregates(bdb, writer, convAgg);
    await insertBlockRollups(knex);
    const convAggMs = performance.now() - t;
    log(
      `conversions: ${fmtInt(CONVERSIONS)} raw rows in ${fmtS(convMs)} (${fmtInt(CONVERSIONS / (convMs / 1000))} rows/s, generation and in-memory aggregation included)`,
    );
    log(
      `conversion aggregates: ${fmtInt(convAgg.rowCount)} rows (${[...convAgg.tables].map(([tb, m]) => `${tb.replace('conversion_daily_', '')} ${fmtInt(m.size)}`).join(', ')}) in ${fmtS(convAggMs)}`,
    );

    // Clicks over the same 400 days; raw events only for the last 90.
    t = performance.now();
    const clickAgg = new ClickAggregates();
    const rawFrom = now - RAW_CLICK_DAYS * DAY_MS;
    const rawCount = await insertStream(
      bdb,
      writer,
      'clicks',
      generateClicks(cat, CLICKS, now - 400 * DAY_MS, now, 2),
      (c) => {
        clickAgg.add(c);
        return c.occurred_at >= rawFrom;
      },
    );
    const clickMs = performance.now() - t;
    t = performance.now();
    const counts = await insertClickCounts(bdb, writer, knex, clickAgg);
    const clickAggMs = performance.now() - t;
    log(
      `clicks: ${fmtInt(CLICKS)} generated over 400 days, ${fmtInt(rawCount)} raw rows (last ${RAW_CLICK_DAYS} days) in ${fmtS(clickMs)}`,
    );
    log(
      `click counts: ${fmtInt(counts.linkDaily)} link_daily_clicks + ${fmtInt(counts.qrDaily)} qr_daily_scans rows, links.served, in ${fmtS(clickAggMs)}`,
    );
  } finally {
    await writer.close();
  }

  let t = performance.now();
  const how = await bdb.settle();
  log(`settle: ${how}: ${fmtS(performance.now() - t)}`);
  log(`seeding total: ${fmtS(performance.now() - t0)}`);
  const size = await bdb.size();
  log(
    `database size: ${fmtBytes(size.total)}${
      size.tables.length
        ? ` (with indexes: ${size.tables
            .sort((a, b) => b[1] - a[1])
            .map(([tb, b]) => `${tb} ${fmtBytes(b)}`)
            .join(', ')})`
        : ''
    }`,
  );

  t = performance.now();
  const def = (d: Partial<GoalDefinition> & Pick<GoalDefinition, 'name' | 'type'>): GoalDefinition => ({
    custom_name: null,
    link_id: null,
    qr_code_id: null,
    campaign_id: null,
    target_count: null,
    target_value_minor: null,
    target_currency: null,
    window_start: null,
    window_end: null,
    ...d,
  });
  // Each kind of goal: no scope (standard type, custom with and without a name, a window of its
  // own at odd hours), scoped to a link, a QR code, a campaign.
  const goals = [
    await createGoal(
      knex,
      workspaceId,
      def({
        name: 'purchase, value target',
        type: 'purchase',
        target_value_minor: 1_000_000_000,
        target_currency: 'EUR',
      }),
    ),
    await createGoal(
      knex,
      workspaceId,
      def({ name: 'custom newsletter_optin', type: 'custom', custom_name: 'newsletter_optin', target_count: 10_000 }),
    ),
    await createGoal(knex, workspaceId, def({ name: 'any custom', type: 'custom', target_count: 10_000 })),
    await createGoal(
      knex,
      workspaceId,
      def({
        name: 'signup, own window',
        type: 'signup',
        target_count: 1_000,
        window_start: now - 250 * DAY_MS - 3 * 3_600_000,
        window_end: now - 20 * DAY_MS - 9 * 3_600_000,
      }),
    ),
    await createGoal(
      knex,
      workspaceId,
      def({ name: 'purchase on a link', type: 'purchase', link_id: links[7], target_count: 500 }),
    ),
    await createGoal(
      knex,
      workspaceId,
      def({
        name: 'custom trial_started on a link',
        type: 'custom',
        custom_name: 'trial_started',
        link_id: links[7],
        target_count: 500,
      }),
    ),
    await createGoal(
      knex,
      workspaceId,
      def({ name: 'download on a QR code', type: 'download', qr_code_id: qrCodes[3].id, target_count: 100 }),
    ),
    await createGoal(
      knex,
      workspaceId,
      def({
        name: 'purchase in a campaign',
        type: 'purchase',
        campaign_id: campaigns[3],
        target_value_minor: 5_000_000,
        target_currency: 'USD',
      }),
    ),
  ];
  log(`goals: ${goals.map((g) => g.name).join('; ')}`);
  return { cat, now, goals };
}

// ---------------------------------------------------------------------------------------------
// Child processes

// Loaded into the service with --import: a child whose parent is gone exits by itself.
const WATCHDOG = `const parent = Number(process.env.SHORTLINK_BENCH_PARENT);
setInterval(() => { if (process.ppid !== parent) process.exit(1); }, 500).unref();
`;

interface Child {
  name: string;
  proc: ChildProcess;
  output(): string;
  repeatedLogs(): string[];
  stop(graceMs: number): Promise<void>;
}

function startChild(name: string, argv: string[], env: NodeJS.ProcessEnv): Child {
  const proc = spawn(process.execPath, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const { stop } = watchChild(proc, children, (err) => (tail += `\n${err.message}`));
  // The service logs JSON lines; a message repeated (a failing background poll, say) is shown
  // once, shortened, and counted, so it neither floods the output nor goes unnoticed.
  const seen = new Map<string, number>();
  const echo = (line: string) => {
    let key = line;
    try {
      const o = JSON.parse(line) as { msg?: string; err?: { message?: string } };
      key = `${o.msg ?? ''}${o.err?.message ? `: ${o.err.message.split(' - ').pop()!.split('\n')[0]}` : ''}`;
    } catch {
      // not JSON: the line itself
    }
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    if (n === 0) process.stderr.write(`[${name}] ${short(key, 400)}\n`);
  };
  for (const stream of [proc.stdout!, proc.stderr!]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-8_000);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const l of lines) if (l.trim()) echo(l);
    });
  }
  const child: Child = {
    name,
    proc,
    output: () => tail,
    repeatedLogs: () => [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${n}× ${short(k, 300)}`),
    stop,
  };
  onCleanup(`${name} process`, () => child.stop(10_000));
  return child;
}

// One keep-alive connection, as a dashboard's backend would hold to the API.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
onCleanup('http agent', () => agent.destroy());

function request(port: number, pathname: string, key?: string): Promise<{ status: number; body: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const headers: Record<string, string> = { 'X-Forwarded-Proto': 'https', Accept: 'application/json' };
    if (key) headers.Authorization = `Bearer ${key}`;
    const req = http.get({ host: '127.0.0.1', port, path: pathname, headers, agent, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - t0,
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

async function waitForHealth(child: Child, port: number, ms: number) {
  const until = Date.now() + ms;
  let last = 'no answer';
  while (Date.now() < until) {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
      throw new Error(
        `${child.name} exited (${child.proc.exitCode ?? child.proc.signalCode}) before answering:\n${child.output()}`,
      );
    }
    try {
      const r = await request(port, '/healthz');
      if (r.status === 200) return;
      last = `status ${r.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(200);
  }
  throw new Error(`${child.name} did not answer GET /healthz within ${ms} ms (${last}):\n${child.output()}`);
}

// ---------------------------------------------------------------------------------------------
// Cases

/** Fresh API keys, one per REQUESTS_PER_KEY requests: the rate limit never answers 429. */
class KeyPool {
  private key = '';
  private used = 0;
  minted = 0;
  constructor(
    private readonly knex: Knex,
    private readonly cat: Catalog,
  ) {}
  async take(): Promise<string> {
    if (!this.key || this.used >= REQUESTS_PER_KEY) {
      this.key = (await createKey(this.knex, this.cat.workspaceId, this.cat.userId, ['conversions:read'], null)).key;
      this.used = 0;
      this.minted++;
    }
    this.used++;
    return this.key;
  }
}

interface Split {
  total: number;
  tally: number;
  clicks: number;
  conversions: number;
}

interface Case {
  name: string;
  requests: number;
  path(): string;
  run(knex: Knex): Promise<Split>;
  conversionsOf(body: any): number;
}

/**
 * The windows every case is read over, fixed relative to the clock when a request is sent (they
 * slide with it). A summary reads blocks, days and raw events at a window's ends differently
 * (domain/conversion-reads planReads), so besides the default and the longest window: one whose
 * ends are at odd hours of past days, and one of 63 days holding no whole 32-day block (read
 * from events alone before blocks could be read less what lies outside the window).
 */
interface WindowSpec {
  label: string;
  of(now: number): Window;
  /** The query string of the window ('' for the API's default). */
  query(now: number): string;
}
const BLOCK_MS = 32 * DAY_MS;
const isoParams = (w: Window, withTo: boolean) =>
  `from=${encodeURIComponent(new Date(w.from).toISOString())}${withTo ? `&to=${encodeURIComponent(new Date(w.to).toISOString())}` : ''}`;
const oddWindow = (now: number): Window => ({
  from: now - 399 * DAY_MS - 7 * 3_600_000 - 13 * 60_000,
  to: now - 5 * 3_600_000 - 31 * 60_000,
});
// From 14 hours into a block to 7 hours before the next-but-one ends: no whole block inside.
const gapWindow = (now: number): Window => {
  const block = Math.floor(now / BLOCK_MS) * BLOCK_MS;
  return { from: block - 2 * BLOCK_MS + 14 * 3_600_000, to: block - 7 * 3_600_000 };
};
const WINDOWS = {
  d30: { label: '30 days', of: (now: number) => ({ from: now - WINDOW_30_MS, to: now }), query: () => '' },
  d400: {
    label: '400 days',
    of: (now: number) => ({ from: now - WINDOW_400_MS, to: now }),
    query: (now: number) => isoParams({ from: now - WINDOW_400_MS, to: now }, false),
  },
  // 399 days, 1 hour and 42 minutes, ending 5 hours and 31 minutes ago: both ends at odd times of day.
  odd: { label: 'odd hours, 399 days', of: oddWindow, query: (now: number) => isoParams(oddWindow(now), true) },
  gap: { label: '63 days between blocks', of: gapWindow, query: (now: number) => isoParams(gapWindow(now), true) },
} satisfies Record<string, WindowSpec>;
const withQuery = (path: string, params: string) =>
  params ? `${path}${path.includes('?') ? '&' : '?'}${params}` : path;

/** What getConversionSummary asks of the repositories, in the same order. */
async function summaryQueries(knex: Knex, workspaceId: string, w: Window, filters: ConversionFilters): Promise<Split> {
  const t0 = performance.now();
  const now = Date.now();
  const tally = await tallyConversions(knex, workspaceId, w, filters, now);
  const t1 = performance.now();
  breakdownEntries(tally.byLink);
  breakdownEntries(tally.byQr);
  await countClicks(knex, workspaceId, w, {}, now);
  const t2 = performance.now();
  return { total: t2 - t0, tally: t1 - t0, clicks: t2 - t1, conversions: tally.total };
}

/**
 * Recording a conversion as the handler does (recordConversion: the event, its value total, every
 * aggregate, in one transaction), in process: what a change to the aggregates costs the writer.
 * Conversions naming a link, a campaign and a QR code with a value (the most aggregates) and
 * bare ones, alternating, today.
 */
async function measureRecording(knex: Knex, cat: Catalog): Promise<string> {
  const samples: number[] = [];
  const n = 600;
  for (let i = 0; i < n + 50; i++) {
    const qr = cat.qrCodes[i % cat.qrCodes.length];
    const full = i % 2 === 0;
    const now = Date.now();
    const row = {
      id: newId('cnv'),
      workspace_id: cat.workspaceId,
      event_type: (full ? 'purchase' : 'custom') as 'purchase' | 'custom',
      custom_name: full ? null : CUSTOM_NAMES[i % 5],
      link_id: full ? qr.linkId : null,
      campaign_id: full ? cat.campaigns[i % cat.campaigns.length] : null,
      qr_code_id: full ? qr.id : null,
      amount_minor: full ? 1999 : null,
      currency: full ? 'EUR' : null,
      metadata: null,
      occurred_at: now,
      created_at: now,
    };
    const t0 = performance.now();
    await recordConversion(knex, row, { emit: async () => [] });
    if (i >= 50) samples.push(performance.now() - t0);
  }
  const st = stats(samples);
  return `recording (recordConversion in process, ${n} after 50 warm-ups, half with link, campaign, QR code and value): p50 ${fmtMs(st.p50, 2)} ms, p99 ${fmtMs(st.p99, 2)} ms`;
}

/** What getGoalReport asks of the repositories (the goal, its tally, its clicks). */
async function goalQueries(knex: Knex, workspaceId: string, goalId: string, requested: Window): Promise<Split> {
  const t0 = performance.now();
  const goal = (await getGoal(knex, goalId))!;
  const { window: w } = intersectWindow(requested, goal.window_start, goal.window_end);
  const now = Date.now();
  const tally = await tallyGoal(
    knex,
    workspaceId,
    w,
    {
      eventType: goal.type,
      customName: goal.custom_name,
      linkId: goal.link_id,
      qrCodeId: goal.qr_code_id,
      campaignId: goal.campaign_id,
    },
    now,
  );
  const t1 = performance.now();
  await countClicks(
    knex,
    workspaceId,
    w,
    { onlyLink: goal.link_id ?? undefined, onlyQr: goal.qr_code_id ?? undefined },
    now,
  );
  const t2 = performance.now();
  return { total: t2 - t0, tally: t1 - t0, clicks: t2 - t1, conversions: tally.total };
}

/**
 * Every filter of GET /api/v1/conversions and every combination the API allows (a type, or a
 * custom event's name, with any of link, campaign and QR code), each over 400 days (issue 23:
 * each under 100 ms); the unfiltered summary and each filter alone over every window; each kind
 * of goal over every window. The seeded spread: 14% of conversions per standard type, 30% custom
 * under 5 names, 80% naming one of 200 links, 20% one of 20 campaigns, 5% one of 50 QR codes.
 */
function casesFor(s: Seeded): Case[] {
  const ws = s.cat.workspaceId;
  const summaryTotal = (b: any) => Number(b?.data?.total);
  const goalTotal = (b: any) => Number(b?.data?.conversions);
  const campaignId = s.cat.campaigns[3];
  const qr = s.cat.qrCodes[5];
  // A link no QR code points to; with a QR code named, that QR code's link (else nothing matches).
  const plainLink = s.cat.links[7];
  const types: Array<[string, ConversionFilters]> = [
    ['', {}],
    ['eventType=purchase', { eventType: 'purchase' }],
    ['eventType=custom', { eventType: 'custom' }],
    ['customName', { eventType: 'custom', customName: CUSTOM_NAMES[1] }],
  ];
  const objects: Array<[string, ConversionFilters]> = [];
  for (const link of [false, true]) {
    for (const campaign of [false, true]) {
      for (const qrCode of [false, true]) {
        const f: ConversionFilters = {};
        if (link) f.linkId = qrCode ? qr.linkId : plainLink;
        if (campaign) f.campaignId = campaignId;
        if (qrCode) f.qrCodeId = qr.id;
        objects.push([Object.keys(f).join('+'), f]);
      }
    }
  }
  const summary = (label: string, f: ConversionFilters, win: WindowSpec): Case => {
    // A custom event's name alone implies eventType=custom (as the API reads it).
    const params = new URLSearchParams(
      Object.entries({ ...f, eventType: f.customName ? undefined : f.eventType }).filter(
        ([, v]) => v !== undefined,
      ) as [string, string][],
    );
    return {
      name: `summary ${label || 'unfiltered'}, ${win.label}`,
      requests: REQUESTS,
      path: () => withQuery(`/api/v1/conversions${params.size ? `?${params}` : ''}`, win.query(Date.now())),
      run: (k) => summaryQueries(k, ws, win.of(Date.now()), f),
      conversionsOf: summaryTotal,
    };
  };
  const cases: Case[] = [];
  const allWindows = [WINDOWS.d30, WINDOWS.d400, WINDOWS.odd, WINDOWS.gap];
  for (const [typeLabel, tf] of types) {
    for (const [objectLabel, of] of objects) {
      const label = [typeLabel, objectLabel].filter(Boolean).join('+');
      const single = !typeLabel || !objectLabel;
      for (const win of single ? allWindows : [WINDOWS.d400]) cases.push(summary(label, { ...tf, ...of }, win));
    }
  }
  for (const g of s.goals) {
    for (const win of allWindows) {
      cases.push({
        name: `goal ${g.name}, ${win.label}`,
        requests: REQUESTS,
        path: () => withQuery(`/api/v1/goals/${g.id}/report`, win.query(Date.now())),
        run: (k) => goalQueries(k, ws, g.id, win.of(Date.now())),
        conversionsOf: goalTotal,
      });
    }
  }
  return cases.filter((c) => !CASES || CASES.test(c.name));
}

interface HttpResult {
  stats: Stats;
  errors: number;
  firstError?: string;
  conversions: number;
  bytes: number;
}

async function measureHttp(c: Case, port: number, keys: KeyPool): Promise<HttpResult> {
  const samples: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let conversions = NaN;
  let bytes = 0;
  for (let i = 0; i < WARMUPS + c.requests; i++) {
    const key = await keys.take();
    const r = await request(port, c.path(), key);
    if (r.status !== 200) {
      errors++;
      firstError ??= `${r.status} ${r.body.slice(0, 300)}`;
    } else if (i === WARMUPS + c.requests - 1) {
      conversions = c.conversionsOf(JSON.parse(r.body));
      bytes = Buffer.byteLength(r.body);
    }
    if (i >= WARMUPS) samples.push(r.ms);
  }
  return { stats: stats(samples), errors, firstError, conversions, bytes };
}

interface InProcessResult {
  stats: Stats;
  tallyP50: number;
  clicksP50: number;
  conversions: number;
}

async function measureInProcess(c: Case, knex: Knex): Promise<InProcessResult> {
  const totals: number[] = [];
  const tallies: number[] = [];
  const clicks: number[] = [];
  let conversions = NaN;
  for (let i = 0; i < WARMUPS + c.requests; i++) {
    const r = await c.run(knex);
    conversions = r.conversions;
    if (i < WARMUPS) continue;
    totals.push(r.total);
    tallies.push(r.tally);
    clicks.push(r.clicks);
  }
  return { stats: stats(totals), tallyP50: stats(tallies).p50, clicksP50: stats(clicks).p50, conversions };
}

// Query tracing through knex's query events: one run of a case, each query with its time.
interface TracedQuery {
  sql: string;
  bindings: unknown[];
  ms: number;
}
function installTracer(knex: Knex) {
  let current: TracedQuery[] | null = null;
  const started = new Map<string, { sql: string; bindings: unknown[]; t: number }>();
  knex.on('query', (q: { sql: string; bindings?: unknown[]; __knexQueryUid: string }) => {
    if (current) started.set(q.__knexQueryUid, { sql: q.sql, bindings: q.bindings ?? [], t: performance.now() });
  });
  knex.on('query-response', (_r: unknown, q: { __knexQueryUid: string }) => {
    const s = started.get(q.__knexQueryUid);
    if (!s || !current) return;
    started.delete(q.__knexQueryUid);
    current.push({ sql: s.sql, bindings: s.bindings, ms: performance.now() - s.t });
  });
  return async (run: () => Promise<unknown>): Promise<TracedQuery[]> => {
    current = [];
    try {
      await run();
      return current;
    } finally {
      current = null;
      started.clear();
    }
  };
}

const short = (s: string, n = 220) => (s.length > n ? `${s.slice(0, n)} …` : s);
function describeBindings(b: unknown[]): string {
  if (b.length <= 8) return JSON.stringify(b);
  return `${JSON.stringify(b.slice(0, 4)).slice(0, -1)}, … ${b.length} values]`;
}

// ---------------------------------------------------------------------------------------------
// One engine, start to end

interface EngineReport {
  engine: Engine;
  lines: string[];
}

async function runEngine(engine: Engine): Promise<EngineReport> {
  const mark = cleanups.mark();
  try {
    log(`=== ${engine} ${'='.repeat(80)}`);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `shortlink-bench-conv-${engine}-`));
    onCleanup(`temp dir ${tmp}`, () =>
      KEEP && engine === 'sqlite' ? log(`kept: ${tmp}/bench.db`) : fs.rmSync(tmp, { recursive: true, force: true }),
    );
    const bdb = await createDatabase(engine, tmp, { scratchPrefix: 'sl_bench_conv', keep: KEEP, onCleanup });
    log(`database: ${bdb.describe}`);
    const db = openDatabase(bdb.url, { poolMax: 2 });
    onCleanup(`${engine} knex`, () => db.knex.destroy());
    await migrateLatest(db);
    const seeded = await seed(bdb, db.knex);
    const { knex } = db;

    // Seeded consistency: the aggregates hold every raw conversion; a 400-day summary sees them.
    const [{ raw }] = (await knex('conversions').count({ raw: '*' })) as Array<{ raw: number | string }>;
    const [{ agg }] = (await knex('conversion_daily_type').sum({ agg: 'conversions' })) as Array<{
      agg: number | string;
    }>;
    log(`check: ${fmtInt(Number(raw))} raw conversions, ${fmtInt(Number(agg))} counted in conversion_daily_type`);
    log();

    // The service.
    const port = await freePort();
    const watchdog = path.join(tmp, 'watchdog.mjs');
    fs.writeFileSync(watchdog, WATCHDOG);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SHORTLINK_BENCH_PARENT: String(process.pid),
      DATABASE_URL: bdb.url,
      DATA_DIR: path.join(tmp, 'data'),
      PORT: String(port),
      TLS: 'off',
      TRUST_PROXY: '1',
      SHORT_DOMAIN: 'localhost',
      LOG_LEVEL: 'warn',
    };
    delete env.NODE_OPTIONS;
    const service = startChild(
      `service ${engine}`,
      ['--import', pathToFileURL(watchdog).href, 'bin/shortlink.mjs', 'serve'],
      env,
    );
    const t0 = performance.now();
    await waitForHealth(service, port, 120_000);
    log(
      `service pid ${service.proc.pid} on :${port}, healthy after ${fmtS(performance.now() - t0)}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );

    const keys = new KeyPool(knex, seeded.cat);
    const cases = casesFor(seeded);
    const trace = installTracer(knex);
    const rows: string[][] = [];
    const over: Array<{ c: Case; why: string }> = [];
    const notes: string[] = [];
    for (const c of cases) {
      const h = await measureHttp(c, port, keys);
      const p = await measureInProcess(c, knex);
      const miss = h.stats.p50 >= TARGET_P50_MS || p.stats.p50 >= TARGET_P50_MS;
      if (miss || EXPLAIN === 'always') over.push({ c, why: miss ? 'over target' : '--explain always' });
      if (h.errors) notes.push(`${c.name}: ${h.errors} non-200 answers, first: ${h.firstError}`);
      rows.push([
        c.name,
        String(c.requests),
        fmtMs(h.stats.p50),
        fmtMs(h.stats.p99),
        fmtMs(h.stats.max),
        fmtMs(p.stats.p50),
        fmtMs(p.stats.p99),
        fmtMs(p.stats.max),
        fmtMs(p.tallyP50),
        fmtMs(p.clicksP50),
        fmtMs(h.stats.p50 - p.stats.p50),
        `${Number.isFinite(h.conversions) ? fmtInt(h.conversions) : '-'} / ${fmtInt(p.conversions)}`,
        `${(h.bytes / 1024).toFixed(1)}`,
        os.loadavg()[0].toFixed(1),
        h.errors ? `${h.errors} ERR` : miss ? 'MISS' : 'ok',
      ]);
      process.stderr.write(
        `  [${engine}] ${c.name}: HTTP p50 ${fmtMs(h.stats.p50)} ms, in-process p50 ${fmtMs(p.stats.p50)} ms\n`,
      );
    }
    await service.stop(15_000);
    const repeated = service.repeatedLogs();
    const recording = await measureRecording(knex, seeded.cat);
    notes.push(recording);
    process.stderr.write(`  [${engine}] ${recording}\n`);

    const lines: string[] = [];
    lines.push(
      `results, ${engine}: sequential requests on one keep-alive connection, ${WARMUPS} warm-ups per case, ${fmtInt(keys.minted)} API keys minted`,
    );
    lines.push(
      table(
        [
          'case',
          'n',
          'HTTP p50',
          'p99',
          'max',
          'in-proc p50',
          'p99',
          'max',
          'tally p50',
          'clicks p50',
          'HTTP-in-proc p50',
          'conversions HTTP / in-proc',
          'KiB',
          'load',
          `p50 < ${TARGET_P50_MS} ms`,
        ],
        rows,
      ),
    );
    lines.push(
      `(ms; with n ≤ 100 the p99 is the slowest sample; "tally" = tallyConversions/tallyGoal, "clicks" = countClicks, both in-process; conversions = data.total or data.conversions of the last answer / of the last in-process run (windows slide with the clock, so they may differ by a few); KiB = response body; load = 1-minute load average after the case, on ${os.availableParallelism()} CPUs)`,
    );
    for (const n of notes) lines.push(`NOTE ${n}`);
    for (const r of repeated) lines.push(`NOTE the service logged, while measured: ${r}`);
    for (const l of lines) log(l);
    log();

    // Profiles of the cases over the target.
    if (EXPLAIN !== 'never' && over.length) {
      log(
        `query profiles (${engine}): one traced in-process run per case, queries by time; plans of the queries over 5 ms`,
      );
      for (const { c, why } of over) {
        const queries = await trace(() => c.run(knex));
        const sum = queries.reduce((s, q) => s + q.ms, 0);
        log(`- ${c.name} (${why}): ${queries.length} queries, ${fmtMs(sum)} ms`);
        const sorted = [...queries].sort((a, b) => b.ms - a.ms);
        for (const q of sorted.slice(0, 6))
          log(
            `    ${fmtMs(q.ms).padStart(7)} ms  ${short(q.sql.replace(/\s+/g, ' '))}  ${describeBindings(q.bindings)}`,
          );
        for (const q of sorted.filter((x) => x.ms >= 5).slice(0, 3)) {
          log(`    plan of the ${fmtMs(q.ms)} ms query: ${short(q.sql.replace(/\s+/g, ' '), 400)}`);
          try {
            for (const l of await bdb.explain(q.sql, q.bindings)) log(`      ${short(l, 300)}`);
          } catch (err) {
            log(`      (explain failed: ${(err as Error).message})`);
          }
        }
      }
      log();
    }
    return { engine, lines };
  } finally {
    await releaseTo(mark);
  }
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const cpus = os.cpus();
  log('Shortlink conversion summary and goal report benchmark');
  log(
    `machine: ${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}`,
  );
  log(
    `load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (the service, the database and this client share the machine)`,
  );
  log(
    `data: ${fmtInt(CONVERSIONS)} conversions and ${fmtInt(CLICKS)} clicks over 400 days; ${SHAPE.links} links, ${SHAPE.campaigns} campaigns, ${SHAPE.qrCodes} QR codes; ${REQUESTS} requests per case; engines: ${ENGINES.join(', ')}; time limit ${TIME_LIMIT_S} s`,
  );
  log(`aggregate rows vs insertConversion: ${await checkAggregatesAgainstInsertConversion()}`);
  log();
  const reports: EngineReport[] = [];
  for (const engine of ENGINES) reports.push(await runEngine(engine));
  if (reports.length > 1) {
    log('=== summary '.padEnd(90, '='));
    for (const r of reports) {
      for (const l of r.lines) log(l);
      log();
    }
  }
}

await finishBench(main, run, cleanup);
