// The raw-event store's contract (src/db/repos/raw-events.ts): what it is given by append comes
// back from its counts exactly, selected by workspace, time range, link and QR code and grouped
// by any of its columns and time buckets. The service's own database passes it on both engines;
// a columnar store that would take the raw clicks over must pass the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_CLICK_DIMENSIONS, SQL_RAW_EVENTS, type RawClickQuery } from '../../src/db/repos/raw-events';
import type { StoredClick } from '../../src/db/repos/click-batches';
import { type MigratedDatabase, openMigratedDatabase, testEngines } from '../support/databases';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 20);

/** 600 clicks of two workspaces over 30 hours, every column varied, some values missing. */
function clicks(): StoredClick[] {
  const out: StoredClick[] = [];
  for (let i = 0; i < 600; i++) {
    out.push({
      workspace_id: i % 5 === 0 ? 'ws_other' : 'ws_raw',
      link_id: `lnk_${i % 7}`,
      qr_code_id: i % 4 === 0 ? `qr_${i % 3}` : null,
      route: i % 6 === 0 ? null : `rule_${i % 2}`,
      occurred_at: T0 + Math.floor((i * 30 * HOUR) / 600),
      referrer_host: i % 3 === 0 ? null : 'news.example',
      country: ['DE', 'FR', null][i % 3],
      city: i % 2 ? 'DE:Berlin' : null,
      device: ['desktop', 'mobile'][i % 2],
      browser: ['Chrome', 'Safari', 'Firefox'][i % 3],
      os: ['Windows', 'iOS', 'Android', 'macOS'][i % 4],
    });
  }
  return out;
}

/** What a count must answer, computed from the clicks themselves. */
function expected(all: StoredClick[], q: RawClickQuery) {
  const counts = new Map<string, { key: Array<string | null>; bucket?: number; clicks: number }>();
  for (const c of all) {
    if (c.workspace_id !== q.workspaceId || c.occurred_at < q.from || c.occurred_at >= q.to) continue;
    if (q.linkId !== undefined && c.link_id !== q.linkId) continue;
    if (q.qrCodeId !== undefined ? c.qr_code_id !== q.qrCodeId : q.scans && c.qr_code_id === null) continue;
    const key = q.by.map((d) => c[d]);
    const bucket = q.bucketMs ? Math.floor(c.occurred_at / q.bucketMs) * q.bucketMs : undefined;
    const k = JSON.stringify([key, bucket]);
    const row = counts.get(k) ?? { key, ...(bucket !== undefined ? { bucket } : {}), clicks: 0 };
    row.clicks++;
    counts.set(k, row);
  }
  return sorted([...counts.values()]);
}
const sorted = <T>(rows: T[]) => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

describe.each(testEngines())('raw-event store (the service database) on %s', (engine) => {
  let db: MigratedDatabase;
  const all = clicks();

  beforeAll(async () => {
    db = await openMigratedDatabase(engine);
    // Two flushes, as the click writer appends them.
    await db.knex.transaction((trx) => SQL_RAW_EVENTS.appendClicks(trx, engine, all.slice(0, 250)));
    await db.knex.transaction((trx) => SQL_RAW_EVENTS.appendClicks(trx, engine, all.slice(250)));
  });
  afterAll(() => db.close());

  it('stores every column of every click as given', async () => {
    const rows = await db
      .knex('clicks')
      .select(
        'workspace_id',
        'link_id',
        'qr_code_id',
        'route',
        'occurred_at',
        'referrer_host',
        'country',
        'city',
        'device',
        'browser',
        'os',
      );
    expect(sorted(rows.map((r) => ({ ...r, occurred_at: Number(r.occurred_at) })))).toEqual(sorted(all));
  });

  const cases: Array<[string, Omit<RawClickQuery, 'workspaceId'>]> = [
    ['the total of a time range (its end excluded)', { from: T0 + HOUR, to: T0 + 20 * HOUR, by: [] }],
    ['per link', { from: T0, to: T0 + 30 * HOUR, by: ['link_id'] }],
    ['one link per route', { from: T0, to: T0 + 30 * HOUR, linkId: 'lnk_3', by: ['route'] }],
    ['scans per QR code', { from: T0, to: T0 + 30 * HOUR, scans: true, by: ['qr_code_id'] }],
    ['one QR code per country', { from: T0, to: T0 + 30 * HOUR, qrCodeId: 'qr_1', by: ['country'] }],
    [
      'per link and 5-minute window and country',
      { from: T0, to: T0 + 6 * HOUR, by: ['link_id', 'country'], bucketMs: 300_000 },
    ],
    ['per hour alone', { from: T0, to: T0 + 30 * HOUR, by: [], bucketMs: HOUR }],
    ['by every column at once', { from: T0, to: T0 + 30 * HOUR, by: RAW_CLICK_DIMENSIONS }],
  ];
  it.each(cases)('counts %s, in one workspace only', async (_, q) => {
    const query = { workspaceId: 'ws_raw', ...q };
    const got = await SQL_RAW_EVENTS.countClicks(db.knex, query);
    const want = expected(all, query);
    expect(want.length).toBeGreaterThan(0);
    expect(sorted(got)).toEqual(want);
  });

  it('refuses a time bucket that is not a positive number of ms', async () => {
    const q = { workspaceId: 'ws_raw', from: T0, to: T0 + HOUR, by: [] };
    await expect(SQL_RAW_EVENTS.countClicks(db.knex, { ...q, bucketMs: 0 })).rejects.toThrow(/bucketMs/);
    await expect(SQL_RAW_EVENTS.countClicks(db.knex, { ...q, bucketMs: Number.NaN })).rejects.toThrow(/bucketMs/);
  });

  it('answers no rows where no click is', async () => {
    expect(
      await SQL_RAW_EVENTS.countClicks(db.knex, {
        workspaceId: 'ws_raw',
        from: T0 - 2 * HOUR,
        to: T0,
        by: ['link_id'],
      }),
    ).toEqual([]);
    expect(
      await SQL_RAW_EVENTS.countClicks(db.knex, { workspaceId: 'ws_none', from: T0, to: T0 + 30 * HOUR, by: [] }),
    ).toEqual([]);
  });
});
