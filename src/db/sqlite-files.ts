// A SQLite database as a file, for `shortlink backup` and `restore` (src/start/commands/backup.ts):
// a consistent copy of a live database, and the check of a copy before it is used.
import BetterSqlite3 from 'better-sqlite3';
import { SQLITE_LOCK_WAIT_MS } from './knex.ts';

/**
 * Copies the live database `source` into the new file `target` and answers the newest migration
 * it has. VACUUM INTO is one read transaction, so one consistent snapshot (what the WAL holds
 * included) while the service goes on writing, compacted; the online backup API would start over
 * whenever the service writes, and under steady writes might never end. The copy is a rollback-
 * journal file on its own, checked with quick_check.
 */
export function copyLiveDatabase(source: string, target: string): { migration: string | null; check: string } {
  const live = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
  try {
    live.pragma(`busy_timeout = ${SQLITE_LOCK_WAIT_MS}`);
    live.prepare('VACUUM INTO ?').run(target);
  } finally {
    live.close();
  }
  const copy = new BetterSqlite3(target, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    return { migration: latestMigration(copy), check: String(copy.pragma('quick_check', { simple: true })) };
  } finally {
    copy.close();
  }
}

/** `PRAGMA integrity_check` of a database file: 'ok', or what is wrong. */
export function checkDatabaseFile(file: string): string {
  const db = new BetterSqlite3(file, { fileMustExist: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

function latestMigration(db: BetterSqlite3.Database): string | null {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'knex_migrations'").get();
  if (!table) return null;
  const row = db.prepare('SELECT name FROM knex_migrations ORDER BY id DESC LIMIT 1').get() as
    | { name: string }
    | undefined;
  return row?.name ?? null;
}
