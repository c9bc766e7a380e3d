// How a conversion window is counted from 32-day blocks, daily aggregates and raw events (no I/O).
//
// A block counts exactly the kept events of its 32 days (insertConversion adds to it, retention
// takes from it what it deletes), so a window may be read as blocks that overhang it less the raw
// events of the overhang, as well as blocks it holds plus the raw events of its ends: each end
// costs at most half a block of raw events. A 400-day window that starts at the retention edge
// and ends now costs almost nothing at either end: the retention kept little of the first block
// before the window, and nothing has happened yet after it.
//
// Daily aggregates count every event of their day until retention deletes the day, so days are
// taken from a block only while the block has lost nothing to retention (it starts at or after
// `rawSince`); added, they are what planWindow makes of them (whole days, and partial days from
// their aggregate less raw rows when cheaper).
import { BLOCK_DAYS, DAY_MS, planWindow, type Window } from './conversions.ts';

export const BLOCK_MS = BLOCK_DAYS * DAY_MS;

export type Sign = 1 | -1;

/**
 * A part of a window's count: the rows of whole blocks [from, to) (block numbers), of whole days
 * (day numbers) or of raw events in [from, to) (ms), added or taken away.
 */
export interface ReadPiece {
  level: 'block' | 'day' | 'raw';
  from: number;
  to: number;
  sign: Sign;
}

/**
 * What reading costs, relative: a block, a day of daily aggregates (null: none to read at this
 * grain, as for the breakdowns of one event type), a day of raw events. Only the choice between
 * equally exact plans depends on them.
 */
export interface ReadCosts {
  block: number;
  day: number | null;
  rawDay: number;
}

export interface ReadBounds {
  /** Raw events are complete from this time on (now less the retention). */
  rawSince: number;
  /** No event occurs at or after this time (now, plus the clock skew a conversion may carry). */
  latest: number;
}

interface Plan {
  pieces: ReadPiece[];
  cost: number;
}

/** Raw events of `w` expected to exist: none before the retention edge or at or after `latest`. */
function rawDays(w: Window, b: ReadBounds): number {
  return Math.max(0, Math.min(w.to, b.latest) - Math.max(w.from, b.rawSince)) / DAY_MS;
}

/** The cheaper of raw events and daily aggregates (with planWindow's raw edges) for one segment. */
function planSegment(w: Window, sign: Sign, b: ReadBounds, costs: ReadCosts): Plan {
  const raw: Plan = { pieces: [{ level: 'raw', from: w.from, to: w.to, sign }], cost: rawDays(w, b) * costs.rawDay };
  // Days taken away must count what the block counts of them, its kept events: days retention
  // may have thinned out (before rawSince) are taken away as raw events.
  if (costs.day === null || (sign === -1 && w.from < b.rawSince)) return raw;
  const p = planWindow(w, b);
  if (!p.aggregateDays) return raw;
  const pieces: ReadPiece[] = [{ level: 'day', from: p.aggregateDays[0], to: p.aggregateDays[1], sign }];
  let cost = (p.aggregateDays[1] - p.aggregateDays[0]) * costs.day;
  for (const { minus } of p.partialDays) {
    for (const m of minus) {
      pieces.push({ level: 'raw', from: m.from, to: m.to, sign: -sign as Sign });
      cost += rawDays(m, b) * costs.rawDay;
    }
  }
  for (const r of p.raw) {
    pieces.push({ level: 'raw', from: r.from, to: r.to, sign });
    cost += rawDays(r, b) * costs.rawDay;
  }
  return cost < raw.cost ? { pieces, cost } : raw;
}

/**
 * The cheapest exact way to count [from, to): a range of blocks, each end of the window either
 * added to it (the part before the first block, after the last) or taken from it (the part of the
 * first block before the window, of the last after it), each such part as raw events or days;
 * or, with no block, the window itself as raw events or days.
 */
export function planReads(w: Window, bounds: ReadBounds, costs: ReadCosts): ReadPiece[] {
  if (w.from >= w.to) return [];
  let best = planSegment(w, 1, bounds, costs);
  const starts = new Set([Math.floor(w.from / BLOCK_MS), Math.ceil(w.from / BLOCK_MS)]);
  const ends = new Set([Math.floor(w.to / BLOCK_MS), Math.ceil(w.to / BLOCK_MS)]);
  for (const s of starts) {
    for (const e of ends) {
      if (s >= e) continue;
      const plan: Plan = { pieces: [{ level: 'block', from: s, to: e, sign: 1 }], cost: (e - s) * costs.block };
      const edges: Array<[Window, Sign]> = [];
      if (s * BLOCK_MS < w.from) edges.push([{ from: s * BLOCK_MS, to: w.from }, -1]);
      if (s * BLOCK_MS > w.from) edges.push([{ from: w.from, to: s * BLOCK_MS }, 1]);
      if (e * BLOCK_MS > w.to) edges.push([{ from: w.to, to: e * BLOCK_MS }, -1]);
      if (e * BLOCK_MS < w.to) edges.push([{ from: e * BLOCK_MS, to: w.to }, 1]);
      for (const [edge, sign] of edges) {
        const part = planSegment(edge, sign, bounds, costs);
        plan.pieces.push(...part.pieces);
        plan.cost += part.cost;
      }
      if (plan.cost < best.cost) best = plan;
    }
  }
  return best.pieces;
}
