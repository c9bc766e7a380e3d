// How a conversion window is counted from 32-day blocks, daily aggregates and raw events
// (domain/conversion-reads planReads): every event of the window once, none outside it, whatever
// the choice; and the choices that make the usual windows cheap.
import { describe, expect, it } from 'vitest';
import { BLOCK_MS, planReads, type ReadCosts, type ReadPiece } from '../../src/domain/conversion-reads';
import { DAY_MS } from '../../src/domain/conversions';

const HOUR = 3_600_000;
const BY_TYPE: ReadCosts = { block: 1, day: null, rawDay: 1 };
const ALL: ReadCosts = { block: 1, day: 0.7, rawDay: 3.5 };
const bounds = (now: number) => ({ rawSince: now - 400 * DAY_MS, latest: now + 5 * 60_000 });

/**
 * How often an event at `t` is counted. Blocks and raw events hold only what retention kept (none
 * before rawSince once it ran); a day's aggregate holds all of its day until the day is deleted.
 */
function counted(pieces: ReadPiece[], t: number, kept: boolean): number {
  let n = 0;
  for (const p of pieces) {
    const unit = p.level === 'block' ? Math.floor(t / BLOCK_MS) : p.level === 'day' ? Math.floor(t / DAY_MS) : t;
    if (unit >= p.from && unit < p.to && (kept || p.level === 'day')) n += p.sign;
  }
  return n;
}

describe('planReads', () => {
  it('counts every event of the window once and none outside it, with and without days, at any retention', () => {
    let seed = 11;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 150; n++) {
      const now = 20_800 * DAY_MS + Math.floor(rand() * 64 * DAY_MS);
      const b = bounds(now);
      // Windows of up to 400 days, some reaching past the retention edge, ends at any hour.
      const to = now - (Math.floor(rand() * 2 * 400 * 24) * HOUR * (rand() < 0.3 ? 0 : 1)) / 2;
      const from = Math.max(to - 400 * DAY_MS, to - Math.floor(rand() * 400 * 24) * HOUR);
      // Retention deleted what was older than its last run's cutoff, at most this old.
      const deletedBefore = b.rawSince - Math.floor(rand() * 3 * 24) * HOUR;
      for (const costs of [BY_TYPE, ALL]) {
        const pieces = planReads({ from, to }, b, costs);
        for (let t = from - 40 * DAY_MS; t < Math.min(to + 40 * DAY_MS, b.latest); t += 11 * HOUR + 17 * 60_000) {
          const c = counted(pieces, t, t >= deletedBefore);
          const inside = t >= from && t < to;
          if (t >= b.rawSince) expect(c, `t=${t} [${from}, ${to}) ${JSON.stringify(pieces)}`).toBe(inside ? 1 : 0);
          // Past the retention edge the count is a floor: never twice, never outside the window.
          else expect([inside ? 1 : 0, 0], `t=${t} [${from}, ${to}) ${JSON.stringify(pieces)}`).toContain(c);
        }
        // The exact edges too.
        for (const t of [from - 1, from, to - 1, to]) {
          if (t >= b.rawSince && t < b.latest && from < to)
            expect(counted(pieces, t, true)).toBe(t >= from && t < to ? 1 : 0);
        }
      }
    }
  });

  it('reads a 400-day window ending now as blocks, less the kept raw events outside it', () => {
    const now = 20_784 * DAY_MS + 9 * HOUR;
    const pieces = planReads({ from: now - 400 * DAY_MS + 60_000, to: now }, bounds(now), BY_TYPE);
    const first = Math.floor((now - 400 * DAY_MS) / BLOCK_MS);
    const last = Math.ceil(now / BLOCK_MS);
    expect(pieces).toEqual([
      { level: 'block', from: first, to: last, sign: 1 },
      { level: 'raw', from: first * BLOCK_MS, to: now - 400 * DAY_MS + 60_000, sign: -1 },
      { level: 'raw', from: now, to: last * BLOCK_MS, sign: -1 },
    ]);
  });

  it('reads a window between blocks as the two blocks less a few hours', () => {
    const block = 650 * BLOCK_MS;
    const w = { from: block - 2 * BLOCK_MS + 14 * HOUR, to: block - 7 * HOUR };
    expect(planReads(w, bounds(block + 3 * DAY_MS), BY_TYPE)).toEqual([
      { level: 'block', from: 648, to: 650, sign: 1 },
      { level: 'raw', from: block - 2 * BLOCK_MS, to: w.from, sign: -1 },
      { level: 'raw', from: w.to, to: block, sign: -1 },
    ]);
  });

  it('takes the shorter side of each end: at most half a block of raw events that can exist', () => {
    const now = 700 * BLOCK_MS + 3 * DAY_MS;
    for (let k = 0; k < 200; k++) {
      const from = 690 * BLOCK_MS + k * 37 * HOUR;
      const to = from + 100 * DAY_MS + (k % 13) * HOUR;
      if (to > now) continue;
      const raw = planReads({ from, to }, bounds(now), BY_TYPE).filter((p) => p.level === 'raw');
      // Nothing has happened after `latest`: the rest of the current block costs nothing.
      for (const r of raw)
        expect(Math.min(r.to, bounds(now).latest) - r.from).toBeLessThanOrEqual(BLOCK_MS / 2 + DAY_MS);
    }
  });

  it('never reads days for the breakdowns of one type, and takes days from a block only after the retention edge', () => {
    const now = 20_784 * DAY_MS + 9 * HOUR;
    const b = bounds(now);
    for (let k = 0; k < 300; k++) {
      const from = now - 400 * DAY_MS + k * 31 * HOUR;
      const w = { from, to: Math.min(now, from + (k % 90) * DAY_MS + 5 * HOUR) };
      expect(planReads(w, b, BY_TYPE).every((p) => p.level !== 'day')).toBe(true);
      for (const p of planReads(w, b, ALL))
        if (p.level === 'day' && p.sign === -1) expect(p.from * DAY_MS).toBeGreaterThanOrEqual(b.rawSince);
    }
  });

  it('reads nothing for an empty window', () => {
    expect(planReads({ from: 5 * DAY_MS, to: 5 * DAY_MS }, bounds(10 * DAY_MS), ALL)).toEqual([]);
  });
});
