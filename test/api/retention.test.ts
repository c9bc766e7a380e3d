// Raw click events are kept 90 days; daily counts per link stay beyond that.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateLatest, openDatabase, type Database } from '../../src/db/knex';
import { runRetention } from '../../src/jobs/retention';
import { createTestDatabase, testEngines, type TestDatabase } from '../support/databases';

const DAY = 86_400_000;

describe.each(testEngines())('retention on %s', (engine) => {
  let database: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    database = await createTestDatabase(engine);
    db = openDatabase(database.url);
    await migrateLatest(db);
  });
  afterAll(async () => {
    await db?.knex.destroy();
    await database?.drop();
  });

  it('deletes raw clicks older than 90 days and keeps daily counts', async () => {
    const now = Date.UTC(2026, 10, 22, 12);
    const click = (ageDays: number) => ({ workspace_id: 'ws_1', link_id: 'lnk_1', occurred_at: now - ageDays * DAY, device: 'desktop' });
    await db.knex('clicks').insert([click(0), click(89.9), click(90.1), click(200)]);
    await db.knex('link_daily_clicks').insert([
      { link_id: 'lnk_1', workspace_id: 'ws_1', day: Math.floor((now - 200 * DAY) / DAY), clicks: 1 },
      { link_id: 'lnk_1', workspace_id: 'ws_1', day: Math.floor(now / DAY), clicks: 1 },
    ]);
    const result = await runRetention(db.knex, now);
    expect(result.clicksDeleted).toBe(2);
    const left = await db.knex('clicks').orderBy('occurred_at').pluck('occurred_at');
    expect(left.map(Number)).toEqual([now - 89.9 * DAY, now]);
    expect(await db.knex('link_daily_clicks').count({ n: '*' })).toEqual([{ n: 2 }]);
    expect((await runRetention(db.knex, now)).clicksDeleted).toBe(0);
  });
});
