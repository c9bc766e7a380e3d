// Soak benchmark: minutes of steady mixed load on one `shortlink serve`, printing once a minute
// whether its memory and event loop stay flat. It prints figures and asserts nothing.
//
//   npx tsx bench/soak.ts [--minutes 10] [--engine sqlite|postgres] [--time-limit SECONDS]
//                         [--redirect-rate 300] [--connections 8] [--api-rate 3] [--api-keys 8]
//
// What it does:
//  1. creates a fresh database (a SQLite file in a temp dir, or a Postgres database created on
//     TEST_POSTGRES_URL and dropped at the end), migrates it and adds three workspaces with their
//     owners and API keys through the repositories: "churn" (the API traffic and two webhook
//     subscriptions), "hot" (the links most redirects go to) and "clicked" (a few links whose
//     every click is a link.clicked webhook);
//  2. starts a local HTTPS webhook receiver in this process (self-signed certificate, checks every
//     signature with the reference verifiers, answers 503 to about 2% of attempts so retries
//     happen, 200 otherwise);
//  3. starts `node bin/shortlink.mjs serve` as a child process behind a pretend TLS-terminating
//     proxy (TLS=off TRUST_PROXY=1), WEBHOOK_ALLOW_PRIVATE_NETWORKS=1 and WEBHOOK_CA_FILE so it
//     may deliver to the receiver, and NODE_OPTIONS="--import bench/soak-probe.mjs": a probe that
//     measures the service's own event-loop delay (perf_hooks.monitorEventLoopDelay) and answers
//     this process over IPC. Nothing is added to src/ for it;
//  4. through the API: 100 hot links, 10 clicked links, 40 churn links; a Variant A subscription
//     (link.created, link.updated, link.deleted, conversion.created) and a Variant B one
//     (link.created, link.updated, link.deleted) on churn; a Variant B link.clicked one on clicked;
//  5. runs the mixed load for --minutes:
//     - redirects with autocannon at --redirect-rate requests/s over --connections connections, a
//       browser User-Agent so every redirect is a click: 97% to a random hot link, 2% to a clicked
//       link (each click becomes a webhook delivery), 1% to an unknown slug (404);
//     - the API at --api-rate requests/s spread over --api-keys keys (each far below the 60 a
//       minute limit), in a fixed cycle: create, update, conversion, list, update, conversion,
//       delete, conversion, summary; every create, update and delete is followed by a visit of the
//       link that must show the change (counted as stale when it does not);
//     - webhook deliveries as the consequence of both;
//  6. every minute prints one row: requests served by kind, the service's RSS (/proc/<pid>/status
//     VmRSS) and V8 heap, its event-loop delay p50/p99/max and utilisation, its CPU, the click
//     backlog (302s answered minus clicks recorded on the hot and clicked links, read through
//     GET /api/v1/links with monitoring keys), and the webhook attempts received;
//  7. at the end prints first-minute vs last-minute ratios (flat = near 1) and the trend.
// Every child process, temp file and database is removed at the end, on error, on Ctrl-C and when
// --time-limit runs out (the service also exits by itself if this process dies).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { migrateLatest, openDatabase } from '../src/db/knex';
import { addMember, createWorkspace } from '../src/db/repos/workspaces';
import { createKey } from '../src/db/repos/api-keys';
import type { Scope } from '../src/domain/access';
import { generateDevCertificate } from '../src/start/tls';
import { verifyVariantA, verifyVariantB } from '../src/webhooks/verify.mjs';
import { benchCleanups, finishBench, guardBenchRun, watchChild, withTimeout } from './lifecycle';
import {
  cpuMs,
  createScratchPostgres,
  fmtInt,
  fmtMs,
  freePort,
  log,
  percentile,
  rssKiB,
  sleep,
  buildService,
} from './util';

// ---------------------------------------------------------------------------------------------
// autocannon has no bundled types; the part used here.

interface AutocannonRequest {
  method?: string;
  path?: string;
  setupRequest?: (req: AutocannonRequest) => AutocannonRequest;
}
interface AutocannonResult {
  errors: number;
  timeouts: number;
  requests: { total: number; sent: number };
}
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(event: 'response', fn: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): void;
  on(event: 'reqError', fn: (err: Error) => void): void;
  stop(): void;
}
type Autocannon = (opts: Record<string, unknown>) => AutocannonInstance;
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

// ---------------------------------------------------------------------------------------------
// Options

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    engine: { type: 'string', default: 'sqlite' },
    'redirect-rate': { type: 'string', default: '300' },
    connections: { type: 'string', default: '8' },
    'api-rate': { type: 'string', default: '3' },
    'api-keys': { type: 'string', default: '8' },
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
const positive = (name: string, v: string | undefined, integer = true): number => {
  const n = Number(v);
  if (!(n > 0) || (integer && !Number.isInteger(n)))
    usage(`--${name} must be a positive ${integer ? 'integer' : 'number'}; got ${v}`);
  return n;
};
const MINUTES = positive('minutes', args.minutes);
const REDIRECT_RATE = positive('redirect-rate', args['redirect-rate']);
const CONNECTIONS = positive('connections', args.connections);
const API_RATE = positive('api-rate', args['api-rate'], false);
const API_KEYS = positive('api-keys', args['api-keys']);
const ENGINE = args.engine as 'sqlite' | 'postgres';
if (ENGINE !== 'sqlite' && ENGINE !== 'postgres') usage(`--engine must be sqlite or postgres; got ${args.engine}`);
// Each key must stay well below the 60 requests a minute it may make, or 429s would be the load.
const PER_KEY_PER_MINUTE = (API_RATE * 60) / API_KEYS;
if (PER_KEY_PER_MINUTE > 45)
  usage(
    `--api-rate ${API_RATE} over ${API_KEYS} keys is ${PER_KEY_PER_MINUTE.toFixed(1)} requests a minute per key; keep it at most 45 (the limit is 60)`,
  );
const TIME_LIMIT_S = args['time-limit'] ? positive('time-limit', args['time-limit']) : MINUTES * 60 + 300;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
buildService(ROOT);
const PROBE = path.join(ROOT, 'bench', 'soak-probe.mjs');
const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const HEADERS = { 'User-Agent': PERSON, 'X-Forwarded-Proto': 'https', Host: 'localhost' };
const MASTER_KEY = 'c'.repeat(64);
const HOT_LINKS = 100;
const CLICKED_LINKS = 10;
const CHURN_POOL = 40;
/** Share of webhook attempts the receiver answers with 503 (so that retries happen). */
const RECEIVER_FAILURE_SHARE = 0.02;
const API_CYCLE = [
  'create',
  'update',
  'conversion',
  'list',
  'update',
  'conversion',
  'delete',
  'conversion',
  'summary',
] as const;
type ApiOp = (typeof API_CYCLE)[number];

// ---------------------------------------------------------------------------------------------
// Cleanup: every resource registers how to release itself; released in reverse order, once.

const children = new Set<ChildProcess>();
let currentLoad: AutocannonInstance | undefined;
const { onCleanup, cleanup } = benchCleanups({ timeoutMs: 20_000, first: () => currentLoad?.stop() });
const run = guardBenchRun({ children, cleanup, timeLimitS: TIME_LIMIT_S });

// ---------------------------------------------------------------------------------------------
// Small helpers

const mib = (bytes: number) => bytes / 2 ** 20;
// NaN, not null, when unreadable: the figures print "NaN" rather than a false 0.
const rssKiBOrNaN = (pid: number | undefined) => rssKiB(pid) ?? NaN;
const percentileOf = (values: number[], p: number) => percentile(Float64Array.from(values).sort(), p);

/** Least-squares slope of ys over 0, 1, 2, ... */
function slope(ys: number[]): number {
  const n = ys.length;
  if (n < 2) return NaN;
  const mx = (n - 1) / 2;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  ys.forEach((y, x) => {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  });
  return num / den;
}

// ---------------------------------------------------------------------------------------------
// The service as a child process, with the probe

// Loaded into the child with --import: a child whose parent is gone exits by itself.
const WATCHDOG = `const parent = Number(process.env.SHORTLINK_BENCH_PARENT);
setInterval(() => { if (process.ppid !== parent) process.exit(1); }, 500).unref();
`;

interface ProbeSample {
  resolutionMs: number;
  count: number;
  p50: number;
  p99: number;
  max: number;
  utilization: number;
  rss: number;
  heapUsed: number;
}

interface Service {
  proc: ChildProcess;
  exited: Promise<void>;
  logLines: number;
  output(): string;
  sample(): Promise<ProbeSample>;
  stop(graceMs: number): Promise<void>;
}

function startService(env: NodeJS.ProcessEnv, watchdog: string): Service {
  const proc = spawn(process.execPath, ['--import', pathToFileURL(watchdog).href, 'bin/shortlink.mjs', 'serve'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let tail = '';
  const { exited, stop } = watchChild(proc, children, (err) => (tail += `\n${err.message}`));
  const service: Service = {
    proc,
    exited,
    logLines: 0,
    output: () => tail,
    sample: () =>
      withTimeout(
        new Promise<ProbeSample>((resolve) => {
          const onMessage = (m: { type?: string } & ProbeSample) => {
            if (m?.type !== 'soak-sample') return;
            proc.off('message', onMessage);
            resolve(m);
          };
          proc.on('message', onMessage);
          proc.send({ type: 'soak-sample' });
        }),
        10_000,
        'event-loop probe',
      ),
    stop,
  };
  // The service logs at warn: the first lines are shown, the rest only counted.
  for (const stream of [proc.stdout!, proc.stderr!]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-8_000);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const l of lines) {
        if (!l.trim()) continue;
        if (++service.logLines <= 20) process.stderr.write(`[service] ${l.slice(0, 500)}\n`);
        else if (service.logLines === 21) process.stderr.write('[service] (further lines are counted, not shown)\n');
      }
    });
  }
  onCleanup('service process', () => service.stop(15_000));
  return service;
}

// ---------------------------------------------------------------------------------------------
// A small HTTP client for the service (plain HTTP, as behind the proxy)

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  ms: number;
}

function client(port: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  onCleanup('http agent', () => agent.destroy());
  return (method: string, pathname: string, o: { key?: string; body?: unknown } = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
      const headers: Record<string, string> = { ...HEADERS };
      if (o.key) headers.Authorization = `Bearer ${o.key}`;
      if (payload !== undefined) {
        headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = String(Buffer.byteLength(payload));
      }
      const started = performance.now();
      const req = http.request(
        { host: '127.0.0.1', port, method, path: pathname, headers, agent, timeout: 15_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown;
            try {
              body = text ? JSON.parse(text) : undefined;
            } catch {
              body = text;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ms: performance.now() - started });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${pathname}: timeout`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
}
type Client = ReturnType<typeof client>;

async function waitForHealth(service: Service, call: Client, ms: number) {
  const until = Date.now() + ms;
  let last = 'no answer';
  while (Date.now() < until) {
    if (service.proc.exitCode !== null || service.proc.signalCode !== null) {
      throw new Error(
        `the service exited (${service.proc.exitCode ?? service.proc.signalCode}) before answering:\n${service.output()}`,
      );
    }
    try {
      const r = await call('GET', '/healthz');
      if (r.status === 200) return;
      last = `status ${r.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(200);
  }
  throw new Error(`the service did not answer GET /healthz within ${ms} ms (${last}):\n${service.output()}`);
}

// ---------------------------------------------------------------------------------------------
// Database

interface SoakDatabase {
  url: string;
  describe: string;
}

async function createDatabase(tmp: string): Promise<SoakDatabase> {
  if (ENGINE === 'sqlite') {
    const file = path.join(tmp, 'data', 'shortlink.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return { url: `sqlite:${file}`, describe: `SQLite ${file}` };
  }
  const scratch = await createScratchPostgres('sl_soak');
  onCleanup(`database ${scratch.name}`, scratch.drop);
  return { url: scratch.url, describe: `Postgres database ${scratch.name} on ${new URL(scratch.url).host}` };
}

interface Workspaces {
  churn: { id: string; keys: string[]; hooksKey: string };
  hot: { seedKeys: string[]; monitorKey: string };
  clicked: { key: string };
}

async function seedWorkspaces(url: string): Promise<Workspaces> {
  const db = openDatabase(url, { poolMax: 2 });
  try {
    await migrateLatest(db);
    const workspace = async (name: string) => {
      const id = await createWorkspace(db.knex, name, 'business');
      const userId = await addMember(db.knex, id, `owner@${name.toLowerCase().replace(/\W/g, '-')}.soak.test`, 'OWNER');
      const key = async (scopes: Scope[]) => (await createKey(db.knex, id, userId, scopes, null)).key;
      return { id, key };
    };
    const churn = await workspace('Soak churn');
    const hot = await workspace('Soak hot');
    const clicked = await workspace('Soak clicked');
    const churnScopes: Scope[] = ['links:read', 'links:write', 'conversions:read', 'conversions:write'];
    return {
      churn: {
        id: churn.id,
        keys: await Promise.all(Array.from({ length: API_KEYS }, () => churn.key(churnScopes))),
        hooksKey: await churn.key(['webhooks:read', 'webhooks:write']),
      },
      hot: {
        seedKeys: [await hot.key(['links:write']), await hot.key(['links:write'])],
        monitorKey: await hot.key(['links:read']),
      },
      clicked: { key: await clicked.key(['links:read', 'links:write', 'webhooks:write']) },
    };
  } finally {
    await db.knex.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// The webhook receiver (in this process)

interface ReceiverCounts {
  attempts: number;
  answered503: number;
  badSignatures: number;
  /** Arrival minus the event time of link.clicked deliveries (click to delivery), ms. */
  clickLagMs: number[];
}

interface Receiver {
  port: number;
  caFile: string;
  secrets: { a?: string; b: string };
  minute: ReceiverCounts;
  total: ReceiverCounts & { uniqueA: Set<string>; uniqueB: Set<string> };
  takeMinute(): ReceiverCounts;
}

const emptyCounts = (): ReceiverCounts => ({ attempts: 0, answered503: 0, badSignatures: 0, clickLagMs: [] });

async function startReceiver(tmp: string): Promise<Receiver> {
  const material = await generateDevCertificate();
  const caFile = path.join(tmp, 'receiver-cert.pem');
  fs.writeFileSync(caFile, material.cert);
  const receiver: Receiver = {
    port: 0,
    caFile,
    secrets: { b: 'soak-variant-b-secret-0123456789' },
    minute: emptyCounts(),
    total: { ...emptyCounts(), uniqueA: new Set(), uniqueB: new Set() },
    takeMinute() {
      const m = receiver.minute;
      receiver.minute = emptyCounts();
      return m;
    },
  };
  const server = https.createServer({ cert: material.cert, key: material.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const variantB = req.headers['x-service-signature'] !== undefined;
      const ok = variantB
        ? verifyVariantB(raw, req.headers['x-service-signature'] as string, receiver.secrets.b)
        : receiver.secrets.a !== undefined &&
          verifyVariantA(raw, req.headers['x-webhook-signature'] as string, receiver.secrets.a);
      const fail = Math.random() < RECEIVER_FAILURE_SHARE;
      for (const c of [receiver.minute, receiver.total]) {
        c.attempts++;
        if (!ok) c.badSignatures++;
        if (fail) c.answered503++;
      }
      try {
        const body = JSON.parse(raw.toString('utf8'));
        if (!fail && variantB) receiver.total.uniqueB.add(String(req.headers['x-service-delivery-id']));
        if (!fail && !variantB)
          receiver.total.uniqueA.add(`${body.event}:${body.data?.id}:${body.data?.updatedAt ?? ''}`);
        if (variantB && body.type === 'link.clicked')
          receiver.minute.clickLagMs.push(Date.now() - Date.parse(body.timestamp));
      } catch {
        // A body that is not JSON fails its signature check already.
      }
      res.writeHead(fail ? 503 : 200, { 'content-type': 'text/plain' });
      res.end(fail ? 'try again' : 'ok');
    });
  });
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  receiver.port = (server.address() as net.AddressInfo).port;
  onCleanup('webhook receiver', async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return receiver;
}

// ---------------------------------------------------------------------------------------------
// Load: counters per minute

interface MinuteCounts {
  redirects: Record<'302' | '404' | 'other', number>;
  redirectMs: number[];
  redirectErrors: number;
  api: Record<ApiOp, number>;
  apiFailed: number;
  api429: number;
  apiMs: number[];
  visits: number;
  stale: number;
}

const emptyMinute = (): MinuteCounts => ({
  redirects: { '302': 0, '404': 0, other: 0 },
  redirectMs: [],
  redirectErrors: 0,
  api: { create: 0, update: 0, delete: 0, conversion: 0, list: 0, summary: 0 },
  apiFailed: 0,
  api429: 0,
  apiMs: [],
  visits: 0,
  stale: 0,
});

interface MinuteRow {
  minute: number;
  counts: MinuteCounts;
  rssMiB: number;
  heapMiB: number;
  delay: { p50: number; p99: number; max: number };
  utilization: number;
  cpuShare: number;
  backlog: number | null;
  webhooks: ReceiverCounts;
  logLines: number;
}

/** The API side of the mix: one request at a time, paced at API_RATE, keys taken in turn. */
class ApiDriver {
  minute = emptyMinute();
  failures: string[] = [];
  private stopped = false;
  private pool: Array<{ id: string; slug: string; url: string }> = [];
  private serial = 0;
  private n = 0;
  done: Promise<void> | undefined;

  constructor(
    private readonly call: Client,
    private readonly keys: string[],
  ) {}

  seed(links: Array<{ id: string; slug: string; url: string }>) {
    this.pool.push(...links);
  }

  start() {
    this.done = this.loop();
  }

  async stop() {
    this.stopped = true;
    await this.done;
  }

  private async loop() {
    const interval = 1000 / API_RATE;
    const started = performance.now();
    for (let i = 0; !this.stopped; i++) {
      const op = API_CYCLE[i % API_CYCLE.length];
      try {
        await this.step(op === 'create' || this.pool.length ? op : 'create');
      } catch (err) {
        this.minute.apiFailed++;
        this.note(`${op}: ${(err as Error).message}`);
      }
      const wait = started + (i + 1) * interval - performance.now();
      if (wait > 0) await sleep(wait);
    }
  }

  private note(failure: string) {
    if (this.failures.length < 20) this.failures.push(failure);
  }

  private key() {
    return this.keys[this.n++ % this.keys.length];
  }

  private count(op: ApiOp, r: Answer, expected: number) {
    this.minute.apiMs.push(r.ms);
    if (r.status === expected) this.minute.api[op]++;
    else {
      this.minute.apiFailed++;
      if (r.status === 429) this.minute.api429++;
      this.note(`${op}: ${r.status} ${JSON.stringify(r.body)?.slice(0, 200)}`);
    }
    return r.status === expected;
  }

  /** A visit after a change must already show it (same process: the cache was invalidated). */
  private async visit(slug: string, expect: (r: Answer) => boolean) {
    const r = await this.call('GET', `/${slug}`);
    this.minute.visits++;
    if (!expect(r)) {
      this.minute.stale++;
      this.note(`visit /${slug} after a change: ${r.status} ${r.headers.location ?? ''}`);
    }
  }

  private async step(op: ApiOp) {
    const pick = () => this.pool[(Math.random() * this.pool.length) | 0];
    switch (op) {
      case 'create': {
        const url = `https://example.com/soak/${++this.serial}`;
        const r = await this.call('POST', '/api/v1/links', {
          key: this.key(),
          body: { url, title: `Soak ${this.serial}` },
        });
        if (this.count(op, r, 201)) {
          this.pool.push({ id: r.body.data.id, slug: r.body.data.slug, url });
          await this.visit(r.body.data.slug, (v) => v.status === 302 && v.headers.location === url);
        }
        return;
      }
      case 'update': {
        const link = pick();
        const url = `https://example.com/soak/${link.id}/${++this.serial}`;
        const r = await this.call('PATCH', `/api/v1/links/${link.id}`, {
          key: this.key(),
          body: { url, title: `Soak update ${this.serial}` },
        });
        if (this.count(op, r, 200)) {
          link.url = url;
          await this.visit(link.slug, (v) => v.status === 302 && v.headers.location === url);
        }
        return;
      }
      case 'delete': {
        const link = this.pool.shift()!;
        const r = await this.call('DELETE', `/api/v1/links/${link.id}`, { key: this.key() });
        if (this.count(op, r, 200)) await this.visit(link.slug, (v) => v.status === 404);
        return;
      }
      case 'conversion': {
        const link = pick();
        const type = (['purchase', 'signup', 'lead'] as const)[this.serial++ % 3];
        const body: Record<string, unknown> = { eventType: type, linkId: link.id, metadata: { source: 'soak' } };
        if (type === 'purchase')
          body.value = { amountMinor: 100 + (this.serial % 5000), currency: this.serial % 2 ? 'EUR' : 'USD' };
        this.count(op, await this.call('POST', '/api/v1/conversions', { key: this.key(), body }), 201);
        return;
      }
      case 'list':
        this.count(op, await this.call('GET', '/api/v1/links?page=1&limit=50', { key: this.key() }), 200);
        return;
      case 'summary':
        this.count(op, await this.call('GET', '/api/v1/conversions', { key: this.key() }), 200);
        return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-soak-'));
  onCleanup('temp dir', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const watchdog = path.join(tmp, 'watchdog.mjs');
  fs.writeFileSync(watchdog, WATCHDOG);

  const cpus = os.cpus();
  log('Shortlink soak benchmark');
  log(
    `machine: ${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}; load average at start ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  log(
    `load: ${MINUTES} min; redirects ${REDIRECT_RATE}/s over ${CONNECTIONS} connections (97% ${HOT_LINKS} hot links, 2% ${CLICKED_LINKS} links with a link.clicked webhook, 1% unknown slugs); API ${API_RATE}/s over ${API_KEYS} keys (${PER_KEY_PER_MINUTE.toFixed(1)}/min per key); engine ${ENGINE}; time limit ${TIME_LIMIT_S} s`,
  );

  // 1. Database and workspaces.
  const database = await createDatabase(tmp);
  log(`database: ${database.describe}`);
  const ws = await seedWorkspaces(database.url);

  // 2. Receiver; 3. the service.
  const receiver = await startReceiver(tmp);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SHORTLINK_BENCH_PARENT: String(process.pid),
    NODE_OPTIONS: `--import ${pathToFileURL(PROBE).href}`,
    SOAK_PROBE: '1',
    DATABASE_URL: database.url,
    DATA_DIR: path.join(tmp, 'data'),
    PORT: String(port),
    TLS: 'off',
    TRUST_PROXY: '1',
    SHORT_DOMAIN: 'localhost',
    LOG_LEVEL: 'warn',
    MASTER_KEY,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
    WEBHOOK_CA_FILE: receiver.caFile,
  };
  const service = startService(env, watchdog);
  const call = client(port);
  await waitForHealth(service, call, 90_000);
  const pid = service.proc.pid;

  // 4. Links and subscriptions, through the API.
  const created = async (key: string, body: Record<string, unknown>) => {
    const r = await call('POST', '/api/v1/links', { key, body });
    if (r.status !== 201) throw new Error(`seeding a link: ${r.status} ${JSON.stringify(r.body)}`);
    return { id: r.body.data.id as string, slug: r.body.data.slug as string, url: body.url as string };
  };
  const hot: string[] = [];
  for (let i = 0; i < HOT_LINKS; i++)
    hot.push(
      (await created(ws.hot.seedKeys[i % 2], { url: `https://example.com/hot/${i}`, slug: `soak-hot-${i}` })).slug,
    );
  const clicked: string[] = [];
  for (let i = 0; i < CLICKED_LINKS; i++)
    clicked.push(
      (await created(ws.clicked.key, { url: `https://example.com/clicked/${i}`, slug: `soak-clicked-${i}` })).slug,
    );
  const pool = [];
  for (let i = 0; i < CHURN_POOL; i++)
    pool.push(await created(ws.churn.keys[i % ws.churn.keys.length], { url: `https://example.com/churn/${i}` }));

  const subA = await call('POST', '/api/webhooks', {
    key: ws.churn.hooksKey,
    body: {
      workspaceId: ws.churn.id,
      url: `https://127.0.0.1:${receiver.port}/churn/a`,
      events: ['link.created', 'link.updated', 'link.deleted', 'conversion.created'],
    },
  });
  if (subA.status !== 201) throw new Error(`Variant A subscription: ${subA.status} ${JSON.stringify(subA.body)}`);
  receiver.secrets.a = subA.body.data.secret;
  for (const [key, pathname, events] of [
    [ws.churn.hooksKey, '/churn/b', ['link.created', 'link.updated', 'link.deleted']],
    [ws.clicked.key, '/clicked/b', ['link.clicked']],
  ] as const) {
    const r = await call('POST', '/api/v1/webhooks', {
      key,
      body: { url: `https://127.0.0.1:${receiver.port}${pathname}`, events, secret: receiver.secrets.b },
    });
    if (r.status !== 201) throw new Error(`Variant B subscription: ${r.status} ${JSON.stringify(r.body)}`);
  }
  const probeStatus = (await call('GET', `/${hot[0]}`)).status;
  const firstSample = await service.sample();
  log(
    `service pid ${pid} on :${port} (GET /${hot[0]} → ${probeStatus}), RSS ${mib(rssKiBOrNaN(pid) * 1024).toFixed(0)} MiB; probe answering (${firstSample.count} delay samples so far)`,
  );
  log(
    `seeded through the API: ${HOT_LINKS} hot, ${CLICKED_LINKS} clicked and ${CHURN_POOL} churn links; webhook subscriptions: churn A + B, clicked B (receiver on :${receiver.port}, answers 503 to ~${RECEIVER_FAILURE_SHARE * 100}% of attempts)`,
  );
  log();

  // Click backlog: the 302s answered so far minus the clicks recorded on the hot and clicked links.
  let served302 = 1; // the probe visit above
  const recordedClicks = async (): Promise<number | null> => {
    let sum = 0;
    for (const key of [ws.hot.monitorKey, ws.clicked.key]) {
      const r = await call('GET', '/api/v1/links?page=1&limit=100', { key });
      if (r.status !== 200) return null;
      for (const l of r.body.data as Array<{ clicks: number }>) sum += l.clicks;
    }
    return sum;
  };

  // 5. The load.
  const driver = new ApiDriver(call, ws.churn.keys);
  driver.seed(pool);
  let redirectMinute = { redirects: { '302': 0, '404': 0, other: 0 }, ms: [] as number[], errors: 0 };
  const pickPath = () => {
    const r = Math.random();
    if (r < 0.97) return `/${hot[(Math.random() * hot.length) | 0]}`;
    if (r < 0.99) return `/${clicked[(Math.random() * clicked.length) | 0]}`;
    return `/soak-unknown-${Math.random().toString(36).slice(2, 10)}`;
  };
  const load = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    overallRate: REDIRECT_RATE,
    // Stopped after the last minute; the duration is only a backstop.
    duration: MINUTES * 60 + 120,
    timeout: 10,
    headers: HEADERS,
    requests: [
      {
        method: 'GET',
        setupRequest: (req: AutocannonRequest) => {
          req.path = pickPath();
          return req;
        },
      },
    ],
  });
  currentLoad = load;
  load.on('response', (_client, status, _bytes, ms) => {
    if (status === 302) {
      redirectMinute.redirects['302']++;
      served302++;
    } else if (status === 404) redirectMinute.redirects['404']++;
    else redirectMinute.redirects.other++;
    redirectMinute.ms.push(ms);
  });
  load.on('reqError', () => redirectMinute.errors++);
  driver.start();
  const serviceDied = service.exited.then(() => {
    throw new Error(
      `the service exited (${service.proc.exitCode ?? service.proc.signalCode}) during the soak:\n${service.output()}`,
    );
  });

  const head = [
    'min',
    'redirects',
    '302',
    '404',
    'oth',
    'p99 ms',
    'api ok',
    'c/u/d',
    'conv',
    'list/sum',
    'fail',
    'stale',
    'RSS MiB',
    'heap MiB',
    'ELD p50',
    'p99',
    'max ms',
    'ELU',
    'CPU',
    'backlog',
    'hooks',
    '503',
    'lag p99 s',
    'logs',
  ];
  const widths = [3, 9, 7, 4, 3, 6, 6, 8, 4, 8, 4, 5, 7, 8, 7, 5, 7, 4, 4, 7, 5, 3, 9, 4];
  const row = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i])).join(' ');
  log(
    'per minute: requests served by kind (redirects: 302 / 404 / other, client-side p99; API: ok by kind, failed, stale visits after a change),',
  );
  log(
    'service RSS and V8 heap used, event-loop delay beyond the 10 ms timer (p50 / p99 / max) and utilisation, CPU (cores),',
  );
  log(
    'click backlog (302s answered − clicks recorded), webhook attempts received / answered 503, click-to-delivery lag p99, service log lines',
  );
  log(row(head));
  log(row(head.map((h, i) => '-'.repeat(Math.max(h.length, widths[i])))));

  const rows: MinuteRow[] = [];
  const loadStart = performance.now();
  let cpuBefore = cpuMs(pid);
  const minutes = (async () => {
    for (let m = 1; m <= MINUTES; m++) {
      const wait = loadStart + m * 60_000 - performance.now();
      if (wait > 0) await sleep(wait);
      const counts = driver.minute;
      driver.minute = emptyMinute();
      const redirect = redirectMinute;
      redirectMinute = { redirects: { '302': 0, '404': 0, other: 0 }, ms: [], errors: 0 };
      counts.redirects = redirect.redirects;
      counts.redirectMs = redirect.ms;
      counts.redirectErrors = redirect.errors;
      const webhooks = receiver.takeMinute();
      const rssNow = rssKiBOrNaN(pid);
      const cpuNow = cpuMs(pid);
      const probe = await service.sample();
      const servedNow = served302;
      const clicks = await recordedClicks();
      const beyond = (v: number) => Math.max(0, v - probe.resolutionMs);
      const r: MinuteRow = {
        minute: m,
        counts,
        rssMiB: rssNow / 1024,
        heapMiB: mib(probe.heapUsed),
        delay: { p50: beyond(probe.p50), p99: beyond(probe.p99), max: beyond(probe.max) },
        utilization: probe.utilization,
        cpuShare: (cpuNow - cpuBefore) / 60_000,
        backlog: clicks === null ? null : servedNow - clicks,
        webhooks,
        logLines: service.logLines,
      };
      cpuBefore = cpuNow;
      rows.push(r);
      const c = r.counts;
      const apiOk = Object.values(c.api).reduce((a, b) => a + b, 0);
      log(
        row([
          String(m),
          fmtInt(c.redirects['302'] + c.redirects['404'] + c.redirects.other),
          fmtInt(c.redirects['302']),
          fmtInt(c.redirects['404']),
          fmtInt(c.redirects.other + c.redirectErrors),
          fmtMs(percentileOf(c.redirectMs, 99)),
          fmtInt(apiOk),
          `${c.api.create}/${c.api.update}/${c.api.delete}`,
          String(c.api.conversion),
          `${c.api.list}/${c.api.summary}`,
          String(c.apiFailed),
          String(c.stale),
          r.rssMiB.toFixed(1),
          r.heapMiB.toFixed(1),
          r.delay.p50.toFixed(2),
          r.delay.p99.toFixed(2),
          r.delay.max.toFixed(1),
          r.utilization.toFixed(2),
          r.cpuShare.toFixed(2),
          r.backlog === null ? '-' : fmtInt(r.backlog),
          fmtInt(webhooks.attempts),
          String(webhooks.answered503),
          (percentileOf(webhooks.clickLagMs, 99) / 1000).toFixed(2),
          String(r.logLines),
        ]),
      );
    }
  })();
  await Promise.race([minutes, serviceDied]);
  serviceDied.catch(() => undefined);

  // The load stops; whatever the receiver still gets is the tail of the outbox.
  load.stop();
  const loadResult = await load;
  currentLoad = undefined;
  await driver.stop();
  log();

  // 7. Summary.
  const first = rows[0];
  const last = rows[rows.length - 1];
  const ratio = (a: number, b: number) => (a > 0 ? (b / a).toFixed(2) : '-');
  log(`first minute vs last minute (minute 1 → minute ${last.minute}; flat = ratio near 1):`);
  log(
    `  RSS            ${first.rssMiB.toFixed(1)} → ${last.rssMiB.toFixed(1)} MiB   ratio ${ratio(first.rssMiB, last.rssMiB)}`,
  );
  log(
    `  heap used      ${first.heapMiB.toFixed(1)} → ${last.heapMiB.toFixed(1)} MiB   ratio ${ratio(first.heapMiB, last.heapMiB)}`,
  );
  log(
    `  loop delay p99 ${first.delay.p99.toFixed(2)} → ${last.delay.p99.toFixed(2)} ms   ratio ${ratio(first.delay.p99, last.delay.p99)} (${last.delay.p99 - first.delay.p99 >= 0 ? '+' : ''}${(last.delay.p99 - first.delay.p99).toFixed(2)} ms; beyond the 10 ms timer)`,
  );
  log(
    `  redirect p99   ${fmtMs(percentileOf(first.counts.redirectMs, 99))} → ${fmtMs(percentileOf(last.counts.redirectMs, 99))} ms (client side)`,
  );
  if (rows.length >= 3) {
    const later = rows.slice(1);
    log(
      `  trend over minutes 2–${last.minute} (least squares): RSS ${slope(later.map((r) => r.rssMiB)) >= 0 ? '+' : ''}${slope(later.map((r) => r.rssMiB)).toFixed(2)} MiB/min, heap ${slope(later.map((r) => r.heapMiB)) >= 0 ? '+' : ''}${slope(later.map((r) => r.heapMiB)).toFixed(2)} MiB/min, loop delay p99 ${slope(later.map((r) => r.delay.p99)) >= 0 ? '+' : ''}${slope(later.map((r) => r.delay.p99)).toFixed(3)} ms/min`,
    );
  }
  const sum = (f: (r: MinuteRow) => number) => rows.reduce((a, r) => a + f(r), 0);
  log(
    `totals: ${fmtInt(sum((r) => r.counts.redirects['302'] + r.counts.redirects['404'] + r.counts.redirects.other))} redirect requests ` +
      `(${fmtInt(sum((r) => r.counts.redirects.other))} neither 302 nor 404, ${fmtInt(loadResult.errors)} errors, ${fmtInt(loadResult.timeouts)} timeouts), ` +
      `${fmtInt(sum((r) => Object.values(r.counts.api).reduce((a, b) => a + b, 0)))} API requests as expected, ${fmtInt(sum((r) => r.counts.apiFailed))} not ` +
      `(${fmtInt(sum((r) => r.counts.api429))} of them 429), ${fmtInt(sum((r) => r.counts.visits))} visits after a change (${fmtInt(sum((r) => r.counts.stale))} stale)`,
  );
  for (const f of driver.failures) log(`  API/visit failure: ${f}`);

  // Let the click flush and the outbox finish what the load started (retries after a 503 may be
  // scheduled further out: Variant A waits 10 s, then 20 s, ...).
  await sleep(3_000);
  const clicksAtEnd = await recordedClicks();
  // Requests in flight when autocannon stopped were answered (and recorded) but not counted.
  const inFlight = Math.min(CONNECTIONS, Math.max(0, loadResult.requests.sent - loadResult.requests.total));
  log(
    `clicks: ${fmtInt(served302)} 302s counted on hot and clicked links (+ up to ${fmtInt(inFlight)} in flight when the load stopped), ` +
      `${clicksAtEnd === null ? '-' : fmtInt(clicksAtEnd)} recorded 3 s after the load stopped`,
  );
  const attemptsAtStop = receiver.total.attempts;
  await sleep(12_000);
  log(
    `webhooks: ${fmtInt(receiver.total.attempts)} attempts received (${fmtInt(receiver.total.attempts - attemptsAtStop)} in the 15 s after the load stopped), ` +
      `${fmtInt(receiver.total.answered503)} answered 503, ${fmtInt(receiver.total.badSignatures)} bad signatures; ` +
      `accepted: ${fmtInt(receiver.total.uniqueA.size)} distinct Variant A events, ${fmtInt(receiver.total.uniqueB.size)} distinct Variant B deliveries`,
  );
  log(
    `service: RSS ${mib(rssKiBOrNaN(pid) * 1024).toFixed(1)} MiB at the end, ${service.logLines} log lines at warn or above`,
  );
  await service.stop(15_000);
}

await finishBench(main, run, cleanup);
