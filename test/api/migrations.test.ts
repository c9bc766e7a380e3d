// Migrations go up and down on every engine.
import { describe, expect, it } from 'vitest';
import { migrateDown, migrateLatest, openDatabase } from '../../src/db/knex';
import { createTestDatabase, testEngines } from '../support/databases';

describe.each(testEngines())('migrations on %s', (engine) => {
  it('migrate up creates every table, down removes them, up again works', async () => {
    const database = await createTestDatabase(engine);
    const db = openDatabase(database.url);
    try {
      await migrateLatest(db);
      for (const t of ['workspaces', 'users', 'memberships', 'api_keys', 'tags', 'domains', 'campaigns', 'assets', 'links', 'link_tags', 'qr_codes', 'rate_limits']) {
        expect(await db.knex.schema.hasTable(t), t).toBe(true);
      }
      await migrateDown(db);
      expect(await db.knex.schema.hasTable('links')).toBe(false);
      expect(await db.knex.schema.hasTable('workspaces')).toBe(false);
      await migrateLatest(db);
      expect(await db.knex.schema.hasTable('links')).toBe(true);
    } finally {
      await db.knex.destroy();
      await database.drop();
    }
  });
});
