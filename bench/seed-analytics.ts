// Seeding analytics data fast, shared by bench/conversions.ts and bench/mixed-load.ts: seeded
// generators of conversions and clicks, the aggregate rows the service would have written for
// them (computed in memory, exactly as insertConversion and the click writer write them), and bulk
// writers per engine (better-sqlite3 prepared statements in transactions, or Postgres
// INSERT … SELECT FROM unnest(arrays)), 10-100 times faster than the repositories row by row.
import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import type { Knex } from 'knex';
import pg from 'pg';
import { engineOf, migrateLatest, openDatabase, sqliteFilename, type Engine } from '../src/db/knex';
import { insertConversion, type ConversionRow } from '../src/db/repos/conversions';
import { DAY_MS, type EventType } from '../src/domain/conversions';
import type { StoredClick } from '../src/db/repos/click-batches';
import { createScratchPostgres, fmtInt, log } from './util';

// ---------------------------------------------------------------------------------------------
// Random, but the same on every run and engine

/** A small, fast, seeded generator (mulberry32): the same data on every run and engine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export function idFrom(rand: () => number, prefix: string): string {
  let s = `${prefix}_`;
  for (let i = 0; i < 20; i++) s += ALPHABET[(rand() * 36) | 0];
  return s;
}
export const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[(rand() * xs.length) | 0];

// ---------------------------------------------------------------------------------------------
// Data: what the seeded workspace holds

export interface Catalog {
  workspaceId: string;
  userId: string;
  links: string[];
  campaigns: string[];
  qrCodes: Array<{ id: string; linkId: string }>;
}

export const STANDARD_TYPES: EventType[] = ['signup', 'lead', 'purchase', 'booking', 'download'];
export const CUSTOM_NAMES = ['newsletter_optin', 'trial_started', 'demo_requested', 'webinar_joined', 'quote_sent'];
export const CURRENCIES = ['EUR', 'USD', 'GBP'];

/** Conversions in time order over [start, end): stratified, so the spread is uniform. */
export function* generateConversions(
  cat: Catalog,
  count: number,
  start: number,
  end: number,
  now: number,
  seed: number,
): Generator<ConversionRow> {
  const rand = prng(seed);
  const span = end - start;
  for (let i = 0; i < count; i++) {
    const occurredAt = Math.min(end - 1, Math.floor(start + ((i + rand()) * span) / count));
    const custom = rand() < 0.3;
    const eventType: EventType = custom ? 'custom' : pick(rand, STANDARD_TYPES);
    const customName = custom ? pick(rand, CUSTOM_NAMES) : null;
    const valued = rand() < 0.6;
    const currency = valued ? pick(rand, CURRENCIES) : null;
    const amount = valued ? 100 + Math.floor(rand() * 49_900) : null;
    // A conversion that names a QR code is attributed to that QR code's link (as the API does).
    const a = rand();
    let linkId: string | null = null;
    let qrCodeId: string | null = null;
    if (a < 0.05) {
      const qr = pick(rand, cat.qrCodes);
      qrCodeId = qr.id;
      linkId = qr.linkId;
    } else if (a < 0.8) linkId = pick(rand, cat.links);
    const campaignId = rand() < 0.2 ? pick(rand, cat.campaigns) : null;
    yield {
      id: idFrom(rand, 'cnv'),
      workspace_id: cat.workspaceId,
      event_type: eventType,
      custom_name: customName,
      link_id: linkId,
      campaign_id: campaignId,
      qr_code_id: qrCodeId,
      amount_minor: amount,
      currency,
      metadata: rand() < 0.1 ? JSON.stringify({ orderId: `ord_${i}`, source: 'bench' }) : null,
      occurred_at: occurredAt,
      created_at: Math.min(now, occurredAt + Math.floor(rand() * 5_000)),
    };
  }
}

export type AggRow = Record<string, string | number>;

/** The daily aggregate rows insertConversion would have written for the same conversions. */
export class ConversionAggregates {
  readonly tables = new Map<string, Map<string, AggRow>>([
    ['conversion_daily_type', new Map()],
    ['conversion_daily_link', new Map()],
    ['conversion_daily_campaign', new Map()],
    ['conversion_daily_qr', new Map()],
  ]);

  add(row: ConversionRow) {
    const day = Math.floor(row.occurred_at / DAY_MS);
    const currency = row.currency ?? '';
    const value = row.amount_minor ?? 0;
    const bump = (table: string, keys: Record<string, string | number>) => {
      const map = this.tables.get(table)!;
      const k = Object.values(keys).join('\u0000');
      const r = map.get(k);
      if (r) {
        (r.conversions as number) += 1;
        (r.value_minor as number) += value;
      } else map.set(k, { ...keys, conversions: 1, value_minor: value });
    };
    bump('conversion_daily_type', {
      workspace_id: row.workspace_id,
      day,
      event_type: row.event_type,
      custom_name: row.custom_name ?? '',
      currency,
      attributed: row.link_id ? 1 : 0,
    });
    if (row.link_id)
      bump('conversion_daily_link', { workspace_id: row.workspace_id, day, link_id: row.link_id, currency });
    if (row.campaign_id)
      bump('conversion_daily_campaign', {
        workspace_id: row.workspace_id,
        day,
        campaign_id: row.campaign_id,
        currency,
      });
    if (row.qr_code_id)
      bump('conversion_daily_qr', { workspace_id: row.workspace_id, day, qr_code_id: row.qr_code_id, currency });
  }

  get rowCount(): number {
    return [...this.tables.values()].reduce((s, m) => s + m.size, 0);
  }
}

const REFERRERS = [
  null,
  null,
  'www.google.com',
  't.co',
  'news.ycombinator.com',
  'www.facebook.com',
  'www.linkedin.com',
];
const COUNTRIES = ['DE', 'US', 'GB', 'FR', 'NL', 'ES', null];
const DEVICES = ['desktop', 'mobile', 'mobile', 'tablet'];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge'];
const OSES = ['Windows', 'macOS', 'iOS', 'Android', 'Linux'];

/** Clicks in time order over [start, end); 10% are QR scans (counted on the QR code's link too). */
export function* generateClicks(
  cat: Catalog,
  count: number,
  start: number,
  end: number,
  seed: number,
): Generator<StoredClick> {
  const rand = prng(seed);
  const span = end - start;
  for (let i = 0; i < count; i++) {
    const occurredAt = Math.min(end - 1, Math.floor(start + ((i + rand()) * span) / count));
    let linkId: string;
    let qrCodeId: string | null = null;
    if (rand() < 0.1) {
      const qr = pick(rand, cat.qrCodes);
      qrCodeId = qr.id;
      linkId = qr.linkId;
    } else linkId = pick(rand, cat.links);
    yield {
      workspace_id: cat.workspaceId,
      link_id: linkId,
      qr_code_id: qrCodeId,
      occurred_at: occurredAt,
      referrer_host: pick(rand, REFERRERS),
      country: pick(rand, COUNTRIES),
      city: null,
      route: null,
      device: pick(rand, DEVICES),
      browser: pick(rand, BROWSERS),
      os: pick(rand, OSES),
    };
  }
}

/** The counts the click recorder keeps besides raw events: per link and day, per QR code and day. */
export class ClickAggregates {
  readonly linkDaily = new Map<
    string,
    { link_id: string; workspace_id: string; day: number; clicks: number; scans: number }
  >();
  readonly qrDaily = new Map<string, { qr_code_id: string; workspace_id: string; day: number; scans: number }>();
  readonly perLink = new Map<string, number>();

  add(c: StoredClick) {
    const day = Math.floor(c.occurred_at / DAY_MS);
    this.perLink.set(c.link_id, (this.perLink.get(c.link_id) ?? 0) + 1);
    const lk = `${c.link_id}|${day}`;
    const l = this.linkDaily.get(lk);
    if (l) {
      l.clicks++;
      if (c.qr_code_id) l.scans++;
    } else
      this.linkDaily.set(lk, {
        link_id: c.link_id,
        workspace_id: c.workspace_id,
        day,
        clicks: 1,
        scans: c.qr_code_id ? 1 : 0,
      });
    if (c.qr_code_id) {
      const qk = `${c.qr_code_id}|${day}`;
      const q = this.qrDaily.get(qk);
      if (q) q.scans++;
      else this.qrDaily.set(qk, { qr_code_id: c.qr_code_id, workspace_id: c.workspace_id, day, scans: 1 });
    }
  }
}

// Column lists with their Postgres array types (the SQLite writer only needs the names).
export type Columns = Array<[string, 'text' | 'bigint' | 'int' | 'smallint' | 'boolean']>;
export const COLUMNS: Record<string, Columns> = {
  conversions: [
    ['id', 'text'],
    ['workspace_id', 'text'],
    ['event_type', 'text'],
    ['custom_name', 'text'],
    ['link_id', 'text'],
    ['campaign_id', 'text'],
    ['qr_code_id', 'text'],
    ['amount_minor', 'bigint'],
    ['currency', 'text'],
    ['metadata', 'text'],
    ['occurred_at', 'bigint'],
    ['created_at', 'bigint'],
  ],
  conversion_daily_type: [
    ['workspace_id', 'text'],
    ['day', 'int'],
    ['event_type', 'text'],
    ['custom_name', 'text'],
    ['currency', 'text'],
    ['attributed', 'int'],
    ['conversions', 'bigint'],
    ['value_minor', 'bigint'],
  ],
  conversion_daily_link: [
    ['workspace_id', 'text'],
    ['day', 'int'],
    ['link_id', 'text'],
    ['currency', 'text'],
    ['conversions', 'bigint'],
    ['value_minor', 'bigint'],
  ],
  conversion_daily_campaign: [
    ['workspace_id', 'text'],
    ['day', 'int'],
    ['campaign_id', 'text'],
    ['currency', 'text'],
    ['conversions', 'bigint'],
    ['value_minor', 'bigint'],
  ],
  conversion_daily_qr: [
    ['workspace_id', 'text'],
    ['day', 'int'],
    ['qr_code_id', 'text'],
    ['currency', 'text'],
    ['conversions', 'bigint'],
    ['value_minor', 'bigint'],
  ],
  clicks: [
    ['workspace_id', 'text'],
    ['link_id', 'text'],
    ['qr_code_id', 'text'],
    ['occurred_at', 'bigint'],
    ['referrer_host', 'text'],
    ['country', 'text'],
    ['device', 'text'],
    ['browser', 'text'],
    ['os', 'text'],
  ],
  link_daily_clicks: [
    ['link_id', 'text'],
    ['workspace_id', 'text'],
    ['day', 'int'],
    ['clicks', 'bigint'],
    ['scans', 'bigint'],
  ],
  qr_daily_scans: [
    ['qr_code_id', 'text'],
    ['workspace_id', 'text'],
    ['day', 'int'],
    ['scans', 'bigint'],
  ],
};

/**
 * The aggregate rows must be exactly insertConversion's: a sample goes through insertConversion
 * into an in-memory database and through ConversionAggregates, and the four daily tables are
 * compared; so are the blocks, filled by insertBlockRollups from the same events in another.
 */
export async function checkAggregatesAgainstInsertConversion(): Promise<string> {
  const db = openDatabase('sqlite::memory:');
  try {
    await migrateLatest(db);
    const cat: Catalog = {
      workspaceId: 'ws_check',
      userId: 'usr_check',
      links: Array.from({ length: 7 }, (_, i) => `lnk_check${i}`),
      campaigns: ['cmp_check0', 'cmp_check1'],
      qrCodes: [
        { id: 'qr_check0', linkId: 'lnk_check2' },
        { id: 'qr_check1', linkId: 'lnk_check5' },
      ],
    };
    const now = Date.now();
    // Few days and ids so that most rows merge into existing aggregate rows.
    const rows = [...generateConversions(cat, 4_000, now - 3 * DAY_MS - 3_600_000, now, now, 7)];
    const agg = new ConversionAggregates();
    for (const r of rows) agg.add(r);
    await db.knex.transaction(async (trx) => {
      for (const r of rows) await insertConversion(trx, r);
    });
    const problems: string[] = [];
    for (const [t, map] of agg.tables) {
      const cols = COLUMNS[t].map(([c]) => c);
      const norm = (r: Record<string, unknown>) => cols.map((c) => String(r[c])).join('|');
      const expected = new Set([...map.values()].map(norm));
      const actual = new Set(((await db.knex(t).select(cols)) as Record<string, unknown>[]).map(norm));
      const missing = [...expected].filter((x) => !actual.has(x)).length;
      const extra = [...actual].filter((x) => !expected.has(x)).length;
      if (missing || extra || expected.size !== actual.size)
        problems.push(
          `${t}: ${missing} computed rows not written by insertConversion, ${extra} written but not computed`,
        );
    }
    // The blocks as the bench fills them (insertBlockRollups) from the same events and daily rows.
    const seeded = openDatabase('sqlite::memory:');
    let blockRows = 0;
    try {
      await migrateLatest(seeded);
      for (let i = 0; i < rows.length; i += 200) await seeded.knex('conversions').insert(rows.slice(i, i + 200));
      for (const [t, map] of agg.tables) {
        const all = [...map.values()];
        for (let i = 0; i < all.length; i += 200) await seeded.knex(t).insert(all.slice(i, i + 200));
      }
      await insertBlockRollups(seeded.knex);
      for (const name of ['type', 'link', 'campaign', 'qr', 'type_link', 'type_campaign', 'type_qr']) {
        const t = `conversion_block_${name}`;
        if (!(await db.knex.schema.hasTable(t))) continue;
        const norm = (r: Record<string, unknown>) =>
          JSON.stringify(
            Object.keys(r)
              .sort()
              .map((k) => String(r[k])),
          );
        const written = new Set(((await db.knex(t).select('*')) as Record<string, unknown>[]).map(norm));
        const filled = ((await seeded.knex(t).select('*')) as Record<string, unknown>[]).map(norm);
        blockRows += filled.length;
        if (filled.length !== written.size || filled.some((x) => !written.has(x)))
          problems.push(`${t}: the bench's blocks differ from insertConversion's`);
      }
    } finally {
      await seeded.knex.destroy();
    }
    return problems.length
      ? `MISMATCH (the seeded aggregates would not be insertConversion's): ${problems.join('; ')}`
      : `identical (${fmtInt(rows.length)} sample conversions through insertConversion and through the bench's aggregation, ${fmtInt(agg.rowCount)} daily rows in 4 tables, ${fmtInt(blockRows)} block rows)`;
  } finally {
    await db.knex.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Databases: create, bulk-write, settle, measure size, explain

export interface BulkWriter {
  /** Rows into `table`, by the columns COLUMNS names for it or, for other tables, `columns`. */
  insert(table: string, rows: ReadonlyArray<Record<string, unknown>>, columns?: Columns): Promise<void>;
  close(): Promise<void>;
}

export interface BenchDatabase {
  engine: Engine;
  url: string;
  describe: string;
  /** Rows per insert that suit the engine's writer. */
  batch: number;
  bulkWriter(): Promise<BulkWriter>;
  settle(): Promise<string>;
  size(): Promise<{ total: number; tables: Array<[string, number]> }>;
  /**
   * The plan of a query. `settings`: statements the traced run ran before it in its transaction
   * (Postgres: the search's set_config of planner settings), run first in the same transaction, so
   * the plan is the one the service's query got.
   */
  explain(
    sql: string,
    bindings: readonly unknown[],
    settings?: ReadonlyArray<{ sql: string; bindings: readonly unknown[] }>,
  ): Promise<string[]>;
}

export interface CreateDatabaseOptions {
  /** Name prefix of the scratch Postgres database (`${prefix}_<pid>_<random>`). */
  scratchPrefix: string;
  /** Leave the Postgres database in place at cleanup (its address is printed). */
  keep: boolean;
  /** Registers the scratch database's removal with the bench's cleanups. */
  onCleanup(name: string, run: () => unknown): void;
}

const TABLES_OF_INTEREST = Object.keys(COLUMNS);

/**
 * A fresh, empty database for one engine: a SQLite file `bench.db` in `tmp` (the caller removes
 * `tmp`), or a scratch Postgres database whose drop is registered through `opts.onCleanup`.
 */
export async function createDatabase(engine: Engine, tmp: string, opts: CreateDatabaseOptions): Promise<BenchDatabase> {
  if (engine === 'sqlite') return sqliteDatabase(path.join(tmp, 'bench.db'));
  const scratch = await createScratchPostgres(opts.scratchPrefix);
  const { name, url } = scratch;
  opts.onCleanup(`database ${name}`, () =>
    opts.keep ? log(`kept: ${url} (drop it with DROP DATABASE ${name})`) : scratch.drop(),
  );
  return postgresDatabase(url);
}

/**
 * A database an earlier run kept (`--keep`), by its URL, to measure again without seeding: it
 * is neither emptied nor removed at the end.
 */
export function existingDatabase(url: string): BenchDatabase {
  return engineOf(url) === 'sqlite' ? sqliteDatabase(sqliteFilename(url)) : postgresDatabase(url);
}

function sqliteDatabase(file: string): BenchDatabase {
  const engine: Engine = 'sqlite';
  return {
    engine,
    url: `sqlite:${file}`,
    describe: `SQLite ${file}`,
    batch: 50_000,
    async bulkWriter() {
      const db = new Sqlite(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      const statements = new Map<string, Sqlite.Statement>();
      return {
        async insert(table, rows, columns) {
          const cols = (columns ?? COLUMNS[table]).map(([c]) => c);
          let stmt = statements.get(table);
          if (!stmt) {
            stmt = db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
            statements.set(table, stmt);
          }
          const s = stmt;
          db.transaction(() => {
            for (const r of rows) s.run(cols.map((c) => r[c] ?? null));
          })();
        },
        async close() {
          db.close();
        },
      };
    },
    async settle() {
      // As a long-running service would find the file: the WAL checkpointed. The service never
      // runs ANALYZE, so neither does this (plans are SQLite's choices without statistics).
      const db = new Sqlite(file);
      try {
        db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.close();
      }
      return 'WAL checkpoint (TRUNCATE); no ANALYZE (the service runs none)';
    },
    async size() {
      const total = ['', '-wal', '-shm'].reduce(
        (s, ext) => s + (fs.existsSync(file + ext) ? fs.statSync(file + ext).size : 0),
        0,
      );
      const db = new Sqlite(file, { readonly: true, fileMustExist: true });
      try {
        // dbstat is compiled into better-sqlite3's SQLite; the sizes include each table's indexes.
        const rows = db
          .prepare(
            `SELECT m.tbl_name AS t, SUM(s.pgsize) AS bytes FROM dbstat s JOIN sqlite_master m ON m.name = s.name
             GROUP BY m.tbl_name`,
          )
          .all() as Array<{ t: string; bytes: number }>;
        return {
          total,
          tables: rows.filter((r) => TABLES_OF_INTEREST.includes(r.t)).map((r) => [r.t, r.bytes] as [string, number]),
        };
      } catch {
        return { total, tables: [] };
      } finally {
        db.close();
      }
    },
    async explain(sql, bindings) {
      const db = new Sqlite(file, { readonly: true, fileMustExist: true });
      try {
        const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(bindings as unknown[])) as Array<{
          id: number;
          parent: number;
          detail: string;
        }>;
        const depth = new Map<number, number>([[0, -1]]);
        return rows.map((r) => {
          const d = (depth.get(r.parent) ?? -1) + 1;
          depth.set(r.id, d);
          return `${'  '.repeat(d)}${r.detail}`;
        });
      } finally {
        db.close();
      }
    },
  };
}

function postgresDatabase(url: string): BenchDatabase {
  const engine: Engine = 'postgres';
  const name = new URL(url).pathname.slice(1);
  const connect = async () => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    await c.connect();
    return c;
  };
  const withClient = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = await connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  return {
    engine,
    url,
    describe: `Postgres database ${name} on ${new URL(url).host}`,
    batch: 20_000,
    async bulkWriter() {
      const c = await connect();
      // Bulk load: no wait for the WAL flush per batch (durability is not what is measured).
      await c.query('SET synchronous_commit = off');
      return {
        async insert(table, rows, columns) {
          if (!rows.length) return;
          const cols = columns ?? COLUMNS[table];
          const arrays = cols.map(([col]) => rows.map((r) => r[col] ?? null));
          await c.query(
            `INSERT INTO ${table} (${cols.map(([col]) => col).join(', ')})
             SELECT * FROM unnest(${cols.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`,
            arrays,
          );
        },
        close: () => c.end(),
      };
    },
    async settle() {
      // What autovacuum would do shortly after a bulk load: statistics and the visibility map
      // (which index-only scans need).
      await withClient((c) => c.query('VACUUM ANALYZE'));
      return 'VACUUM ANALYZE (what autovacuum does after a bulk load)';
    },
    size: () =>
      withClient(async (c) => {
        const total = Number((await c.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n);
        const rows = (
          await c.query(
            'SELECT relname AS t, pg_total_relation_size(oid) AS bytes FROM pg_class WHERE relname = ANY($1) AND relkind = $2',
            [TABLES_OF_INTEREST, 'r'],
          )
        ).rows as Array<{ t: string; bytes: string }>;
        return { total, tables: rows.map((r) => [r.t, Number(r.bytes)] as [string, number]) };
      }),
    explain: (sql, bindings, settings = []) =>
      withClient(async (c) => {
        await c.query('BEGIN');
        try {
          for (const x of settings) await c.query(x.sql, x.bindings as unknown[]);
          const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, bindings as unknown[]);
          return r.rows.map((row: Record<string, string>) => row['QUERY PLAN']);
        } finally {
          await c.query('ROLLBACK');
        }
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Loading: raw rows in batches as they are generated, then the aggregates

/** Writes `rows` in slices of the engine's batch size. */
export async function insertAll(
  bdb: BenchDatabase,
  writer: BulkWriter,
  table: string,
  rows: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  for (let i = 0; i < rows.length; i += bdb.batch) await writer.insert(table, rows.slice(i, i + bdb.batch));
}

/**
 * Writes generated rows to `table` as they come, a batch at a time, handing each to `see` first;
 * a row for which `see` answers false is seen but not written. Returns the rows written.
 */
export async function insertStream<T extends object>(
  bdb: BenchDatabase,
  writer: BulkWriter,
  table: string,
  rows: Iterable<T>,
  see: (row: T) => unknown = () => true,
): Promise<number> {
  let batch: T[] = [];
  let written = 0;
  for (const row of rows) {
    if (see(row) === false) continue;
    batch.push(row);
    written++;
    if (batch.length === bdb.batch) {
      await writer.insert(table, batch as unknown as Record<string, unknown>[]);
      batch = [];
    }
  }
  await writer.insert(table, batch as unknown as Record<string, unknown>[]);
  return written;
}

/** The four daily conversion tables, from what `agg` gathered. */
export async function insertConversionAggregates(
  bdb: BenchDatabase,
  writer: BulkWriter,
  agg: ConversionAggregates,
): Promise<void> {
  for (const [table, map] of agg.tables) await insertAll(bdb, writer, table, [...map.values()]);
}

/**
 * What the service keeps besides the raw conversions and daily rows: the 32-day rollups
 * (conversion_block_*, derived from the daily rows exactly as their migration backfills them)
 * and each workspace's kept value total per currency (conversion_value_totals, which bounds what
 * it may still record). Run once the raw and daily rows are all in.
 */
export async function insertBlockRollups(knex: Knex): Promise<void> {
  await knex.raw(
    `INSERT INTO conversion_value_totals (workspace_id, currency, value_minor)
     SELECT workspace_id, currency, SUM(amount_minor) FROM conversions WHERE currency IS NOT NULL GROUP BY workspace_id, currency`,
  );
  const blockKeys: Record<string, string> = {
    type: 'event_type, custom_name, currency, attributed',
    link: 'link_id, currency',
    campaign: 'campaign_id, currency',
    qr: 'qr_code_id, currency',
  };
  for (const [name, keys] of Object.entries(blockKeys)) {
    await knex.raw(
      `INSERT INTO conversion_block_${name} (workspace_id, block, ${keys}, conversions, value_minor)
       SELECT workspace_id, day / 32, ${keys}, SUM(conversions), SUM(value_minor) FROM conversion_daily_${name}
       GROUP BY workspace_id, day / 32, ${keys}`,
    );
  }
  // The blocks by event type and link, campaign or QR code (migration 20261127010000), from the
  // raw events as that migration fills them; absent before it (bench runs on older commits). Since
  // 20261202000000 a custom event counts again under every name together ('').
  const allNames =
    (await knex('knex_migrations').where('name', '20261202000000_conversion_block_reads').first()) !== undefined;
  for (const [name, column] of [
    ['link', 'link_id'],
    ['campaign', 'campaign_id'],
    ['qr', 'qr_code_id'],
  ]) {
    if (!(await knex.schema.hasTable(`conversion_block_type_${name}`))) continue;
    const events = (customName: string, where: string) =>
      `SELECT workspace_id, (occurred_at / ${DAY_MS}) / 32 AS block, event_type, ${customName} AS custom_name, ${column}, coalesce(currency, '') AS currency, coalesce(amount_minor, 0) AS amount
       FROM conversions WHERE ${column} IS NOT NULL${where}`;
    await knex.raw(
      `INSERT INTO conversion_block_type_${name} (workspace_id, block, event_type, custom_name, ${column}, currency, conversions, value_minor)
       SELECT workspace_id, block, event_type, custom_name, ${column}, currency, COUNT(*), SUM(amount)
       FROM (${events(`coalesce(custom_name, '')`, '')}${allNames ? ` UNION ALL ${events(`''`, ` AND event_type = 'custom' AND custom_name <> ''`)}` : ''}) AS e
       GROUP BY 1, 2, 3, 4, 5, 6`,
    );
  }
}

/**
 * The click counts besides raw events: link_daily_clicks, qr_daily_scans, and each link's
 * `served` set to its clicks. Returns the rows written per table.
 */
export async function insertClickCounts(
  bdb: BenchDatabase,
  writer: BulkWriter,
  knex: Knex,
  agg: ClickAggregates,
): Promise<{ linkDaily: number; qrDaily: number }> {
  const linkDaily = [...agg.linkDaily.values()];
  await insertAll(bdb, writer, 'link_daily_clicks', linkDaily);
  const qrDaily = [...agg.qrDaily.values()];
  await insertAll(bdb, writer, 'qr_daily_scans', qrDaily);
  // One transaction: on SQLite a commit per link would wait for a sync each.
  await knex.transaction(async (trx) => {
    for (const [linkId, n] of agg.perLink) await trx('links').where({ id: linkId }).update({ served: n });
  });
  return { linkDaily: linkDaily.length, qrDaily: qrDaily.length };
}
