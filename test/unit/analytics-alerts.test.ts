// The Variant A traffic alert rules (asyncapi/variant-a.yaml), at their edges.
import { describe, expect, it } from 'vitest';
import {
  detectGeoAnomalies,
  detectSpike,
  GEO_WINDOW_MS,
  SPIKE_WINDOW_MS,
  windowStartOf,
} from '../../src/domain/analytics-alerts';

const T = Date.UTC(2026, 0, 1, 5, 0, 0);
const quiet = Array(12).fill(0);

describe('analytics.spike', () => {
  const spike = (clicks: number, previousWindows = quiet, lastSpikeWindowEnd: number | null = null) =>
    detectSpike({ windowStart: T, clicks, previousWindows, lastSpikeWindowEnd });

  it('fires at 50 clicks over a quiet hour (baseline raised to 1), not at 49', () => {
    expect(spike(50)).toEqual({ windowStart: T, windowEnd: T + SPIKE_WINDOW_MS, clicks: 50, baseline: 1, ratio: 50 });
    expect(spike(49)).toBeNull();
  });

  it('fires at a ratio of exactly 5, not just below it', () => {
    const baseline10 = Array(12).fill(10);
    expect(spike(50, baseline10)).toMatchObject({ baseline: 10, ratio: 5 });
    expect(spike(49, baseline10)).toBeNull();
    const justAbove = [...Array(11).fill(10), 11]; // baseline 10.0833...
    expect(spike(50, justAbove)).toBeNull();
    expect(spike(51, justAbove)).toMatchObject({ clicks: 51 });
  });

  it('averages over twelve windows, counting windows without clicks as 0', () => {
    expect(spike(620, [...Array(6).fill(0), ...Array(6).fill(25)])).toMatchObject({ baseline: 12.5, ratio: 49.6 });
  });

  it('keeps to one spike an hour: 60 minutes after the previous windowEnd, not 55', () => {
    const end = T + SPIKE_WINDOW_MS;
    expect(spike(100, quiet, end - 60 * 60_000)).not.toBeNull();
    expect(spike(100, quiet, end - 55 * 60_000)).toBeNull();
    expect(spike(100, quiet, end)).toBeNull();
  });
});

describe('analytics.geo_anomaly', () => {
  const geo = (input: {
    clicks: number;
    byCountry: Record<string, number>;
    historyClicks: number;
    historyByCountry?: Record<string, number>;
    last?: Record<string, number>;
  }) =>
    detectGeoAnomalies({
      windowStart: T,
      clicks: input.clicks,
      byCountry: new Map(Object.entries(input.byCountry)),
      historyClicks: input.historyClicks,
      historyByCountry: new Map(Object.entries(input.historyByCountry ?? {})),
      lastEventWindowEnd: new Map(Object.entries(input.last ?? {})),
    });

  it('fires for a country at half the clicks and 5 times its baseline share', () => {
    const found = geo({
      clicks: 100,
      byCountry: { BR: 50, US: 50 },
      historyClicks: 1000,
      historyByCountry: { BR: 100, US: 900 },
    });
    expect(found).toEqual([
      { windowStart: T, windowEnd: T + GEO_WINDOW_MS, country: 'BR', clicks: 100, share: 0.5, baselineShare: 0.1 },
    ]);
  });

  it('does not fire just below half, nor below 5 times the baseline share', () => {
    expect(geo({ clicks: 100, byCountry: { BR: 49 }, historyClicks: 1000, historyByCountry: { BR: 10 } })).toEqual([]);
    expect(geo({ clicks: 100, byCountry: { BR: 80 }, historyClicks: 1000, historyByCountry: { BR: 161 } })).toEqual([]);
    expect(
      geo({ clicks: 100, byCountry: { BR: 80 }, historyClicks: 1000, historyByCountry: { BR: 160 } }),
    ).toHaveLength(1);
  });

  it('needs 50 clicks in the hour', () => {
    expect(geo({ clicks: 49, byCountry: { BR: 49 }, historyClicks: 1000 })).toEqual([]);
    expect(geo({ clicks: 50, byCountry: { BR: 50 }, historyClicks: 1000 })).toHaveLength(1);
  });

  it('an unseen country fires on the 50% rule alone with 100 clicks of history, not 99', () => {
    expect(geo({ clicks: 60, byCountry: { BR: 45 }, historyClicks: 100, historyByCountry: { US: 100 } })).toEqual([
      { windowStart: T, windowEnd: T + GEO_WINDOW_MS, country: 'BR', clicks: 60, share: 0.75, baselineShare: 0 },
    ]);
    expect(geo({ clicks: 60, byCountry: { BR: 45 }, historyClicks: 99, historyByCountry: { US: 99 } })).toEqual([]);
    expect(geo({ clicks: 60, byCountry: { BR: 60 }, historyClicks: 0 })).toEqual([]);
  });

  it('counts clicks of unknown country in the total but never reports them', () => {
    // 40 of 100 from BR: below half once the 60 unknown clicks count.
    expect(geo({ clicks: 100, byCountry: { BR: 40 }, historyClicks: 500 })).toEqual([]);
  });

  it('keeps to one event per link and country a day', () => {
    const end = T + GEO_WINDOW_MS;
    const input = { clicks: 60, byCountry: { BR: 60 }, historyClicks: 500 };
    expect(geo({ ...input, last: { BR: end - 24 * 3_600_000 } })).toHaveLength(1);
    expect(geo({ ...input, last: { BR: end - 23 * 3_600_000 } })).toEqual([]);
    expect(geo({ ...input, last: { DE: end - 3_600_000 } })).toHaveLength(1);
  });
});

describe('windows', () => {
  it('are aligned to UTC', () => {
    expect(windowStartOf(Date.UTC(2026, 0, 1, 5, 7, 59), SPIKE_WINDOW_MS)).toBe(Date.UTC(2026, 0, 1, 5, 5));
    expect(windowStartOf(Date.UTC(2026, 0, 1, 5, 59, 59), GEO_WINDOW_MS)).toBe(Date.UTC(2026, 0, 1, 5, 0));
  });
});
