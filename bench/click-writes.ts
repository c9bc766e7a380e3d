// Click writer benchmark: what a flush costs per click, in-process, without HTTP or a load
// generator, so the writer's share of bench/redirect's CPU per request can be read on its own.
// It prints figures and asserts nothing.
//
//   npx tsx bench/click-writes.ts [--engine sqlite|postgres] [--scenario both|warm|million|day|all]
//                                 [--batch 20000] [--batches 6] [--alerts] [--time-limit SECONDS]
//
// What it does, per scenario (warm: each click on one of 1,000 links; million: on one of
// 1,000,000, at random; day: the same, with every link's daily row for today already there, as
// hours into a day of such traffic, so each click updates a count where `million` mostly inserts
// one), on a fresh migrated database (a SQLite file in a temp dir, or a scratch
// Postgres database on TEST_POSTGRES_URL, dropped at the end):
//  1. hand-off: the event-loop time of a batch as the service holds it (a ClickBuffer, filled as
//     clicks are recorded) sent through a MessagePort in HANDOFF_PART parts of columns, against
//     structured-cloning the same clicks as objects;
//  2. writer: InlineClickWriter.write (what the writer thread runs: user-agent parsing, raw
//     clicks, daily counts, and with --alerts the traffic alerts' windows, which are kept only for
//     a workspace with a subscription naming an alert (src/db/repos/traffic-windows.ts): --alerts
//     gives the bench's workspace one), in WRITE_CHUNK transactions) for --batches batches of
//     --batch clicks (the first is a warm-up), wall time and this process's CPU time per click
//     and on Postgres the CPU time of every `postgres` process over the same write (its backends
//     and its WAL writer; the machine's other Postgres work too, if any);
//  3. baseline: then the same rows into a table with no index, in transactions of the same size
//     (SQLite: a prepared INSERT per row; Postgres: one INSERT ... unnest per transaction), in the
//     same run: the floor any row-per-click store pays here.
// Prints a table with medians and the writer/baseline ratio.
import fs from 'node:fs';
import { MessageChannel } from 'node:worker_threads';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { migrateLatest, openDatabase, type Database } from '../src/db/knex';
import { HANDOFF_PART, InlineClickWriter, WRITE_CHUNK } from '../src/clicks/writer';
import { ClickBuffer, type ClickEvent } from '../src/clicks/buffer';
import { benchCleanups, finishBench, guardBenchRun } from './lifecycle';
import { createScratchPostgres, fmtInt, fmtMs, log, processesCpuByPid, processesCpuSince, table } from './util';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    scenario: { type: 'string', default: 'both' },
    batch: { type: 'string', default: '20000' },
    batches: { type: 'string', default: '6' },
    alerts: { type: 'boolean', default: false },
    'time-limit': { type: 'string', default: '600' },
  },
});
const engine = args.engine as 'sqlite' | 'postgres';
if (engine !== 'sqlite' && engine !== 'postgres') throw new Error('--engine is sqlite or postgres');
const BATCH = Number(args.batch);
const BATCHES = Math.max(2, Number(args.batches));
type Scenario = 'warm' | 'million' | 'day';
const SCENARIOS: Record<string, Scenario[]> = {
  both: ['warm', 'million'],
  all: ['warm', 'million', 'day'],
  warm: ['warm'],
  million: ['million'],
  day: ['day'],
};
if (!Object.hasOwn(SCENARIOS, args.scenario!)) throw new Error('--scenario is both, all, warm, million or day');
const scenarios = SCENARIOS[args.scenario!];
const LINKS = { warm: 1_000, million: 1_000_000, day: 1_000_000 };
const DAY_MS = 86_400_000;

/** The bench's link ids: `lnk_bench` and ten digits (seedDailyRows writes the same in SQL). */
const linkId = (n: number) => `lnk_bench${String(n).padStart(10, '0')}`;

const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
];
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'BR', undefined];
const REFERERS = ['https://news.example.org/item', 'https://social.example.com/p/1', undefined];

function batchOf(links: number, n: number): ClickEvent[] {
  const at = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    linkId: linkId(Math.floor(Math.random() * links)),
    workspaceId: 'wsp_bench',
    qrCodeId: null,
    at: at + i,
    referer: REFERERS[i % REFERERS.length],
    country: COUNTRIES[i % COUNTRIES.length],
    userAgent: UAS[i % UAS.length],
    address: undefined,
    route: null,
  }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Runs `fn` and returns [wall ms, CPU ms of this process, CPU ms of every postgres process (0 on SQLite)]. */
async function timed(fn: () => Promise<unknown> | unknown): Promise<[number, number, number]> {
  const pg0 = engine === 'postgres' ? processesCpuByPid('postgres') : undefined;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const cpu = process.cpuUsage(c0);
  const wall = performance.now() - t0;
  return [wall, (cpu.user + cpu.system) / 1000, pg0 ? processesCpuSince('postgres', pg0) : 0];
}

function bufferOf(batch: ClickEvent[]): ClickBuffer {
  const buffer = new ClickBuffer(batch.length);
  for (const e of batch) buffer.push(e);
  return buffer;
}

async function handOff(batch: ClickEvent[]): Promise<string[][]> {
  const { port1, port2 } = new MessageChannel();
  port2.on('message', () => undefined);
  const rows: string[][] = [];
  const buffer = bufferOf(batch);
  for (const [name, send] of [
    ['structured clone of the click objects', () => port1.postMessage(batch)],
    [
      'columns in parts + transfer (the service)',
      () => {
        for (let i = 0; i < buffer.length; i += HANDOFF_PART) {
          const c = buffer.columns(i, Math.min(i + HANDOFF_PART, buffer.length));
          port1.postMessage(c, [c.refs.buffer, c.at.buffer]);
        }
      },
    ],
  ] as const) {
    for (let i = 0; i < 3; i++) send();
    const ms: number[] = [];
    for (let i = 0; i < 10; i++) ms.push((await timed(send))[0]);
    rows.push([name, fmtMs(median(ms), 2), fmtMs((median(ms) / batch.length) * 1000, 3)]);
  }
  port1.close();
  port2.close();
  return rows;
}

/**
 * The `day` scenario's start: a daily row for today for each of `links` links, as the writer
 * leaves them (one click each), in random order as clicks arrive; then VACUUM ANALYZE, as
 * autovacuum would have run by then.
 */
async function seedDailyRows(db: Database, links: number): Promise<void> {
  const day = Math.floor(Date.now() / DAY_MS);
  if (engine === 'postgres') {
    await db.knex.raw(
      `INSERT INTO link_daily_clicks (link_id, workspace_id, day, clicks, scans)
       SELECT 'lnk_bench' || lpad(g::text, 10, '0'), 'wsp_bench', ?, 1, 0 FROM generate_series(0, ? - 1) g ORDER BY random()`,
      [day, links],
    );
    await db.knex.raw('VACUUM ANALYZE link_daily_clicks');
  } else {
    await db.knex.raw(
      `WITH RECURSIVE g(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM g WHERE n + 1 < ?)
       INSERT INTO link_daily_clicks (link_id, workspace_id, day, clicks, scans)
       SELECT printf('lnk_bench%010d', n), 'wsp_bench', ?, 1, 0 FROM g ORDER BY random()`,
      [links, day],
    );
  }
}

async function main() {
  const { onCleanup, cleanup } = benchCleanups({ timeoutMs: 30_000 });
  const run = guardBenchRun({ children: new Set(), cleanup, timeLimitS: Number(args['time-limit']) });
  await finishBench(
    async () => {
      log('Shortlink click writer benchmark');
      log(
        `machine: ${os.cpus().length} CPUs, node ${process.version}; engine ${engine}; ${BATCHES} batches of ${fmtInt(BATCH)} clicks (first discarded), transactions of ${fmtInt(WRITE_CHUNK)}`,
      );
      log(
        args.alerts
          ? 'traffic-alert windows: written (--alerts: the workspace has a disabled subscription naming analytics.spike)'
          : 'traffic-alert windows: not written (the workspace has no alert subscription; --alerts gives it one)',
      );
      log(
        `load average at start: ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')} (other work on the machine skews every figure)`,
      );
      log();
      log(`hand-off of ${fmtInt(BATCH)} clicks to the writer thread (event-loop time):`);
      log(table(['how', 'ms per batch', 'µs per click'], await handOff(batchOf(1_000, BATCH))));

      const results: string[][] = [];
      for (const scenario of scenarios) {
        let url: string;
        if (engine === 'sqlite') {
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-bench-clicks-'));
          onCleanup(`remove ${dir}`, () => fs.rmSync(dir, { recursive: true, force: true }));
          url = `sqlite:${path.join(dir, 'bench.db')}`;
        } else {
          const scratch = await createScratchPostgres('shortlink_bench_clicks');
          onCleanup(`drop database ${scratch.name}`, () => scratch.drop());
          url = scratch.url;
        }
        // Opened as the writer thread opens it (src/start/click-writer-thread.ts): lock waits in SQLite and automatic checkpoints.
        const db: Database = openDatabase(url, { waitForLocks: 'busy-handler' });
        onCleanup('close the database', () => db.knex.destroy());
        await migrateLatest(db);
        if (args.alerts) {
          const now = Date.now();
          await db.knex('workspaces').insert({ id: 'wsp_bench', name: 'Bench', plan: 'business', created_at: now });
          await db.knex('webhook_subscriptions').insert({
            id: 'whk_bench',
            workspace_id: 'wsp_bench',
            variant: 'A',
            url: 'https://hooks.example.com/bench',
            events: JSON.stringify(['analytics.spike']),
            secret_encrypted: 'not used',
            enabled: false,
            created_at: now,
            updated_at: now,
          });
        }
        if (scenario === 'day') await seedDailyRows(db, LINKS.day);
        await db.knex.raw(`CREATE TABLE bench_clicks_baseline (workspace_id varchar(40), link_id varchar(40), qr_code_id varchar(40), occurred_at bigint,
                         referrer_host varchar(253), country varchar(2), device varchar(32), browser varchar(64), os varchar(64))`);
        const writer = new InlineClickWriter(db.knex, db.engine, []);
        // Postgres: one INSERT ... SELECT FROM unnest(arrays) per transaction, as the writer does.
        const baseline = async (batch: ClickEvent[]) => {
          for (let i = 0; i < batch.length; i += WRITE_CHUNK) {
            const c = batch.slice(i, i + WRITE_CHUNK);
            await db.knex.transaction(async (trx) => {
              await trx.raw(
                `INSERT INTO bench_clicks_baseline SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])`,
                [
                  c.map((e) => e.workspaceId),
                  c.map((e) => e.linkId),
                  c.map(() => null),
                  c.map((e) => e.at),
                  c.map((e) => e.referer ?? null),
                  c.map((e) => e.country ?? null),
                  c.map(() => 'desktop'),
                  c.map(() => 'Chrome'),
                  c.map(() => 'Windows'),
                ] as any,
              );
            });
          }
        };
        // SQLite: the connection's prepared statement, one row per call, as the writer did before
        // it batched rows (Knex's per-statement overhead would dominate).
        const sqliteBaseline = async (batch: ClickEvent[]) => {
          for (let i = 0; i < batch.length; i += WRITE_CHUNK) {
            await db.knex.transaction(async (trx) => {
              const conn = await (trx.client as any).acquireConnection();
              const st = conn.prepare('INSERT INTO bench_clicks_baseline VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
              for (const e of batch.slice(i, i + WRITE_CHUNK))
                st.run(
                  e.workspaceId,
                  e.linkId,
                  null,
                  e.at,
                  e.referer ?? null,
                  e.country ?? null,
                  'desktop',
                  'Chrome',
                  'Windows',
                );
            });
          }
        };
        const w: { wall: number[]; cpu: number[]; pg: number[] } = { wall: [], cpu: [], pg: [] };
        const b: { wall: number[]; cpu: number[]; pg: number[] } = { wall: [], cpu: [], pg: [] };
        // Writer batches first, then the baseline's: interleaved, each commit would also checkpoint
        // the other's pages out of the WAL.
        const batches = Array.from({ length: BATCHES }, () => batchOf(LINKS[scenario], BATCH));
        for (const [i, batch] of batches.entries()) {
          const buffer = bufferOf(batch);
          const [wall, cpu, pg] = await timed(() => writer.write(buffer));
          if (i > 0) {
            w.wall.push((wall / BATCH) * 1000);
            w.cpu.push((cpu / BATCH) * 1000);
            w.pg.push((pg / BATCH) * 1000);
          }
        }
        if (engine === 'sqlite') await db.knex.raw('PRAGMA wal_checkpoint(TRUNCATE)');
        for (const [i, batch] of batches.entries()) {
          const [wall, cpu, pg] = await timed(() => (engine === 'sqlite' ? sqliteBaseline(batch) : baseline(batch)));
          if (i > 0) {
            b.wall.push((wall / BATCH) * 1000);
            b.cpu.push((cpu / BATCH) * 1000);
            b.pg.push((pg / BATCH) * 1000);
          }
        }
        const written = Number((await db.knex('clicks').count({ n: '*' }))[0].n);
        if (written !== BATCH * BATCHES)
          throw new Error(`expected ${BATCH * BATCHES} clicks written, found ${written}`);
        const windowRows = Number((await db.knex('link_click_windows').count({ n: '*' }))[0].n);
        if (Boolean(windowRows) !== Boolean(args.alerts))
          throw new Error(`${windowRows} alert window rows written with --alerts ${args.alerts ? 'on' : 'off'}`);
        const pgCell = (xs: number[]) => (engine === 'postgres' ? fmtMs(median(xs), 2) : '-');
        results.push(
          [
            `${scenario} (${fmtInt(LINKS[scenario])} links${scenario === 'day' ? ', daily rows there' : ''}): writer`,
            fmtMs(median(w.wall), 2),
            fmtMs(median(w.cpu), 2),
            `${fmtMs(median(w.cpu) / median(b.cpu), 2)}×`,
            pgCell(w.pg),
          ],
          [`${scenario}: baseline (no index)`, fmtMs(median(b.wall), 2), fmtMs(median(b.cpu), 2), '', pgCell(b.pg)],
        );
      }
      log();
      log('per click, medians:');
      log(table(['run', 'wall µs', 'CPU µs (this process)', 'writer/baseline CPU', 'Postgres CPU µs'], results));
    },
    run,
    cleanup,
  );
}

await main();
