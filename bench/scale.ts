// Scale benchmark: where one Postgres stops holding Shortlink's raw events and connections, on
// this machine (docs/scaling.md reads its figures). It prints figures and asserts nothing.
//
//   npx tsx bench/scale.ts [--parts writers,retention,reads,connections] [--layouts plain,partitioned]
//                          [--writers 1,4,10] [--seconds 20] [--flush 5000]
//                          [--retention-clicks 10000000] [--raw-clicks 100000000] [--instances 10]
//                          [--time-limit SECONDS]
//
// Each part runs on scratch databases of TEST_POSTGRES_URL's server (dropped at the end); a
// layout is the clicks and page views as one table each (`plain`: the partition migration
// undone) or partitioned by day (`partitioned`: the latest migrations, what `serve` runs).
//  - writers: 1, 4 and 10 processes each running the service's click writer (bench/scale-writer.ts)
//    with back-to-back flushes of --flush clicks for --seconds: the clicks per second the database
//    absorbs and each flush's latency (p50/p99); the baseline is the same processes copying the
//    same clicks into a table with no index and no counts, in the same run (the ratio).
//  - retention: a day of --retention-clicks raw clicks 92 days old and a tenth as many of today,
//    then the service's retention run: its time, the WAL it wrote, the clicks table's size after.
//  - reads: --raw-clicks raw clicks over 90 days (or as many as the disk holds: the bench says),
//    folded as the service folds them, then the p50 of a link's analytics and of the conversion
//    summary on the primary and on a streaming replica (pg_basebackup -R), idle and while 4
//    writers each flush 2,500 clicks a second.
//  - connections: --instances `serve` processes (compiled) on one database, each having served
//    redirects, clicks and API reads, then the connections Postgres holds for them: connected
//    directly, and through one PgBouncer in transaction mode.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrateLatest, openDatabase, type Database } from '../src/db/knex';
import { migrationSource } from '../src/db/migrations/index';
import { runRetention } from '../src/db/repos/retention';
import { ensureEventPartitions } from '../src/db/repos/event-partitions';
import { createWorkspace, addMember } from '../src/db/repos/workspaces';
import { createKey } from '../src/db/repos/api-keys';
import { startPgBouncer } from '../test/support/pgbouncer';
import { startReplica } from '../test/support/replica';
import { readConversionSummary } from '../src/db/repos/conversion-tallies';
import { readLinkAnalytics } from '../src/db/repos/link-analytics';
import { runClickFold } from '../src/db/repos/click-folds';
import {
  ConversionAggregates,
  existingDatabase,
  generateConversions,
  insertBlockRollups,
  insertConversionAggregates,
  insertStream,
  type Catalog,
} from './seed-analytics';
import { benchCleanups, finishBench, guardBenchRun, watchChild } from './lifecycle';
import {
  buildService,
  createScratchPostgres,
  fmtInt,
  fmtMs,
  freePort,
  intOption,
  log,
  nodeFlagsOf,
  percentile,
  printHeaderAndExit,
  sleep,
  table,
} from './util';

const { values: args } = parseArgs({
  options: {
    parts: { type: 'string', default: 'writers,retention,reads,connections' },
    layouts: { type: 'string', default: 'plain,partitioned' },
    writers: { type: 'string', default: '1,4,10' },
    seconds: { type: 'string', default: '20' },
    flush: { type: 'string', default: '5000' },
    'retention-clicks': { type: 'string', default: '10000000' },
    'raw-clicks': { type: 'string', default: '100000000' },
    instances: { type: 'string', default: '10' },
    'time-limit': { type: 'string', default: '7200' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) printHeaderAndExit(import.meta.url);
const PARTS = new Set(args.parts!.split(','));
for (const p of PARTS)
  if (!['writers', 'retention', 'reads', 'connections'].includes(p)) throw new Error(`unknown part ${p}`);
const LAYOUTS = args.layouts!.split(',') as Layout[];
for (const l of LAYOUTS) if (l !== 'plain' && l !== 'partitioned') throw new Error('--layouts: plain, partitioned');
const WRITERS = args.writers!.split(',').map((n) => intOption('writers', n));
const SECONDS = intOption('seconds', args.seconds);
const FLUSH = intOption('flush', args.flush);
const RETENTION_CLICKS = intOption('retention-clicks', args['retention-clicks']);
const RAW_CLICKS = intOption('raw-clicks', args['raw-clicks']);
const INSTANCES = intOption('instances', args.instances);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DAY_MS = 86_400_000;
const LINKS = 100_000;

type Layout = 'plain' | 'partitioned';
const { onCleanup, cleanup } = benchCleanups({ timeoutMs: 60_000 });
const children = new Set<ChildProcess>();
const run = guardBenchRun({ children, cleanup, timeLimitS: Number(args['time-limit']) });

// ---------------------------------------------------------------------------------------------
// Databases

/** The migration that partitions the raw events (absent before it: then only `plain` exists). */
const PARTITION_MIGRATION = /_partitioned_events$/;

/** A scratch database migrated to `layout`, opened; both released at cleanup. */
async function scratch(
  prefix: string,
  layout: Layout | 'latest',
): Promise<{ db: Database; url: string; name: string }> {
  const s = await createScratchPostgres(prefix);
  onCleanup(`drop database ${s.name}`, () => s.drop());
  const db = openDatabase(s.url);
  onCleanup(`close ${s.name}`, () => db.knex.destroy());
  await migrateLatest(db);
  const done: Array<{ name: string }> = await db.knex('knex_migrations').select('name').orderBy('id');
  const partitioning = done.find((m) => PARTITION_MIGRATION.test(m.name.replace(/\.[jt]s$/, '')));
  if (layout === 'partitioned' && !partitioning)
    throw new Error('this checkout has no partition migration: run with --layouts plain');
  // The partition migration is the newest: undoing it leaves every other migration in place.
  if (layout === 'plain' && partitioning) {
    while ((await db.knex('knex_migrations').where('name', partitioning.name).first()) !== undefined)
      await db.knex.migrate.down({ migrationSource });
  }
  return { db, url: s.url, name: s.name };
}

async function isPartitioned(db: Database, table: string): Promise<boolean> {
  const r = await db.knex.raw('SELECT 1 FROM pg_partitioned_table WHERE partrelid = to_regclass(?)', [table]);
  return r.rows.length > 0;
}

/** Bytes of `table` with its indexes, and of its partitions' if it has any. */
async function tableBytes(db: Database, table: string): Promise<number> {
  const r = await db.knex.raw(
    `SELECT COALESCE((SELECT SUM(pg_total_relation_size(relid)) FROM pg_partition_tree(to_regclass(?))),
                     pg_total_relation_size(to_regclass(?))) AS n`,
    [table, table],
  );
  return Number(r.rows[0].n);
}

const walLsn = async (db: Database): Promise<string> =>
  (await db.knex.raw('SELECT pg_current_wal_lsn() AS l')).rows[0].l;
const walSince = async (db: Database, lsn: string): Promise<number> =>
  Number((await db.knex.raw('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?) AS n', [lsn])).rows[0].n);

const mib = (n: number) => (n / 2 ** 20).toFixed(1);
const secs = (ms: number) => (ms / 1000).toFixed(1);

/**
 * Raw clicks of `wsp_scale` in [from, to), `count` of them evenly spread over LINKS links, written
 * by the database itself (generate_series) in transactions of a million, over `links` links.
 */
async function fillClicks(db: Database, count: number, from: number, to: number, links = LINKS): Promise<void> {
  const step = 1_000_000;
  for (let i = 0; i < count; i += step) {
    const n = Math.min(step, count - i);
    await db.knex.raw(
      `INSERT INTO clicks (workspace_id, link_id, occurred_at, referrer_host, country, device, browser, os)
       SELECT 'wsp_scale', 'lnk_scale' || lpad((g % ${links})::text, 10, '0'),
              ?::bigint + ((g - ?::bigint) * ?::float8)::bigint,
              (ARRAY['news.example.org', 'social.example.com', NULL])[g % 3 + 1],
              (ARRAY['US', 'DE', 'FR', 'GB', 'BR', NULL])[g % 6 + 1],
              (ARRAY['desktop', 'mobile', 'tablet'])[g % 3 + 1],
              (ARRAY['Chrome', 'Safari', 'Firefox'])[g % 3 + 1],
              (ARRAY['Windows', 'iOS', 'Android', 'macOS'])[g % 4 + 1]
         FROM generate_series(?::bigint, ?::bigint) g`,
      [from, 0, (to - from) / count, i, i + n - 1],
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Writers

interface WriterResult {
  clicks: number;
  ms: number[];
  first: number;
  last: number;
}

function startWriter(url: string, seed: number, floor: boolean, seconds = SECONDS, rate = 0): Promise<WriterResult> {
  const child = fork(
    path.join(ROOT, 'bench/scale-writer.ts'),
    [
      '--url',
      url,
      '--seconds',
      String(seconds),
      '--flush',
      String(FLUSH),
      '--links',
      String(LINKS),
      '--seed',
      String(seed),
      ...(floor ? ['--floor'] : []),
      '--rate',
      String(rate),
    ],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const { exited } = watchChild(child, children, () => undefined);
  return new Promise((resolve, reject) => {
    let result: WriterResult | undefined;
    child.on('message', (m) => {
      result = m as WriterResult;
    });
    void exited.then(() => (result ? resolve(result) : reject(new Error(`writer ${seed} exited without a result`))));
  });
}

async function writersRound(url: string, n: number, floor: boolean) {
  const results = await Promise.all(Array.from({ length: n }, (_, i) => startWriter(url, i + 1, floor)));
  const clicks = results.reduce((s, r) => s + r.clicks, 0);
  const span = Math.max(...results.map((r) => r.last)) - Math.min(...results.map((r) => r.first));
  const ms = results.flatMap((r) => r.ms).sort((a, b) => a - b);
  return { perSecond: clicks / (span / 1000), p50: percentile(ms, 50), p99: percentile(ms, 99), clicks };
}

async function writersPart(): Promise<void> {
  log(`## Writers: back-to-back flushes of ${fmtInt(FLUSH)} clicks for ${SECONDS} s per process`);
  const rows: string[][] = [];
  for (const layout of LAYOUTS) {
    const { db, url } = await scratch('shortlink_bench_scale_w', layout);
    await db.knex.raw(
      `CREATE TABLE scale_floor (workspace_id text, link_id text, occurred_at bigint, country text, device text, browser text, os text)`,
    );
    for (const n of WRITERS) {
      const writer = await writersRound(url, n, false);
      const floor = await writersRound(url, n, true);
      rows.push([
        layout + ((await isPartitioned(db, 'clicks')) ? '' : ' (one table)'),
        String(n),
        fmtInt(writer.perSecond),
        fmtMs(writer.p50, 0),
        fmtMs(writer.p99, 0),
        fmtInt(floor.perSecond),
        (writer.perSecond / floor.perSecond).toFixed(2),
      ]);
      log(`  ${layout}, ${n} writers: ${fmtInt(writer.perSecond)} clicks/s`);
    }
  }
  log(
    table(
      ['layout', 'writers', 'clicks/s', 'flush p50 ms', 'flush p99 ms', 'baseline clicks/s (COPY, no index)', 'ratio'],
      rows,
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Retention

async function retentionPart(): Promise<void> {
  log(`## Retention of one day of ${fmtInt(RETENTION_CLICKS)} raw clicks (92 days old)`);
  const rows: string[][] = [];
  const now = Date.now();
  const oldDay = Math.floor(now / DAY_MS) - 92;
  for (const layout of LAYOUTS) {
    const { db } = await scratch('shortlink_bench_scale_r', layout);
    const partitioned = await isPartitioned(db, 'clicks');
    // A partition for the old day, as the service had created it ahead 92 days ago.
    if (partitioned) await ensureDayPartition(db, oldDay);
    let t = performance.now();
    await fillClicks(db, RETENTION_CLICKS, oldDay * DAY_MS, (oldDay + 1) * DAY_MS);
    await fillClicks(db, Math.ceil(RETENTION_CLICKS / 10), now - 3_600_000, now);
    await db.knex.raw('VACUUM ANALYZE clicks');
    await db.knex.raw('CHECKPOINT');
    log(`  ${layout}: seeded in ${secs(performance.now() - t)} s`);
    const before = await tableBytes(db, 'clicks');
    const lsn = await walLsn(db);
    t = performance.now();
    const result = await runRetention(db.knex, now);
    const ms = performance.now() - t;
    const wal = await walSince(db, lsn);
    // What autovacuum would do next: dead rows become free space, the file does not shrink.
    await db.knex.raw('VACUUM clicks');
    const after = await tableBytes(db, 'clicks');
    rows.push([
      partitioned ? 'partitioned: drop the day' : 'one table: DELETE in id order',
      fmtInt(result.clicksDeleted),
      secs(ms),
      mib(wal),
      mib(before),
      mib(after),
    ]);
  }
  log(
    table(['layout', 'clicks removed', 'seconds', 'WAL MiB', 'clicks MiB before', 'clicks MiB after (VACUUM)'], rows),
  );
}

/** The day partition of clicks (and page_views) for `day`, as the service's maintenance makes it. */
async function ensureDayPartition(db: Database, day: number): Promise<void> {
  await ensureEventPartitions(db.knex, day * DAY_MS, 0);
}

// ---------------------------------------------------------------------------------------------
// Connections

function get(port: number, pathname: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, headers, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

async function connectionsPart(): Promise<void> {
  log(`## Connections held by ${INSTANCES} instances on one database`);
  buildService(ROOT);
  const flags = nodeFlagsOf(ROOT);
  const { db, url, name } = await scratch('shortlink_bench_scale_c', 'latest');
  const ws = await createWorkspace(db.knex, 'Scale', 'business');
  const user = await addMember(db.knex, ws, 'scale@bench.test', 'OWNER');
  const { key } = await createKey(db.knex, ws, user, ['links:read', 'links:write'], null, 'scale');
  const now = Date.now();
  await db.knex('links').insert({
    id: 'lnk_scale_conn',
    workspace_id: ws,
    created_by: user,
    domain_id: null,
    domain_key: '',
    slug: 'scale',
    original_url: 'https://example.com/',
    status: 'ACTIVE',
    policy_locked: false,
    redirect_type: 'TEMPORARY',
    served: 0,
    created_at: now,
    updated_at: now,
  });
  const admin = process.env.TEST_POSTGRES_URL || 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
  const held = async () => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    try {
      return Number((await c.query('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [name])).rows[0].n);
    } finally {
      await c.end();
    }
  };
  const rows: string[][] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-bench-scale-'));
  onCleanup(`remove ${tmp}`, () => fs.rmSync(tmp, { recursive: true, force: true }));
  for (const via of ['direct', 'pgbouncer'] as const) {
    let serviceUrl = url;
    let stopBouncer = async () => {};
    if (via === 'pgbouncer') {
      const bouncer = await startPgBouncer(admin, { poolSize: 20 });
      stopBouncer = () => bouncer.close();
      onCleanup('pgbouncer', stopBouncer);
      serviceUrl = `${bouncer.url(name)}${bouncer.url(name).includes('?') ? '&' : '?'}pgbouncer=true`;
    }
    const base = await held();
    const started: Array<{ port: number; stop: () => Promise<void> }> = [];
    for (let i = 0; i < INSTANCES; i++) {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: serviceUrl,
        DATA_DIR: path.join(tmp, `data-${i}`),
        PORT: String(port),
        TLS: 'off',
        TRUST_PROXY: '1',
        SHORT_DOMAIN: 'localhost',
        LOG_LEVEL: 'warn',
        // One shared key for every instance, as a cluster has (docs/operations.md).
        MASTER_KEY: 'ab'.repeat(32),
      };
      delete env.NODE_OPTIONS;
      const proc = spawn(process.execPath, [...flags, 'bin/shortlink.mjs', 'serve'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const { stop } = watchChild(proc, children, () => undefined);
      onCleanup(`instance ${i}`, () => stop(10_000));
      started.push({ port, stop: () => stop(10_000) });
    }
    for (const s of started) {
      const until = Date.now() + 120_000;
      for (;;) {
        if ((await get(s.port, '/healthz').catch(() => 0)) === 200) break;
        if (Date.now() > until) throw new Error(`an instance on ${s.port} did not start`);
        await sleep(250);
      }
    }
    // Every pool in use: redirects (lookups, clicks), then API reads (the query pool).
    const ua = { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36' };
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        started.map(async (s) => {
          await Promise.all(Array.from({ length: 20 }, () => get(s.port, '/scale', ua)));
          await Promise.all(
            Array.from({ length: 8 }, () => get(s.port, '/api/v1/links?limit=10', { Authorization: `Bearer ${key}` })),
          );
        }),
      );
      await sleep(1_500);
    }
    const busy = (await held()) - base;
    rows.push([
      via === 'direct' ? 'direct to Postgres' : 'through PgBouncer (pool 20)',
      String(INSTANCES),
      String(busy),
    ]);
    for (const s of started) await s.stop();
    await stopBouncer();
  }
  log(table(['how', 'instances', 'connections Postgres holds'], rows));
}

// ---------------------------------------------------------------------------------------------
// Reads

const CONVERSIONS = 1_000_000;
/** The links of the reads' workspace: a busy workspace's, each with a share of the clicks. */
const READ_LINKS = 1_000;
/** Each of the 4 writers' clicks a second while the reads are timed: 4 instances' flushes. */
const READ_LOAD_RATE = 2_500;

/** The p50 and p99 of `n` runs of `fn`, in ms. */
async function timeRuns(n: number, fn: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

async function readsPart(): Promise<void> {
  const free = fs.statfsSync(os.tmpdir());
  const freeBytes = free.bavail * free.bsize;
  // A raw click with its share of the indexes takes about 200 bytes; the replica holds a copy,
  // and the disk keeps a fifth free.
  const fits = Math.floor((freeBytes * 0.8) / (2 * 200));
  const count = Math.min(RAW_CLICKS, fits);
  log(
    `## Reads over ${fmtInt(count)} raw clicks (90 days), on the primary and on a streaming replica, while 4 writers flush ${fmtInt(READ_LOAD_RATE)} clicks each second` +
      (count < RAW_CLICKS ? ` (--raw-clicks ${fmtInt(RAW_CLICKS)} does not fit in ${mib(freeBytes)} MiB free)` : ''),
  );
  const { db, url, name } = await scratch('shortlink_bench_scale_q', 'latest');
  const now = Date.now();
  const today = Math.floor(now / DAY_MS);
  let t = performance.now();
  // The fold reads the workspaces it folds from this table.
  await db.knex('workspaces').insert({ id: 'wsp_scale', name: 'Scale', plan: 'business', created_at: now });
  await fillClicks(db, count, (today - 89) * DAY_MS, now, READ_LINKS);
  await db.knex.raw(
    `INSERT INTO link_daily_clicks (link_id, workspace_id, day, clicks, scans)
     SELECT link_id, workspace_id, (occurred_at / ${DAY_MS})::int, count(*), 0 FROM clicks GROUP BY 1, 2, 3`,
  );
  log(`  ${fmtInt(count)} raw clicks and their daily counts in ${secs(performance.now() - t)} s`);
  t = performance.now();
  const cat: Catalog = {
    workspaceId: 'wsp_scale',
    userId: 'usr_scale',
    links: Array.from({ length: 1_000 }, (_, i) => `lnk_scale${String(i).padStart(10, '0')}`),
    campaigns: ['cmp_scale'],
    qrCodes: [{ id: 'qr_scale', linkId: 'lnk_scale0000000000' }],
  };
  const bdb = existingDatabase(url);
  const writer = await bdb.bulkWriter();
  const agg = new ConversionAggregates();
  await insertStream(
    bdb,
    writer,
    'conversions',
    generateConversions(cat, CONVERSIONS, now - 90 * DAY_MS, now, now, 1),
    (row) => agg.add(row),
  );
  await insertConversionAggregates(bdb, writer, agg);
  await writer.close();
  await insertBlockRollups(db.knex);
  log(`  ${fmtInt(CONVERSIONS)} conversions and their aggregates in ${secs(performance.now() - t)} s`);
  t = performance.now();
  const fold = await runClickFold(db.knex, now);
  log(
    `  the click fold's first run (90 days of breakdowns): ${secs(performance.now() - t)} s, ${fmtInt(fold.rows)} rows`,
  );
  await db.knex.raw('VACUUM ANALYZE');
  log(
    `  database: ${mib(Number((await db.knex.raw('SELECT pg_database_size(current_database()) AS n')).rows[0].n))} MiB`,
  );

  t = performance.now();
  const admin = process.env.TEST_POSTGRES_URL || 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
  // An operator's standby: replay waits up to 30 s for a read it would conflict with (Postgres's
  // default), and the primary keeps rows a standby's read still sees.
  const replica = await startReplica(admin, ['max_standby_streaming_delay = 30s', 'hot_standby_feedback = on']);
  onCleanup('replica', () => replica.close());
  const replicaDb = openDatabase(replica.url(name));
  onCleanup('close the replica database', () => replicaDb.knex.destroy());
  log(`  replica made by pg_basebackup -R and started in ${secs(performance.now() - t)} s`);

  const window = { from: now - 30 * DAY_MS, to: now };
  const link = cat.links[7];
  const cases: Array<[string, (knex: Database['knex']) => Promise<unknown>]> = [
    ['conversion summary, 30 days', (knex) => readConversionSummary(knex, 'wsp_scale', window, {}, Date.now())],
    ["a link's analytics, 30 days", (knex) => readLinkAnalytics(knex, 'wsp_scale', link, today - 29, today, today)],
  ];
  const rows: string[][] = [];
  for (const load of ['idle', `4 writers, ${fmtInt(4 * READ_LOAD_RATE)} clicks/s`] as const) {
    const writers =
      load === 'idle' ? [] : Array.from({ length: 4 }, (_, i) => startWriter(url, 100 + i, false, 600, READ_LOAD_RATE));
    if (writers.length) await sleep(3_000);
    for (const [label, read] of cases) {
      for (const [where, knex] of [
        ['primary', db.knex],
        ['replica', replicaDb.knex],
      ] as const) {
        await read(knex);
        const r = await timeRuns(15, () => read(knex));
        rows.push([label, load, where, fmtMs(r.p50, 0), fmtMs(r.p99, 0)]);
      }
    }
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.allSettled(writers);
  }
  log(table(['read', 'load', 'on', 'p50 ms', 'p99 ms'], rows));
}

// ---------------------------------------------------------------------------------------------

async function main() {
  log('Shortlink scale benchmark');
  log(
    `machine: ${os.cpus().length} CPUs, ${mib(os.totalmem())} MiB, node ${process.version}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  log();
  if (PARTS.has('writers')) await writersPart();
  if (PARTS.has('retention')) await retentionPart();
  if (PARTS.has('connections')) await connectionsPart();
  if (PARTS.has('reads')) await readsPart();
}

void finishBench(main, run, cleanup);
