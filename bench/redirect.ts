// Redirect benchmark: the short-link hot path against a bare node:http server, both loaded by the
// same client (wrk when it is on PATH, else autocannon). It prints figures and asserts nothing.
//
//   npx tsx bench/redirect.ts [--seconds 10] [--connections 32] [--engine sqlite|postgres]
//                             [--links 1000000] [--warm 1000] [--warmup 2] [--click-flush-ms 1000]
//                             [--rounds 1] [--scenario all|both|warm|million|page|plain-query|routed|routing]
//                             [--visitor person|bot]
//                             [--generator fast|setup] [--calibrate 5,10] [--pin] [--client-normal]
//                             [--client wrk|autocannon] [--day-started] [--cpu-prof DIR] [--time-limit SECONDS]
//                             [--alerts] [--instances 1|2] [--preload on|off] [--compare-preload]
//                             [--compare-with DIR] [--routed-links 1000] [--routed-without rules,split,click]
//                             [--service-node-flags "--perf-basic-prof"]
//
// What it does:
//  1. creates a fresh database (a SQLite file in a temp dir, or a Postgres database created on
//     TEST_POSTGRES_URL and dropped at the end), migrates it, adds a workspace and a member through
//     the repositories, and seeds links straight into `links` (the warm set and the big set), timed;
//  2. starts `node bin/shortlink.mjs serve` as a child process, as in production behind a
//     TLS-terminating proxy (TLS=off TRUST_PROXY=1), on a free port, waits for GET /healthz and,
//     with the preload (REDIRECT_CACHE_PRELOAD, on unless --preload off), for its link cache's
//     resident tier to be filled, timed;
//     with --compare-preload, a second service on the same database with the preload on (the first
//     has it off), loaded after the first in odd rounds and before it in even ones: the resident
//     tier's effect on both scenarios in one run, on one seeded database;
//     with --compare-with DIR, the second service is another checkout of this repository (a
//     `git worktree add DIR <commit>` with node_modules; it is built here, and run with the Node
//     flags of its own package.json `start` script), with the same settings, loaded in the same
//     alternating order: a change measured against its parent in one run, on one
//     database, with the same baselines (seeding a million links takes two minutes; two runs a few
//     minutes apart differ more than most changes do);
//  3. starts a bare node:http server as a second child process: every request gets
//     `302 Location: https://example.com/` with Content-Length 0 (the baseline);
//  4. per round, per scenario (warm set: a random one of the warm slugs per request; million: a
//     random one of the big set per request; each round runs every scenario, so that a slowdown of
//     the machine falls on them alike) loads the baseline and then the service for a discarded warm-up run
//     and a measured run, with the same headers (a browser User-Agent, so clicks are recorded;
//     X-Forwarded-Proto: https; Host: localhost), and prints requests/s, p50, p99, max, non-3xx, the
//     service/baseline throughput ratio, each server's CPU time per request (steadier than
//     requests/s when other work shares the machine), split into the main thread's and the two
//     busiest other threads' (on the service: the link lookup thread, which reads SQLite's cache
//     misses, and the click writer), how often per second the main thread was preempted (another
//     thread or process given its core while it could run), the service's link-cache misses per
//     second (its /metrics),
//     Postgres's CPU per request (every `postgres` process), and the service's RSS;
//  4b. with --instances 2 (Postgres, Debian's nginx): a second instance on the same database, both
//     behind one nginx process round-robin, loaded on the big set against two bare servers behind
//     the same nginx: the combined rate, the misses per second that reach Postgres, Postgres's CPU
//     per redirect, and each instance's and nginx's CPU per redirect;
//  5. waits 2 × CLICK_FLUSH_MS and compares the clicks in the database with the 302s the service
//     answered, so click recording is shown to be on (and says how long a lagging flush took).
// The page scenario (in `all`, the default; `both` is warm and million) loads a published bio page
// (/@bench: a title, a bio and 8 link blocks) against a bare node:http server answering the same
// bytes with the same 200: the cost of serving a page from the redirect path's cache and counting
// the view, against writing those bytes. Its views are checked like the clicks.
// The routed scenario (in `all`; `routing` is warm, plain-query and routed) visits ROUTED links
// whose routing has 10 rules, one of each condition type, that the bench's visits all fail (so
// every condition is evaluated), then a 50/50 split, query forwarding and a click id, each visit
// with a query to forward: the summary gives its throughput as a share of the warm set's (plain
// links) in the same run, and of plain-query's: the warm set visited with the same query, which a
// plain link forwards too (a longer request and Location, the same for both). --routed-links N
// visits N routed links (1,000 by default; 10 keep every routing in the CPU's caches), and
// --routed-without leaves parts out of their document (rules, split, click: the click id), to
// see what each costs over HTTP.
// Every child process, temp file and database is removed at the end, on error, on Ctrl-C and when
// --time-limit runs out (each child also exits by itself if this process dies).
//
// Client: wrk (C, one thread; Debian's package `wrk`) is used when it is on PATH, autocannon (an npm
// dependency, JavaScript) otherwise; --client picks one. Both keep 32 connections busy with the same
// request bytes and a random path per request. wrk needs much less CPU per request than autocannon,
// which on 2 cores otherwise competes with the server under test, so its figures lean less on how
// the scheduler shares the cores. Compare figures only from runs with the same client.
//
// Calibration: --calibrate 5,10 also loads, in every round, one more bare server per value that
// spends that many microseconds of CPU per request (a calibrated arithmetic loop) before the same
// 302. Its ratio to the baseline shows what a given amount of extra work per request costs in
// throughput on this machine, where the load generator shares the two cores with the server. With
// the client as a normal task (--client-normal) the ratio falls much faster than the CPU added
// (the client's wake-ups preempt a busy server: see below); with the default it follows the CPU
// added. Read the service's ratio against these.
//
// Pinning: --pin (Linux, needs taskset from util-linux) keeps the load generator on CPU 0 and
// every server on CPU 1, so the client never competes with the server it measures and the
// service's threads (main, link lookup, click writer) share one core. With a normal client it
// moved less run to run than unpinned, and a bare server that spends 1 µs more per request stayed
// client-bound (98-110% of the baseline) instead of falling off the cliff described above.
//
// What the shared cores cost the service: wrk is woken by every answer, and the
// kernel lets a woken task preempt the one running. With the cores busy (Postgres and the click
// writer on one, the service's main thread and wrk on the other), wrk took the main thread's core
// 8,000-10,000 times a second on the million set (the "main preempted/s" column; `perf record -e
// sched:sched_switch` named wrk in 99% of them), and the main thread spent a fifth of its time
// waiting to run; it took the bare server's (which keeps wrk busy) a few hundred times a second.
// So wrk runs as SCHED_BATCH (util-linux's chrt), whose wake-ups preempt nothing: it still gets
// its fair share of a core, but waits for the server's turn to end, as a client on another machine
// never competes with the server at all. The baseline is measured the same way, and runs as fast
// either way. This is the default; --client-normal runs wrk as a normal task, as
// every figure before it was measured (--client-batch says the default explicitly). Why the
// default changed: with a normal client, a bare server given 2, 5 and 10 µs of extra CPU per
// request (--calibrate) ran at 79, 71 and 70% of itself, so the first 2 µs cost a fifth of the
// rate; with SCHED_BATCH it ran at 95, 74 and 65%, following the CPU added. A yardstick whose
// reading is mostly the client's scheduling says little about the server under test.
//
// The day's counts: the click writer keeps a row per link and day (link_daily_clicks), and a
// click of a link that has no row today inserts one where the others update theirs, which costs
// Postgres more. A fresh database has no rows, so on the million set the first round mostly
// inserts and each later round updates more (the ratio drifted down round by round, 53.6 / 44.6
// / 42.0%, Postgres 10.8 / 12.2 / 13.0 µs per request). --day-started gives every link today's
// row (0 clicks) before the service starts, so every click updates one, as hours into a day of
// such traffic.
//
// Diagnostics: --rounds N repeats each baseline/service pair and summarizes medians; --scenario
// runs one scenario; --visitor bot sends a crawler's User-Agent (same redirects, no clicks), which
// separates the cost of recording clicks; --cpu-prof DIR runs the service under `node --cpu-prof`
// (a flag on its command line: Node 20 refuses --cpu-prof in NODE_OPTIONS), keeps the profile in
// DIR and prints the top self-time functions of the service's main thread during measured runs;
// --service-node-flags adds Node flags to the service's command line: with --perf-basic-prof,
// `perf record -e cpu-clock -p <service pid>` names the service's JavaScript functions beside
// Node's, V8's and the kernel's (this VM has no hardware counters; cpu-clock samples by timer),
// which showed what the CPU profile cannot: V8 flattening strings, the kernel's share;
// --alerts gives the bench workspace a webhook subscription naming the traffic alerts
// (analytics.spike, analytics.geo_anomaly), so the click writer also keeps the 5-minute windows
// and evaluates the alerts of every link it writes (what such a workspace pays per click).
import { routedDocument, routedWithout } from './routed-document';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { migrateLatest, openDatabase } from '../src/db/knex';
import { addMember, createWorkspace } from '../src/db/repos/workspaces';
import { RESERVED_SLUGS } from '../src/domain/slugs';
import { contentText } from '../src/domain/bio-pages';
import { DAY_MS } from '../src/domain/conversions';
import { benchCleanups, finishBench, guardBenchRun, watchChild } from './lifecycle';
import {
  cpuMs,
  createScratchPostgres,
  fmtInt,
  fmtMs,
  freePort,
  log,
  median,
  percentile,
  processesCpuByPid,
  processesCpuSince,
  rssKiB,
  rssSplitKiB,
  sleep,
  table,
  threadCpuMs,
  buildService,
  intOption,
  mainThreadPreemptions,
  nodeFlagsOf,
} from './util';

// ---------------------------------------------------------------------------------------------
// autocannon has no bundled types; the part used here.

interface AutocannonRequest {
  method?: string;
  path?: string;
  setupRequest?: (req: AutocannonRequest) => AutocannonRequest;
}
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  resets: number;
  '1xx': number;
  '2xx': number;
  '3xx': number;
  statusCodeStats: Record<string, { count: number }>;
  requests: { total: number; sent: number; average: number };
  latency: { p50: number; p99: number; average: number };
}
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(event: 'response', fn: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): void;
  stop(): void;
}
type Autocannon = (opts: Record<string, unknown>) => AutocannonInstance;
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;
const autocannonVersion = (require('autocannon/package.json') as { version: string }).version;

// ---------------------------------------------------------------------------------------------
// Options

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    engine: { type: 'string', default: 'sqlite' },
    links: { type: 'string', default: '1000000' },
    warm: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '1' },
    generator: { type: 'string', default: 'fast' },
    visitor: { type: 'string', default: 'person' },
    scenario: { type: 'string', default: 'all' },
    'click-flush-ms': { type: 'string', default: '1000' },
    'cpu-prof': { type: 'string' },
    'service-node-flags': { type: 'string' },
    'time-limit': { type: 'string' },
    calibrate: { type: 'string' },
    pin: { type: 'boolean', default: false },
    'client-batch': { type: 'boolean', default: false },
    'client-normal': { type: 'boolean', default: false },
    'day-started': { type: 'boolean', default: false },
    alerts: { type: 'boolean', default: false },
    client: { type: 'string' },
    instances: { type: 'string', default: '1' },
    preload: { type: 'string', default: 'on' },
    'compare-preload': { type: 'boolean', default: false },
    'compare-with': { type: 'string' },
    'routed-links': { type: 'string', default: '1000' },
    'routed-without': { type: 'string' },
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
const positiveInt = intOption;
const SECONDS = positiveInt('seconds', args.seconds);
const CONNECTIONS = positiveInt('connections', args.connections);
const BIG = positiveInt('links', args.links);
const WARM = positiveInt('warm', args.warm);
const WARMUP = positiveInt('warmup', args.warmup, 0);
const ROUNDS = positiveInt('rounds', args.rounds);
const CLICK_FLUSH_MS = positiveInt('click-flush-ms', args['click-flush-ms'], 10);
const ENGINE = args.engine as 'sqlite' | 'postgres';
if (ENGINE !== 'sqlite' && ENGINE !== 'postgres') {
  process.stderr.write(`--engine must be sqlite or postgres; got ${args.engine}\n`);
  process.exit(2);
}
if (args.generator !== 'fast' && args.generator !== 'setup') {
  process.stderr.write(`--generator must be fast or setup; got ${args.generator}\n`);
  process.exit(2);
}
if (args.visitor !== 'person' && args.visitor !== 'bot') {
  process.stderr.write(`--visitor must be person or bot; got ${args.visitor}\n`);
  process.exit(2);
}
const PERSON = args.visitor === 'person';
if (!['all', 'both', 'warm', 'million', 'page', 'plain-query', 'routed', 'routing'].includes(args.scenario!)) {
  process.stderr.write(
    `--scenario must be all, both, warm, million, page, plain-query, routed or routing; got ${args.scenario}\n`,
  );
  process.exit(2);
}
// Slugs come from i × SLUG_MULT, exact in a double only while that stays below 2^53.
if (WARM + BIG > 4_000_000) {
  process.stderr.write(`--warm + --links must be at most 4,000,000; got ${WARM + BIG}\n`);
  process.exit(2);
}
const CALIBRATE_US = (args.calibrate ?? '')
  .split(',')
  .filter((v) => v.trim() !== '')
  .map((v) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0 || n > 10_000) {
      process.stderr.write(
        `--calibrate takes microseconds per request (0 < n ≤ 10000), comma-separated; got ${args.calibrate}\n`,
      );
      process.exit(2);
    }
    return n;
  });
const PIN = args.pin!;
const DAY_STARTED = args['day-started']!;
if (args['client-batch'] && args['client-normal']) {
  process.stderr.write('--client-batch and --client-normal contradict each other\n');
  process.exit(2);
}
// --instances 2 (Postgres): after the scenarios, a second instance on the same database and both
// behind nginx round-robin, against two bare servers behind the same nginx.
const INSTANCES = Number(args.instances);
if (INSTANCES !== 1 && INSTANCES !== 2) {
  process.stderr.write(`--instances must be 1 or 2; got ${args.instances}\n`);
  process.exit(2);
}
const NGINX = '/usr/sbin/nginx';
if (INSTANCES === 2 && (ENGINE !== 'postgres' || !fs.existsSync(NGINX))) {
  process.stderr.write(`--instances 2 needs --engine postgres and nginx (${NGINX}; apt-get install nginx)\n`);
  process.exit(2);
}
const hasWrk = (() => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk prints its version and exits 1.
    return (err as { status?: number }).status === 1;
  }
})();
const CLIENT = (args.client ?? (hasWrk ? 'wrk' : 'autocannon')) as 'wrk' | 'autocannon';
if (CLIENT !== 'wrk' && CLIENT !== 'autocannon') {
  process.stderr.write(`--client must be wrk or autocannon; got ${args.client}\n`);
  process.exit(2);
}
if (CLIENT === 'wrk' && !hasWrk) {
  process.stderr.write('--client wrk: wrk is not on PATH (Debian: apt-get install wrk)\n');
  process.exit(2);
}
if (PIN && os.availableParallelism() < 2) {
  process.stderr.write('--pin needs at least 2 CPUs\n');
  process.exit(2);
}
const hasChrt = (() => {
  try {
    execFileSync('chrt', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (args['client-batch'] && CLIENT !== 'wrk') {
  // autocannon runs in this process, whose children (the servers) would inherit the policy.
  process.stderr.write('--client-batch needs wrk (the client of its own process)\n');
  process.exit(2);
}
if (args['client-batch'] && !hasChrt) {
  process.stderr.write('--client-batch needs chrt (util-linux) on PATH\n');
  process.exit(2);
}
// The default (see "What the shared cores cost the service" above): wrk as
// SCHED_BATCH whenever it can be; --client-normal for the figures measured before.
const CLIENT_BATCH = CLIENT === 'wrk' && hasChrt && !args['client-normal'];
const CPU_PROF_DIR = args['cpu-prof'] ? path.resolve(args['cpu-prof']) : undefined;
// Bounded in time: seeding (generous per row), two load runs per target and round, start and shutdown.
const TIME_LIMIT_S = args['time-limit']
  ? positiveInt('time-limit', args['time-limit'])
  : Math.ceil(
      240 +
        2 * (2 + CALIBRATE_US.length + (INSTANCES === 2 ? 1 : 0)) * ROUNDS * (SECONDS + WARMUP) * 1.5 +
        (INSTANCES * (WARM + BIG)) / (ENGINE === 'postgres' ? 2_000 : 5_000),
    );

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVICE_NODE_FLAGS = [...nodeFlagsOf(ROOT), ...(args['service-node-flags']?.split(' ').filter(Boolean) ?? [])];
buildService(ROOT);
// A person's browser, so every redirect is a click. --visitor bot sends a crawler's User-Agent
// instead: the same redirects with no click recorded, which separates the cost of recording.
const HEADERS = {
  'User-Agent': PERSON
    ? 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36'
    : 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'X-Forwarded-Proto': 'https',
  Host: 'localhost',
};

// ---------------------------------------------------------------------------------------------
// Slugs: 7 base-36 characters like generated slugs, spread over the key space by a bijection
// (i × P mod 36^7, P prime and coprime with 36), so index order is not insertion order.

const SLUG_SPACE = 36 ** 7;
const SLUG_MULT = 2_147_483_647;
function slugOf(i: number): string {
  const s = ((i * SLUG_MULT) % SLUG_SPACE).toString(36).padStart(7, '0');
  return RESERVED_SLUGS.has(s) ? `${s}-` : s;
}
const linkIdOf = (i: number) => `lnk_bench${i.toString(36).padStart(15, '0')}`;
/** The routed scenario's links: their own ids and slugs beside the seeded ones. */
const ROUTED = positiveInt('routed-links', args['routed-links']);
/** --routed-without: the routed document less some of its parts (bench/routed-document.ts). */
const ROUTED_WITHOUT = routedWithout(args['routed-without']);
const ROUTED_DOCUMENT = routedDocument(ROUTED_WITHOUT);
const routedIdOf = (i: number) => `lnk_route${i.toString(36).padStart(15, '0')}`;
const routedSlugOf = (i: number) => `rt${i}`;
const urlOf = (i: number) => `https://example.com/p/${i}`;

// ---------------------------------------------------------------------------------------------
// Cleanup: every resource registers how to release itself; released in reverse order, once.

let currentLoad: { stop(): void } | undefined;
const children = new Set<ChildProcess>();
const { onCleanup, cleanup } = benchCleanups({ timeoutMs: 20_000, first: () => currentLoad?.stop() });
const run = guardBenchRun({ children, cleanup, timeLimitS: TIME_LIMIT_S });

// ---------------------------------------------------------------------------------------------
// Small helpers

const fmtMiB = (kib: number | null) => (kib === null ? '-' : `${(kib / 1024).toFixed(0)} MiB`);
// RSS with its split: anonymous memory is what the process holds (heaps, caches, SQLite's page
// caches); file pages are code and mapped files, which the kernel can drop and read again.
const fmtRss = (pid: number | undefined) => {
  const split = rssSplitKiB(pid);
  return `${fmtMiB(rssKiB(pid))}${split ? ` (anonymous ${fmtMiB(split.anon)}, file pages ${fmtMiB(split.file)})` : ''}`;
};
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
// CPU time in µs: per request it hardly moves when other work competes for the machine, unlike
// requests/s.
const cpuUs = (pid: number | undefined) => cpuMs(pid) * 1000;

// ---------------------------------------------------------------------------------------------
// Child processes

// Loaded into each child with --import: a child whose parent is gone exits by itself.
const WATCHDOG = `const parent = Number(process.env.SHORTLINK_BENCH_PARENT);
setInterval(() => { if (process.ppid !== parent) process.exit(1); }, 500).unref();
`;

// A node:http server answering every request with the same 302; `setup` and `work` (code run per
// request) make the calibration servers.
// With BODY_FILE it answers 200 with that file's bytes as HTML instead (the bio page's baseline).
const bareServer = (setup = '', work = '') => `const http = require('node:http');
${setup}
const body = process.env.BODY_FILE ? require('node:fs').readFileSync(process.env.BODY_FILE) : null;
const server = http.createServer((req, res) => {
  ${work}
  if (body) {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': body.length });
    return res.end(body);
  }
  res.writeHead(302, { Location: 'https://example.com/', 'Content-Length': 0 });
  res.end();
});
server.keepAliveTimeout = 65000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\\n'));
process.on('SIGTERM', () => process.exit(0));
`;
const BASELINE = bareServer();
// The baseline plus SPIN_US microseconds of CPU per request: a loop whose speed is measured at
// start (the fastest of five runs, so a descheduled run does not shrink the work). Checked: the
// loop then costs what it is meant to per call (0.98, 9.9 and 24.9 µs of CPU for 1, 10 and 25).
const CALIBRATION = bareServer(
  `function spin(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; }
let perUs = 0;
for (let k = 0; k < 5; k++) { const t = process.hrtime.bigint(); spin(2e7); perUs = Math.max(perUs, 2e7 / (Number(process.hrtime.bigint() - t) / 1000)); }
const iterations = Math.round(perUs * Number(process.env.SPIN_US));
globalThis.sink = 0;`,
  'globalThis.sink ^= spin(iterations);',
);

interface Child {
  name: string;
  proc: ChildProcess;
  exited: Promise<void>;
  output(): string;
  stop(graceMs: number): Promise<void>;
}

function startChild(
  name: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
  echo: boolean,
  command = process.execPath,
): Child {
  // taskset execs the command, so the child's pid is the server's.
  const [cmd, ...rest] = PIN ? ['taskset', '-c', '1', command, ...argv] : [command, ...argv];
  const proc = spawn(cmd, rest, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const { exited, stop } = watchChild(proc, children, (err) => (tail += `\n${err.message}`));
  for (const stream of [proc.stdout!, proc.stderr!]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-8_000);
      if (!echo) return;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const l of lines) if (l.trim()) process.stderr.write(`[${name}] ${l}\n`);
    });
  }
  const child: Child = {
    name,
    proc,
    exited,
    output: () => tail,
    stop,
  };
  onCleanup(`${name} process`, () => child.stop(10_000));
  return child;
}

function get(port: number, pathname: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, headers: HEADERS, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

function getBody(port: number, pathname: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, headers: HEADERS, timeout: 2_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

async function waitFor(child: Child, port: number, pathname: string, expect: (status: number) => boolean, ms: number) {
  const until = Date.now() + ms;
  let last = 'no answer';
  while (Date.now() < until) {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
      throw new Error(
        `${child.name} exited (${child.proc.exitCode ?? child.proc.signalCode}) before answering:\n${child.output()}`,
      );
    }
    try {
      const status = await get(port, pathname);
      if (expect(status)) return;
      last = `status ${status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(200);
  }
  throw new Error(`${child.name} did not answer GET ${pathname} within ${ms} ms (${last}):\n${child.output()}`);
}

// ---------------------------------------------------------------------------------------------
// Database: create, seed, count clicks

interface BenchDatabase {
  url: string;
  describe: string;
  seed(workspaceId: string, userId: string, from: number, count: number): Promise<void>;
  /** --day-started: every link given today's daily-count row (0 clicks), as hours into a day of traffic. */
  startDay(): Promise<number>;
  settle(): Promise<void>;
  clicks(): Promise<{ events: number; counted: number; views: number }>;
}

/**
 * Today's daily-count row for every link, with no clicks: the click writer then updates a row for
 * every click, as on a day of traffic over these links, where without it most clicks of the big
 * set insert one (and the rounds drift from the one to the other as the day fills).
 */
const DAY_STARTED_SQL = () =>
  `INSERT INTO link_daily_clicks (link_id, workspace_id, day, clicks, scans) SELECT id, workspace_id, ${Math.floor(Date.now() / DAY_MS)}, 0, 0 FROM links`;

async function createDatabase(tmp: string): Promise<BenchDatabase> {
  if (ENGINE === 'sqlite') {
    const file = path.join(tmp, 'data', 'shortlink.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return {
      url: `sqlite:${file}`,
      describe: `SQLite ${file}`,
      async seed(workspaceId, userId, from, count) {
        const db = new Sqlite(file);
        try {
          db.pragma('journal_mode = WAL');
          db.pragma('synchronous = NORMAL');
          const insert = db.prepare(
            `INSERT INTO links (id, workspace_id, created_by, domain_id, domain_key, slug, original_url, status,
               policy_locked, redirect_type, served, created_at, updated_at)
             VALUES (?, ?, ?, NULL, '', ?, ?, 'ACTIVE', 0, 'TEMPORARY', 0, ?, ?)`,
          );
          const now = Date.now();
          db.transaction(() => {
            for (let i = from; i < from + count; i++)
              insert.run(linkIdOf(i), workspaceId, userId, slugOf(i), urlOf(i), now, now);
          })();
        } finally {
          db.close();
        }
      },
      async startDay() {
        const db = new Sqlite(file);
        try {
          return db.prepare(DAY_STARTED_SQL()).run().changes;
        } finally {
          db.close();
        }
      },
      async settle() {
        // Leave the file as a long-running service would find it: the WAL checkpointed.
        const db = new Sqlite(file);
        try {
          db.pragma('wal_checkpoint(TRUNCATE)');
        } finally {
          db.close();
        }
      },
      async clicks() {
        const db = new Sqlite(file, { readonly: true, fileMustExist: true });
        try {
          const events = (db.prepare('SELECT count(*) AS n FROM clicks').get() as { n: number }).n;
          const counted = (
            db.prepare('SELECT coalesce(sum(clicks), 0) AS n FROM link_daily_clicks').get() as { n: number }
          ).n;
          const views = (db.prepare('SELECT count(*) AS n FROM page_views').get() as { n: number }).n;
          return { events, counted, views };
        } finally {
          db.close();
        }
      },
    };
  }

  const scratch = await createScratchPostgres('sl_bench');
  onCleanup(`database ${scratch.name}`, scratch.drop);
  const { name, url } = scratch;
  const withClient = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  const BATCH = 10_000;
  return {
    url,
    describe: `Postgres database ${name} on ${new URL(url).host}`,
    seed: (workspaceId, userId, from, count) =>
      withClient(async (c) => {
        const now = Date.now();
        await c.query('BEGIN');
        for (let start = from; start < from + count; start += BATCH) {
          const ids: string[] = [];
          const slugs: string[] = [];
          const urls: string[] = [];
          for (let i = start; i < Math.min(start + BATCH, from + count); i++) {
            ids.push(linkIdOf(i));
            slugs.push(slugOf(i));
            urls.push(urlOf(i));
          }
          await c.query(
            `INSERT INTO links (id, workspace_id, created_by, domain_id, domain_key, slug, original_url, status,
               policy_locked, redirect_type, served, created_at, updated_at)
             SELECT t.id, $4, $5, NULL, '', t.slug, t.url, 'ACTIVE', false, 'TEMPORARY', 0, $6, $6
             FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, slug, url)`,
            [ids, slugs, urls, workspaceId, userId, now],
          );
        }
        await c.query('COMMIT');
      }),
    startDay: () => withClient(async (c) => (await c.query(DAY_STARTED_SQL())).rowCount ?? 0),
    // What autovacuum would do shortly after a bulk load.
    settle: () =>
      withClient(async (c) => {
        await c.query('VACUUM ANALYZE links');
        if (DAY_STARTED) await c.query('VACUUM ANALYZE link_daily_clicks');
      }),
    clicks: () =>
      withClient(async (c) => {
        const events = Number((await c.query('SELECT count(*) AS n FROM clicks')).rows[0].n);
        const counted = Number(
          (await c.query('SELECT coalesce(sum(clicks), 0) AS n FROM link_daily_clicks')).rows[0].n,
        );
        const views = Number((await c.query('SELECT count(*) AS n FROM page_views')).rows[0].n);
        return { events, counted, views };
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Load

interface Measured {
  target: string;
  rps: number;
  p50: number;
  p99: number;
  /**
   * The slowest answer. A closed-loop client (each connection waits for its answer) sees a stall
   * of the server in only the CONNECTIONS requests then in flight, so a stall hides beyond p99
   * ("coordinated omission"); the maximum shows it.
   */
  max: number;
  total: number;
  non3xx: number;
  errors: number;
  count302: number;
  ok: number;
  sent: number;
  /** The server process's CPU time per answered request, µs. */
  cpuPerReq: number;
  /**
   * CPU µs per request of the main thread, and of the two busiest other threads (on the service
   * under load, the link lookup thread and the click writer thread, in either order).
   */
  mainCpuPerReq: number;
  otherCpuPerReq: number;
  secondCpuPerReq: number;
  /** The server process's CPU time over the run's wall time (1 = one core busy). */
  cpuShare: number;
  /** Times per second the main thread was preempted (mainThreadPreemptions in bench/util.ts). */
  preemptedPerS: number;
  /** Postgres's CPU time (every postgres process) per answered request, µs; NaN on SQLite. */
  dbCpuPerReq: number;
  /** Visits answered from the resident tier per second (REDIRECT_CACHE_PRELOAD=on). */
  residentHitsPerS: number;
  /** The service's link-cache misses per second during the run (its /metrics); NaN for bare servers. */
  missesPerS: number;
  /** CPU per request of the other processes a target is made of (the second instance, nginx), by name. */
  parts: Array<[string, number]>;
  startUs: number;
  endUs: number;
}

// Request generation. autocannon's documented per-request hook (requests[].setupRequest) runs
// every request through its generic request builder, which on a 2-CPU machine halves what the
// autocannon thread can send (measured: ~11k vs ~21k req/s against the bare server) and takes
// CPU from the servers under test. The fast generator gives each client (through the documented
// setupClient option) its own getRequestBuffer, which writes the very bytes the builder would
// (request line, Connection, the fixed headers) for a path picked per request. --generator setup
// uses the documented hook instead, and is used anyway if autocannon's client changes shape.
const HttpClient = require('autocannon/lib/httpClient') as { prototype: { getRequestBuffer?: unknown } };
const GENERATOR: 'fast' | 'setup' =
  args.generator === 'fast' && typeof HttpClient.prototype.getRequestBuffer === 'function' ? 'fast' : 'setup';
const REQUEST_TAIL = ` HTTP/1.1\r\nConnection: keep-alive\r\n${Object.entries(HEADERS)
  .map(([k, v]) => `${k}: ${v}\r\n`)
  .join('')}\r\n`;

function requestOptions(pick: () => string): Record<string, unknown> {
  if (GENERATOR === 'fast') {
    return {
      setupClient: (client: { getRequestBuffer: () => Buffer }) => {
        client.getRequestBuffer = () => Buffer.from(`GET ${pick()}${REQUEST_TAIL}`, 'latin1');
      },
    };
  }
  return {
    requests: [
      {
        method: 'GET',
        setupRequest: (req: AutocannonRequest) => {
          req.path = pick();
          return req;
        },
      },
    ],
  };
}

/** What a load generator reports for one run; latencies in ms. */
interface ClientResult {
  durationS: number;
  total: number;
  sent: number;
  non3xx: number;
  errors: number;
  count302: number;
  /** Answers with a status below 400 (the page scenario's 200s: wrk counts no status but errors). */
  ok: number;
  p50: number;
  p99: number;
  max: number;
}

/** Which paths a scenario visits: a random one of `count` per request. */
interface PathSet {
  name: string;
  count: number;
  at(i: number): string;
}

/** A service's link-cache misses and resident-tier hits so far (GET /metrics on loopback). */
async function cacheCounters(port: number): Promise<{ misses: number; residentHits: number }> {
  const text = (await getBody(port, '/metrics')).body.toString();
  const read = (name: string) => {
    const m = new RegExp(`^${name} (\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
  };
  return {
    misses: read('shortlink_link_cache_misses_total'),
    residentHits: read('shortlink_link_cache_resident_hits_total'),
  };
}

/** What else a target is made of: processes whose CPU is reported apart, and services whose misses count. */
interface TargetParts {
  pids?: Array<[string, number | undefined]>;
  metricsPorts?: number[];
}

async function load(
  target: string,
  port: number,
  pid: number | undefined,
  paths: PathSet,
  seconds: number,
  parts: TargetParts = {},
): Promise<Measured> {
  const countersBefore = await Promise.all((parts.metricsPorts ?? []).map(cacheCounters));
  const partsBefore = (parts.pids ?? []).map(([, p]) => cpuUs(p));
  const dbBefore = ENGINE === 'postgres' ? processesCpuByPid('postgres') : undefined;
  const cpuBefore = cpuUs(pid);
  const threadsBefore = threadCpuMs(pid);
  const preemptedBefore = mainThreadPreemptions(pid);
  const startUs = nowUs();
  const r = CLIENT === 'wrk' ? await runWrk(port, paths, seconds) : await runAutocannon(port, paths, seconds);
  const endUs = nowUs();
  const preempted = mainThreadPreemptions(pid) - preemptedBefore;
  const cpu = cpuUs(pid) - cpuBefore;
  const dbCpu = dbBefore ? processesCpuSince('postgres', dbBefore) * 1000 : NaN;
  const partsCpu = (parts.pids ?? []).map(([name, p], i) => [name, cpuUs(p) - partsBefore[i]] as [string, number]);
  const countersAfter = await Promise.all((parts.metricsPorts ?? []).map(cacheCounters));
  const counted = (key: 'misses' | 'residentHits') =>
    parts.metricsPorts?.length
      ? countersAfter.reduce((a, c) => a + c[key], 0) - countersBefore.reduce((a, c) => a + c[key], 0)
      : NaN;
  const misses = counted('misses');
  const residentHits = counted('residentHits');
  // Per thread: the main thread (tid = pid) and the two busiest other ones (on the service, the
  // link lookup thread and the click writer thread; V8's GC helpers and libuv's pool are the rest).
  const threads = [...threadCpuMs(pid)].map(([tid, ms]) => [tid, (ms - (threadsBefore.get(tid) ?? 0)) * 1000] as const);
  const mainCpu = threads.find(([tid]) => tid === pid)?.[1] ?? NaN;
  const [otherCpu = 0, secondCpu = 0] = threads
    .filter(([tid]) => tid !== pid)
    .map(([, us]) => us)
    .sort((a, b) => b - a);
  const answered = Math.max(1, r.total);
  return {
    target,
    rps: r.total / r.durationS,
    p50: r.p50,
    p99: r.p99,
    max: r.max,
    total: r.total,
    non3xx: r.non3xx,
    errors: r.errors,
    count302: r.count302,
    ok: r.ok,
    sent: r.sent,
    cpuPerReq: cpu / answered,
    mainCpuPerReq: mainCpu / answered,
    otherCpuPerReq: otherCpu / answered,
    secondCpuPerReq: secondCpu / answered,
    cpuShare: cpu / (endUs - startUs),
    preemptedPerS: preempted / ((endUs - startUs) / 1e6),
    dbCpuPerReq: dbCpu / answered,
    missesPerS: misses / ((endUs - startUs) / 1e6),
    residentHitsPerS: residentHits / ((endUs - startUs) / 1e6),
    parts: partsCpu.map(([name, us]) => [name, us / answered]),
    startUs,
    endUs,
  };
}

async function runAutocannon(port: number, paths: PathSet, seconds: number): Promise<ClientResult> {
  let latencies = new Float64Array(1 << 18);
  let n = 0;
  const instance = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    headers: HEADERS,
    ...requestOptions(() => paths.at((Math.random() * paths.count) | 0)),
  });
  currentLoad = instance;
  // autocannon's own percentiles are whole milliseconds; these keep the fraction.
  instance.on('response', (_client, _status, _bytes, ms) => {
    if (n === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[n++] = ms;
  });
  const r = await instance;
  currentLoad = undefined;
  const sorted = latencies.subarray(0, n).sort();
  return {
    durationS: r.duration,
    total: r.requests.total,
    sent: r.requests.sent,
    non3xx: r.requests.total - r['3xx'],
    errors: r.errors + r.timeouts,
    count302: r.statusCodeStats['302']?.count ?? 0,
    ok: r['1xx'] + r['2xx'] + r['3xx'],
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: n ? sorted[n - 1] : 0,
  };
}

// wrk (C, one thread, epoll) sends the same request bytes as the autocannon generator above: a
// Lua script picks a random path of the scenario per request from a file of paths. Its latency
// figures are per request, from write to complete answer, in µs, like autocannon's (neither
// corrects for coordinated omission; see `max`). It counts answers with status ≥ 400 as errors
// and does not keep a count per status: the seeded links answer only 302 (the probe checks), so
// every other answer is counted as a 302.
// The paths are one string of fixed-width records (padded with spaces): a Lua table of a million
// strings made LuaJIT's collector stall the client for tens of milliseconds (p99 31 ms on the bare
// server).
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
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK %d %d %d %d %d %d %d %d %d %d\\n", summary.duration, summary.requests,
    e.status, e.connect, e.read, e.write, e.timeout, latency:percentile(50), latency:percentile(99), latency.max))
end
`;
const wrkFiles = new Map<string, { script: string; paths: string }>();

async function runWrk(port: number, paths: PathSet, seconds: number): Promise<ClientResult> {
  let files = wrkFiles.get(paths.name);
  if (!files) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-bench-wrk-'));
    onCleanup('wrk files', () => fs.rmSync(dir, { recursive: true, force: true }));
    files = { script: path.join(dir, 'paths.lua'), paths: path.join(dir, 'paths.txt') };
    fs.writeFileSync(files.script, WRK_SCRIPT);
    let width = 0;
    for (let i = 0; i < paths.count; i++) width = Math.max(width, paths.at(i).length);
    const out = fs.openSync(files.paths, 'w');
    fs.writeSync(out, `${width}\n`);
    for (let i = 0; i < paths.count; i += 10_000) {
      let chunk = '';
      for (let j = i; j < Math.min(i + 10_000, paths.count); j++) chunk += paths.at(j).padEnd(width);
      fs.writeSync(out, chunk);
    }
    fs.closeSync(out);
    wrkFiles.set(paths.name, files);
  }
  const wrkArgs = [
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '--timeout',
    '10s',
    '-s',
    files.script,
    `http://127.0.0.1:${port}`,
  ];
  const proc = spawn(CLIENT_BATCH ? 'chrt' : 'wrk', CLIENT_BATCH ? ['--batch', '0', 'wrk', ...wrkArgs] : wrkArgs, {
    env: { ...process.env, WRK_PATHS: files.paths },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  currentLoad = { stop: () => proc.kill('SIGKILL') };
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
  currentLoad = undefined;
  const line = out.split('\n').find((l) => l.startsWith('WRK '));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}):\n${out}`);
  const [durationUs, total, status, connect, read, write, timeout, p50, p99, max] = line
    .slice(4)
    .split(' ')
    .map(Number);
  return {
    durationS: durationUs / 1e6,
    total,
    // At most one request per connection is in flight when wrk stops; it is not counted.
    sent: total + CONNECTIONS,
    non3xx: status,
    errors: connect + read + write + timeout,
    count302: total - status,
    ok: total - status,
    p50: p50 / 1000,
    p99: p99 / 1000,
    max: max / 1000,
  };
}

// ---------------------------------------------------------------------------------------------
// CPU profile summary (self time per function, only samples inside the given windows)

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

function shortUrl(url: string): string {
  if (!url) return '';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm !== -1) return u.slice(nm + '/node_modules/'.length);
  if (u.startsWith(ROOT)) return u.slice(ROOT.length + 1);
  return u;
}

function groupOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const rest = u.slice(nm + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (u.startsWith('node:')) return u.split('/')[0] === 'node:internal' ? `node:internal/${u.split('/')[1]}` : u;
  if (u.startsWith(ROOT)) return u.slice(ROOT.length + 1);
  return u;
}

function summarizeProfile(file: string, windows: Array<{ label: string; startUs: number; endUs: number }>) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n.callFrame]));
  let t = prof.startTime;
  const stamps = prof.samples.map((_, i) => (t += prof.timeDeltas[i]));
  for (const w of windows) {
    const self = new Map<string, number>();
    const groups = new Map<string, number>();
    let busy = 0;
    let idle = 0;
    for (let i = 0; i < prof.samples.length; i++) {
      if (stamps[i] < w.startUs || stamps[i] > w.endUs) continue;
      const dt = prof.timeDeltas[i + 1] ?? 0;
      const cf = byId.get(prof.samples[i])!;
      if (cf.functionName === '(idle)') {
        idle += dt;
        continue;
      }
      busy += dt;
      const key = `${cf.functionName || '(anonymous)'}  ${shortUrl(cf.url)}${cf.url ? `:${cf.lineNumber + 1}` : ''}`;
      self.set(key, (self.get(key) ?? 0) + dt);
      const g = groupOf(cf.url, cf.functionName);
      groups.set(g, (groups.get(g) ?? 0) + dt);
    }
    log(
      `CPU profile of the service, ${w.label}: busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s of the measured run`,
    );
    if (!busy) {
      log('  (no samples in this window)');
      continue;
    }
    const pct = (v: number) => `${((100 * v) / busy).toFixed(1)}%`;
    log('  top self time (share of busy time):');
    for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) log(`    ${pct(v).padStart(6)}  ${k}`);
    log('  by module:');
    for (const [k, v] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 12)) log(`    ${pct(v).padStart(6)}  ${k}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-bench-'));
  onCleanup('temp dir', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const watchdog = path.join(tmp, 'watchdog.mjs');
  fs.writeFileSync(watchdog, WATCHDOG);
  const childEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = { ...process.env, SHORTLINK_BENCH_PARENT: String(process.pid), ...extra };
    if (!extra.NODE_OPTIONS) delete env.NODE_OPTIONS;
    return env;
  };

  if (PIN) {
    // Every thread of this process (autocannon runs on the main one) on CPU 0; wrk, a child, inherits it.
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  }
  const cpus = os.cpus();
  log('Shortlink redirect benchmark');
  log(
    `machine: ${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}`,
  );
  log(
    `client: ${CLIENT === 'wrk' ? 'wrk (one thread, a child process)' : `autocannon ${autocannonVersion} (one thread in this process)`}${args.client ? '' : hasWrk ? ' (found on PATH)' : ' (wrk not on PATH)'}`,
  );
  log('note: the load generator, the servers and the database share this machine;');
  log('      figures are relative (service vs bare node:http on the same client), not absolute capacity.');
  if (PIN) log('pinned: the load generator on CPU 0, every server on CPU 1');
  if (CLIENT_BATCH)
    log(
      'the load generator runs as SCHED_BATCH: its wake-ups do not preempt a server (the default; --client-normal to turn it off)',
    );
  else if (args['client-normal'])
    log('the load generator runs as a normal task: its wake-ups preempt the servers (--client-normal)');
  else
    log(
      `the load generator runs as a normal task: ${CLIENT === 'wrk' ? 'chrt is not on PATH' : 'autocannon shares this process'} (figures not comparable with SCHED_BATCH runs)`,
    );
  log(
    `load: ${CONNECTIONS} connections, ${WARMUP} s discarded warm-up + ${SECONDS} s measured per target${ROUNDS > 1 ? `, ${ROUNDS} rounds` : ''}, random slug per request (${CLIENT === 'wrk' ? 'wrk Lua script' : `${GENERATOR} generator`})`,
  );
  log(
    `load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work on the machine skews every figure)`,
  );
  log(
    `engine: ${ENGINE}; links: ${fmtInt(WARM)} warm + ${fmtInt(BIG)} big; CLICK_FLUSH_MS=${CLICK_FLUSH_MS}; time limit ${TIME_LIMIT_S} s${args.alerts ? '; traffic alerts subscribed (--alerts)' : ''}`,
  );
  log();

  // 1. Database, workspace, member, links.
  const database = await createDatabase(tmp);
  log(`database: ${database.describe}`);
  const db = openDatabase(database.url, { poolMax: 2 });
  let workspaceId: string;
  let userId: string;
  try {
    await migrateLatest(db);
    workspaceId = await createWorkspace(db.knex, 'Bench', 'business');
    userId = await addMember(db.knex, workspaceId, 'bench@bench.test', 'OWNER');
    // The page scenario's bio page, published, its link blocks on the first warm links.
    const content = contentText({
      title: 'Bench & Co on the web',
      bio: 'Everything we make, in one place: new releases every week, the shop, the podcast and where to find us.',
      avatarUrl: null,
      theme: 'classic',
      blocks: [
        { id: 'blk_bench00000', type: 'heading', text: 'Shop' },
        ...Array.from({ length: 8 }, (_, i) => ({
          id: `blk_bench0000${i + 1}`,
          type: 'link' as const,
          text: `Collection ${i + 1}`,
          linkId: linkIdOf(i),
        })),
        { id: 'blk_bench00009', type: 'paragraph', text: 'Questions? Write to us any time.' },
      ],
    });
    const now = Date.now();
    await db.knex('bio_pages').insert({
      id: 'pg_bench',
      workspace_id: workspaceId,
      handle: 'bench',
      status: 'ACTIVE',
      draft: content,
      published: content,
      published_at: now,
      created_by: userId,
      created_at: now,
      updated_at: now,
    });
    // The routed scenario's links, each with the routing document above.
    for (let i = 0; i < ROUTED; i += 100)
      await db.knex('links').insert(
        Array.from({ length: Math.min(100, ROUTED - i) }, (_, j) => ({
          id: routedIdOf(i + j),
          workspace_id: workspaceId,
          created_by: userId,
          domain_id: null,
          domain_key: '',
          slug: routedSlugOf(i + j),
          original_url: `https://example.com/routed/${i + j}`,
          status: 'ACTIVE',
          policy_locked: false,
          redirect_type: 'TEMPORARY',
          served: 0,
          routing: ROUTED_DOCUMENT,
          created_at: now,
          updated_at: now,
        })),
      );
    if (args.alerts) {
      // An enabled Variant A subscription naming both traffic alerts, written directly (the
      // database has no clicks yet, so there are no windows to rebuild): every flush then writes
      // the workspace's 5-minute windows and evaluates each link it holds, once per window.
      const now = Date.now();
      await db.knex('webhook_subscriptions').insert({
        id: 'whk_bench_alerts',
        workspace_id: workspaceId,
        variant: 'A',
        url: 'https://hooks.example.com/bench',
        events: JSON.stringify(['analytics.spike', 'analytics.geo_anomaly']),
        secret_encrypted: 'not used',
        enabled: true,
        created_at: now,
        updated_at: now,
      });
    }
  } finally {
    await db.knex.destroy();
  }
  let t0 = performance.now();
  await database.seed(workspaceId, userId, 0, WARM);
  const warmSeedMs = performance.now() - t0;
  t0 = performance.now();
  await database.seed(workspaceId, userId, WARM, BIG);
  const bigSeedMs = performance.now() - t0;
  let dayRows = 0;
  let dayMs = 0;
  if (DAY_STARTED) {
    t0 = performance.now();
    dayRows = await database.startDay();
    dayMs = performance.now() - t0;
  }
  t0 = performance.now();
  await database.settle();
  const settleMs = performance.now() - t0;
  log(`seeded ${fmtInt(WARM)} warm links in ${(warmSeedMs / 1000).toFixed(2)} s`);
  log(
    `seeded ${fmtInt(BIG)} links in ${(bigSeedMs / 1000).toFixed(2)} s (${fmtInt(BIG / (bigSeedMs / 1000))} rows/s, ${ENGINE === 'sqlite' ? 'prepared INSERT, one transaction' : 'INSERT … SELECT unnest() in batches of 10,000, one transaction'})`,
  );
  if (DAY_STARTED)
    log(
      `the day started (--day-started): ${fmtInt(dayRows)} daily-count rows for today, 0 clicks each, in ${(dayMs / 1000).toFixed(2)} s`,
    );
  log(
    `${ENGINE === 'sqlite' ? 'WAL checkpoint' : `VACUUM ANALYZE links${DAY_STARTED ? ', link_daily_clicks' : ''}`}: ${(settleMs / 1000).toFixed(2)} s`,
  );
  log();

  // 2. The service, as behind a TLS-terminating proxy.
  const servicePort = await freePort();
  if (CPU_PROF_DIR) fs.mkdirSync(CPU_PROF_DIR, { recursive: true });
  const COMPARE_PRELOAD = args['compare-preload'] === true;
  if (args.preload !== 'on' && args.preload !== 'off') throw new Error('--preload is on or off');
  // --compare-preload: the first service without the preload, a second with it.
  const PRELOAD = args.preload === 'on' && !COMPARE_PRELOAD;
  const serviceEnv = (port: number, preload = PRELOAD) =>
    childEnv({
      DATABASE_URL: database.url,
      DATA_DIR: path.join(tmp, 'data'),
      PORT: String(port),
      TLS: 'off',
      TRUST_PROXY: '1',
      SHORT_DOMAIN: 'localhost',
      LOG_LEVEL: 'warn',
      CLICK_FLUSH_MS: String(CLICK_FLUSH_MS),
      // The resident tier loaded at start (the service's default) or not (--preload off).
      REDIRECT_CACHE_PRELOAD: preload ? 'on' : 'off',
    });
  const service = startChild(
    'service',
    [
      ...(CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []),
      ...SERVICE_NODE_FLAGS,
      '--import',
      pathToFileURL(watchdog).href,
      'bin/shortlink.mjs',
      'serve',
    ],
    serviceEnv(servicePort),
    true,
  );
  await waitFor(service, servicePort, '/healthz', (s) => s === 200, 90_000);
  // The service fills its link cache's resident tier with the live links at start
  // (REDIRECT_CACHE_LINKS, default 1,000,000), off the event loop's critical path. The scenarios
  // measure the steady state after it: wait until the tier's size (GET /metrics, loopback) stops
  // growing, and say how long that took.
  const waitForPreload = async (label: string, port: number, pid: number | undefined) => {
    const preloadStarted = performance.now();
    let cached = -1;
    for (let stable = 0; stable < 3 && performance.now() - preloadStarted < 300_000; ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const m = /^shortlink_link_cache_resident_links (\d+)/m.exec((await getBody(port, '/metrics')).body.toString());
      const now = m ? Number(m[1]) : -1;
      stable = now === cached ? stable + 1 : 0;
      cached = now;
    }
    log(
      `${label}'s resident link cache after the start: ${fmtInt(cached)} links, filled ${((performance.now() - preloadStarted) / 1000).toFixed(1)} s after /healthz answered (the last 0.75 s the wait's own check), RSS ${fmtMiB(rssKiB(pid))}`,
    );
  };
  if (PRELOAD) await waitForPreload('the service', servicePort, service.proc.pid);
  // --compare-preload: the same service with the resident tier.
  // --compare-with DIR: the service of another checkout, built from its sources, as the first is.
  const COMPARE_WITH = args['compare-with'] === undefined ? undefined : path.resolve(args['compare-with']);
  if (COMPARE_WITH && COMPARE_PRELOAD)
    throw new Error('--compare-with and --compare-preload each start the second service: give one');
  if (COMPARE_WITH) buildService(COMPARE_WITH);
  const secondLabel = COMPARE_WITH ? `service at ${path.basename(COMPARE_WITH)}` : 'service, preload';
  const secondPort = await freePort();
  const second =
    COMPARE_PRELOAD || COMPARE_WITH
      ? startChild(
          secondLabel,
          [
            ...nodeFlagsOf(COMPARE_WITH ?? ROOT),
            '--import',
            pathToFileURL(watchdog).href,
            path.join(COMPARE_WITH ?? ROOT, 'bin/shortlink.mjs'),
            'serve',
          ],
          serviceEnv(secondPort, COMPARE_PRELOAD || PRELOAD),
          true,
        )
      : undefined;
  if (second) {
    await waitFor(second, secondPort, '/healthz', (s) => s === 200, 90_000);
    if (COMPARE_PRELOAD || PRELOAD) await waitForPreload(`the ${secondLabel}`, secondPort, second.proc.pid);
  }

  // 3. The baseline.
  const basePort = await freePort();
  const baseline = startChild(
    'baseline',
    ['--import', pathToFileURL(watchdog).href, '-e', BASELINE],
    childEnv({ PORT: String(basePort) }),
    true,
  );
  await waitFor(baseline, basePort, '/', (s) => s === 302, 30_000);
  const calibrations: Array<{ us: number; port: number; child: Child }> = [];
  for (const us of CALIBRATE_US) {
    const port = await freePort();
    const child = startChild(
      `bare +${us} µs`,
      ['--import', pathToFileURL(watchdog).href, '-e', CALIBRATION],
      childEnv({ PORT: String(port), SPIN_US: String(us) }),
      true,
    );
    await waitFor(child, port, '/', (s) => s === 302, 30_000);
    calibrations.push({ us, port, child });
  }

  // The page's baseline: a bare server answering the page's own bytes.
  const pageHtml = await getBody(servicePort, '/@bench');
  const pageFile = path.join(tmp, 'page.html');
  fs.writeFileSync(pageFile, pageHtml.body);
  const pagePort = await freePort();
  const barePage = startChild(
    'bare page',
    ['--import', pathToFileURL(watchdog).href, '-e', BASELINE],
    childEnv({ PORT: String(pagePort), BODY_FILE: pageFile }),
    true,
  );
  await waitFor(barePage, pagePort, '/', (s) => s === 200, 30_000);
  log(
    `bio page /@bench: ${pageHtml.status}, ${fmtInt(pageHtml.body.length)} bytes; its baseline (the same bytes) pid ${barePage.proc.pid} on :${pagePort}`,
  );

  // Both answer a seeded slug the same way before any load.
  const probe = await get(servicePort, `/${slugOf(0)}`);
  log(
    `service pid ${service.proc.pid} on :${servicePort} (GET /${slugOf(0)} → ${probe}), RSS ${fmtMiB(rssKiB(service.proc.pid))}; baseline pid ${baseline.proc.pid} on :${basePort}`,
  );
  if (probe !== 302)
    log(`WARNING: the service answered ${probe} for a seeded slug; the figures below are not redirects`);
  log();

  // 4. Scenarios.
  const ROUTED_QUERY = '?utm_source=bench&utm_medium=email';
  const warmPaths = Array.from({ length: WARM }, (_, i) => `/${slugOf(i)}`);
  const scenarios = [
    {
      key: 'warm',
      name: `warm set (${fmtInt(WARM)} links)`,
      paths: { name: 'warm', count: WARM, at: (i: number) => warmPaths[i] },
      basePort,
    },
    {
      key: 'million',
      name: `million (${fmtInt(BIG)} links)`,
      paths: { name: 'million', count: BIG, at: (i: number) => `/${slugOf(WARM + i)}` },
      basePort,
    },
    {
      // The same visits as the routed scenario's (a query a plain link forwards too), to plain links.
      key: 'plain-query',
      name: `warm set with the routed visits' query (${fmtInt(WARM)} links)`,
      paths: { name: 'plain-query', count: WARM, at: (i: number) => `${warmPaths[i]}${ROUTED_QUERY}` },
      basePort,
    },
    {
      key: 'routed',
      name: `routed (${fmtInt(ROUTED)} links of 10 rules, a split, a query and a click id${ROUTED_WITHOUT.length ? `; without ${ROUTED_WITHOUT.join(', ')}` : ''})`,
      paths: {
        name: 'routed',
        count: ROUTED,
        at: (i: number) => `/${routedSlugOf(i)}${ROUTED_QUERY}`,
      },
      basePort,
    },
    {
      key: 'page',
      name: 'bio page (/@bench, 200 with its HTML)',
      paths: { name: 'page', count: 1, at: () => '/@bench' },
      basePort: pagePort,
    },
  ].filter(
    (sc) =>
      args.scenario === 'all' ||
      args.scenario === sc.key ||
      (args.scenario === 'both' && (sc.key === 'warm' || sc.key === 'million')) ||
      (args.scenario === 'routing' && (sc.key === 'warm' || sc.key === 'plain-query' || sc.key === 'routed')),
  );
  // Views served by the page scenario (200s, warm-ups included), checked against page_views.
  const pageServed = { completed: 0, inFlight: 0 };
  const served = { completed302: 0, inFlight: 0 };
  const countService = (m: Measured) => {
    served.completed302 += m.count302;
    served.inFlight += Math.max(0, m.sent - m.total);
  };
  const windows: Array<{ label: string; startUs: number; endUs: number }> = [];
  const summary: string[] = [];
  // For an even count, the mean of the two middle values: the lower one alone would report the
  // worse ratio but the better p99 of two rounds.
  type Row = Measured & { label: string; kind: 'baseline' | 'calibration' | 'service' | 'second'; ratio?: number };
  const results = new Map(
    scenarios.map((sc) => [
      sc.key,
      {
        rows: [] as Row[],
        ratios: [] as number[],
        secondRatios: [] as number[],
        calibrationRatios: new Map<number, number[]>(CALIBRATE_US.map((us) => [us, []])),
        /** The load average as each round of the scenario began: the tables print after every round. */
        loads: [] as number[],
      },
    ]),
  );
  // Round by round, every scenario in each round: a slowdown of the machine (which lasts seconds
  // to minutes here) then falls on each scenario alike, where running one scenario's rounds after
  // another's put it on whichever ran then (the routed scenario's share moved by 5 points).
  for (let round = 1; round <= ROUNDS; round++) {
    for (const sc of scenarios) {
      const { rows, ratios, secondRatios, calibrationRatios, loads } = results.get(sc.key)!;
      loads.push(os.loadavg()[0]);
      const suffix = ROUNDS > 1 ? ` #${round}` : '';
      type Target = {
        kind: 'baseline' | 'calibration' | 'service' | 'second';
        label: string;
        port: number;
        pid: number | undefined;
        us: number;
      };
      const targets: Target[] = [
        {
          kind: 'baseline' as const,
          label: `baseline${suffix}`,
          port: sc.basePort,
          pid: sc.key === 'page' ? barePage.proc.pid : baseline.proc.pid,
          us: 0,
        },
        ...calibrations.map((c) => ({
          kind: 'calibration' as const,
          label: `bare +${c.us} µs${suffix}`,
          port: c.port,
          pid: c.child.proc.pid,
          us: c.us,
        })),
        { kind: 'service' as const, label: `service${suffix}`, port: servicePort, pid: service.proc.pid, us: 0 },
      ];
      if (second) {
        const t = {
          kind: 'second' as const,
          label: `${secondLabel}${suffix}`,
          port: secondPort,
          pid: second.proc.pid,
          us: 0,
        };
        // Alternating which of the two goes first, so neither always follows the baseline.
        if (round % 2) targets.push(t);
        else targets.splice(targets.length - 1, 0, t);
      }
      let base: Measured | undefined;
      for (const t of targets) {
        const count = (m: Measured) => {
          if (t.kind !== 'service' && t.kind !== 'second') return;
          if (sc.key !== 'page') return countService(m);
          // Every answer of the page scenario is the page's 200: a view each. (Counted as non-3xx
          // answers until wrk became the client, which counts no status below 400: 0 views.)
          pageServed.completed += m.ok;
          pageServed.inFlight += Math.max(0, m.sent - m.total);
        };
        const parts = t.kind === 'service' || t.kind === 'second' ? { metricsPorts: [t.port] } : {};
        if (WARMUP > 0) count(await load(t.kind, t.port, t.pid, sc.paths, WARMUP, parts));
        const m = await load(t.kind, t.port, t.pid, sc.paths, SECONDS, parts);
        count(m);
        if (t.kind === 'service') {
          windows.push({
            label: `${sc.name}${ROUNDS > 1 ? ` round ${round}` : ''}`,
            startUs: m.startUs,
            endUs: m.endUs,
          });
        }
        if (t.kind === 'baseline') {
          base = m;
          rows.push({ ...m, label: t.label, kind: t.kind });
          continue;
        }
        const ratio = m.rps / base!.rps;
        if (t.kind === 'service') ratios.push(ratio);
        else if (t.kind === 'second') secondRatios.push(ratio);
        else calibrationRatios.get(t.us)!.push(ratio);
        rows.push({ ...m, label: t.label, kind: t.kind, ratio });
      }
    }
  }
  for (const sc of scenarios) {
    const { rows, ratios, secondRatios, calibrationRatios, loads } = results.get(sc.key)!;
    const ratio = median(ratios);
    const svcP99 = median(rows.filter((r) => r.kind === 'service').map((r) => r.p99));
    const baseP99 = median(rows.filter((r) => r.kind === 'baseline').map((r) => r.p99));
    const svcCpu = median(rows.filter((r) => r.kind === 'service').map((r) => r.cpuPerReq));
    const baseCpu = median(rows.filter((r) => r.kind === 'baseline').map((r) => r.cpuPerReq));
    log(
      `scenario: ${sc.name}, ${CONNECTIONS} connections, ${SECONDS} s per run (load average as its rounds began ${loads.map((l) => l.toFixed(2)).join(' / ')})`,
    );
    log(
      table(
        [
          'target',
          'requests/s',
          'p50 ms',
          'p99 ms',
          'max ms',
          'requests',
          'non-3xx',
          'errors',
          'ratio to baseline',
          'CPU µs/req',
          'main thread',
          'busiest other',
          '2nd other',
          'CPU cores',
          'main preempted/s',
          'misses/s',
          'resident hits/s',
          'Postgres µs/req',
        ],
        rows.map((r) => [
          r.label,
          fmtInt(r.rps),
          fmtMs(r.p50, 2),
          fmtMs(r.p99, 2),
          fmtMs(r.max, 2),
          fmtInt(r.total),
          fmtInt(r.non3xx),
          fmtInt(r.errors),
          r.ratio === undefined ? '' : `${(r.ratio * 100).toFixed(1)}%`,
          r.cpuPerReq.toFixed(1),
          r.mainCpuPerReq.toFixed(1),
          r.otherCpuPerReq.toFixed(1),
          r.secondCpuPerReq.toFixed(1),
          r.cpuShare.toFixed(2),
          Number.isNaN(r.preemptedPerS) ? '' : fmtInt(r.preemptedPerS),
          Number.isNaN(r.missesPerS) ? '' : fmtInt(r.missesPerS),
          Number.isNaN(r.residentHitsPerS) ? '' : fmtInt(r.residentHitsPerS),
          Number.isNaN(r.dbCpuPerReq) ? '' : r.dbCpuPerReq.toFixed(1),
        ]),
      ),
    );
    if (second) log(`${secondLabel}: RSS ${fmtRss(second.proc.pid)}`);
    log(`service RSS after this scenario: ${fmtRss(service.proc.pid)} (baseline ${fmtMiB(rssKiB(baseline.proc.pid))})`);
    log();
    if (sc.key === 'routed') {
      // Each round's routed ratio against the same round's plain one: measured within a minute of
      // each other, so a slowdown of the machine moves both.
      const share = (key: string, what: string, target: string) => {
        const other = results.get(key)?.ratios;
        if (!other) return;
        const shares = ratios.map((r, i) => r / other[i]);
        const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
        summary.push(
          `routed links' throughput as a share of ${what}, each against its baseline: ${pct(median(shares))}${target} ` +
            `(median of ${shares.length} rounds: ${shares.map(pct).join(' / ')}; of the medians ${pct(ratio / median(other))})`,
        );
      };
      share('warm', "plain links' (warm set)", ' (target ≥ 90%)');
      share('plain-query', "plain links' visited with the same query", '');
    }
    summary.push(
      `${sc.name}: service/baseline throughput ${(ratio * 100).toFixed(1)}%, service p99 ${fmtMs(svcP99, 2)} ms (baseline ${fmtMs(baseP99, 2)} ms), ` +
        `server CPU per request ${svcCpu.toFixed(1)} µs vs ${baseCpu.toFixed(1)} µs (baseline/service ${((100 * baseCpu) / svcCpu).toFixed(0)}%)${ROUNDS > 1 ? ` (medians of ${ROUNDS} rounds)` : ''}` +
        [...calibrationRatios]
          .map(([us, rs]) => `; bare +${us} µs/request: ${(median(rs) * 100).toFixed(1)}%`)
          .join('') +
        (second
          ? `; ${COMPARE_WITH ? `the ${secondLabel}` : 'with the preload'} ${(median(secondRatios) * 100).toFixed(1)}% (${secondRatios.map((r) => `${(r * 100).toFixed(1)}%`).join(' / ')} against ${ratios.map((r) => `${(r * 100).toFixed(1)}%`).join(' / ')} round by round), CPU per request ${median(rows.filter((r) => r.kind === 'second').map((r) => r.cpuPerReq)).toFixed(1)} µs`
          : ''),
    );
  }

  // 4b. Two instances on one Postgres behind nginx round-robin (--instances 2), on the big set:
  // the combined rate against two bare servers behind the same nginx, the misses per second that
  // reach Postgres, and Postgres's own CPU per redirect, for planning what comes after one instance.
  if (INSTANCES === 2) {
    const service2Port = await freePort();
    const service2 = startChild(
      'service 2',
      [...SERVICE_NODE_FLAGS, '--import', pathToFileURL(watchdog).href, 'bin/shortlink.mjs', 'serve'],
      serviceEnv(service2Port),
      true,
    );
    await waitFor(service2, service2Port, '/healthz', (st) => st === 200, 90_000);
    await waitForPreload('the second instance', service2Port, service2.proc.pid);
    const bare2Port = await freePort();
    const bare2 = startChild(
      'baseline 2',
      ['--import', pathToFileURL(watchdog).href, '-e', BASELINE],
      childEnv({ PORT: String(bare2Port) }),
      true,
    );
    await waitFor(bare2, bare2Port, '/', (st) => st === 302, 30_000);
    // One nginx process (no master), so its CPU is one process's; as the deployment's site does
    // (deploy/nginx/shortlink.conf), kept-alive connections to the instances and the client's
    // address and scheme passed on.
    const [pairPort, barePairPort] = [await freePort(), await freePort()];
    const nginxDir = path.join(tmp, 'nginx');
    fs.mkdirSync(nginxDir, { recursive: true });
    const proxy = (upstream: string) =>
      `location / { proxy_pass http://${upstream}; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $host; proxy_set_header X-Forwarded-For $remote_addr; proxy_set_header X-Forwarded-Proto https; }`;
    fs.writeFileSync(
      path.join(nginxDir, 'nginx.conf'),
      `worker_processes 1;\nmaster_process off;\ndaemon off;\npid ${nginxDir}/nginx.pid;\nerror_log ${nginxDir}/error.log warn;\nevents { worker_connections 4096; }\nhttp {\n  access_log off;\n` +
        ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
          .map((t) => `  ${t}_temp_path ${nginxDir}/${t};\n`)
          .join('') +
        `  upstream services { server 127.0.0.1:${servicePort}; server 127.0.0.1:${service2Port}; keepalive 64; }\n` +
        `  upstream bare { server 127.0.0.1:${basePort}; server 127.0.0.1:${bare2Port}; keepalive 64; }\n` +
        `  server { listen 127.0.0.1:${pairPort}; ${proxy('services')} }\n  server { listen 127.0.0.1:${barePairPort}; ${proxy('bare')} }\n}\n`,
    );
    const nginx = startChild(
      'nginx',
      ['-p', nginxDir, '-c', path.join(nginxDir, 'nginx.conf'), '-e', path.join(nginxDir, 'error.log')],
      childEnv({}),
      true,
      NGINX,
    );
    await waitFor(nginx, barePairPort, '/', (st) => st === 302, 30_000);
    const big = scenarios.find((sc) => sc.key === 'million')?.paths ?? {
      name: 'million',
      count: BIG,
      at: (i: number) => `/${slugOf(WARM + i)}`,
    };
    const rows: Array<Measured & { label: string; ratio?: number }> = [];
    const ratios: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const suffix = ROUNDS > 1 ? ` #${round}` : '';
      const bareParts = {
        pids: [
          ['bare 2', bare2.proc.pid],
          ['nginx', nginx.proc.pid],
        ] as Array<[string, number | undefined]>,
      };
      if (WARMUP > 0) await load('baseline', barePairPort, baseline.proc.pid, big, WARMUP, bareParts);
      const base = await load('baseline', barePairPort, baseline.proc.pid, big, SECONDS, bareParts);
      rows.push({ ...base, label: `two bare servers${suffix}` });
      const svcParts = {
        pids: [
          ['instance 2', service2.proc.pid],
          ['nginx', nginx.proc.pid],
        ] as Array<[string, number | undefined]>,
        metricsPorts: [servicePort, service2Port],
      };
      if (WARMUP > 0) countService(await load('service', pairPort, service.proc.pid, big, WARMUP, svcParts));
      const m = await load('service', pairPort, service.proc.pid, big, SECONDS, svcParts);
      countService(m);
      ratios.push(m.rps / base.rps);
      rows.push({ ...m, label: `two instances${suffix}`, ratio: m.rps / base.rps });
    }
    log(
      `scenario: two instances on one Postgres behind nginx round-robin, ${fmtInt(BIG)} links at random, ${CONNECTIONS} connections, ${SECONDS} s per run (load average now ${os.loadavg()[0].toFixed(2)})`,
    );
    log(
      table(
        [
          'target',
          'requests/s',
          'p50 ms',
          'p99 ms',
          'requests',
          'non-3xx',
          'errors',
          'ratio',
          'CPU µs/req: first',
          'second',
          'nginx',
          'Postgres',
          'misses/s to Postgres',
        ],
        rows.map((r) => [
          r.label,
          fmtInt(r.rps),
          fmtMs(r.p50, 2),
          fmtMs(r.p99, 2),
          fmtInt(r.total),
          fmtInt(r.non3xx),
          fmtInt(r.errors),
          r.ratio === undefined ? '' : `${(r.ratio * 100).toFixed(1)}%`,
          r.cpuPerReq.toFixed(1),
          r.parts[0][1].toFixed(1),
          r.parts[1][1].toFixed(1),
          r.dbCpuPerReq.toFixed(1),
          Number.isNaN(r.missesPerS) ? '' : fmtInt(r.missesPerS),
        ]),
      ),
    );
    log(`RSS: first instance ${fmtRss(service.proc.pid)}, second ${fmtRss(service2.proc.pid)}`);
    log();
    const svc = rows.filter((r) => r.ratio !== undefined);
    summary.push(
      `two instances behind nginx (${fmtInt(BIG)} links): ${fmtInt(median(svc.map((r) => r.rps)))} redirects/s combined, ${(median(ratios) * 100).toFixed(1)}% of two bare servers behind the same nginx, ` +
        `p99 ${fmtMs(median(svc.map((r) => r.p99)), 2)} ms; misses reaching Postgres ${fmtInt(median(svc.map((r) => r.missesPerS)))}/s; Postgres CPU per redirect ${median(svc.map((r) => r.dbCpuPerReq)).toFixed(1)} µs; ` +
        `the instances' CPU per redirect ${median(svc.map((r) => r.cpuPerReq + r.parts[0][1])).toFixed(1)} µs, nginx's ${median(svc.map((r) => r.parts[1][1])).toFixed(1)} µs${ROUNDS > 1 ? ` (medians of ${ROUNDS} rounds)` : ''}`,
    );
    await service2.stop(15_000);
    await nginx.stop(5_000);
    await bare2.stop(5_000);
  }

  // 5. Clicks: everything the service redirected shows up once its buffer is flushed. The client
  // counts the 302s it received; the requests still in flight when a run stops (at most one per
  // connection) were served and recorded too, but not counted; so was the probe above.
  const low = PERSON ? served.completed302 + 1 : 0;
  const high = PERSON ? low + served.inFlight : 0;
  const expected = `${fmtInt(low)}${high > low ? ` to ${fmtInt(high)}` : ''}`;
  log(
    PERSON
      ? `302s counted by the client on the service (warm-ups included): ${fmtInt(served.completed302)}; + 1 probe; + up to ${fmtInt(served.inFlight)} in flight when runs stopped → expected clicks ${expected}`
      : `302s counted by the client on the service: ${fmtInt(served.completed302)}, all to a crawler (--visitor bot) → expected clicks 0`,
  );
  await sleep(2 * CLICK_FLUSH_MS);
  let clicks = await database.clicks();
  const verdict = () =>
    clicks.events >= low && clicks.events <= high
      ? 'all recorded'
      : clicks.events < low
        ? `${fmtInt(low - clicks.events)} missing`
        : `${fmtInt(clicks.events - high)} more than expected`;
  log(
    `clicks after 2 × CLICK_FLUSH_MS (${2 * CLICK_FLUSH_MS} ms): ${fmtInt(clicks.events)} rows in clicks, ${fmtInt(clicks.counted)} in the links' daily counts: ${verdict()}`,
  );
  if (scenarios.some((sc) => sc.key === 'page')) {
    // The probe that read the page's bytes was a view too.
    const lowViews = PERSON ? pageServed.completed + 1 : 0;
    const highViews = PERSON ? lowViews + pageServed.inFlight : 0;
    log(
      `bio page views: ${fmtInt(clicks.views)} rows in page_views; 200s counted by the client ${fmtInt(pageServed.completed)} (+ 1 probe, + up to ${fmtInt(pageServed.inFlight)} in flight): ${clicks.views >= lowViews && clicks.views <= highViews ? 'all recorded' : clicks.views < lowViews ? `${fmtInt(lowViews - clicks.views)} missing` : 'more than expected'}`,
    );
  }
  if (clicks.events < low) {
    const waitStart = Date.now();
    while (Date.now() - waitStart < 30_000 && clicks.events < low) {
      await sleep(CLICK_FLUSH_MS);
      clicks = await database.clicks();
    }
    log(
      `  after ${((Date.now() - waitStart + 2 * CLICK_FLUSH_MS) / 1000).toFixed(1)} s: ${fmtInt(clicks.events)} rows in clicks, ${fmtInt(clicks.counted)} in the links' daily counts: ${verdict()}`,
    );
  }
  log(`service RSS at the end: ${fmtRss(service.proc.pid)}`);
  log();
  log(
    'summary (targets, not asserted: warm ≥ 75% of baseline with p99 < 5 ms; million ≥ 40%; bio page ≥ 50% of its bare server)',
  );
  for (const s of summary) log(`  ${s}`);

  // The service writes its CPU profile when it exits.
  await service.stop(15_000);
  await second?.stop(15_000);
  await baseline.stop(5_000);
  await barePage.stop(5_000);
  for (const c of calibrations) await c.child.stop(5_000);
  if (CPU_PROF_DIR) {
    // One profile per thread: the main thread is thread 0 (tsx's loader hooks run on another).
    const prof = fs
      .readdirSync(CPU_PROF_DIR)
      .filter((f) => new RegExp(`\\.${service.proc.pid}\\.0\\.\\d+\\.cpuprofile$`).test(f))
      .map((f) => path.join(CPU_PROF_DIR, f))[0];
    log();
    if (!prof) log(`no CPU profile was written to ${CPU_PROF_DIR}`);
    else {
      log(`CPU profile: ${prof}`);
      summarizeProfile(prof, windows);
    }
  }
}

await finishBench(main, run, cleanup);
