// One Knex instance per process over SQLite (embedded default) or Postgres (several processes).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations/index.ts';

export type Engine = 'sqlite' | 'postgres';
/** A connection pool or a transaction, for code outside src/db/ that passes one along (only src/db/ imports knex). */
export type Db = Knex;
export type DbTransaction = Knex.Transaction;
export interface Database {
  knex: Knex;
  engine: Engine;
}

// Counts and epoch-millisecond columns are bigint; they fit a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

export function engineOf(databaseUrl: string): Engine {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return 'postgres';
  if (databaseUrl.startsWith('sqlite:')) return 'sqlite';
  throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got ${databaseUrl}`);
}

/** The SQLite file of a `sqlite:` DATABASE_URL (`sqlite:` alone is an in-memory database). */
export function sqliteFilename(databaseUrl: string): string {
  return databaseUrl.slice('sqlite:'.length) || ':memory:';
}

/** How long a SQLite statement waits for the write lock before it fails with SQLITE_BUSY. */
export const SQLITE_LOCK_WAIT_MS = 5_000;

/**
 * Knex's better-sqlite3 client, waiting for SQLite's write lock on a timer instead of in
 * SQLite's busy handler. SQLite has one writer at a time, and the click writer thread holds the
 * lock for a transaction at a time (tens of ms under load). better-sqlite3 is synchronous, so a
 * wait inside the busy handler blocks the calling thread: on the service's main thread, an API
 * write during a click flush would stop every redirect until the flush committed. Here a
 * statement that finds the lock taken fails at once (busy_timeout 0) and is retried 1, 2, 4, 8,
 * then every 16 ms, for up to SQLITE_LOCK_WAIT_MS. A statement that got SQLITE_BUSY did nothing,
 * so running it again is safe; SQLITE_BUSY_SNAPSHOT (a stale read transaction) is not retried.
 * A subclass, not a patched instance: Knex builds transaction clients from the class.
 */
const BetterSqlite3Client = createRequire(import.meta.url)('knex/lib/dialects/better-sqlite3') as new (
  config: Knex.Config,
) => Knex.Client & {
  _query(connection: unknown, obj: unknown): Promise<unknown>;
};
/**
 * Transactions begin IMMEDIATE: they take the write lock at BEGIN (waiting for it on the timer
 * like any statement) instead of at their first write. A deferred transaction that reads, then
 * writes, fails with SQLITE_BUSY_SNAPSHOT when another connection (the click writer thread, a
 * second process) commits in between: its snapshot is stale and cannot become a write. The API's
 * transactions read first (a DELETE of a link reads the row it deletes), and the fuzz test met
 * that race as a 500. Nothing on this client opens a transaction only to read.
 */
const SqliteTransaction = createRequire(import.meta.url)(
  'knex/lib/dialects/sqlite3/execution/sqlite-transaction',
) as new (
  ...args: unknown[]
) => {
  query(conn: unknown, sql: string): Promise<unknown>;
};
class ImmediateSqliteTransaction extends SqliteTransaction {
  declare readOnly?: boolean;
  begin(conn: unknown) {
    // A read-only transaction (readSnapshot) takes no lock: it only pins a snapshot.
    return this.query(conn, this.readOnly ? 'BEGIN;' : 'BEGIN IMMEDIATE;');
  }
}
/** Waits for the write lock in SQLite's busy handler (threads that serve no visitors). */
class BusyHandlerSqliteClient extends BetterSqlite3Client {
  transaction(container: unknown, config: unknown, outerTx: unknown): Knex.Transaction {
    return new ImmediateSqliteTransaction(this, container, config, outerTx) as unknown as Knex.Transaction;
  }
}
class TimerWaitSqliteClient extends BusyHandlerSqliteClient {
  _query(connection: unknown, obj: unknown): Promise<unknown> {
    return retryWhileSqliteBusy(() => super._query(connection, obj));
  }
}

/**
 * Runs `read` in one read-only snapshot: every statement sees the database as of the first, so
 * figures read from several tables agree with each other (a day's aggregate and the raw rows
 * taken from it). Postgres: REPEATABLE READ READ ONLY; SQLite: a deferred transaction, which
 * takes no lock.
 */
export function readSnapshot<T>(knex: Knex, read: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const pg = knex.client.config.client === 'pg';
  return knex.transaction(read, pg ? { isolationLevel: 'repeatable read', readOnly: true } : { readOnly: true });
}

/** Runs `write` again on a timer while it fails with SQLITE_BUSY (see TimerWaitSqliteClient). */
export async function retryWhileSqliteBusy<T>(write: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + SQLITE_LOCK_WAIT_MS;
  for (let delay = 1; ; delay = Math.min(delay * 2, 16)) {
    try {
      return await write();
    } catch (err) {
      if ((err as { code?: string })?.code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/**
 * SQLite WAL checkpoints (copying committed pages from the WAL back into the database file)
 * belong to the click writer thread. A checkpoint runs inside whichever commit takes the WAL past
 * `wal_autocheckpoint` pages; it copies every page written since the last one and syncs the file.
 *  - Connections on an event loop that serves visitors never checkpoint (0), nor do the query
 *    threads'. Before this an API write could commit just after a click flush and copy that
 *    flush's pages on the main thread.
 *  - The writer thread checkpoints at WRITER_CHECKPOINT_PAGES instead of SQLite's 1,000: a flush
 *    on many links dirties thousands of pages (one per click at random), so at 1,000 every commit
 *    checkpointed, and a page changed by consecutive transactions was copied once per
 *    transaction (a third of the writer's CPU, bench/README.md). The WAL then holds up to about
 *    40 MiB; a read looks a page up in its index first.
 *  - Those automatic checkpoints are passive and often copy only part of the WAL (readers hold
 *    snapshots). So the writer thread also runs a RESTART checkpoint after every batch and every
 *    WAL_CHECKPOINT_INTERVAL_MS (src/db/checkpoints.ts says why). A process's last connection
 *    checkpoints when it closes, so a CLI command run alone leaves no WAL behind.
 */
export const WRITER_CHECKPOINT_PAGES = 10_000;
export const WAL_SIZE_LIMIT_BYTES = 64 * 2 ** 20;
export const WAL_CHECKPOINT_INTERVAL_MS = 5_000;
/** How long the writer thread's RESTART checkpoint waits for readers (well under SQLITE_LOCK_WAIT_MS). */
export const CHECKPOINT_WAIT_MS = 1_000;

/**
 * `waitForLocks`: `timer` (the default, for event-loop threads) or `busy-handler` (helper threads
 * with no visitors to hold up: the click writer, which also writes through better-sqlite3
 * statements of its own, and the query threads). `checkpoints`: whether this connection runs the
 * WAL checkpoints (default: the busy-handler connections do; only the click writer's should).
 */
export function openDatabase(
  databaseUrl: string,
  opts: { poolMax?: number; waitForLocks?: 'timer' | 'busy-handler'; checkpoints?: boolean } = {},
): Database {
  const engine = engineOf(databaseUrl);
  if (engine === 'postgres') {
    const knex = knexFactory({
      client: 'pg',
      connection: databaseUrl,
      pool: { min: 0, max: opts.poolMax ?? 10 },
    });
    return { knex, engine };
  }
  const filename = sqliteFilename(databaseUrl);
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  const timer = (opts.waitForLocks ?? 'timer') === 'timer';
  const checkpoints = opts.checkpoints ?? !timer;
  const knex = knexFactory({
    client: (timer ? TimerWaitSqliteClient : BusyHandlerSqliteClient) as unknown as typeof Knex.Client,
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: any, done: (err: Error | null, conn: any) => void) {
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = NORMAL');
        conn.pragma(`busy_timeout = ${timer ? 0 : SQLITE_LOCK_WAIT_MS}`);
        conn.pragma('foreign_keys = ON');
        conn.pragma(`wal_autocheckpoint = ${checkpoints ? WRITER_CHECKPOINT_PAGES : 0}`);
        // A WAL that a large backlog grew is cut back to this size when it starts over.
        if (checkpoints) conn.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
        done(null, conn);
      },
    },
  });
  // The dialect is better-sqlite3's whichever class runs it; libraries that ask (the rate limiter) read it here.
  (knex.client as unknown as { config: { client: unknown } }).config.client = 'better-sqlite3';
  return { knex, engine };
}

/** Resolves once the database answers. */
export async function ping(db: Database): Promise<void> {
  await db.knex.raw('SELECT 1');
}

/** How long a process waits for another that is migrating the same database. */
const MIGRATION_WAIT_MS = 5 * 60_000;

/**
 * Migrates to this release. Instances that start together on one database (a new release's, on
 * the previous release's data) must not fail for finding another migrating: knex makes its
 * bookkeeping tables without a lock (two processes on a fresh database collide there) and
 * refuses, rather than waits, when another holds its lock. Either is the other instance at work:
 * wait and ask again, and the migrations it ran are then done, so each runs once.
 */
export async function migrateLatest(db: Database): Promise<void> {
  const giveUp = Date.now() + MIGRATION_WAIT_MS;
  for (;;) {
    try {
      await prepareBookkeeping(db);
      await db.knex.migrate.latest({ migrationSource });
      return;
    } catch (err) {
      if (!anotherIsMigrating(err) || Date.now() > giveUp) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
}

/** Any fixed key: taken only here, for one transaction. */
const BOOKKEEPING_LOCK_KEY = 7_446_582_301;

/**
 * Makes knex's bookkeeping tables and the one row of its lock table, one instance at a time.
 * Knex makes them itself by looking and then inserting, so instances starting together on a
 * fresh Postgres database could each insert a lock row; with two rows, knex's lock (an UPDATE
 * that must touch exactly one row) fails for everyone, forever. A lock table left with several
 * unlocked rows that way is cut back to one. A transaction-scoped advisory lock serialises this
 * through PgBouncer too; on SQLite the transaction's write lock does.
 */
async function prepareBookkeeping(db: Database): Promise<void> {
  const { knex, engine } = db;
  await knex.transaction(async (trx) => {
    if (engine === 'postgres') await trx.raw('SELECT pg_advisory_xact_lock(?)', [BOOKKEEPING_LOCK_KEY]);
    // The same tables knex makes (knex/lib/migrations/migrate/table-creator.js).
    if (!(await trx.schema.hasTable('knex_migrations'))) {
      await trx.schema.createTable('knex_migrations', (t) => {
        t.increments();
        t.string('name');
        t.integer('batch');
        t.timestamp('migration_time');
      });
    }
    if (!(await trx.schema.hasTable('knex_migrations_lock'))) {
      await trx.schema.createTable('knex_migrations_lock', (t) => {
        t.increments('index').primary();
        t.integer('is_locked');
      });
    }
    const rows: Array<{ index: number; is_locked: number }> = await trx('knex_migrations_lock').select(
      'index',
      'is_locked',
    );
    if (rows.length === 0) await trx('knex_migrations_lock').insert({ is_locked: 0 });
    else if (rows.length > 1 && rows.every((r) => Number(r.is_locked) === 0)) {
      const keep = Math.min(...rows.map((r) => Number(r.index)));
      await trx('knex_migrations_lock').whereNot('index', keep).delete();
    }
  });
}

function anotherIsMigrating(err: unknown): boolean {
  const e = err as { name?: string; message?: string };
  if (e?.name === 'MigrationLocked') return true;
  // SQLite: another process wrote the bookkeeping first, after this one's transaction had read.
  if (typeof (e as { code?: unknown })?.code === 'string' && (e as { code: string }).code.startsWith('SQLITE_BUSY'))
    return true;
  // The bookkeeping tables (knex_migrations, knex_migrations_lock) made meanwhile by another:
  // "already exists", or on Postgres, when both make one at the same moment, its row type's key.
  return /\bknex_migrations(_lock)?\b.*(already exists|duplicate key)/s.test(e?.message ?? '');
}

export async function migrateDown(db: Database): Promise<void> {
  await db.knex.migrate.rollback({ migrationSource }, true);
}

/** True for a unique-constraint violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * True for Postgres's deadlock: two transactions writing the same rows in different orders (two
 * batches of links naming the same slugs). One of them is cancelled and may be written again.
 */
export function isDeadlock(err: unknown): boolean {
  return (err as { code?: string })?.code === '40P01';
}

/** The connection pool's use, for /metrics: connections in use, idle, and requests waiting for one. */
export function poolUse(db: Database): { used: number; free: number; pending: number; max: number } {
  const pool = (
    db.knex.client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number; max: number } }
  ).pool;
  if (!pool) return { used: 0, free: 0, pending: 0, max: 0 };
  return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires(), max: pool.max };
}
