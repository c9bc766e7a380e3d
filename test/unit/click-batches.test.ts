// What one flush adds to the per-link aggregates (daily clicks and scans, QR daily scans, click
// windows per country), checked against a plain recount of the same clicks for random batches
// that span days, windows, countries, links and QR codes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLICK_WINDOW_MS } from '../../src/domain/analytics-alerts';
import { aggregateClicks, clickWindows } from '../../src/db/repos/click-batches';
import type { StoredClick } from '../../src/db/repos/click-batches';

const DAY = 86_400_000;
// Five minutes before a UTC midnight: a batch of clicks within 20 minutes crosses a day and windows.
const T0 = Date.UTC(2026, 10, 22) - 5 * 60_000;

const click = fc.record({
  link: fc.integer({ min: 0, max: 5 }),
  qr: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
  offset: fc.integer({ min: 0, max: 20 * 60_000 }),
  country: fc.constantFrom(null, 'DE', 'FR', 'US'),
});

function stored(c: { link: number; qr: number | null; offset: number; country: string | null }): StoredClick {
  return {
    // Fresh strings per click, as the writer thread's decoded batches may hold them.
    workspace_id: `ws_${c.link % 2}`,
    link_id: ['lnk_', String(c.link)].join(''),
    qr_code_id: c.qr === null ? null : `qr_${c.link}_${c.qr}`,
    occurred_at: T0 + c.offset,
    referrer_host: null,
    country: c.country,
    city: null,
    route: null,
    device: null,
    browser: null,
    os: null,
  };
}

function recount(rows: StoredClick[]) {
  const daily = new Map<
    string,
    { link_id: string; workspace_id: string; day: number; clicks: number; scans: number }
  >();
  const scans = new Map<string, { qr_code_id: string; workspace_id: string; day: number; scans: number }>();
  const windows = new Map<
    string,
    { window_start: number; link_id: string; country: string; workspace_id: string; clicks: number }
  >();
  for (const r of rows) {
    const day = Math.floor(r.occurred_at / DAY);
    const start = r.occurred_at - (r.occurred_at % CLICK_WINDOW_MS);
    const d = daily.get(`${r.link_id} ${day}`) ?? {
      link_id: r.link_id,
      workspace_id: r.workspace_id,
      day,
      clicks: 0,
      scans: 0,
    };
    d.clicks += 1;
    if (r.qr_code_id) d.scans += 1;
    daily.set(`${r.link_id} ${day}`, d);
    if (r.qr_code_id) {
      const s = scans.get(`${r.qr_code_id} ${day}`) ?? {
        qr_code_id: r.qr_code_id,
        workspace_id: r.workspace_id,
        day,
        scans: 0,
      };
      s.scans += 1;
      scans.set(`${r.qr_code_id} ${day}`, s);
    }
    const w = windows.get(`${start} ${r.link_id} ${r.country}`) ?? {
      window_start: start,
      link_id: r.link_id,
      country: r.country ?? '',
      workspace_id: r.workspace_id,
      clicks: 0,
    };
    w.clicks += 1;
    windows.set(`${start} ${r.link_id} ${r.country}`, w);
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    daily: [...daily.values()].sort(
      (a, b) => cmp(a.workspace_id, b.workspace_id) || cmp(a.link_id, b.link_id) || a.day - b.day,
    ),
    scans: [...scans.values()].sort((a, b) => cmp(a.qr_code_id, b.qr_code_id) || a.day - b.day),
    windows: [...windows.values()].sort(
      (a, b) => a.window_start - b.window_start || cmp(a.link_id, b.link_id) || cmp(a.country, b.country),
    ),
  };
}

describe('aggregateClicks', () => {
  it('adds up to the recount of the same clicks, in key order, for batches across days, windows, countries and QR codes', () => {
    fc.assert(
      fc.property(fc.array(click, { maxLength: 300 }), (clicks) => {
        const rows = clicks.map(stored);
        expect({ ...aggregateClicks(rows), windows: clickWindows(rows) }).toEqual(recount(rows));
      }),
      { numRuns: 300 },
    );
  });

  it('counts a batch that crosses midnight on both days, and a scan as a click and a scan', () => {
    const rows = [
      stored({ link: 1, qr: null, offset: 0, country: 'DE' }),
      stored({ link: 1, qr: 0, offset: 10 * 60_000, country: 'DE' }),
      stored({ link: 1, qr: 0, offset: 11 * 60_000, country: null }),
    ];
    const agg = aggregateClicks(rows);
    const day = Math.floor(T0 / DAY);
    expect(agg.daily.map((d) => [d.day - day, d.clicks, d.scans])).toEqual([
      [0, 1, 0],
      [1, 2, 2],
    ]);
    expect(agg.scans.map((s) => [s.qr_code_id, s.day - day, s.scans])).toEqual([['qr_1_0', 1, 2]]);
    expect(clickWindows(rows).map((w) => [(w.window_start - T0) / 60_000, w.country, w.clicks])).toEqual([
      [0, 'DE', 1],
      [10, '', 1],
      [10, 'DE', 1],
    ]);
  });

  it('builds windows only for the clicks of the workspaces asked for, the same rows as for all of them', () => {
    fc.assert(
      fc.property(fc.array(click, { maxLength: 300 }), (clicks) => {
        const rows = clicks.map(stored);
        const only = clickWindows(rows, (ws) => ws === 'ws_1');
        expect(only).toEqual(recount(rows).windows.filter((w) => w.workspace_id === 'ws_1'));
        expect(clickWindows(rows, () => false)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
