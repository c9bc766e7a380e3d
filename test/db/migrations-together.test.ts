// Several processes migrating one database at once, as instances of a new release do when they
// start together on the previous release's data: the migrations run once, by one of them, and
// the others wait for it and start on the migrated schema. On every engine (on SQLite, the
// service and a command line on one file).
import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { migrateLatest, openDatabase } from '../../src/db/knex';
import { migrationSource } from '../../src/db/migrations/index';
import { createTestDatabase, testEngines } from '../support/databases';

const INSTANCES = 3;

/** The migrations a release before this one had: all but the newest `newer`. */
function earlierRelease(newer: number): Knex.MigrationSource<string> {
  return {
    ...migrationSource,
    async getMigrations(loadExtensions) {
      return (await migrationSource.getMigrations(loadExtensions)).slice(0, -newer);
    },
  };
}

describe.each(testEngines())('migrations started together on %s', (engine) => {
  it('a fresh database: one instance makes the schema, the others wait and start on it', async () => {
    const database = await createTestDatabase(engine);
    const dbs = Array.from({ length: INSTANCES }, () => openDatabase(database.url, { poolMax: 2 }));
    try {
      const results = await Promise.allSettled(dbs.map((db) => migrateLatest(db)));
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(
        Array(INSTANCES).fill('ok'),
      );
      const names = (await dbs[0].knex('knex_migrations').select('name')).map((r) => r.name);
      expect(names.sort()).toEqual(await migrationSource.getMigrations([]));
    } finally {
      await Promise.all(dbs.map((db) => db.knex.destroy()));
      await database.drop();
    }
  }, 120_000);

  it('a lock table left with two rows by instances racing before this release: cut back to one, and migrated', async () => {
    const database = await createTestDatabase(engine);
    const db = openDatabase(database.url, { poolMax: 2 });
    try {
      // What two instances that both found the lock table empty left: knex's lock, an UPDATE that
      // must touch exactly one row, then fails for every instance, and none would ever start.
      await db.knex.schema.createTable('knex_migrations_lock', (t) => {
        t.increments('index').primary();
        t.integer('is_locked');
      });
      await db.knex('knex_migrations_lock').insert([{ is_locked: 0 }, { is_locked: 0 }]);
      await migrateLatest(db);
      const names = (await db.knex('knex_migrations').select('name')).map((r) => r.name);
      expect(names.sort()).toEqual(await migrationSource.getMigrations([]));
      expect(await db.knex('knex_migrations_lock').select('is_locked')).toEqual([{ is_locked: 0 }]);
    } finally {
      await db.knex.destroy();
      await database.drop();
    }
  }, 60_000);

  it("the previous release's schema: its newer migrations run once, whoever starts first", async () => {
    const database = await createTestDatabase(engine);
    const old = openDatabase(database.url, { poolMax: 2 });
    await old.knex.migrate.latest({ migrationSource: earlierRelease(4) });
    await old.knex.destroy();
    const dbs = Array.from({ length: INSTANCES }, () => openDatabase(database.url, { poolMax: 2 }));
    try {
      const results = await Promise.allSettled(dbs.map((db) => migrateLatest(db)));
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(
        Array(INSTANCES).fill('ok'),
      );
      const rows = await dbs[0].knex('knex_migrations').select('name', 'batch');
      expect(rows.map((r) => r.name).sort()).toEqual(await migrationSource.getMigrations([]));
      // The newer four in one batch after the earlier release's: run once, not once per instance.
      expect(new Set(rows.map((r) => r.batch))).toEqual(new Set([1, 2]));
    } finally {
      await Promise.all(dbs.map((db) => db.knex.destroy()));
      await database.drop();
    }
  }, 120_000);
});
