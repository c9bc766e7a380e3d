// Mixed-load benchmark: do API requests hold up the redirect path? Redirects under wrk, first
// alone, then with a paced API load beside them, on a database with a year of conversions and a
// busy day of clicks. It prints figures and asserts nothing.
//
//   npx tsx bench/mixed-load.ts [--engine sqlite|postgres|both] [--conversions 1000000]
//                               [--clicks-today 2000000] [--history-per-day 20000] [--links 1000]
//                               [--seconds 60] [--connections 96] [--api-workers 8] [--api-rate 1]
//                               [--keep] [--time-limit SECONDS]
//
// What it does, per engine:
//  1. creates a fresh database (a SQLite file in a temp dir, or a Postgres database created on
//     TEST_POSTGRES_URL and dropped at the end) and migrates it; adds a workspace on the business
//     plan and its OWNER through the repositories, --links links straight into `links` (the
//     slugs the redirect load visits), 20 campaigns and 50 QR codes;
//  2. bulk-loads, with bench/seed-analytics.ts exactly as bench/conversions.ts does, --conversions
//     conversions spread over the last 400 days with their daily aggregates and 32-day block
//     rollups; --clicks-today raw clicks spread over [UTC midnight today, now) and
//     --history-per-day raw clicks on each of the 89 days before (so 30-day windows hold whole
//     days of clicks too), with their link_daily_clicks, qr_daily_scans and links.served rows, as
//     the click writer leaves them;
//  3. creates two goals through createGoal (an unscoped purchase goal with a value target; a
//     purchase goal scoped to a link) and mints API keys with the scopes the load uses
//     (links:read, links:write, conversions:read, conversions:write), enough that no key makes
//     more than 45 requests a minute at --api-workers × --api-rate (the limit is 60 per key);
//     settles the database (SQLite: WAL checkpoint; Postgres: VACUUM ANALYZE) and prints the
//     seeding times;
//  4. starts `node bin/shortlink.mjs serve` as behind a TLS-terminating proxy (TLS=off
//     TRUST_PROXY=1, SHORT_DOMAIN=localhost, PUBLIC_URL=https://localhost, a free port, a fresh
//     DATA_DIR, LOG_LEVEL=warn), waits for /healthz, creates 20 links through the API (targets for
//     the PATCHes) and visits every seeded link once, so the redirect cache is warm;
//  5. phase "redirects alone": wrk -t1 -c{--connections}, a 5 s warm-up run (discarded), then
//     --seconds measured; a random seeded slug per request, a browser User-Agent (every visit is
//     a counted click), Host: localhost, X-Forwarded-Proto: https. The wrk script prints one JSON
//     line: requests, duration, requests/s, latency p50/p90/p99/p99.9/max, socket errors,
//     timeouts and answers that are not 3xx;
//  6. phase "redirects + API": the same two wrk runs while --api-workers async loops in this
//     process (keep-alive connections) send at most --api-rate requests a second each, paced (a
//     request starts 1/rate s after the previous one started, or when it ends if it took
//     longer), the kinds drawn by API_MIX: conversion summaries (30-day default, 7-day or
//     400-day windows, unfiltered or by eventType, linkId, campaignId, qrCodeId or customName),
//     goal reports, recorded conversions, reads of a link, pages of the link list, created links
//     and title changes of links the bench created; keys taken in turn. Answers to requests started
//     in the measured run count;
//  7. prints per engine: redirects/s, latency and errors per phase with the service's CPU time, the
//     ratio of the two rates, the targets (during the mixed load: redirect p99 under 10 ms, p99.9
//     under 50 ms, rate at least 80% of the redirects-alone rate) met or not, the API per kind
//     (count, statuses, p50/p99/max), any 5xx or 429 loudly, and whether every redirect of the run
//     was recorded as a click.
// Every child process, temp file and database is removed at the end, on error, on Ctrl-C and when
// --time-limit runs out; with --keep the seeded databases stay (their addresses are printed).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { migrateLatest, openDatabase, type Engine } from '../src/db/knex';
import { createGoal, type GoalDefinition, type GoalRow } from '../src/db/repos/goals';
import { addMember, createWorkspace } from '../src/db/repos/workspaces';
import { createKey } from '../src/db/repos/api-keys';
import { createCampaign, createQrCode } from '../src/db/repos/workspace-objects';
import type { Scope } from '../src/domain/access';
import { DAY_MS } from '../src/domain/conversions';
import { newId } from '../src/domain/ids';
import { benchCleanups, finishBench, guardBenchRun, watchChild } from './lifecycle';
import {
  ClickAggregates,
  ConversionAggregates,
  createDatabase,
  CURRENCIES,
  CUSTOM_NAMES,
  generateClicks,
  generateConversions,
  insertBlockRollups,
  insertClickCounts,
  insertConversionAggregates,
  insertStream,
  STANDARD_TYPES,
  type BenchDatabase,
  type Catalog,
} from './seed-analytics';
import { cpuMs, fmtInt, fmtMs, freePort, log, percentile, sleep, table, threadCpuMs, buildService } from './util';

// ---------------------------------------------------------------------------------------------
// Options

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'both' },
    conversions: { type: 'string', default: '1000000' },
    'clicks-today': { type: 'string', default: '2000000' },
    'history-per-day': { type: 'string', default: '20000' },
    links: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '60' },
    connections: { type: 'string', default: '96' },
    'api-workers': { type: 'string', default: '8' },
    'api-rate': { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    'time-limit': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
  allowPositionals: false,
});
if (args.help) {
  const lines = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
  const header = lines.slice(
    0,
    lines.findIndex((l) => !l.startsWith('//')),
  );
  process.stdout.write(`${header.map((l) => l.replace(/^\/\/ ?/, '')).join('\n')}\n`);
  process.exit(0);
}
function usage(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
const integer = (name: string, v: string | undefined, min = 1): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) usage(`--${name} must be an integer ≥ ${min}; got ${v}`);
  return n;
};
if (!['sqlite', 'postgres', 'both'].includes(args.engine!))
  usage(`--engine must be sqlite, postgres or both; got ${args.engine}`);
const ENGINES: Engine[] = args.engine === 'both' ? ['sqlite', 'postgres'] : [args.engine as Engine];
const CONVERSIONS = integer('conversions', args.conversions);
const CLICKS_TODAY = integer('clicks-today', args['clicks-today'], 0);
const HISTORY_PER_DAY = integer('history-per-day', args['history-per-day'], 0);
const LINKS = integer('links', args.links);
const SECONDS = integer('seconds', args.seconds);
const CONNECTIONS = integer('connections', args.connections);
const API_WORKERS = integer('api-workers', args['api-workers']);
const API_RATE = Number(args['api-rate']);
if (!(API_RATE > 0) || API_RATE > 100)
  usage(`--api-rate must be a number of requests a second per worker, 0 < rate ≤ 100; got ${args['api-rate']}`);
const KEEP = args.keep!;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
buildService(ROOT);
const WARMUP_S = 5;
const HISTORY_DAYS = 89; // with today, the 90 days of raw click retention
const SHAPE = { campaigns: 20, qrCodes: 50, apiLinks: 20 };
// The limit is 60 requests a minute per key; 45 leaves room for a fixed window that happens to
// catch a worker catching up after a slow answer.
const REQUESTS_PER_KEY_MINUTE = 45;
const API_PER_MINUTE = API_WORKERS * API_RATE * 60;
const API_KEYS = Math.max(1, Math.ceil(API_PER_MINUTE / REQUESTS_PER_KEY_MINUTE));
const API_SCOPES: Scope[] = ['links:read', 'links:write', 'conversions:read', 'conversions:write'];
// Generous: seeding at a pessimistic rate per row, four wrk runs, start, warm-up and shutdown.
const TIME_LIMIT_S = args['time-limit']
  ? integer('time-limit', args['time-limit'])
  : Math.ceil(
      ENGINES.length *
        (300 +
          (CONVERSIONS + (CLICKS_TODAY + HISTORY_DAYS * HISTORY_PER_DAY) / 2) / 2_000 +
          LINKS / 200 +
          3 * (SECONDS + WARMUP_S)),
    );

// What the API load sends, by share (they add up to 100).
type ApiKind =
  | 'summary'
  | 'goal report'
  | 'record conversion'
  | 'get link'
  | 'list links'
  | 'create link'
  | 'update link';
const API_MIX: ReadonlyArray<readonly [ApiKind, number]> = [
  ['summary', 5],
  ['goal report', 5],
  ['record conversion', 25],
  ['get link', 20],
  ['list links', 15],
  ['create link', 20],
  ['update link', 10],
];

const PERSON_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const VISIT_HEADERS = { 'User-Agent': PERSON_UA, 'X-Forwarded-Proto': 'https', Host: 'localhost' };
const TARGETS = { p99Ms: 10, p999Ms: 50, rateShare: 0.8 };

// ---------------------------------------------------------------------------------------------
// Cleanup: every resource registers how to release itself; released in reverse order, once.
// An engine's resources are released when that engine is done (releaseTo), the rest at exit.

let currentLoad: { stop(): void } | undefined;
const children = new Set<ChildProcess>();
const cleanups = benchCleanups({ timeoutMs: 30_000, first: () => currentLoad?.stop() });
const { onCleanup, releaseTo, cleanup } = cleanups;
const run = guardBenchRun({ children, cleanup, timeLimitS: TIME_LIMIT_S });

// ---------------------------------------------------------------------------------------------
// Small helpers

const fmtS = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const fmtBytes = (b: number) => (b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(2)} GiB` : `${(b / 2 ** 20).toFixed(0)} MiB`);
const fmtPct = (r: number) => (Number.isFinite(r) ? `${(r * 100).toFixed(1)}%` : '-');
const short = (s: string, n = 220) => (s.length > n ? `${s.slice(0, n)} …` : s);
const loadAvg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

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

interface Answer {
  status: number;
  body: string;
  ms: number;
}

/** One request to the service (plain HTTP, as behind the proxy). */
function send(
  agent: http.Agent,
  port: number,
  method: string,
  pathname: string,
  o: { headers?: Record<string, string>; key?: string; body?: unknown } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
    const headers: Record<string, string> = { 'X-Forwarded-Proto': 'https', Accept: 'application/json', ...o.headers };
    if (o.key) headers.Authorization = `Bearer ${o.key}`;
    if (payload !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const t0 = performance.now();
    const req = http.request(
      { host: '127.0.0.1', port, method, path: pathname, headers, agent, timeout: 60_000 },
      (res) => {
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
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout after 60 s')));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

async function waitForHealth(child: Child, agent: http.Agent, port: number, ms: number) {
  const until = Date.now() + ms;
  let last = 'no answer';
  while (Date.now() < until) {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
      throw new Error(
        `${child.name} exited (${child.proc.exitCode ?? child.proc.signalCode}) before answering:\n${child.output()}`,
      );
    }
    try {
      const r = await send(agent, port, 'GET', '/healthz');
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
// Seeding

interface Seeded {
  cat: Catalog;
  slugs: string[];
  goals: GoalRow[];
  keys: string[];
  setupKey: string;
}

// 7 characters of [a-z0-9], like generated slugs; `mx` keeps them apart from generated ones.
const slugOf = (i: number) => `mx${i.toString(36).padStart(5, '0')}`;

async function seed(bdb: BenchDatabase, knex: Knex): Promise<Seeded> {
  const now = Date.now();
  const todayStart = Math.floor(now / DAY_MS) * DAY_MS;
  const t0 = performance.now();
  const workspaceId = await createWorkspace(knex, 'Bench mixed load', 'business');
  const userId = await addMember(knex, workspaceId, 'bench@bench.test', 'OWNER');
  const campaigns: string[] = [];
  for (let i = 0; i < SHAPE.campaigns; i++)
    campaigns.push(await createCampaign(knex, workspaceId, `Campaign ${i + 1}`));
  // Links go straight into the table (the link repository also writes the change feed and
  // webhook events, which are beside the point here); in slices, as SQLite caps the bound
  // parameters of one statement.
  const links = Array.from({ length: LINKS }, () => newId('lnk'));
  const slugs = links.map((_, i) => slugOf(i));
  const rows = links.map((id, i) => ({
    id,
    workspace_id: workspaceId,
    created_by: userId,
    domain_id: null,
    domain_key: '',
    slug: slugs[i],
    original_url: `https://example.com/p/${i}`,
    title: null,
    status: 'ACTIVE',
    policy_locked: false,
    redirect_type: 'TEMPORARY',
    served: 0,
    created_at: now - 401 * DAY_MS,
    updated_at: now - 401 * DAY_MS,
  }));
  for (let i = 0; i < rows.length; i += 500) await knex('links').insert(rows.slice(i, i + 500));
  const qrCodes: Catalog['qrCodes'] = [];
  for (let i = 0; i < SHAPE.qrCodes; i++) {
    const linkId = links[(i * 4) % links.length];
    qrCodes.push({ id: (await createQrCode(knex, workspaceId, linkId)).id, linkId });
  }
  const cat: Catalog = { workspaceId, userId, links, campaigns, qrCodes };
  log(
    `workspace, member, ${fmtInt(LINKS)} links, ${SHAPE.campaigns} campaigns, ${SHAPE.qrCodes} QR codes: ${fmtS(performance.now() - t0)}`,
  );

  const writer = await bdb.bulkWriter();
  try {
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
    log(
      `conversions: ${fmtInt(CONVERSIONS)} raw rows over 400 days in ${fmtS(convMs)} (${fmtInt(CONVERSIONS / (convMs / 1000))} rows/s); ${fmtInt(convAgg.rowCount)} daily aggregate rows and the block rollups in ${fmtS(performance.now() - t)}`,
    );

    // Today's clicks, then the days before: disjoint days, so one set of counts holds both.
    const clickAgg = new ClickAggregates();
    t = performance.now();
    const today = await insertStream(
      bdb,
      writer,
      'clicks',
      generateClicks(cat, CLICKS_TODAY, todayStart, now, 2),
      (c) => clickAgg.add(c),
    );
    const todayMs = performance.now() - t;
    t = performance.now();
    const history = await insertStream(
      bdb,
      writer,
      'clicks',
      generateClicks(cat, HISTORY_DAYS * HISTORY_PER_DAY, todayStart - HISTORY_DAYS * DAY_MS, todayStart, 3),
      (c) => clickAgg.add(c),
    );
    const historyMs = performance.now() - t;
    t = performance.now();
    const counts = await insertClickCounts(bdb, writer, knex, clickAgg);
    log(
      `clicks: ${fmtInt(today)} raw rows today (since ${new Date(todayStart).toISOString()}, ${((now - todayStart) / 3_600_000).toFixed(1)} h) in ${fmtS(todayMs)}, ` +
        `${fmtInt(history)} over the ${HISTORY_DAYS} days before in ${fmtS(historyMs)}; ` +
        `${fmtInt(counts.linkDaily)} link_daily_clicks + ${fmtInt(counts.qrDaily)} qr_daily_scans rows, links.served, in ${fmtS(performance.now() - t)}`,
    );
  } finally {
    await writer.close();
  }

  let t = performance.now();
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
      def({ name: 'purchase on a link', type: 'purchase', link_id: links[7 % links.length], target_count: 500 }),
    ),
  ];
  const keys: string[] = [];
  for (let i = 0; i < API_KEYS; i++) keys.push((await createKey(knex, workspaceId, userId, API_SCOPES, null)).key);
  const setupKey = (await createKey(knex, workspaceId, userId, ['links:write'], null)).key;
  log(
    `goals: ${goals.map((g) => g.name).join('; ')}; ${API_KEYS} API keys for the load + 1 for setup: ${fmtS(performance.now() - t)}`,
  );

  t = performance.now();
  const how = await bdb.settle();
  log(`settle: ${how}: ${fmtS(performance.now() - t)}`);
  log(`seeding total: ${fmtS(performance.now() - t0)}`);
  const size = await bdb.size();
  log(
    `database size: ${fmtBytes(size.total)}${
      size.tables.length
        ? ` (with indexes: ${size.tables
            .sort((a, b) => b[1] - a[1])
            .slice(0, 5)
            .map(([tb, b]) => `${tb} ${fmtBytes(b)}`)
            .join(', ')}, …)`
        : ''
    }`,
  );
  return { cat, slugs, goals, keys, setupKey };
}

// ---------------------------------------------------------------------------------------------
// Redirect load: wrk

// The request bytes wrk sends, after "GET /<slug>".
const REQUEST_TAIL = ` HTTP/1.1\r\n${Object.entries(VISIT_HEADERS)
  .map(([k, v]) => `${k}: ${v}\r\n`)
  .join('')}\r\n`;

// A random slug per request from a file of fixed-width records (as bench/redirect.ts: one
// string, not a Lua table of strings, which made LuaJIT's collector stall the client). wrk counts
// only answers ≥ 400 as errors; response() counts everything that is not a redirect, at a cost
// too small to show against a bare node:http server (about 100,000 requests/s either way).
// Each thread's count lives in its own Lua state; done() collects them through setup's threads.
// Latencies are µs in wrk, printed in ms.
const WRK_SCRIPT = `local f = assert(io.open(os.getenv("WRK_PATHS"), "rb"))
local width = tonumber(f:read("*l"))
local records = f:read("*a")
f:close()
local n = math.floor(#records / width)
local tail = ${JSON.stringify(REQUEST_TAIL)}
math.randomseed(os.time())
request = function()
  local at = (math.random(n) - 1) * width + 1
  return "GET " .. records:sub(at, at + width - 1):match("^%S+") .. tail
end
local threads = {}
setup = function(thread) table.insert(threads, thread) end
init = function() non3xx = 0 end
response = function(status) if status < 300 or status > 399 then non3xx = non3xx + 1 end end
done = function(summary, latency, requests)
  local non = 0
  for _, t in ipairs(threads) do non = non + (t:get("non3xx") or 0) end
  local e = summary.errors
  local s = summary.duration / 1e6
  io.write(string.format('{"requests":%d,"durationS":%.6f,"rps":%.3f,"p50":%.3f,"p90":%.3f,"p99":%.3f,"p999":%.3f,"max":%.3f,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"non3xx":%d}\\n',
    summary.requests, s, summary.requests / s, latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency:percentile(99.9) / 1000, latency.max / 1000, e.connect, e.read, e.write, e.status, e.timeout, non))
end
`;

interface WrkResult {
  requests: number;
  durationS: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  non3xx: number;
}

function writeWrkFiles(dir: string, slugs: string[]): { script: string; paths: string } {
  const script = path.join(dir, 'mixed.lua');
  const paths = path.join(dir, 'paths.txt');
  fs.writeFileSync(script, WRK_SCRIPT);
  const width = Math.max(...slugs.map((s) => s.length + 1));
  fs.writeFileSync(paths, `${width}\n${slugs.map((s) => `/${s}`.padEnd(width)).join('')}`);
  return { script, paths };
}

async function runWrk(port: number, files: { script: string; paths: string }, seconds: number): Promise<WrkResult> {
  const proc = spawn(
    'wrk',
    ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '10s', '-s', files.script, `http://127.0.0.1:${port}`],
    {
      env: { ...process.env, WRK_PATHS: files.paths },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const { exited, stop } = watchChild(proc, children, (err) => (out += `\n${err.message}`));
  currentLoad = { stop: () => void stop(0) };
  proc.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  await exited;
  currentLoad = undefined;
  // wrk's own report comes first; the script's JSON line is the one starting with {"requests".
  const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
  if (run.aborting) throw new Error('wrk stopped: the bench is cleaning up');
  if (proc.exitCode !== 0 || !line) throw new Error(`wrk failed (exit ${proc.exitCode ?? proc.signalCode}):\n${out}`);
  return JSON.parse(line) as WrkResult;
}

// ---------------------------------------------------------------------------------------------
// API load: paced workers in this process

class KindStats {
  count = 0;
  readonly statuses = new Map<string, number>();
  readonly ms: number[] = [];
  firstUnexpected: string | undefined;
  record(status: string, ms: number, expected: boolean, detail: string) {
    this.count++;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    this.ms.push(ms);
    if (!expected) this.firstUnexpected ??= detail;
  }
}

const WINDOWS = [
  { name: '30 days (default)', query: () => [] as string[] },
  {
    name: '7 days',
    query: () => {
      const now = Date.now();
      return [
        `from=${encodeURIComponent(new Date(now - 7 * DAY_MS).toISOString())}`,
        `to=${encodeURIComponent(new Date(now).toISOString())}`,
      ];
    },
  },
  // The longest window the API takes: 400 days, less a minute for the clock moving in between.
  {
    name: '400 days',
    query: () => [`from=${encodeURIComponent(new Date(Date.now() - 400 * DAY_MS + 60_000).toISOString())}`],
  },
];

class ApiLoad {
  /** By kind, and for summaries also by window ("summary · 400 days"); only requests started while recording. */
  readonly stats = new Map<string, KindStats>();
  recording = false;
  private stopped = false;
  private stopping!: () => void;
  private readonly stopSignal = new Promise<void>((resolve) => (this.stopping = resolve));
  private workers: Array<Promise<void>> = [];
  private n = 0;
  private serial = 0;
  private readonly created: string[];
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: API_WORKERS });
  private readonly totalShare = API_MIX.reduce((s, [, share]) => s + share, 0);

  constructor(
    private readonly port: number,
    private readonly s: Seeded,
    apiLinks: string[],
  ) {
    this.created = [...apiLinks];
    onCleanup('API load', () => {
      this.halt();
      this.agent.destroy();
    });
  }

  start() {
    this.workers = Array.from({ length: API_WORKERS }, (_, i) => this.worker(i));
  }

  /** Stops after the requests in flight are answered. */
  async stop() {
    this.halt();
    await Promise.all(this.workers);
  }

  private halt() {
    this.stopped = true;
    this.stopping();
  }

  private async worker(i: number) {
    const interval = 1000 / API_RATE;
    // Staggered, so the workers' requests do not arrive together.
    let next = performance.now() + (i * interval) / API_WORKERS;
    while (!this.stopped) {
      const wait = next - performance.now();
      if (wait > 0) await Promise.race([sleep(wait), this.stopSignal]);
      if (this.stopped) break;
      next = performance.now() + interval;
      await this.one();
    }
  }

  private kind(): ApiKind {
    let r = Math.random() * this.totalShare;
    for (const [kind, share] of API_MIX) if ((r -= share) < 0) return kind;
    return API_MIX[API_MIX.length - 1][0];
  }

  private async one() {
    const recording = this.recording;
    const kind = this.kind();
    const rnd = <T>(xs: readonly T[]): T => xs[(Math.random() * xs.length) | 0];
    const { cat, goals } = this.s;
    let method = 'GET';
    let pathname: string;
    let body: unknown;
    let expected = 200;
    let detail: string | undefined;
    switch (kind) {
      case 'summary': {
        const w = rnd(WINDOWS);
        const filters: Array<() => string | null> = [
          () => null,
          () => 'eventType=purchase',
          () => `linkId=${rnd(cat.links)}`,
          () => `campaignId=${rnd(cat.campaigns)}`,
          () => `qrCodeId=${rnd(cat.qrCodes).id}`,
          () => `customName=${rnd(CUSTOM_NAMES)}`,
        ];
        const q = [...w.query(), rnd(filters)()].filter((x): x is string => x !== null);
        pathname = `/api/v1/conversions${q.length ? `?${q.join('&')}` : ''}`;
        detail = `summary · ${w.name}`;
        break;
      }
      case 'goal report':
        pathname = `/api/v1/goals/${rnd(goals).id}/report`;
        break;
      case 'record conversion': {
        method = 'POST';
        pathname = '/api/v1/conversions';
        expected = 201;
        const custom = Math.random() < 0.3;
        const b: Record<string, unknown> = { eventType: custom ? 'custom' : rnd(STANDARD_TYPES) };
        if (custom) b.customName = rnd(CUSTOM_NAMES);
        if (Math.random() < 0.5)
          b.value = { amountMinor: 100 + Math.floor(Math.random() * 49_900), currency: rnd(CURRENCIES) };
        if (Math.random() < 0.6) b.linkId = rnd(cat.links);
        body = b;
        break;
      }
      case 'get link':
        pathname = `/api/v1/links/${rnd(cat.links)}`;
        break;
      case 'list links': {
        const pages = Math.ceil((cat.links.length + this.created.length) / 20);
        pathname = `/api/v1/links?page=${1 + Math.floor(Math.random() * pages)}&limit=20`;
        break;
      }
      case 'create link':
        method = 'POST';
        pathname = '/api/v1/links';
        expected = 201;
        body = { url: `https://example.com/mixed/${process.pid}/${++this.serial}` };
        break;
      case 'update link':
        method = 'PATCH';
        pathname = `/api/v1/links/${rnd(this.created)}`;
        body = { title: `Mixed load ${++this.serial}` };
        break;
    }
    const key = this.s.keys[this.n++ % this.s.keys.length];
    let status: string;
    let ms: number;
    let note: string;
    try {
      const r = await send(this.agent, this.port, method, pathname, { key, body });
      status = String(r.status);
      ms = r.ms;
      note = `${method} ${pathname} → ${r.status} ${short(r.body.replace(/\s+/g, ' '), 300)}`;
      if (kind === 'create link' && r.status === 201)
        this.created.push((JSON.parse(r.body) as { data: { id: string } }).data.id);
    } catch (err) {
      status = 'error';
      ms = NaN;
      note = `${method} ${pathname} → ${(err as Error).message}`;
    }
    if (!recording) return;
    const ok = status === String(expected);
    for (const k of detail ? [kind, detail] : [kind]) {
      let st = this.stats.get(k);
      if (!st) this.stats.set(k, (st = new KindStats()));
      st.record(status, ms, ok, note);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// One engine, start to end

interface Phase {
  name: string;
  wrk: WrkResult;
  /** The discarded warm-up run (its redirects are clicks too). */
  warmup: WrkResult;
  /** The service's CPU time over the measured run, ms: all threads, the main one, the rest. */
  cpu: { total: number; main: number; others: number };
}

/**
 * A discarded warm-up run, then the measured one; `measuring` hears when the measured run starts
 * and ends (the API load counts only the requests it starts in between).
 */
async function measure(
  name: string,
  port: number,
  pid: number,
  files: { script: string; paths: string },
  measuring?: (on: boolean) => void,
): Promise<Phase> {
  process.stderr.write(`  ${name}: ${WARMUP_S} s warm-up, then ${SECONDS} s measured (load average ${loadAvg()})\n`);
  const warmup = await runWrk(port, files, WARMUP_S);
  const before = cpuMs(pid);
  const threadsBefore = threadCpuMs(pid);
  measuring?.(true);
  const wrk = await runWrk(port, files, SECONDS);
  measuring?.(false);
  const total = cpuMs(pid) - before;
  const main = (threadCpuMs(pid).get(pid) ?? NaN) - (threadsBefore.get(pid) ?? NaN);
  return { name, wrk, warmup, cpu: { total, main, others: total - main } };
}

interface EngineReport {
  engine: Engine;
  lines: string[];
}

async function runEngine(engine: Engine): Promise<EngineReport> {
  const mark = cleanups.mark();
  try {
    log(`=== ${engine} ${'='.repeat(80)}`);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `shortlink-bench-mixed-${engine}-`));
    onCleanup(`temp dir ${tmp}`, () =>
      KEEP && engine === 'sqlite' ? log(`kept: ${tmp}/bench.db`) : fs.rmSync(tmp, { recursive: true, force: true }),
    );
    const bdb = await createDatabase(engine, tmp, { scratchPrefix: 'sl_bench_mixed', keep: KEEP, onCleanup });
    log(`database: ${bdb.describe}`);
    const db = openDatabase(bdb.url, { poolMax: 2 });
    onCleanup(`${engine} knex`, () => db.knex.destroy());
    await migrateLatest(db);
    const seeded = await seed(bdb, db.knex);
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
      PUBLIC_URL: 'https://localhost',
      SHORT_DOMAIN: 'localhost',
      LOG_LEVEL: 'warn',
    };
    delete env.NODE_OPTIONS;
    const serviceStartedAt = Date.now();
    const service = startChild(
      `service ${engine}`,
      ['--import', pathToFileURL(watchdog).href, 'bin/shortlink.mjs', 'serve'],
      env,
    );
    const pid = service.proc.pid!;
    const setupAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    onCleanup('setup agent', () => setupAgent.destroy());
    let t = performance.now();
    await waitForHealth(service, setupAgent, port, 120_000);
    log(`service pid ${pid} on :${port}, healthy after ${fmtS(performance.now() - t)}`);

    const apiLinks: string[] = [];
    for (let i = 0; i < SHAPE.apiLinks; i++) {
      const r = await send(setupAgent, port, 'POST', '/api/v1/links', {
        key: seeded.setupKey,
        body: { url: `https://example.com/mixed/setup/${i}` },
      });
      if (r.status !== 201) throw new Error(`creating a link through the API: ${r.status} ${r.body}`);
      apiLinks.push((JSON.parse(r.body) as { data: { id: string } }).data.id);
    }
    // Every seeded link once, 16 at a time: the redirect cache holds them all before measuring.
    t = performance.now();
    const warmStatuses = new Map<number, number>();
    let nextSlug = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (nextSlug < seeded.slugs.length) {
          const r = await send(setupAgent, port, 'GET', `/${seeded.slugs[nextSlug++]}`, { headers: VISIT_HEADERS });
          warmStatuses.set(r.status, (warmStatuses.get(r.status) ?? 0) + 1);
        }
      }),
    );
    const warm302 = warmStatuses.get(302) ?? 0;
    log(
      `${SHAPE.apiLinks} links created through the API; cache warmed: ${fmtInt(seeded.slugs.length)} links visited in ${fmtS(performance.now() - t)} (${[...warmStatuses].map(([s, n]) => `${s} ×${fmtInt(n)}`).join(', ')})`,
    );
    if (warm302 !== seeded.slugs.length)
      log(`WARNING: not every seeded link answered 302; the redirect figures below are not all redirects`);
    log(`load average before measuring: ${loadAvg()}`);

    const files = writeWrkFiles(tmp, seeded.slugs);
    const phases: Phase[] = [];
    phases.push(await measure('redirects alone', port, pid, files));

    const api = new ApiLoad(port, seeded, apiLinks);
    let apiFrom = 0;
    let apiSeconds = NaN;
    api.start();
    try {
      phases.push(
        await measure('redirects + API', port, pid, files, (on) => {
          api.recording = on;
          if (on) apiFrom = performance.now();
          else apiSeconds = (performance.now() - apiFrom) / 1000;
        }),
      );
    } finally {
      await api.stop();
    }

    // Every redirect of the run should become a click once the writer has flushed (1 s batches).
    await sleep(3_000);
    const [{ n: recorded }] = (await db
      .knex('clicks')
      .where('workspace_id', seeded.cat.workspaceId)
      .andWhere('occurred_at', '>=', serviceStartedAt)
      .count({ n: '*' })) as Array<{ n: number | string }>;
    const served302 =
      warm302 + phases.reduce((s, p) => s + p.wrk.requests - p.wrk.non3xx + p.warmup.requests - p.warmup.non3xx, 0);
    // A request in flight when a wrk run stops is answered (and recorded) but not counted.
    const inFlight = 2 * phases.length * CONNECTIONS;
    await service.stop(15_000);
    const repeated = service.repeatedLogs();

    // Report.
    const [alone, mixed] = phases;
    const ratio = mixed.wrk.rps / alone.wrk.rps;
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT MET');
    const lines: string[] = [];
    lines.push(
      `redirects, ${engine}: wrk -t1 -c${CONNECTIONS}, ${SECONDS} s measured after ${WARMUP_S} s of warm-up, a random one of ${fmtInt(LINKS)} links per request; ` +
        `API: ${API_WORKERS} workers × at most ${API_RATE}/s over ${API_KEYS} keys (≤ ${(API_PER_MINUTE / API_KEYS).toFixed(1)} requests a minute each)`,
    );
    lines.push(
      table(
        [
          'phase',
          'redirects/s',
          'p50 ms',
          'p90',
          'p99',
          'p99.9',
          'max',
          'requests',
          'non-3xx',
          'socket errors',
          'timeouts',
          'service CPU',
          'main thread',
          'other threads',
          'CPU µs/redirect',
        ],
        phases.map((p) => {
          const e = p.wrk.errors;
          const cores = (ms: number) => `${(ms / 1000 / p.wrk.durationS).toFixed(2)} cores`;
          return [
            p.name,
            fmtInt(p.wrk.rps),
            fmtMs(p.wrk.p50, 2),
            fmtMs(p.wrk.p90, 2),
            fmtMs(p.wrk.p99, 2),
            fmtMs(p.wrk.p999, 2),
            fmtMs(p.wrk.max, 1),
            fmtInt(p.wrk.requests),
            fmtInt(p.wrk.non3xx),
            fmtInt(e.connect + e.read + e.write),
            fmtInt(e.timeout),
            cores(p.cpu.total),
            cores(p.cpu.main),
            cores(p.cpu.others),
            ((p.cpu.total * 1000) / Math.max(1, p.wrk.requests)).toFixed(1),
          ];
        }),
      ),
    );
    lines.push(
      `(latency from wrk, per request, not corrected for coordinated omission: a stall shows in max; service CPU = user + system of all its threads over the measured run; ` +
        `CPU µs/redirect with the API load includes the API's work; ${os.availableParallelism()} CPUs shared with wrk, this process and ${engine === 'postgres' ? 'Postgres' : 'nothing else of ours'})`,
    );
    lines.push(`redirects/s with the API load: ${fmtPct(ratio)} of redirects alone`);
    lines.push(
      `targets during the mixed load: p99 < ${TARGETS.p99Ms} ms: ${fmtMs(mixed.wrk.p99, 2)} ms, ${verdict(mixed.wrk.p99 < TARGETS.p99Ms)}; ` +
        `p99.9 < ${TARGETS.p999Ms} ms: ${fmtMs(mixed.wrk.p999, 2)} ms, ${verdict(mixed.wrk.p999 < TARGETS.p999Ms)}; ` +
        `rate ≥ ${TARGETS.rateShare * 100}% of alone: ${fmtPct(ratio)}, ${verdict(ratio >= TARGETS.rateShare)}`,
    );
    for (const p of phases) {
      if (p.wrk.non3xx || p.wrk.errors.connect + p.wrk.errors.read + p.wrk.errors.write + p.wrk.errors.timeout) {
        lines.push(
          `!!! ${p.name}: ${fmtInt(p.wrk.non3xx)} answers that are not redirects (${fmtInt(p.wrk.errors.status)} of them ≥ 400), ${fmtInt(p.wrk.errors.connect + p.wrk.errors.read + p.wrk.errors.write)} socket errors, ${fmtInt(p.wrk.errors.timeout)} timeouts`,
        );
      }
    }
    const clicks = Number(recorded);
    lines.push(
      `clicks: ${fmtInt(clicks)} recorded since the service started, 3 s after the load; ${fmtInt(served302)} redirects counted by the clients, warm-ups included ` +
        `(+ up to ${fmtInt(inFlight)} in flight when wrk runs stopped): ` +
        (clicks < served302
          ? `${fmtInt(served302 - clicks)} MISSING`
          : clicks > served302 + inFlight
            ? `${fmtInt(clicks - served302 - inFlight)} more than expected`
            : 'all recorded'),
    );
    lines.push('');

    const apiOrder = API_MIX.flatMap(([k]) =>
      k === 'summary' ? [k, ...WINDOWS.map((w) => `summary · ${w.name}`)] : [k],
    );
    const apiRows = apiOrder
      .filter((k) => api.stats.has(k))
      .map((k) => {
        const st = api.stats.get(k)!;
        const sorted = st.ms.filter(Number.isFinite).sort((a, b) => a - b);
        const share = API_MIX.find(([kind]) => kind === k)?.[1];
        return [
          k.startsWith('summary · ') ? `  ${k}` : k,
          share === undefined ? '' : `${share}%`,
          fmtInt(st.count),
          [...st.statuses]
            .sort()
            .map(([s, n]) => `${s}×${n}`)
            .join(' '),
          fmtMs(percentile(sorted, 50)),
          fmtMs(percentile(sorted, 99)),
          fmtMs(sorted[sorted.length - 1] ?? NaN),
        ];
      });
    const apiTotal = API_MIX.reduce((s, [k]) => s + (api.stats.get(k)?.count ?? 0), 0);
    lines.push(
      `API, ${engine}, during the measured run: ${fmtInt(apiTotal)} requests started in ${apiSeconds.toFixed(1)} s (${(apiTotal / apiSeconds).toFixed(1)}/s of at most ${(API_WORKERS * API_RATE).toFixed(1)}/s)`,
    );
    lines.push(table(['kind', 'share', 'requests', 'statuses', 'p50 ms', 'p99', 'max'], apiRows));
    lines.push('(ms, per request, from this process; with fewer than 100 requests of a kind its p99 is its slowest)');
    const bad: string[] = [];
    for (const [k, st] of api.stats) {
      if (k.startsWith('summary · ')) continue;
      const worrying = [...st.statuses].filter(([s]) => s === '429' || s.startsWith('5') || s === 'error');
      if (worrying.length)
        bad.push(`${k}: ${worrying.map(([s, n]) => `${s} ×${n}`).join(', ')}; first unexpected: ${st.firstUnexpected}`);
      else if (st.firstUnexpected) lines.push(`NOTE ${k}: unexpected answers; first: ${st.firstUnexpected}`);
    }
    if (bad.length) {
      lines.push(`!!! API answers that should not happen (5xx, 429 or no answer):`);
      for (const b of bad) lines.push(`!!!   ${b}`);
    } else lines.push('API: no 5xx, no 429, no failed requests');
    for (const r of repeated) lines.push(`NOTE the service logged: ${r}`);
    for (const l of lines) log(l);
    log();
    return { engine, lines };
  } finally {
    // On a signal or the time limit the bench's cleanup is already releasing everything; a
    // second release loop beside it would drop the database under the service still stopping.
    if (!run.aborting) await releaseTo(mark);
  }
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const cpus = os.cpus();
  log('Shortlink mixed-load benchmark: redirects alone and beside a paced API load');
  log(
    `machine: ${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}`,
  );
  log(`load average at start: ${loadAvg()} (the service, the database, wrk and this client share the machine)`);
  log(
    `data: ${fmtInt(CONVERSIONS)} conversions over 400 days, ${fmtInt(CLICKS_TODAY)} clicks today + ${fmtInt(HISTORY_PER_DAY)} a day over the ${HISTORY_DAYS} days before; ` +
      `${fmtInt(LINKS)} links, ${SHAPE.campaigns} campaigns, ${SHAPE.qrCodes} QR codes`,
  );
  log(
    `load: wrk -t1 -c${CONNECTIONS}, ${WARMUP_S} s warm-up + ${SECONDS} s per phase; API ${API_WORKERS} workers × ${API_RATE}/s (${API_MIX.map(([k, s]) => `${k} ${s}%`).join(', ')}); ` +
      `engines: ${ENGINES.join(', ')}; time limit ${TIME_LIMIT_S} s`,
  );
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
