// Migrations go up and down on every engine.
import { describe, expect, it } from 'vitest';
import { migrateDown, migrateLatest, openDatabase } from '../../src/db/knex';
import { migrationSource } from '../../src/db/migrations';
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

  it('daily clicks keep their counts when rekeyed by workspace (20261122080000) and back', async () => {
    const database = await createTestDatabase(engine);
    const db = openDatabase(database.url);
    const rows = () => db.knex('link_daily_clicks').orderBy(['link_id', 'day']).select('workspace_id', 'link_id', 'day', 'clicks', 'scans');
    const plain = (rs: any[]) => rs.map((r) => ({ ...r, day: Number(r.day), clicks: Number(r.clicks), scans: Number(r.scans) }));
    const seeded = [
      { workspace_id: 'ws_a', link_id: 'lnk_1', day: 20_000, clicks: 5, scans: 1 },
      { workspace_id: 'ws_a', link_id: 'lnk_1', day: 20_001, clicks: 7, scans: 0 },
      { workspace_id: 'ws_b', link_id: 'lnk_2', day: 20_000, clicks: 3, scans: 3 },
    ];
    try {
      await migrateLatest(db);
      await db.knex.migrate.down({ migrationSource });
      await db.knex('link_daily_clicks').insert(seeded);
      await db.knex.migrate.up({ migrationSource });
      expect(plain(await rows())).toEqual(seeded);
      // One B-tree per count: the key is the only index (WITHOUT ROWID on SQLite).
      if (engine === 'sqlite') {
        expect((await db.knex.raw(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'link_daily_clicks'`))[0].sql).toMatch(/WITHOUT ROWID/);
        expect(await db.knex.raw(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'link_daily_clicks'`)).toEqual([]);
      } else {
        const idx = await db.knex.raw(`SELECT indexdef FROM pg_indexes WHERE tablename = 'link_daily_clicks'`);
        expect(idx.rows.map((r: any) => r.indexdef)).toEqual([expect.stringMatching(/\(workspace_id, link_id, day\)/)]);
      }
      // The flush's upsert names the new key; a second row for the same key is refused.
      await db.knex.raw(`INSERT INTO link_daily_clicks (link_id, workspace_id, day, clicks, scans) VALUES ('lnk_1', 'ws_a', 20000, 2, 0)
                         ON CONFLICT (workspace_id, link_id, day) DO UPDATE SET clicks = link_daily_clicks.clicks + excluded.clicks`);
      expect(plain(await rows())[0].clicks).toBe(7);
      await expect(db.knex('link_daily_clicks').insert(seeded[1])).rejects.toThrow();
      await db.knex.migrate.down({ migrationSource });
      expect(plain(await rows())).toEqual([{ ...seeded[0], clicks: 7 }, seeded[1], seeded[2]]);
      await expect(db.knex('link_daily_clicks').insert(seeded[2])).rejects.toThrow();
      await migrateLatest(db);
      expect(plain(await rows())).toHaveLength(3);
    } finally {
      await db.knex.destroy();
      await database.drop();
    }
  });
});
