// The window of the dashboard's analytics (a link's, a bio page's): whole UTC days, `from` and
// `to` included, at most 400 days, by default the last 30 days with today.
import { DAY_MS } from '../../domain/conversions.ts';
import { invalid } from '../../domain/errors.ts';

export const MAX_ANALYTICS_DAYS = 400;

export interface DayWindow {
  from: number;
  to: number;
  today: number;
}

/** Days since 1970-01-01 of `from` and `to` (YYYY-MM-DD), with the rules' 400s. */
export function analyticsWindow(query: { from?: string; to?: string }, now = Date.now()): DayWindow {
  const today = Math.floor(now / DAY_MS);
  const dayOf = (v: string | undefined, field: string) => {
    if (v === undefined) return undefined;
    const ms = Date.parse(`${v}T00:00:00Z`);
    if (!Number.isFinite(ms)) throw invalid(`${field} must be a date (YYYY-MM-DD)`, field);
    return Math.floor(ms / DAY_MS);
  };
  const to = dayOf(query.to, 'to') ?? today;
  const from = dayOf(query.from, 'from') ?? to - 29;
  if (from > to) throw invalid('from must not be after to', 'from');
  if (to - from + 1 > MAX_ANALYTICS_DAYS) throw invalid(`The window may not exceed ${MAX_ANALYTICS_DAYS} days`, 'from');
  return { from, to, today };
}
