// Dashboard reads benchmark: a link's analytics and the links list (search, filters, sorting)
// over a large workspace, through the service over HTTPS with a signed-in session and in process
// through services.queries, against the reads as they were (bench/dashboard-baseline.ts) on the
// same data. It prints figures and asserts nothing.
//
//   npx tsx bench/dashboard.ts [--engine sqlite|postgres|both] [--links 1000000] [--clicks 10000000]
//                              [--big-link-clicks 1000000] [--requests 30] [--baseline-requests 3]
//                              [--limit 100] [--explain auto|always|never] [--keep] [--seed-only]
//                              [--cases REGEXP] (only the cases whose names match)
//                              [--time-limit SECONDS] [--reuse URL (once per engine)]
//
// What it does, per engine:
//  1. creates a fresh database (a SQLite file in a temp dir, or a scratch Postgres database on
//     TEST_POSTGRES_URL, dropped at the end), migrated to just before 20261125000000 (the
//     dashboard aggregates), with a workspace, a member who has a password, 20 tags and 2 domains;
//  2. bulk-loads (bench/seed-dashboard.ts) --links links (varied slugs, titles, destinations; 30%
//     tagged, tags by popularity; 10% on a custom domain; 5% disabled; 2% deleted) and --clicks raw
//     clicks over the last 90 days, --big-link-clicks of them on one link, the rest over the links
//     by popularity, with skewed countries, devices, browsers, systems and referrer hosts; their
//     daily counts and, for half the links, an older day of counts;
//  3. settles the database (SQLite: WAL checkpoint; Postgres: VACUUM ANALYZE), then runs the
//     migrations, timed (the search indexes' build over those links, the click totals), and the
//     service's first click fold (90 days of raw clicks, src/db/repos/click-folds.ts), timed;
//     settles again;
//  4. starts `node bin/shortlink.mjs serve` (TLS on, its self-signed certificate; free port; fresh
//     DATA_DIR) and signs in through POST /app/api/session;
//  5. per case: --requests sequential HTTPS requests on one keep-alive connection after 3 warm-ups
//     (cookie; GET needs no anti-forgery token), then the same through services.queries in this
//     process (query threads on SQLite, as the handlers call them), then the baseline in process
//     (--baseline-requests runs after one warm-up; the analytics baseline takes seconds a run, so
//     no warm-up) and whether it answered the same;
//  6. prints a table per engine with p50/p99 and the ratio to the baseline, and for each case over
//     100 ms (--explain auto) the queries of one run with their plans.
// Every child process, temp file and database is removed at the end, on error, on Ctrl-C and when
// --time-limit runs out; with --keep the seeded databases stay (--seed-only: seed, keep, and stop),
// for trying queries and indexes on them by hand. --reuse URL measures such a kept database again
// (`sqlite:/tmp/…/bench.db` or the `postgres://…` address the run printed) instead of seeding one:
// it is migrated to the latest schema (timed: a new migration's build over the million links),
// settled, and left in place; an engine without a --reuse URL is seeded as usual.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { engineOf, migrateLatest, openDatabase, type Engine } from '../src/db/knex';
import { migrationSource } from '../src/db/migrations';
import { openQueryService } from '../src/db/query-threads';
import type { LinkSearch } from '../src/db/repos/link-search';
import { runClickFold } from '../src/db/repos/click-folds';
import { setPassword } from '../src/db/repos/accounts';
import { addMember, createWorkspace } from '../src/db/repos/workspaces';
import { addDomain } from '../src/db/repos/domains';
import { createTag } from '../src/db/repos/workspace-objects';
import { DAY_MS } from '../src/domain/conversions';
import { hashPassword } from '../src/domain/passwords';
import { baselineAnalytics, baselineSearch } from './dashboard-baseline';
import { apiListCases, caseKey } from './api-list-cases';
import { benchCleanups, finishBench, guardBenchRun, watchChild } from './lifecycle';
import { createDatabase, existingDatabase, type BenchDatabase } from './seed-analytics';
import { seedClicks, seedLinks, type DashboardShape } from './seed-dashboard';
import {
  buildService,
  fmtInt,
  fmtMs,
  freePort,
  log,
  percentile,
  sleep,
  table,
  intOption,
  printHeaderAndExit,
} from './util';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'both' },
    links: { type: 'string', default: '1000000' },
    clicks: { type: 'string', default: '10000000' },
    'big-link-clicks': { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '30' },
    'baseline-requests': { type: 'string', default: '3' },
    limit: { type: 'string', default: '100' },
    explain: { type: 'string', default: 'auto' },
    keep: { type: 'boolean', default: false },
    'seed-only': { type: 'boolean', default: false },
    cases: { type: 'string' },
    'time-limit': { type: 'string' },
    reuse: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});
if (args.help) printHeaderAndExit(import.meta.url);
const int = intOption;
if (!['sqlite', 'postgres', 'both'].includes(args.engine!)) {
  process.stderr.write(`--engine must be sqlite, postgres or both; got ${args.engine}\n`);
  process.exit(2);
}
if (!['auto', 'always', 'never'].includes(args.explain!)) {
  process.stderr.write(`--explain must be auto, always or never; got ${args.explain}\n`);
  process.exit(2);
}
const ENGINES: Engine[] = args.engine === 'both' ? ['sqlite', 'postgres'] : [args.engine as Engine];
const SHAPE: DashboardShape = {
  links: int('links', args.links, 1_000),
  clicks: int('clicks', args.clicks, 1),
  bigLinkClicks: int('big-link-clicks', args['big-link-clicks'], 1),
  tags: 20,
};
if (SHAPE.bigLinkClicks > SHAPE.clicks) throw new Error('--big-link-clicks may not exceed --clicks');
const REQUESTS = int('requests', args.requests);
const BASELINE_REQUESTS = int('baseline-requests', args['baseline-requests'], 0);
const LIMIT = int('limit', args.limit);
const EXPLAIN = args.explain as 'auto' | 'always' | 'never';
const SEED_ONLY = args['seed-only']!;
// Only the cases whose name matches (a regular expression), for a change to one kind of read.
const CASES = args.cases ? new RegExp(args.cases) : null;
const KEEP = args.keep! || SEED_ONLY;
/** A kept database per engine, measured again without seeding. */
const REUSE = new Map((args.reuse ?? []).map((url) => [engineOf(url), url] as const));
const TIME_LIMIT_S = args['time-limit'] ? int('time-limit', args['time-limit']) : ENGINES.length * 1_800;
const WARMUPS = 3;
const TARGET_MS = 100;
const MIGRATION = '20261125000000_dashboard_aggregates';
/** The click fold's tables, and link_click_totals filled from the daily counts. */
const FOLD_MIGRATION = '20261126000000_click_folds';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
buildService(ROOT);

const children = new Set<ChildProcess>();
const cleanups = benchCleanups({ timeoutMs: 30_000 });
const { onCleanup, releaseTo, cleanup } = cleanups;
const run = guardBenchRun({ children, cleanup, timeLimitS: TIME_LIMIT_S });

const fmtS = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const fmtBytes = (b: number) => (b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(2)} GiB` : `${(b / 2 ** 20).toFixed(0)} MiB`);
const short = (s: string, n = 220) => (s.length > n ? `${s.slice(0, n)} …` : s);
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99) };
};

// ---------------------------------------------------------------------------------------------
// Seeding

interface Seeded {
  workspaceId: string;
  email: string;
  password: string;
  bigLink: string;
  tags: Array<{ id: string; links: number }>;
  domains: string[];
}

const BENCH_EMAIL = 'bench@bench.test';
const BENCH_PASSWORD = 'bench password 1';

async function seed(bdb: BenchDatabase, knex: Knex, now: number): Promise<Seeded> {
  let t = performance.now();
  const workspaceId = await createWorkspace(knex, 'Bench', 'business');
  const email = BENCH_EMAIL;
  const password = BENCH_PASSWORD;
  const userId = await addMember(knex, workspaceId, email, 'OWNER');
  await setPassword(knex, userId, await hashPassword(password), now);
  const tagIds: string[] = [];
  for (let i = 0; i < SHAPE.tags; i++) tagIds.push(await createTag(knex, workspaceId, `tag-${i + 1}`, '#6b7280'));
  const domains = [
    await addDomain(knex, workspaceId, 'go.bench.test'),
    await addDomain(knex, workspaceId, 'links.bench.test'),
  ];
  const writer = await bdb.bulkWriter();
  let seededLinks: Awaited<ReturnType<typeof seedLinks>>;
  try {
    seededLinks = await seedLinks(bdb, writer, { workspaceId, userId, tagIds, domainIds: domains }, SHAPE, now);
    log(`links: ${fmtInt(SHAPE.links)} with their tags in ${fmtS(performance.now() - t)}`);
    t = performance.now();
    const c = await seedClicks(bdb, writer, workspaceId, seededLinks.linkIds, seededLinks.bigLink, SHAPE, now);
    log(
      `clicks: ${fmtInt(c.rawClicks)} raw (${fmtInt(SHAPE.bigLinkClicks)} on the big link) and ${fmtInt(c.dailyRows)} link_daily_clicks rows in ${fmtS(performance.now() - t)}`,
    );
  } finally {
    await writer.close();
  }
  return {
    workspaceId,
    email,
    password,
    bigLink: seededLinks.bigLink,
    domains,
    tags: tagIds.map((id, i) => ({ id, links: seededLinks.tagCounts[i] })),
  };
}

/** What seed() made, read back from a kept database (its one workspace). */
async function seededIn(knex: Knex): Promise<Seeded> {
  const { id: workspaceId } = await knex('workspaces').where('name', 'Bench').first('id');
  const big = await knex('link_click_totals')
    .where('workspace_id', workspaceId)
    .orderBy('clicks', 'desc')
    .first('link_id');
  // Tags in creation order (tag-1 …), each with its links as seed() counted them (deleted ones too).
  const tags = (
    await knex('tags as t')
      .leftJoin('link_tags as lt', 'lt.tag_id', 't.id')
      .where('t.workspace_id', workspaceId)
      .groupBy('t.id', 't.name')
      .select('t.id', 't.name')
      .count({ n: 'lt.link_id' })
  )
    .map((r: any) => ({ id: r.id as string, links: Number(r.n), order: Number(String(r.name).replace('tag-', '')) }))
    .sort((a, b) => a.order - b.order)
    .map(({ id, links }) => ({ id, links }));
  // go.bench.test, then links.bench.test, as seed() added them.
  const domains = (await knex('domains').where('workspace_id', workspaceId).orderBy('host').select('id')).map(
    (d: { id: string }) => d.id,
  );
  return { workspaceId, email: BENCH_EMAIL, password: BENCH_PASSWORD, bigLink: big.link_id, tags, domains };
}

async function tableSizes(bdb: BenchDatabase, knex: Knex, tables: string[]): Promise<string> {
  if (bdb.engine === 'postgres') {
    const r = await knex.raw(
      'SELECT relname AS t, pg_total_relation_size(oid) AS b FROM pg_class WHERE relname = ANY(?) AND relkind = ?',
      [tables, 'r'],
    );
    return r.rows.map((x: any) => `${x.t} ${fmtBytes(Number(x.b))}`).join(', ');
  }
  // dbstat counts each table with its indexes (and an FTS5 table's shadow tables by their names).
  const rows = await knex.raw(
    `SELECT CASE WHEN m.tbl_name LIKE 'links_search%' THEN 'links_search' ELSE m.tbl_name END AS t, SUM(s.pgsize) AS b
       FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY 1`,
  );
  return rows
    .filter((x: any) => tables.includes(x.t))
    .map((x: any) => `${x.t} ${fmtBytes(Number(x.b))}`)
    .join(', ');
}

// ---------------------------------------------------------------------------------------------
// The service, and requests to it

const WATCHDOG = `const parent = Number(process.env.SHORTLINK_BENCH_PARENT);
setInterval(() => { if (process.ppid !== parent) process.exit(1); }, 500).unref();
`;

function startService(env: NodeJS.ProcessEnv): {
  proc: ChildProcess;
  output(): string;
  stop(ms: number): Promise<void>;
} {
  const proc = spawn(
    process.execPath,
    ['--import', pathToFileURL(env.WATCHDOG_FILE!).href, 'bin/shortlink.mjs', 'serve'],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let tail = '';
  const { stop } = watchChild(proc, children, (err) => (tail += `\n${err.message}`));
  for (const s of [proc.stdout!, proc.stderr!])
    s.on('data', (c: Buffer) => (tail = (tail + c.toString('utf8')).slice(-8_000)));
  onCleanup('service', () => stop(10_000));
  return { proc, output: () => tail, stop };
}

// One keep-alive connection, as the single-page app's browser holds to the service.
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
onCleanup('https agent', () => agent.destroy());

function request(
  port: number,
  method: string,
  pathname: string,
  opts: { cookie?: string; bearer?: string; body?: unknown } = {},
) {
  return new Promise<{ status: number; body: string; ms: number; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const t0 = performance.now();
      const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
      const headers: Record<string, string> = { Accept: 'application/json' };
      if (opts.cookie) headers.Cookie = opts.cookie;
      if (opts.bearer) headers.Authorization = `Bearer ${opts.bearer}`;
      if (payload) headers['Content-Type'] = 'application/json';
      const req = https.request(
        { host: '127.0.0.1', port, method, path: pathname, headers, agent, timeout: 120_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              ms: performance.now() - t0,
              headers: res.headers,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end(payload);
    },
  );
}

async function waitForHealth(service: ReturnType<typeof startService>, port: number) {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (service.proc.exitCode !== null) throw new Error(`the service exited:\n${service.output()}`);
    try {
      if ((await request(port, 'GET', '/healthz')).status === 200) return;
    } catch {
      // not up yet
    }
    await sleep(200);
  }
  throw new Error(`the service did not answer /healthz:\n${service.output()}`);
}

// ---------------------------------------------------------------------------------------------
// Cases

interface Case {
  name: string;
  /** The request's path under /app/api/workspaces/{id}; for `api`, the whole path. */
  path: string;
  /** A public API case (bench/api-list-cases.ts): sent with an API key, not the session. */
  api?: boolean;
  run(queries: ReturnType<typeof openQueryService>['queries']): Promise<unknown>;
  baseline?(knex: Knex): Promise<unknown>;
  /** A case whose baseline takes seconds: no warm-up run. */
  slowBaseline?: boolean;
  /** What the answer says in a few words (matches), from the in-process result. */
  describe(result: any): string;
  /** Whether the baseline answered the same. */
  same?(result: any, baseline: any): string;
}

const search = (s: Partial<LinkSearch>): LinkSearch => ({
  sort: 'created',
  order: 'desc',
  page: 1,
  limit: LIMIT,
  ...s,
});
const query = (s: LinkSearch) => {
  const p = new URLSearchParams();
  for (const k of ['q', 'tagId', 'domainId', 'status', 'sort', 'order', 'page', 'limit'] as const)
    if (s[k] !== undefined) p.set(k, String(s[k]));
  return `/links?${p}`;
};

function samePage(a: any, b: any): string {
  const ids = (x: any) => x.rows.map((r: any) => r.id).join(',');
  if (a.total !== b.total) return `NO (total ${a.total} vs ${b.total})`;
  if (ids(a) === ids(b)) return 'same';
  return `NO (${a.rows.length} vs ${b.rows.length} rows, ids differ)`;
}

/** Sorted by clicks, links with equal clicks come in id order now, in creation order before. */
function samePageByClicks(a: any, b: any, knexTotals: Map<string, number>): string {
  const plain = samePage(a, b);
  if (plain === 'same' || a.total !== b.total) return plain;
  const counts = (x: any) => x.rows.map((r: any) => knexTotals.get(r.id) ?? 0).join(',');
  return counts(a) === counts(b) ? 'same clicks in order (ties in another order)' : 'NO (other clicks order)';
}

function casesFor(s: Seeded, today: number, totals: Map<string, number>): Case[] {
  const ws = s.workspaceId;
  const [commonTag, , , , midTag] = s.tags;
  const rareTag = s.tags[s.tags.length - 1];
  const analytics = (days: number): Case => ({
    name: `(a) analytics of the big link, ${days} days`,
    path: `/links/${s.bigLink}/analytics?from=${new Date((today - days + 1) * DAY_MS).toISOString().slice(0, 10)}`,
    run: (q) => q.linkAnalytics(ws, s.bigLink, today - days + 1, today, today),
    baseline: days === 30 ? (k) => baselineAnalytics(k, ws, s.bigLink, today - days + 1, today, today) : undefined,
    slowBaseline: true,
    describe: (r) =>
      `${fmtInt([...r.days.values()].reduce((n: number, d: any) => n + d.clicks + d.scans, 0))} clicks; ${r.breakdowns.referrer.length} referrers`,
    same: (r, b) =>
      JSON.stringify(r.breakdowns) === JSON.stringify(b.breakdowns) ? 'same breakdowns' : 'NO (breakdowns differ)',
  });
  const list = (name: string, sp: Partial<LinkSearch>): Case => {
    const spec = search(sp);
    return {
      name,
      path: query(spec),
      run: (q) => q.linkSearch(ws, spec),
      baseline: (k) => baselineSearch(k, ws, spec),
      slowBaseline: spec.sort === 'clicks',
      describe: (r) => `${r.totalCapped ? '10,000+' : fmtInt(r.total)} matches`,
      same: (r, b) => (spec.sort === 'clicks' ? samePageByClicks(r, b, totals) : samePage(r, b)),
    };
  };
  return [
    analytics(30),
    analytics(400),
    list('(b) search "webinar"', { q: 'webinar' }),
    list('(b) search "spring sale"', { q: 'spring sale' }),
    list('(b) search a slug "gift-card"', { q: 'gift-card' }),
    list('(b) search "zzq" (no match)', { q: 'zzq' }),
    list('(b) search "shop" (dense: many hosts)', { q: 'shop' }),
    list('(c) list, newest first', {}),
    list('(c) list, oldest first, page 50', { order: 'asc', page: 50 }),
    list('(d) sort by clicks, most first', { sort: 'clicks' }),
    list('(d) sort by clicks, fewest first', { sort: 'clicks', order: 'asc' }),
    list('(d) search "webinar", by clicks', { q: 'webinar', sort: 'clicks' }),
    list(`(e) tag with ${fmtInt(midTag.links)} links`, { tagId: midTag.id }),
    list(`(e) tag with ${fmtInt(commonTag.links)} links`, { tagId: commonTag.id }),
    list(`(e) tag with ${fmtInt(rareTag.links)} links`, { tagId: rareTag.id }),
    list(`(e) tag with ${fmtInt(midTag.links)} links, by clicks`, { tagId: midTag.id, sort: 'clicks' }),
    list('(e) disabled links', { status: 'DISABLED' }),
    list('(e) a custom domain', { domainId: s.domains[0] }),
    list('(f) search "zu" (2 characters)', { q: 'zu' }),
    list('(f) search "qx" (2 characters, rare)', { q: 'qx' }),
    list('(f) search "e" (1 character)', { q: 'e' }),
    ...apiListCases(s, LIMIT).map((c) => ({ ...c, api: true })),
  ];
}

// Query tracing, for the plans of slow cases (the functions run on this thread's knex).
function installTracer(knex: Knex) {
  let current: Array<{ sql: string; bindings: unknown[]; ms: number }> | null = null;
  const started = new Map<string, { sql: string; bindings: unknown[]; t: number }>();
  knex.on(
    'query',
    (q: any) =>
      current && started.set(q.__knexQueryUid, { sql: q.sql, bindings: q.bindings ?? [], t: performance.now() }),
  );
  knex.on('query-response', (_r: unknown, q: any) => {
    const s = started.get(q.__knexQueryUid);
    if (!s || !current) return;
    started.delete(q.__knexQueryUid);
    current.push({ sql: s.sql, bindings: s.bindings, ms: performance.now() - s.t });
  });
  return async (fn: () => Promise<unknown>) => {
    current = [];
    try {
      await fn();
      return current;
    } finally {
      current = null;
    }
  };
}

/** A fresh database: migrated to just before the dashboard's migrations, seeded, then migrated. */
async function seedFresh(bdb: BenchDatabase, db: ReturnType<typeof openDatabase>): Promise<Seeded> {
  const { knex } = db;
  await migrateLatest(db);
  await knex.migrate.down({ migrationSource, name: FOLD_MIGRATION });
  await knex.migrate.down({ migrationSource, name: MIGRATION });
  const now = Date.now();
  const t0 = performance.now();
  const seeded = await seed(bdb, knex, now);
  let t = performance.now();
  log(`settle: ${await bdb.settle()}: ${fmtS(performance.now() - t)}`);
  t = performance.now();
  await knex.migrate.up({ migrationSource, name: MIGRATION });
  log(`migration ${MIGRATION} (backfill of the aggregates, search index build): ${fmtS(performance.now() - t)}`);
  t = performance.now();
  await knex.migrate.up({ migrationSource, name: FOLD_MIGRATION });
  log(`migration ${FOLD_MIGRATION} (link_click_totals from the daily counts): ${fmtS(performance.now() - t)}`);
  // The service's first fold after the migration: 90 days of raw clicks.
  t = performance.now();
  const fold = await runClickFold(knex, Date.now());
  log(
    `first click fold (${fold.daysClosed} days closed, ${fold.steps} step, ${fmtInt(fold.rows)} rows): ${fmtS(performance.now() - t)}`,
  );
  t = performance.now();
  log(`settle: ${await bdb.settle()}: ${fmtS(performance.now() - t)}; seeding total ${fmtS(performance.now() - t0)}`);
  return seeded;
}

// ---------------------------------------------------------------------------------------------
// One engine

async function runEngine(engine: Engine): Promise<string[]> {
  const mark = cleanups.mark();
  try {
    log(`=== ${engine} ${'='.repeat(80)}`);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `shortlink-bench-dash-${engine}-`));
    const reuse = REUSE.get(engine);
    onCleanup(`temp dir ${tmp}`, () =>
      KEEP && engine === 'sqlite' && !reuse
        ? log(`kept: ${tmp}/bench.db`)
        : fs.rmSync(tmp, { recursive: true, force: true }),
    );
    const bdb = reuse
      ? existingDatabase(reuse)
      : await createDatabase(engine, tmp, { scratchPrefix: 'sl_bench_dash', keep: KEEP, onCleanup });
    log(`database: ${bdb.describe}${reuse ? ' (kept by an earlier run: no seeding)' : ''}`);
    const db = openDatabase(bdb.url, { poolMax: 4 });
    onCleanup(`${engine} knex`, () => db.knex.destroy());
    const { knex } = db;
    let seeded: Seeded;
    if (reuse) {
      const [, pending] = (await knex.migrate.list({ migrationSource })) as [unknown[], unknown[]];
      const names = pending.map((m: any) => (typeof m === 'string' ? m : (m.file ?? m.name)));
      let t = performance.now();
      await migrateLatest(db);
      log(`migrations ${names.length ? names.join(', ') : '(none pending)'}: ${fmtS(performance.now() - t)}`);
      t = performance.now();
      log(`settle: ${await bdb.settle()}: ${fmtS(performance.now() - t)}`);
      seeded = await seededIn(knex);
    } else {
      seeded = await seedFresh(bdb, db);
    }
    const today = Math.floor(Date.now() / DAY_MS);
    log(
      `sizes with indexes: ${await tableSizes(bdb, knex, ['links', 'link_tags', 'clicks', 'link_daily_clicks', 'links_search', 'link_day_breakdowns', 'link_block_breakdowns', 'link_breakdown_pieces', 'link_click_totals'])}`,
    );
    if (SEED_ONLY) return [`seeded: ${bdb.url} (workspace ${seeded.workspaceId}, big link ${seeded.bigLink})`];
    const totals = new Map<string, number>();
    for (const r of (await knex('link_daily_clicks')
      .where('workspace_id', seeded.workspaceId)
      .groupBy('link_id')
      .select('link_id')
      .sum({ clicks: 'clicks' })) as Array<{ link_id: string; clicks: number | string }>)
      totals.set(r.link_id, Number(r.clicks));

    const queryService = openQueryService(db, bdb.url);
    onCleanup('query threads', () => queryService.close());

    const port = await freePort();
    const watchdog = path.join(tmp, 'watchdog.mjs');
    fs.writeFileSync(watchdog, WATCHDOG);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SHORTLINK_BENCH_PARENT: String(process.pid),
      WATCHDOG_FILE: watchdog,
      DATABASE_URL: bdb.url,
      DATA_DIR: path.join(tmp, 'data'),
      PORT: String(port),
      SHORT_DOMAIN: 'localhost',
      LOG_LEVEL: 'warn',
    };
    delete env.NODE_OPTIONS;
    const service = startService(env);
    await waitForHealth(service, port);
    const signIn = await request(port, 'POST', '/app/api/session', {
      body: { email: seeded.email, password: seeded.password },
    });
    if (signIn.status !== 200) throw new Error(`sign-in answered ${signIn.status}: ${signIn.body}`);
    const cookie = String((signIn.headers['set-cookie'] as string[])[0]).split(';')[0];
    log(
      `service pid ${service.proc.pid} on https://127.0.0.1:${port}, signed in; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    log();

    const trace = installTracer(knex);
    const rows: string[][] = [];
    const slow: Case[] = [];
    const notes: string[] = [];
    for (const c of casesFor(seeded, today, totals).filter((x) => !CASES || CASES.test(x.name))) {
      const base = `/app/api/workspaces/${seeded.workspaceId}`;
      const h: number[] = [];
      const auth = c.api ? { bearer: await caseKey(knex, seeded.workspaceId, seeded.email) } : { cookie };
      for (let i = 0; i < WARMUPS + REQUESTS; i++) {
        const r = await request(port, 'GET', c.api ? c.path : base + c.path, auth);
        if (r.status !== 200) {
          notes.push(`${c.name}: HTTP ${r.status} ${short(r.body)}`);
          break;
        }
        if (i >= WARMUPS) h.push(r.ms);
      }
      const p: number[] = [];
      let result: unknown;
      for (let i = 0; i < WARMUPS + REQUESTS; i++) {
        const t1 = performance.now();
        result = await c.run(queryService.queries);
        if (i >= WARMUPS) p.push(performance.now() - t1);
      }
      const b: number[] = [];
      let baseline: unknown;
      if (c.baseline && BASELINE_REQUESTS) {
        if (!c.slowBaseline) await c.baseline(knex);
        for (let i = 0; i < BASELINE_REQUESTS; i++) {
          const t1 = performance.now();
          baseline = await c.baseline(knex);
          b.push(performance.now() - t1);
        }
      }
      const hs = stats(h);
      const ps = stats(p);
      const bs = stats(b);
      if (hs.p50 >= TARGET_MS || ps.p50 >= TARGET_MS || EXPLAIN === 'always') slow.push(c);
      rows.push([
        c.name,
        c.describe(result),
        fmtMs(hs.p50),
        fmtMs(hs.p99),
        fmtMs(ps.p50),
        fmtMs(ps.p99),
        b.length ? fmtMs(bs.p50) : '-',
        b.length ? `${fmtMs(ps.p50 / bs.p50, 3)}` : '-',
        baseline !== undefined && c.same ? c.same(result, baseline) : '-',
        os.loadavg()[0].toFixed(1),
        hs.p50 < TARGET_MS && ps.p50 < TARGET_MS ? 'ok' : 'MISS',
      ]);
      process.stderr.write(
        `  [${engine}] ${c.name}: HTTP p50 ${fmtMs(hs.p50)} ms, in process ${fmtMs(ps.p50)} ms, baseline ${b.length ? fmtMs(bs.p50) : '-'} ms\n`,
      );
    }
    await service.stop(15_000);

    const lines = [
      `results, ${engine}: ${fmtInt(SHAPE.links)} links, ${fmtInt(SHAPE.clicks)} raw clicks (${fmtInt(SHAPE.bigLinkClicks)} on the big link); pages of ${LIMIT}; ${REQUESTS} requests per case after ${WARMUPS} warm-ups, baseline ${BASELINE_REQUESTS} runs`,
      table(
        [
          'case',
          'answer',
          'HTTPS p50',
          'p99',
          'in-proc p50',
          'p99',
          'baseline p50',
          'in-proc/baseline',
          'baseline answered',
          'load',
          `< ${TARGET_MS} ms`,
        ],
        rows,
      ),
      `(ms; HTTPS = GET /app/api/workspaces/{id}/… with the session cookie on one keep-alive TLS connection; in-proc = services.queries in this process (${engine === 'sqlite' ? 'query threads' : 'the pool'}), as the handler calls it; baseline = the reads before 20261125000000 (bench/dashboard-baseline.ts) on this process's connection; load = 1-minute load average after the case, ${os.availableParallelism()} CPUs)`,
      ...notes.map((n) => `NOTE ${n}`),
    ];
    for (const l of lines) log(l);
    log();
    if (EXPLAIN !== 'never' && slow.length) {
      log(
        `query profiles (${engine}): one traced run on this thread per case, queries by time; plans of those over 5 ms`,
      );
      const direct = (await import('../src/db/queries')).inlineQueries(knex);
      for (const c of slow) {
        const queries = await trace(() => c.run(direct));
        log(`- ${c.name}: ${queries.length} queries, ${fmtMs(queries.reduce((n, q) => n + q.ms, 0))} ms`);
        for (const q of [...queries].sort((a, b) => b.ms - a.ms).slice(0, 5))
          log(`    ${fmtMs(q.ms).padStart(7)} ms  ${short(q.sql.replace(/\s+/g, ' '))}`);
        for (const q of queries.filter((x) => x.ms >= 5).slice(0, 3)) {
          log(`    plan of the ${fmtMs(q.ms)} ms query:`);
          // The planner settings the search set before this query (Postgres, set_config), which a
          // plan taken without them would not show (a bitmap scan and sort the walk never runs).
          const settings = queries.slice(0, queries.indexOf(q)).filter((x) => /^\s*select set_config\(/i.test(x.sql));
          try {
            for (const l of await bdb.explain(q.sql, q.bindings, settings)) log(`      ${short(l, 300)}`);
          } catch (err) {
            log(`      (explain failed: ${(err as Error).message})`);
          }
        }
      }
      log();
    }
    return lines;
  } finally {
    await releaseTo(mark);
  }
}

async function main() {
  log('Shortlink dashboard reads benchmark');
  log(
    `machine: ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}`,
  );
  log(
    `load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (the service, the database and this client share the machine)`,
  );
  log(`engines: ${ENGINES.join(', ')}; time limit ${TIME_LIMIT_S} s`);
  log();
  const reports: string[][] = [];
  for (const engine of ENGINES) reports.push(await runEngine(engine));
  if (reports.length > 1) {
    log('=== summary '.padEnd(90, '='));
    for (const r of reports) {
      for (const l of r) log(l);
      log();
    }
  }
}

await finishBench(main, run, cleanup);
