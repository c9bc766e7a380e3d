// Conversion and goal rules of the contract (openapi/) that need no I/O: windows, tallies, rates,
// progress. Figures are folded from grouped counts, whatever table they were read from.

export const EVENT_TYPES = ['signup', 'lead', 'purchase', 'booking', 'download', 'custom'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const EVENT_LABELS: Record<Exclude<EventType, 'custom'>, string> = {
  signup: 'Sign-up',
  lead: 'Lead',
  purchase: 'Purchase',
  booking: 'Booking',
  download: 'Download',
};

export const DAY_MS = 86_400_000;
/** Days per row of the 32-day rollups of the daily conversion aggregates (conversion_block_*). */
export const BLOCK_DAYS = 32;
export const MAX_WINDOW_DAYS = 400;
export const DEFAULT_WINDOW_DAYS = 30;
export const CONVERSION_RETENTION_DAYS = 400;
export const CLICK_RETENTION_DAYS = 90;
export const MAX_METADATA_BYTES = 4096;
/**
 * The most a workspace's kept conversions may add up to in one currency, in minor units: 2^53 - 1,
 * the largest integer a JSON number holds exactly in every client. A conversion that would take
 * the total above it is refused, so every total the API reports is exact.
 */
export const MAX_VALUE_TOTAL_MINOR = Number.MAX_SAFE_INTEGER;
/** How far ahead of the server's clock a conversion's occurredAt may be (clients' clocks drift). */
export const CONVERSION_FUTURE_SKEW_MS = 5 * 60_000;
export const MAX_CUSTOM_NAME = 40;

export interface Window {
  from: number; // inclusive
  to: number; // exclusive
}

export type WindowProblem = { field: 'from' | 'to'; message: string };

/** Parses the from/to query; the window is [from, to), at most 400 days, never clamped. */
export function parseWindow(from: string | undefined, to: string | undefined, now: number): Window | WindowProblem {
  const end = to === undefined ? now : Date.parse(to);
  if (!Number.isFinite(end)) return { field: 'to', message: 'to must be an ISO 8601 date-time' };
  const start = from === undefined ? end - DEFAULT_WINDOW_DAYS * DAY_MS : Date.parse(from);
  if (!Number.isFinite(start)) return { field: 'from', message: 'from must be an ISO 8601 date-time' };
  if (start > end) return { field: 'from', message: 'from must not be after to' };
  if (end - start > MAX_WINDOW_DAYS * DAY_MS) {
    return { field: 'from', message: `The window may not exceed ${MAX_WINDOW_DAYS} days` };
  }
  return { from: start, to: end };
}

/**
 * How a window [from, to) is counted from what the database keeps: whole UTC days from the daily
 * aggregates, and each partial day at an edge either from its raw rows, or from its day's
 * aggregate less the raw rows of the rest of that day, whichever part holds fewer rows. The rest
 * of today is empty when the window ends now (rows are not written ahead of time), so the usual
 * window, which ends now, reads today from its aggregate whatever today's traffic: a summary over
 * 2,000,000 clicks recorded today no longer walks them. A day read that way must have all of its
 * raw rows still kept (`rawSince`, the start of raw retention), else the subtraction would count
 * rows retention deleted.
 */
export interface WindowPlan {
  /** Whole days [d0, d1), from the daily aggregates. */
  days: [number, number] | null;
  /** Parts of days counted from their raw rows. */
  raw: Window[];
  /** Days counted from their aggregate, less the raw rows of `minus` (the part outside the window). */
  partialDays: Array<{ day: number; minus: Window[] }>;
  /**
   * Every day read from the aggregates, whole and partial: they are adjacent, so one range, read
   * in one pass (the aggregates are keyed by workspace first, so each range read walks them).
   */
  aggregateDays: [number, number] | null;
}

/**
 * `rawSince`: raw rows are complete from this time on (now less the raw retention). `latest`: no
 * row occurs at or after this time (now, plus the clock skew a row may be recorded with).
 */
export function planWindow(w: Window, opts: { rawSince: number; latest: number }): WindowPlan {
  const plan: WindowPlan = { days: null, raw: [], partialDays: [], aggregateDays: null };
  if (w.from >= w.to) return plan;
  const firstFull = Math.ceil(w.from / DAY_MS);
  const endFull = Math.floor(w.to / DAY_MS);
  const parts: Window[] = [];
  if (firstFull > endFull) {
    // Within one day.
    parts.push(w);
  } else {
    if (firstFull < endFull) plan.days = [firstFull, endFull];
    if (w.from < firstFull * DAY_MS) parts.push({ from: w.from, to: firstFull * DAY_MS });
    if (endFull * DAY_MS < w.to) parts.push({ from: endFull * DAY_MS, to: w.to });
  }
  // How long a part is, counting only time in which rows can exist (none at or after `latest`).
  const span = (x: Window) => Math.max(0, Math.min(x.to, opts.latest) - x.from);
  for (const part of parts) {
    const day = Math.floor(part.from / DAY_MS);
    const start = day * DAY_MS;
    const end = start + DAY_MS;
    const minus = [
      ...(start < part.from ? [{ from: start, to: part.from }] : []),
      ...(part.to < end ? [{ from: part.to, to: end }] : []),
    ];
    const restSpan = minus.reduce((s, m) => s + span(m), 0);
    if (start >= opts.rawSince && restSpan < span(part)) plan.partialDays.push({ day, minus });
    else plan.raw.push(part);
  }
  const aggregated = [...(plan.days ? plan.days : []), ...plan.partialDays.flatMap((p) => [p.day, p.day + 1])];
  if (aggregated.length) plan.aggregateDays = [Math.min(...aggregated), Math.max(...aggregated)];
  return plan;
}

export type ValueMap = Map<string, { valueMinor: number; conversions: number }>;

export interface Breakdown {
  conversions: number;
  value: ValueMap;
}

/**
 * Everything a summary or a report counts, folded from grouped rows. Plain data (it crosses from
 * the query threads by structured clone, which keeps the Maps but not the class).
 */
export interface TallyData {
  total: number;
  attributed: number;
  byType: Map<string, { eventType: EventType; customName: string | null; conversions: number }>;
  value: ValueMap;
  byLink: Map<string, Breakdown>;
  byCampaign: Map<string, Breakdown>;
  byQr: Map<string, Breakdown>;
}

/** Folds grouped rows into a TallyData. `sign` −1 takes a group away (a day's aggregate less its rows outside the window). */
export class Tally implements TallyData {
  total = 0;
  attributed = 0;
  readonly byType = new Map<string, { eventType: EventType; customName: string | null; conversions: number }>();
  readonly value: ValueMap = new Map();
  readonly byLink = new Map<string, Breakdown>();
  readonly byCampaign = new Map<string, Breakdown>();
  readonly byQr = new Map<string, Breakdown>();

  /** A group of conversions that share type, name, attribution and currency ('' for none). */
  addTotals(
    eventType: EventType,
    customName: string | null,
    attributed: boolean,
    currency: string,
    conversions: number,
    valueMinor: number,
  ) {
    this.total += conversions;
    if (attributed) this.attributed += conversions;
    const key = `${eventType}\u0000${eventType === 'custom' ? (customName ?? '') : ''}`;
    const t = this.byType.get(key) ?? {
      eventType,
      customName: eventType === 'custom' ? customName : null,
      conversions: 0,
    };
    t.conversions += conversions;
    this.byType.set(key, t);
    addValue(this.value, currency, conversions, valueMinor);
  }

  addTo(map: Map<string, Breakdown>, id: string, currency: string, conversions: number, valueMinor: number) {
    const b = map.get(id) ?? { conversions: 0, value: new Map() };
    b.conversions += conversions;
    addValue(b.value, currency, conversions, valueMinor);
    map.set(id, b);
  }
}

function addValue(map: ValueMap, currency: string, conversions: number, valueMinor: number) {
  // A conversion recorded without a value is absent from the value entries.
  if (!currency) return;
  const v = map.get(currency) ?? { valueMinor: 0, conversions: 0 };
  v.valueMinor += valueMinor;
  v.conversions += conversions;
  map.set(currency, v);
}

export function valueEntries(map: ValueMap) {
  return [...map.entries()]
    .filter(([, v]) => v.conversions > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, v]) => ({ currency, valueMinor: v.valueMinor, conversions: v.conversions }));
}

export function typeEntries(tally: TallyData) {
  return [...tally.byType.values()]
    .filter((t) => t.conversions > 0)
    .map((t) => ({
      eventType: t.eventType,
      label: t.eventType === 'custom' ? (t.customName ?? 'Custom') : EVENT_LABELS[t.eventType],
      conversions: t.conversions,
    }))
    .sort((a, b) => b.conversions - a.conversions || cmp(a.eventType, b.eventType) || cmp(a.label, b.label));
}

export function breakdownEntries(map: Map<string, Breakdown>) {
  return [...map.entries()]
    .filter(([, b]) => b.conversions > 0)
    .sort(([ia, a], [ib, b]) => b.conversions - a.conversions || cmp(ia, ib))
    .map(([id, b]) => ({ id, conversions: b.conversions, value: valueEntries(b.value) }));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export type RateReason = 'beyond_click_retention' | 'no_clicks_in_window' | 'clicks_unavailable';
export interface Rate {
  supported: boolean;
  conversions: number;
  clicks: number;
  rate: number | null;
  reason?: RateReason;
}

/**
 * Conversions over clicks in one window. Undefined (never 0) when clicks cannot be read, when
 * the window starts before raw-click retention, or when no click was counted.
 */
export function rateOf(conversions: number, clicks: number | null, window: Window, now: number): Rate {
  if (clicks === null) return { supported: false, conversions, clicks: 0, rate: null, reason: 'clicks_unavailable' };
  if (window.from < now - CLICK_RETENTION_DAYS * DAY_MS) {
    return { supported: false, conversions, clicks, rate: null, reason: 'beyond_click_retention' };
  }
  if (clicks === 0) return { supported: false, conversions, clicks, rate: null, reason: 'no_clicks_in_window' };
  return { supported: true, conversions, clicks, rate: conversions / clicks };
}

export function beyondConversionRetention(window: Window, now: number): boolean {
  return window.from < now - CONVERSION_RETENTION_DAYS * DAY_MS;
}

export function progress(target: number, current: number) {
  return { target, current, ratio: target === 0 ? 1 : current / target, reached: current >= target };
}

/** The goal's own window [windowStart, windowEnd) intersected with the requested one. */
export function intersectWindow(requested: Window, goalStart: number | null, goalEnd: number | null) {
  const from = Math.max(requested.from, goalStart ?? -Infinity);
  const to = Math.min(requested.to, goalEnd ?? Infinity);
  const narrowedByGoal = from !== requested.from || to !== requested.to;
  if (from >= to && !(from === to && requested.from === requested.to)) {
    return { window: requested, narrowedByGoal, disjoint: true };
  }
  return { window: { from, to }, narrowedByGoal, disjoint: false };
}

export function isCurrency(code: string): boolean {
  return CURRENCIES.has(code);
}
// ISO 4217 codes as Node's ICU knows them (a maintained list, not a hand-kept one).
const CURRENCIES = new Set((Intl as any).supportedValuesOf('currency') as string[]);
