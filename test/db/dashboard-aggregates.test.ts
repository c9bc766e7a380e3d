// The dashboard's reads over what the click writer wrote (migration 20261125000000), on every
// engine: a link's analytics (readLinkAnalytics) against counts of the raw clicks over several
// flushes of mixed traffic (links, QR scans, days, unknown values) and after retention; the click
// counts the list sorts by (the Link's clicks, kept by retention); the migration over links and
// daily counts written before it, its down and up again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { migrationSource } from '../../src/db/migrations';
import { writeClickBatch } from '../../src/db/repos/click-batches';
import { BREAKDOWN_DAYS, readLinkAnalytics } from '../../src/db/repos/link-analytics';
import { searchLinks } from '../../src/db/repos/link-search';
import { runRetention } from '../../src/db/repos/retention';
import { addMember, createWorkspace } from '../../src/db/repos/workspaces';
import { type MigratedDatabase, openMigratedDatabase, testEngines } from '../support/databases';
import { randomClicks, rawBreakdowns } from '../support/breakdowns';
import { linkRow } from '../support/stored-rows';

const DAY = 86_400_000;
const MIGRATION = '20261125000000_dashboard_aggregates';
/** Clicks of `links` over the `days` days before `now`. */
const traffic = (
  seed: number,
  workspaces: Array<{ ws: string; links: string[] }>,
  count: number,
  now: number,
  days: number,
) => randomClicks(seed, workspaces, count, now - days * DAY, now);

/** Each link's clicks for good: the sums of its daily counts. */
async function dailySums(knex: Knex) {
  return (
    await knex('link_daily_clicks')
      .groupBy('workspace_id', 'link_id')
      .select('workspace_id', 'link_id')
      .sum({ clicks: 'clicks' })
  )
    .map((t: any) => `${t.workspace_id}|${t.link_id}=${Number(t.clicks)}`)
    .sort();
}

describe.each(testEngines())('dashboard aggregates on %s', (engine) => {
  let db: MigratedDatabase;
  beforeAll(async () => (db = await openMigratedDatabase(engine)));
  afterAll(() => db?.close());

  it("a link's analytics equal the raw clicks over many flushes", async () => {
    const { knex } = db;
    const now = Date.now();
    const shape = [
      { ws: 'ws_agg_1', links: ['lnk_a1', 'lnk_a2', 'lnk_a3'] },
      { ws: 'ws_agg_2', links: ['lnk_b1', 'lnk_b2'] },
    ];
    // Flushes of different sizes over 10 days; later flushes add to the rows earlier ones made.
    for (const [i, size] of [1, 7, 300, 2_500, 40].entries())
      await writeClickBatch(knex, engine, traffic(100 + i, shape, size, now, 10), []);
    const today = Math.floor(now / DAY);
    for (const { ws, links } of shape) {
      for (const link of links) {
        const a = await readLinkAnalytics(knex, ws, link, today - 9, today, today);
        expect(a.breakdowns, link).toEqual(await rawBreakdowns(knex, ws, link, today - BREAKDOWN_DAYS + 1));
        const raw = (await knex('clicks')
          .where({ workspace_id: ws, link_id: link })
          .select('occurred_at', 'qr_code_id')) as any[];
        for (const [day, v] of a.days) {
          const ofDay = raw.filter((c) => Math.floor(Number(c.occurred_at) / DAY) === day);
          expect(v, `${link} day ${day}`).toEqual({
            clicks: ofDay.filter((c) => !c.qr_code_id).length,
            scans: ofDay.filter((c) => c.qr_code_id).length,
          });
        }
      }
    }
  });

  it("retention keeps each link's daily counts and the analytics of the days it keeps equal to the raw clicks", async () => {
    const { knex } = db;
    const now = Date.UTC(2026, 10, 22, 12);
    const shape = [{ ws: 'ws_ret', links: ['lnk_r1', 'lnk_r2', 'lnk_r3'] }];
    await writeClickBatch(knex, engine, traffic(7, shape, 1_500, now, 130), []);
    // A link with only old clicks and one with only recent ones.
    await writeClickBatch(
      knex,
      engine,
      traffic(8, [{ ws: 'ws_ret', links: ['lnk_old'] }], 50, now - 100 * DAY, 20),
      [],
    );
    await writeClickBatch(knex, engine, traffic(9, [{ ws: 'ws_ret', links: ['lnk_new'] }], 50, now, 5), []);
    const before = await dailySums(knex);
    const firstDay = Math.floor(now / DAY) - BREAKDOWN_DAYS + 1;

    const result = await runRetention(knex, now);
    expect(result.clicksDeleted).toBeGreaterThan(0);
    // Daily counts are the Link's clicks for good.
    expect(await dailySums(knex)).toEqual(before);
    const today = Math.floor(now / DAY);
    for (const link of ['lnk_r1', 'lnk_r2', 'lnk_r3', 'lnk_old', 'lnk_new']) {
      expect((await readLinkAnalytics(knex, 'ws_ret', link, today - 29, today, today)).breakdowns, link).toEqual(
        await rawBreakdowns(knex, 'ws_ret', link, firstDay),
      );
    }
    expect((await readLinkAnalytics(knex, 'ws_ret', 'lnk_old', today - 29, today, today)).breakdowns.country).toEqual(
      [],
    );
  });
});

describe.each(testEngines())('migration 20261125000000 on %s', (engine) => {
  it('builds the search index over what was written before it; the list counts every daily count; down removes the index; up again works', async () => {
    const db = await openMigratedDatabase(engine);
    try {
      const { knex } = db;
      await knex.migrate.down({ migrationSource, name: MIGRATION });
      const ws = await createWorkspace(knex, 'Before', 'business');
      const userId = await addMember(knex, ws, 'before@before.test', 'OWNER');
      const now = Date.now();
      const link = (id: string, slug: string, title: string | null) =>
        linkRow({
          id,
          workspace_id: ws,
          created_by: userId,
          slug,
          original_url: `https://example.com/${slug}`,
          title,
          created_at: now,
          updated_at: now,
        });
      await knex('links').insert([
        link('lnk_m1', 'first', 'Ünïcödé title'),
        link('lnk_m2', 'second', null),
        link('lnk_m3', 'third', 'Plain'),
      ]);
      // Clicks as the writer wrote them before the migration: raw events and daily counts.
      const clicks = traffic(42, [{ ws, links: ['lnk_m1', 'lnk_m2', 'lnk_m3'] }], 700, now, 30);
      for (let i = 0; i < clicks.length; i += 100) await knex('clicks').insert(clicks.slice(i, i + 100));
      const daily = new Map<
        string,
        { link_id: string; workspace_id: string; day: number; clicks: number; scans: number }
      >();
      for (const c of clicks) {
        const day = Math.floor(c.occurred_at / DAY);
        const d = daily.get(`${c.link_id}|${day}`) ?? {
          link_id: c.link_id,
          workspace_id: ws,
          day,
          clicks: 0,
          scans: 0,
        };
        d.clicks++;
        if (c.qr_code_id) d.scans++;
        daily.set(`${c.link_id}|${day}`, d);
      }
      // And daily counts older than any raw click (retention took those), which the totals include.
      daily.set('lnk_m1|old', {
        link_id: 'lnk_m1',
        workspace_id: ws,
        day: Math.floor(now / DAY) - 300,
        clicks: 9,
        scans: 2,
      });
      await knex('link_daily_clicks').insert([...daily.values()]);

      await knex.migrate.up({ migrationSource, name: MIGRATION });
      // The list's clicks of a link are all its daily counts, older ones included.
      const listedClicks = async () =>
        (await searchLinks(knex, ws, { sort: 'clicks', order: 'desc', page: 1, limit: 10 })).clicks.get('lnk_m1');
      expect(await listedClicks()).toBe(clicks.filter((c) => c.link_id === 'lnk_m1').length + 9);
      const search = (q: string) =>
        searchLinks(knex, ws, { q, sort: 'created', order: 'desc', page: 1, limit: 10 }).then((p) =>
          p.rows.map((r) => r.slug),
        );
      expect(await search('ÜNÏCÖ')).toEqual(['first']);
      expect(await search('econ')).toEqual(['second']);
      // What the writer adds counts at once.
      await writeClickBatch(knex, engine, clicks.slice(0, 50), []);
      expect(await listedClicks()).toBe(
        clicks.filter((c) => c.link_id === 'lnk_m1').length +
          clicks.slice(0, 50).filter((c) => c.link_id === 'lnk_m1').length +
          9,
      );

      await knex.migrate.down({ migrationSource, name: MIGRATION });
      if (engine === 'sqlite') await expect(knex('links_search').count({ n: '*' })).rejects.toThrow();
      // No trigger left behind: links are written as before.
      await knex('links').insert(link('lnk_m4', 'fourth', 'After down'));
      await knex('links').where('id', 'lnk_m1').update({ title: 'Changed' });
      await knex.migrate.up({ migrationSource, name: MIGRATION });
      expect(await search('after d')).toEqual(['fourth']);
      expect(await search('changed')).toEqual(['first']);
    } finally {
      await db.close();
    }
  });
});
