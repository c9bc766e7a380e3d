// How a conversion or click window is read: whole days and cheap partial days from the daily
// aggregates, the rest from raw rows (domain/conversions planWindow).
import { describe, expect, it } from 'vitest';
import { DAY_MS, planWindow } from '../../src/domain/conversions';

const HOUR = 3_600_000;
const D = 20_000; // a day number well inside raw retention below
const at = (day: number, hours: number) => day * DAY_MS + hours * HOUR;

describe('planWindow', () => {
  const rows = (now: number) => ({ rawSince: now - 90 * DAY_MS, latest: now });

  it('reads today from its aggregate when the window ends now: nothing of today lies after the window', () => {
    const now = at(D, 21);
    const plan = planWindow({ from: now - 30 * DAY_MS, to: now }, rows(now));
    expect(plan.days).toEqual([D - 29, D]);
    expect(plan.aggregateDays).toEqual([D - 29, D + 1]);
    // Today: its aggregate, less the raw rows of [now, midnight), which cannot exist yet.
    expect(plan.partialDays).toContainEqual({ day: D, minus: [{ from: now, to: (D + 1) * DAY_MS }] });
    // 30 days ago the window holds 3 hours of the day and the rest 21: raw rows for the 3 hours.
    expect(plan.raw).toEqual([{ from: now - 30 * DAY_MS, to: (D - 29) * DAY_MS }]);
  });

  it('takes the shorter side of a partial day in the past', () => {
    const now = at(D, 12);
    const plan = planWindow({ from: at(D - 10, 2), to: at(D - 3, 20) }, rows(now));
    expect(plan.days).toEqual([D - 9, D - 3]);
    expect(plan.partialDays).toEqual([
      { day: D - 10, minus: [{ from: at(D - 10, 0), to: at(D - 10, 2) }] },
      { day: D - 3, minus: [{ from: at(D - 3, 20), to: at(D - 2, 0) }] },
    ]);
    expect(plan.raw).toEqual([]);
    const short = planWindow({ from: at(D - 10, 22), to: at(D - 3, 4) }, rows(now));
    expect(short.raw).toEqual([
      { from: at(D - 10, 22), to: at(D - 9, 0) },
      { from: at(D - 3, 0), to: at(D - 3, 4) },
    ]);
    expect(short.partialDays).toEqual([]);
  });

  it('reads raw rows for a day whose raw rows retention may have deleted', () => {
    const now = at(D, 12);
    const plan = planWindow({ from: at(D - 95, 1), to: now }, rows(now));
    expect(plan.raw).toEqual([{ from: at(D - 95, 1), to: at(D - 94, 0) }]);
  });

  it('splits a window within one day, or across midnight with no whole day', () => {
    const now = at(D, 23);
    expect(planWindow({ from: at(D - 1, 1), to: at(D - 1, 23) }, rows(now))).toEqual({
      days: null,
      raw: [],
      partialDays: [
        {
          day: D - 1,
          minus: [
            { from: at(D - 1, 0), to: at(D - 1, 1) },
            { from: at(D - 1, 23), to: at(D, 0) },
          ],
        },
      ],
      aggregateDays: [D - 1, D],
    });
    expect(planWindow({ from: at(D - 1, 22), to: at(D, 2) }, rows(now))).toEqual({
      days: null,
      raw: [
        { from: at(D - 1, 22), to: at(D, 0) },
        { from: at(D, 0), to: at(D, 2) },
      ],
      partialDays: [],
      aggregateDays: null,
    });
    expect(planWindow({ from: at(D - 2, 0), to: at(D, 0) }, rows(now))).toEqual({
      days: [D - 2, D],
      raw: [],
      partialDays: [],
      aggregateDays: [D - 2, D],
    });
    expect(planWindow({ from: at(D, 5), to: at(D, 5) }, rows(now))).toEqual({
      days: null,
      raw: [],
      partialDays: [],
      aggregateDays: null,
    });
  });

  it('covers every instant of the window exactly once', () => {
    // Random windows: every hour inside is counted once (whole day, raw part, or a partial day
    // not removed by its minus), and no hour outside is.
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 500; n++) {
      const now = at(D, Math.floor(rand() * 24));
      const from = now - Math.floor(rand() * 40 * 24) * HOUR;
      const to = Math.min(now, from + Math.floor(rand() * 40 * 24) * HOUR);
      const plan = planWindow({ from, to }, rows(now));
      for (let t = from - 2 * DAY_MS; t < to + 2 * DAY_MS; t += HOUR) {
        // Counted as the repositories count: the aggregate range, less the partial days' minus
        // parts, plus the raw parts.
        let count = 0;
        const day = Math.floor(t / DAY_MS);
        if (plan.aggregateDays && day >= plan.aggregateDays[0] && day < plan.aggregateDays[1]) count++;
        for (const p of plan.partialDays) for (const m of p.minus) if (t >= m.from && t < m.to) count--;
        for (const r of plan.raw) if (t >= r.from && t < r.to) count++;
        expect(count, `t=${t} window=[${from}, ${to})`).toBe(t >= from && t < to ? 1 : 0);
      }
    }
  });
});
