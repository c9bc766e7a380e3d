// SQLite: the API's transactions take the write lock when they begin (BEGIN IMMEDIATE), so a
// transaction that reads a row and then writes it cannot be broken by another connection (the
// click writer thread, a second process) committing in between. With a deferred BEGIN that
// commit leaves the transaction's snapshot stale, its write fails with SQLITE_BUSY_SNAPSHOT,
// and the API answered 500 (the fuzz test met it on DELETE /api/v1/links/{id}).
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteFilename } from '../../src/db/knex';
import { type MigratedDatabase, openMigratedDatabase } from '../support/databases';

describe('SQLite transactions on the API connection', () => {
  let db: MigratedDatabase;
  let other: Sqlite.Database;

  beforeAll(async () => {
    db = await openMigratedDatabase('sqlite');
    await db.knex('workspaces').insert({ id: 'ws_tx', name: 'Before', plan: 'business', created_at: Date.now() });
    other = new Sqlite(sqliteFilename(db.url));
    other.pragma('busy_timeout = 0');
  });
  afterAll(async () => {
    other?.close();
    await db?.close();
  });

  it('hold the write lock from the start: a commit by another connection waits, and the read-then-write succeeds', async () => {
    const rename = other.prepare(`UPDATE workspaces SET name = 'Other' WHERE id = 'ws_tx'`);
    await db.knex.transaction(async (trx) => {
      const row = await trx('workspaces').where({ id: 'ws_tx' }).first();
      expect(row.name).toBe('Before');
      // Another connection cannot commit in between (it would have, with a deferred BEGIN).
      expect(() => rename.run()).toThrow(/database is locked|busy/i);
      await trx('workspaces')
        .where({ id: 'ws_tx' })
        .update({ name: `${row.name} and after` });
    });
    expect((await db.knex('workspaces').where({ id: 'ws_tx' }).first()).name).toBe('Before and after');
    // Once it committed, the other connection writes as usual.
    expect(rename.run().changes).toBe(1);
  });
});
