// The click fold (src/db/repos/click-folds.ts) on every engine: a link's analytics read from the
// fold equal the raw clicks' counts, whatever the fold has reached: closed days, today in steps,
// a click written after its time was folded, a fold that stopped half-way, two folds at once;
// the fold keeps a closed day's counts after its raw clicks go; link_click_totals after a fold
// equal the daily counts; retention drops folds of days past the 90.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeClickBatch } from '../../src/db/repos/click-batches';
import { BLOCK_DAYS, foldCutoff, runClickFold } from '../../src/db/repos/click-folds';
import { BREAKDOWN_DAYS, readLinkAnalytics } from '../../src/db/repos/link-analytics';
import { runRetention } from '../../src/db/repos/retention';
import { createWorkspace } from '../../src/db/repos/workspaces';
import { type MigratedDatabase, openMigratedDatabase, testEngines } from '../support/databases';
import { randomClicks, rawBreakdowns } from '../support/breakdowns';

const DAY = 86_400_000;
/** `count` clicks on `links` of `ws` between `from` and `to`. */
const clicksBetween = (seed: number, ws: string, links: string[], count: number, from: number, to: number) =>
  randomClicks(seed, [{ ws, links }], count, from, to);

describe.each(testEngines())('click fold on %s', (engine) => {
  let db: MigratedDatabase;
  beforeAll(async () => (db = await openMigratedDatabase(engine)));
  afterAll(() => db?.close());

  /** A fresh workspace with its own links; the fold state is shared, so each test folds on its own days. */
  async function workspace(name: string, links: number) {
    const ws = await createWorkspace(db.knex, name, 'business');
    return { ws, links: Array.from({ length: links }, (_, i) => `lnk_${name}_${i}`) };
  }
  const expectRaw = async (ws: string, links: string[], today: number) => {
    for (const link of links) {
      const a = await readLinkAnalytics(db.knex, ws, link, today - 9, today, today);
      expect(a.breakdowns, link).toEqual(await rawBreakdowns(db.knex, ws, link, today - BREAKDOWN_DAYS + 1));
    }
  };

  it('reads closed days and today from the fold, equal to the raw clicks, through steps, late clicks and the day closing', async () => {
    const { knex } = db;
    const { ws, links } = await workspace('fold_a', 3);
    // "Now" is noon of a day in this test's own range of days.
    const now = (Math.floor(Date.now() / DAY) - 200) * DAY + 12 * 3_600_000;
    const today = Math.floor(now / DAY);
    await writeClickBatch(knex, engine, clicksBetween(1, ws, links, 1_200, now - 20 * DAY, now - 10 * 60_000), []);
    const first = await runClickFold(knex, now);
    expect(first.ran).toBe(true);
    expect(first.daysClosed).toBeGreaterThanOrEqual(20);
    expect(first.steps).toBe(1);
    expect(
      Number((await knex('link_day_breakdowns').where('workspace_id', ws).count({ n: '*' }))[0].n),
    ).toBeGreaterThan(0);
    expect(
      Number((await knex('link_breakdown_pieces').where({ workspace_id: ws, day: today }).count({ n: '*' }))[0].n),
    ).toBeGreaterThan(0);
    await expectRaw(ws, links, today);
    // Blocks of 8 closed days: the 20 days hold at least one, read instead of its days.
    expect(first.blocks).toBeGreaterThanOrEqual(1);
    const block = Number((await knex('link_block_breakdowns').where('workspace_id', ws).min({ b: 'block' }))[0].b);
    await knex('link_day_breakdowns')
      .where('workspace_id', ws)
      .whereBetween('day', [block * BLOCK_DAYS, block * BLOCK_DAYS + BLOCK_DAYS - 1])
      .update({ dims: '{}' });
    await expectRaw(ws, links, today);
    // A click written late into a day of that block: the block is read by its days, that day raw.
    await writeClickBatch(
      knex,
      engine,
      clicksBetween(
        9,
        ws,
        links.slice(1, 2),
        3,
        (block * BLOCK_DAYS + 2) * DAY,
        (block * BLOCK_DAYS + 2) * DAY + 1_000,
      ),
      [],
    );
    await knex('link_day_breakdowns')
      .where('workspace_id', ws)
      .whereBetween('day', [block * BLOCK_DAYS, block * BLOCK_DAYS + BLOCK_DAYS - 1])
      .delete();
    await expectRaw(ws, links, today);

    // More of today, after the cutoff and before it (written late), then another step.
    await writeClickBatch(knex, engine, clicksBetween(2, ws, links, 300, now - 10 * 60_000, now), []);
    await expectRaw(ws, links, today);
    const later = now + 30 * 60_000;
    await writeClickBatch(knex, engine, clicksBetween(3, ws, links, 200, now, later), []);
    expect((await runClickFold(knex, later)).steps).toBe(1);
    await expectRaw(ws, links, today);
    // A click written after its closed day was folded: that day is read from the raw clicks.
    await writeClickBatch(
      knex,
      engine,
      clicksBetween(4, ws, links.slice(0, 1), 5, now - 3 * DAY, now - 3 * DAY + 1_000),
      [],
    );
    await expectRaw(ws, links, today);
    // Next day: today closes whole and its pieces go.
    const tomorrow = now + DAY;
    const closing = await runClickFold(knex, tomorrow);
    expect(closing.daysClosed).toBe(1);
    expect(
      Number((await knex('link_breakdown_pieces').where({ workspace_id: ws, day: today }).count({ n: '*' }))[0].n),
    ).toBe(0);
    await expectRaw(ws, links, today + 1);
    // Nothing new: the fold has nothing to do.
    expect(await runClickFold(knex, tomorrow)).toMatchObject({ ran: true, daysClosed: 0, steps: 0 });
  });

  it("keeps a closed day's counts after its raw clicks are gone (the fold is read, not the raw clicks)", async () => {
    const { knex } = db;
    const { ws, links } = await workspace('fold_b', 1);
    const now = (Math.floor(Date.now() / DAY) - 400) * DAY + 6 * 3_600_000;
    const today = Math.floor(now / DAY);
    const before = await rawBreakdowns(knex, ws, links[0], today - BREAKDOWN_DAYS + 1);
    await writeClickBatch(knex, engine, clicksBetween(5, ws, links, 80, now - 5 * DAY, now - 4 * DAY), []);
    await runClickFold(knex, now);
    const withRaw = await rawBreakdowns(knex, ws, links[0], today - BREAKDOWN_DAYS + 1);
    expect(withRaw).not.toEqual(before);
    await knex('clicks').where('workspace_id', ws).delete();
    expect((await readLinkAnalytics(knex, ws, links[0], today - 9, today, today)).breakdowns).toEqual(withRaw);
  });

  it('ignores what a fold that stopped half-way wrote, and the next run redoes it; two folds at once fold once', async () => {
    const { knex } = db;
    const { ws, links } = await workspace('fold_c', 2);
    const now = (Math.floor(Date.now() / DAY) - 600) * DAY + 18 * 3_600_000;
    const today = Math.floor(now / DAY);
    await writeClickBatch(knex, engine, clicksBetween(6, ws, links, 400, now - 3 * DAY, now - 5 * 60_000), []);
    // Rows of a step and of a close whose click_folds row was never written.
    const cutoff = foldCutoff(now);
    await knex('link_breakdown_pieces').insert({
      day: today,
      upto: cutoff,
      workspace_id: ws,
      link_id: links[0],
      clicks: 999,
      dims: '{"country":{"XX":999}}',
    });
    await knex('link_day_breakdowns').insert({
      workspace_id: ws,
      link_id: links[0],
      day: today - 1,
      clicks: 999,
      dims: '{"country":{"XX":999}}',
    });
    await expectRaw(ws, links, today);
    const [a, b] = await Promise.all([runClickFold(knex, now), runClickFold(knex, now)]);
    expect([a.ran, b.ran].filter(Boolean).length).toBeGreaterThanOrEqual(1);
    await expectRaw(ws, links, today);
    // The fold's rows were read: its counts per link and day equal the daily counts.
    const folded = await knex('link_day_breakdowns')
      .where('workspace_id', ws)
      .groupBy('link_id')
      .select('link_id')
      .sum({ n: 'clicks' });
    const daily = await knex('link_daily_clicks')
      .where('workspace_id', ws)
      .where('day', '<', today)
      .groupBy('link_id')
      .select('link_id')
      .sum({ n: 'clicks' });
    const sums = (rows: any[]) => Object.fromEntries(rows.map((r) => [r.link_id, Number(r.n)]));
    expect(sums(folded)).toEqual(sums(daily));
  });

  it("after a fold each link's total equals its daily counts; retention drops folds past the 90 days", async () => {
    const { knex } = db;
    const { ws, links } = await workspace('fold_d', 4);
    const now = (Math.floor(Date.now() / DAY) - 800) * DAY + 9 * 3_600_000;
    const today = Math.floor(now / DAY);
    await writeClickBatch(
      knex,
      engine,
      clicksBetween(7, ws, links.slice(0, 3), 500, now - 40 * DAY, now - 5 * 60_000),
      [],
    );
    await runClickFold(knex, now);
    const totals = Object.fromEntries(
      (await knex('link_click_totals').where('workspace_id', ws).select('link_id', 'clicks')).map((r: any) => [
        r.link_id,
        Number(r.clicks),
      ]),
    );
    const daily = Object.fromEntries(
      (
        await knex('link_daily_clicks')
          .where('workspace_id', ws)
          .groupBy('link_id')
          .select('link_id')
          .sum({ n: 'clicks' })
      ).map((r: any) => [r.link_id, Number(r.n)]),
    );
    expect(totals).toEqual(daily);
    expect(totals[links[3]]).toBeUndefined();
    // 60 days on, the fold's first 10 days are past the window.
    const later = now + 60 * DAY;
    await runRetention(knex, later);
    const firstDay = Math.floor(later / DAY) - BREAKDOWN_DAYS + 1;
    expect(
      Number(
        (await knex('link_day_breakdowns').where('workspace_id', ws).where('day', '<', firstDay).count({ n: '*' }))[0]
          .n,
      ),
    ).toBe(0);
    expect(
      Number(
        (await knex('link_day_breakdowns').where('workspace_id', ws).where('day', '>=', firstDay).count({ n: '*' }))[0]
          .n,
      ),
    ).toBeGreaterThan(0);
    expect(
      Number(
        (
          await knex('click_folds')
            .where('day', '<', firstDay)
            .where('day', '>', today - 100)
            .count({ n: '*' })
        )[0].n,
      ),
    ).toBe(0);
  });
});
