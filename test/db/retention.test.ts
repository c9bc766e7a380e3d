// Raw click events are kept 90 days; daily counts per link stay beyond that; the alerts' click
// windows 8 days.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertConversion, type ConversionRow } from '../../src/db/repos/conversions';
import { runRetention } from '../../src/db/repos/retention';
import { type MigratedDatabase, openMigratedDatabase, testEngines } from '../support/databases';

const DAY = 86_400_000;

/** A raw click or page view of workspace ws_1, `ageDays` old at `now`. */
const rawEvent = (now: number, ageDays: number, fields: Record<string, string>) => ({
  workspace_id: 'ws_1',
  ...fields,
  occurred_at: now - ageDays * DAY,
});

describe.each(testEngines())('retention on %s', (engine) => {
  let db: MigratedDatabase;
  beforeAll(async () => (db = await openMigratedDatabase(engine)));
  afterAll(() => db?.close());

  it('deletes raw clicks older than 90 days and keeps daily counts', async () => {
    const now = Date.UTC(2026, 10, 22, 12);
    const click = (ageDays: number) => rawEvent(now, ageDays, { link_id: 'lnk_1', device: 'desktop' });
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

  it("deletes bio pages' raw views older than 90 days, in batches, and keeps their daily counts", async () => {
    const now = Date.UTC(2026, 10, 22, 12);
    const view = (ageDays: number) => rawEvent(now, ageDays, { page_id: 'pg_1', device: 'mobile' });
    // More than one batch of expired views.
    const old = Array.from({ length: 5_200 }, (_, i) => view(91 + (i % 50)));
    for (let i = 0; i < old.length; i += 500) await db.knex('page_views').insert(old.slice(i, i + 500));
    await db.knex('page_views').insert([view(0), view(89.9)]);
    await db
      .knex('page_daily_views')
      .insert({ page_id: 'pg_1', workspace_id: 'ws_1', day: Math.floor((now - 120 * DAY) / DAY), views: 3 });
    await runRetention(db.knex, now);
    expect((await db.knex('page_views').orderBy('occurred_at').pluck('occurred_at')).map(Number)).toEqual([
      now - 89.9 * DAY,
      now,
    ]);
    expect(await db.knex('page_daily_views').count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  it('finds expired clicks in id order across batches, past newer clicks among them', async () => {
    const now = Date.UTC(2026, 10, 22, 12);
    // Two retention batches (5,000 clicks each) and more of expired clicks, with clicks younger
    // than 90 days among them, as clock skew between processes or a late flush leaves them.
    const rows = Array.from({ length: 12_001 }, (_, i) => ({
      workspace_id: 'ws_2',
      link_id: 'lnk_order',
      occurred_at: now - (i % 1000 === 500 ? 10 : 120) * DAY + i,
      device: 'desktop',
    }));
    await db.knex.batchInsert('clicks', rows, 400);
    const result = await runRetention(db.knex, now);
    expect(result.clicksDeleted).toBe(12_001 - 12);
    const left = await db.knex('clicks').where('link_id', 'lnk_order').pluck('occurred_at');
    expect(left.map(Number).every((t) => t >= now - 90 * DAY)).toBe(true);
    expect(left).toHaveLength(12);
  });

  it('deletes a click written after newer ones no later than the clicks written before it', async () => {
    const now = Date.UTC(2026, 10, 22, 12);
    // A full batch of live clicks, then one click that happened 100 days ago but was written
    // after them (a flush held back by a long outage): the walk stops at the live batch.
    const live = Array.from({ length: 5_000 }, (_, i) => ({
      workspace_id: 'ws_3',
      link_id: 'lnk_live',
      occurred_at: now - DAY + i,
      device: 'desktop',
    }));
    await db.knex.batchInsert('clicks', live, 400);
    await db
      .knex('clicks')
      .insert({ workspace_id: 'ws_3', link_id: 'lnk_late', occurred_at: now - 100 * DAY, device: 'desktop' });
    const count = async (link: string) =>
      Number((await db.knex('clicks').where('link_id', link).count({ n: '*' }))[0].n);
    await runRetention(db.knex, now);
    expect(await count('lnk_live')).toBe(5_000);
    // Once the clicks written before it pass their 90 days, the late click goes with them.
    await runRetention(db.knex, now + 90 * DAY);
    expect(await count('lnk_live')).toBe(0);
    expect(await count('lnk_late')).toBe(0);
  });

  it("deletes the traffic alerts' click windows once older than their 7-day baseline and a day", async () => {
    const now = Date.UTC(2026, 10, 22, 12);
    const window = (ageDays: number) => ({
      window_start: now - ageDays * DAY,
      link_id: 'lnk_1',
      country: 'DE',
      workspace_id: 'ws_1',
      clicks: 3,
    });
    await db.knex('link_click_windows').insert([window(0), window(7.9), window(8.1), window(30)]);
    await runRetention(db.knex, now);
    const left = await db.knex('link_click_windows').orderBy('window_start').pluck('window_start');
    expect(left.map(Number)).toEqual([now - 7.9 * DAY, now]);
  });

  it('deletes conversions older than 400 days with their daily aggregates, and day-old idempotency keys', async () => {
    const now = Date.UTC(2026, 10, 22, 12);
    const conversion = (id: string, ageDays: number) => ({
      id,
      workspace_id: 'ws_1',
      event_type: 'lead',
      occurred_at: now - ageDays * DAY,
      created_at: now,
    });
    await db
      .knex('conversions')
      .insert([conversion('c1', 1), conversion('c2', 399), conversion('c3', 401), conversion('c4', 700)]);
    const aggregate = (ageDays: number) => ({
      workspace_id: 'ws_1',
      day: Math.floor((now - ageDays * DAY) / DAY),
      event_type: 'lead',
      custom_name: '',
      currency: '',
      attributed: 0,
      conversions: 1,
      value_minor: 0,
    });
    await db.knex('conversion_daily_type').insert([aggregate(1), aggregate(399), aggregate(402), aggregate(700)]);
    await db.knex('idempotency_keys').insert([
      { workspace_id: 'ws_1', key: 'old', request_hash: 'x', created_at: now - 25 * 3_600_000 },
      { workspace_id: 'ws_1', key: 'new', request_hash: 'x', created_at: now - 3_600_000 },
    ]);
    const result = await runRetention(db.knex, now);
    expect(result.conversionsDeleted).toBe(2);
    expect(await db.knex('conversions').orderBy('id').pluck('id')).toEqual(['c1', 'c2']);
    expect(await db.knex('conversion_daily_type').count({ n: '*' })).toEqual([{ n: 2 }]);
    expect(await db.knex('idempotency_keys').pluck('key')).toEqual(['new']);
  });

  it("gives the value of deleted conversions back to the workspace's kept total, so it may record again", async () => {
    const now = Date.UTC(2026, 10, 22, 12);
    const conversion = (id: string, ageDays: number, amount: number): ConversionRow => ({
      id,
      workspace_id: 'ws_value',
      event_type: 'purchase',
      custom_name: null,
      link_id: null,
      campaign_id: null,
      qr_code_id: null,
      amount_minor: amount,
      currency: 'EUR',
      metadata: null,
      occurred_at: now - ageDays * DAY,
      created_at: now,
    });
    const record = (row: ConversionRow) => db.knex.transaction((trx) => insertConversion(trx, row));
    await record(conversion('cnv_old', 401, Number.MAX_SAFE_INTEGER - 10));
    await record(conversion('cnv_new', 1, 10));
    // The kept total is 2^53 - 1: nothing more in EUR.
    await expect(record(conversion('cnv_refused', 0, 1))).rejects.toMatchObject({
      code: 'invalid',
      details: { field: 'value.amountMinor' },
    });
    expect(await db.knex('conversions').where({ id: 'cnv_refused' }).first()).toBeUndefined();
    expect((await runRetention(db.knex, now)).conversionsDeleted).toBe(1);
    const total = await db.knex('conversion_value_totals').where({ workspace_id: 'ws_value', currency: 'EUR' }).first();
    expect(Number(total.value_minor)).toBe(10);
    await record(conversion('cnv_again', 0, 5));
  });
});
