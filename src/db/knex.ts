// One Knex instance per process over SQLite (embedded default) or Postgres (several processes).
import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations/index';

export type Engine = 'sqlite' | 'postgres';
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

export function openDatabase(databaseUrl: string, opts: { poolMax?: number } = {}): Database {
  const engine = engineOf(databaseUrl);
  if (engine === 'postgres') {
    const knex = knexFactory({
      client: 'pg',
      connection: databaseUrl,
      pool: { min: 0, max: opts.poolMax ?? 10 },
    });
    return { knex, engine };
  }
  const filename = databaseUrl.slice('sqlite:'.length) || ':memory:';
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: any, done: (err: Error | null, conn: any) => void) {
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = NORMAL');
        conn.pragma('busy_timeout = 5000');
        conn.pragma('foreign_keys = ON');
        done(null, conn);
      },
    },
  });
  return { knex, engine };
}

export async function migrateLatest(db: Database): Promise<void> {
  await db.knex.migrate.latest({ migrationSource });
}

export async function migrateDown(db: Database): Promise<void> {
  await db.knex.migrate.rollback({ migrationSource }, true);
}

/** True for a unique-constraint violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
