// Postgres's raw events by day (migration 20270102000000): the conversion keeps every row, id and
// index and goes back down; the click writer's COPY lands in a day or in DEFAULT, never fails;
// the service makes the days ahead, moving rows DEFAULT caught; retention drops whole days past
// the 90 and deletes DEFAULT's expired rows. SQLite keeps its tables (retention.test.ts covers
// its path on both engines).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateLatest, openDatabase, type Database } from '../../src/db/knex';
import { migrationSource } from '../../src/db/migrations';
import {
  dayPartitions,
  ensureEventPartitions,
  partitionName,
  partitionedEventTables,
} from '../../src/db/repos/event-partitions';
import { writeClickBatch, type StoredClick } from '../../src/db/repos/click-batches';
import { runRetention } from '../../src/db/repos/retention';
import { type MigratedDatabase, openMigratedDatabase, testEngines, withFreshDatabase } from '../support/databases';

const DAY = 86_400_000;
const MIGRATION = '20270102000000_partitioned_events';
const today = () => Math.floor(Date.now() / DAY);

const click = (at: number, i: number) => ({
  workspace_id: `ws_${i % 3}`,
  link_id: `lnk_${i % 7}`,
  qr_code_id: i % 5 ? null : `qr_${i}`,
  occurred_at: at,
  route: i % 4 ? null : 'rule_1',
  referrer_host: 'news.example',
  country: 'DE',
  city: i % 2 ? 'Berlin' : null,
  device: 'mobile',
  browser: 'Safari',
  os: 'iOS',
});
const view = (at: number, i: number) => ({
  workspace_id: 'ws_1',
  page_id: `pg_${i % 4}`,
  occurred_at: at,
  referrer_host: null,
  country: 'FR',
  city: 'Lyon',
  device: 'desktop',
  browser: 'Firefox',
  os: 'Linux',
});

/** Columns (with types, nullability and defaults), primary key and indexes: what down restores. */
async function shape(db: Database, table: string) {
  const columns = await db.knex.raw(
    `SELECT column_name, data_type, character_maximum_length, is_nullable, column_default
       FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`,
    [table],
  );
  const indexes = await db.knex.raw(
    `SELECT indexname, replace(indexdef, ' ON ONLY ', ' ON ') AS def FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = ? ORDER BY indexname`,
    [table],
  );
  const kind = await db.knex.raw('SELECT relkind FROM pg_class WHERE oid = ?::regclass', [table]);
  const seq = await db.knex.raw('SELECT pg_get_serial_sequence(?, ?) AS seq', [table, 'id']);
  return { columns: columns.rows, indexes: indexes.rows, kind: kind.rows[0].relkind, seq: seq.rows[0].seq };
}

const rows = async (db: Database, table: string) => db.knex(table).orderBy('id').select();
const inDefault = async (db: Database, table: string) =>
  Number((await db.knex.raw(`SELECT COUNT(*) AS n FROM ONLY ${table}_default`)).rows[0].n);

describe.skipIf(!testEngines().includes('postgres'))('raw events partitioned by day on postgres', () => {
  it('the migration converts clicks and page views without losing or changing a row, and down takes them back', async () => {
    await withFreshDatabase('postgres', async (db) => {
      const before = {
        ...migrationSource,
        getMigrations: async (ext: readonly string[]) =>
          (await migrationSource.getMigrations(ext)).filter((m) => m !== MIGRATION),
      };
      await db.knex.migrate.latest({ migrationSource: before });
      const plain = { clicks: await shape(db, 'clicks'), page_views: await shape(db, 'page_views') };
      expect(plain.clicks.kind).toBe('r');
      // Days from 120 ago to 10 ahead, a few events each, and a very old and a far one for DEFAULT.
      const now = Date.now();
      const times = [5, now - 3000 * DAY];
      for (let d = -120; d <= 10; d++) times.push(now + d * DAY, now + d * DAY + 3_600_000);
      times.push(now + 400 * DAY);
      await db.knex.batchInsert(
        'clicks',
        times.map((t, i) => click(t, i)),
        100,
      );
      await db.knex.batchInsert(
        'page_views',
        times.map((t, i) => view(t, i)),
        100,
      );
      const saved = { clicks: await rows(db, 'clicks'), page_views: await rows(db, 'page_views') };

      await migrateLatest(db);
      expect(await partitionedEventTables(db.knex)).toEqual(new Set(['clicks', 'page_views']));
      for (const table of ['clicks', 'page_views'] as const) {
        expect(await rows(db, table)).toEqual(saved[table]);
        // Days from the oldest within the 90 days to 7 ahead; the rest is in DEFAULT.
        const days = (await dayPartitions(db.knex, table)).map((p) => p.from / DAY);
        expect(days[0]).toBe(today() - 90);
        expect(days.at(-1)).toBe(today() + 7);
        expect(days).toEqual(Array.from({ length: days.length }, (_, i) => days[0] + i));
        const outside = saved[table].filter((r) => {
          const day = Math.floor(Number(r.occurred_at) / DAY);
          return day < days[0] || day > today() + 7;
        });
        expect(await inDefault(db, table)).toBe(outside.length);
        expect(outside.length).toBeGreaterThan(2);
        // The key holds the partition key; the other indexes are on the parent.
        const s = await shape(db, table);
        expect(s.kind).toBe('p');
        expect(s.seq).toBe(plain[table].seq);
        expect(s.indexes.map((i: { indexname: string }) => i.indexname)).toEqual(
          plain[table].indexes.map((i: { indexname: string }) => i.indexname),
        );
        expect(s.indexes.find((i: { indexname: string }) => i.indexname === `${table}_pkey`).def).toContain(
          '(id, occurred_at)',
        );
      }
      // Ids go on from the sequence.
      const lastClick = Number(saved.clicks.at(-1).id);
      await db.knex('clicks').insert(click(now, 1));
      expect(Number((await db.knex('clicks').max({ id: 'id' }))[0].id)).toBe(lastClick + 1);

      await db.knex.migrate.down({ migrationSource, name: MIGRATION });
      expect(await partitionedEventTables(db.knex)).toEqual(new Set());
      expect(await shape(db, 'clicks')).toEqual(plain.clicks);
      expect(await shape(db, 'page_views')).toEqual(plain.page_views);
      expect((await rows(db, 'clicks')).slice(0, -1)).toEqual(saved.clicks);
      expect(await rows(db, 'page_views')).toEqual(saved.page_views);
      expect(await db.knex.schema.hasTable(partitionName('clicks', today()))).toBe(false);
      await db.knex('clicks').insert(click(now, 2));
      expect(Number((await db.knex('clicks').max({ id: 'id' }))[0].id)).toBe(lastClick + 2);
      // And up again.
      await migrateLatest(db);
      expect(await rows(db, 'page_views')).toEqual(saved.page_views);
      expect((await partitionedEventTables(db.knex)).has('clicks')).toBe(true);
    });
  });

  describe('on a migrated database', () => {
    let db: MigratedDatabase;
    beforeAll(async () => (db = await openMigratedDatabase('postgres')));
    afterAll(() => db?.close());

    it('has the days ahead after the migration, and the upkeep makes only missing ones', async () => {
      const days = (await dayPartitions(db.knex, 'clicks')).map((p) => p.name);
      for (let d = today(); d <= today() + 7; d++) expect(days).toContain(partitionName('clicks', d));
      expect(await ensureEventPartitions(db.knex)).toEqual({ ran: true, created: 0, moved: 0 });
      // The next day ahead is made when its turn comes.
      expect(await ensureEventPartitions(db.knex, Date.now() + DAY)).toEqual({ ran: true, created: 2, moved: 0 });
    });

    it('makes a day whose rows are in DEFAULT by moving them, losing none', async () => {
      const base = (today() + 20) * DAY;
      await db.knex.batchInsert(
        'clicks',
        Array.from({ length: 50 }, (_, i) => click(base + (i % 3) * DAY + i * 1000, i)),
        50,
      );
      await db.knex('page_views').insert(view(base + 5, 0));
      const saved = await db.knex('clicks').where('occurred_at', '>=', base).orderBy('id');
      expect(await inDefault(db, 'clicks')).toBe(50);
      const r = await ensureEventPartitions(db.knex, base, 2);
      expect(r).toEqual({ ran: true, created: 6, moved: 51 });
      expect(await inDefault(db, 'clicks')).toBe(0);
      expect(await inDefault(db, 'page_views')).toBe(0);
      expect(await db.knex('clicks').where('occurred_at', '>=', base).orderBy('id')).toEqual(saved);
      const day = await db.knex.raw(`SELECT COUNT(*) AS n FROM ${partitionName('clicks', today() + 21)}`);
      expect(Number(day.rows[0].n)).toBe(
        saved.filter((c) => c.occurred_at >= base + DAY && c.occurred_at < base + 2 * DAY).length,
      );
    });

    it("the click writer's COPY puts each click and page view in its day, and one far off in DEFAULT", async () => {
      const stored = (linkId: string, at: number): StoredClick => ({
        ...click(at, 1),
        workspace_id: 'ws_writer',
        link_id: linkId,
        qr_code_id: null,
        route: null,
      });
      const now = Date.now();
      const far = [5, now + 1000 * DAY];
      await writeClickBatch(
        db.knex,
        'postgres',
        [now, ...far].flatMap((t) => [stored('lnk_w', t), stored('pg_w', t)]),
        [],
      );
      expect(
        (await db.knex('clicks').where('link_id', 'lnk_w').orderBy('occurred_at').pluck('occurred_at')).map(Number),
      ).toEqual([5, now, now + 1000 * DAY]);
      expect(await db.knex('page_views').where('page_id', 'pg_w').count({ n: '*' })).toEqual([{ n: 3 }]);
      const today = await db.knex.raw(
        `SELECT COUNT(*) AS n FROM ${partitionName('clicks', Math.floor(now / DAY))} WHERE link_id = 'lnk_w'`,
      );
      expect(Number(today.rows[0].n)).toBe(1);
      const inDefault = await db.knex.raw(`SELECT COUNT(*) AS n FROM ONLY clicks_default WHERE link_id = 'lnk_w'`);
      expect(Number(inDefault.rows[0].n)).toBe(2);
      // Retention's count below is of its own rows.
      await db.knex('clicks').where('link_id', 'lnk_w').delete();
      await db.knex('page_views').where('page_id', 'pg_w').delete();
    });

    it('two processes keeping the partitions at once make each day once, without an error', async () => {
      const others = [openDatabase(db.url), openDatabase(db.url)];
      try {
        const at = (today() + 40) * DAY;
        const results = await Promise.all(others.map((o) => ensureEventPartitions(o.knex, at)));
        expect(results.reduce((n, r) => n + r.created, 0)).toBe(16);
        const names = (await dayPartitions(db.knex, 'clicks')).map((p) => p.name);
        expect(new Set(names).size).toBe(names.length);
        for (let d = today() + 40; d <= today() + 47; d++) expect(names).toContain(partitionName('clicks', d));
        // Again, both at once: nothing left to make.
        const again = await Promise.all(others.map((o) => ensureEventPartitions(o.knex, at)));
        expect(again.reduce((n, r) => n + r.created, 0)).toBe(0);
      } finally {
        await Promise.all(others.map((o) => o.knex.destroy()));
      }
    });

    it('retention drops days past the 90, deletes expired rows in DEFAULT, and keeps every younger row', async () => {
      const now = today() * DAY + 12 * 3_600_000;
      const cutoff = now - 90 * DAY;
      // The days from 95 ago to 89 ago, as a database running since then has them.
      await ensureEventPartitions(db.knex, now - 95 * DAY, 6);
      const ws = 'ws_retention';
      const at = (t: number) => ({ ...click(t, 0), workspace_id: ws });
      await db.knex('clicks').insert([
        at(now - 200 * DAY), // DEFAULT, expired
        at(now - 94 * DAY),
        at(now - 91 * DAY),
        at(cutoff - 1), // the day that holds the cutoff is kept whole until it ends
        at(cutoff + 1),
        at(now - DAY),
        at(now),
        at(now + 500 * DAY), // DEFAULT, young
      ]);
      await db.knex('page_views').insert([view(now - 93 * DAY, 0), view(cutoff + 1, 1), view(now - 300 * DAY, 2)]);
      const dayOf = (t: number) => partitionName('clicks', Math.floor(t / DAY));
      const result = await runRetention(db.knex, now);
      expect(result.clicksDeleted).toBe(3);
      expect(
        (await db.knex('clicks').where('workspace_id', ws).orderBy('occurred_at').pluck('occurred_at')).map(Number),
      ).toEqual([cutoff - 1, cutoff + 1, now - DAY, now, now + 500 * DAY]);
      const names = (await dayPartitions(db.knex, 'clicks')).map((p) => p.name);
      expect(names).not.toContain(dayOf(now - 94 * DAY));
      expect(names).not.toContain(dayOf(now - 91 * DAY));
      expect(names).toContain(dayOf(cutoff + 1));
      expect(names[0]).toBe(dayOf(cutoff));
      expect((await db.knex('page_views').orderBy('occurred_at').pluck('occurred_at')).map(Number)).toContain(
        cutoff + 1,
      );
      expect(Number((await db.knex('page_views').where('occurred_at', '<', cutoff).count({ n: '*' }))[0].n)).toBe(0);
      expect((await dayPartitions(db.knex, 'page_views'))[0].name).toBe(
        partitionName('page_views', Math.floor(cutoff / DAY)),
      );
      expect((await runRetention(db.knex, now)).clicksDeleted).toBe(0);
    });
  });
});
