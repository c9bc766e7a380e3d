// Conversions per UTC day over a window (the dashboard's chart and table of a conversion
// summary): folded from rows grouped by day and currency, whatever table they were read from,
// and presented as one entry per day the window touches, days without conversions included.
import { DAY_MS, valueEntries, type Breakdown, type Window } from './conversions.ts';

/** Conversions and value per currency ('' for none) of each day number (epoch days, UTC). Plain data: it crosses threads. */
export type DailyTally = Map<number, Breakdown>;

/** Adds a group of one day's conversions; `sign` −1 takes it away (a day's aggregate less its rows outside the window). */
export function addToDay(
  days: DailyTally,
  day: number,
  currency: string,
  conversions: number,
  valueMinor: number,
  sign: 1 | -1 = 1,
): void {
  const d = days.get(day) ?? { conversions: 0, value: new Map() };
  d.conversions += sign * conversions;
  // A conversion recorded without a value is counted but absent from the value entries.
  if (currency) {
    const v = d.value.get(currency) ?? { valueMinor: 0, conversions: 0 };
    v.valueMinor += sign * valueMinor;
    v.conversions += sign * conversions;
    d.value.set(currency, v);
  }
  days.set(day, d);
}

/** The UTC days a window [from, to) touches, first to last (none for an empty window). */
export function daysOf(w: Window): number[] {
  if (w.from >= w.to) return [];
  const first = Math.floor(w.from / DAY_MS);
  const last = Math.ceil(w.to / DAY_MS) - 1;
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

export const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * One entry per day of the window, in order: its conversions and value per currency. The first
 * and last day count only the part of them inside the window.
 */
export function seriesEntries(days: DailyTally, w: Window) {
  return daysOf(w).map((day) => {
    const d = days.get(day);
    return { day: isoDay(day), conversions: d?.conversions ?? 0, value: d ? valueEntries(d.value) : [] };
  });
}
