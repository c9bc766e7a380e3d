// The database matrix: the same API tests on every engine, a fresh database per test file; and
// a migrated database per engine for the suites that call repositories directly (test/db/).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrateLatest, openDatabase, type Database, type Engine } from '../../src/db/knex';

export function testEngines(): Engine[] {
  return (process.env.SHORTLINK_TEST_ENGINES || 'sqlite').split(',') as Engine[];
}

export interface TestDatabase {
  url: string;
  engine: Engine;
  drop(): Promise<void>;
}

export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  const name = `sl_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-db-'));
    return {
      engine,
      url: `sqlite:${path.join(dir, `${name}.db`)}`,
      async drop() {
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const admin = process.env.TEST_POSTGRES_URL!;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    engine,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Runs `fn` on a new, empty (unmigrated) database of `engine`, closed and dropped afterwards. */
export async function withFreshDatabase(engine: Engine, fn: (db: Database) => Promise<void>): Promise<void> {
  const database = await createTestDatabase(engine);
  const db = openDatabase(database.url);
  try {
    await fn(db);
  } finally {
    await db.knex.destroy();
    await database.drop();
  }
}

/** A migrated database: its connection (knex, engine) and the test database it lives in. */
export interface MigratedDatabase extends Database {
  /** The database's URL (DATABASE_URL for a thread or a process on the same database). */
  url: string;
  /** Closes the connection and drops the database. */
  close(): Promise<void>;
}

/** A new database of `engine` with every migration run; `close()` closes and drops it. */
export async function openMigratedDatabase(
  engine: Engine,
  opts: Parameters<typeof openDatabase>[1] = {},
): Promise<MigratedDatabase> {
  const database = await createTestDatabase(engine);
  const db = openDatabase(database.url, opts);
  await migrateLatest(db);
  return {
    ...db,
    url: database.url,
    async close() {
      await db.knex.destroy();
      await database.drop();
    },
  };
}
