// The traffic alerts of Variant A (asyncapi/variant-a.yaml, analytics.spike and
// analytics.geo_anomaly): pure rules over click counts; the click sink reads the counts.

/** The Variant A events these rules raise. */
export const TRAFFIC_ALERT_EVENTS = ['analytics.spike', 'analytics.geo_anomaly'] as const;

export const SPIKE_WINDOW_MS = 5 * 60_000;
export const SPIKE_BASELINE_WINDOWS = 12;
export const SPIKE_MIN_CLICKS = 50;
export const SPIKE_MIN_RATIO = 5;
export const SPIKE_QUIET_MS = 60 * 60_000;

export const GEO_WINDOW_MS = 60 * 60_000;
export const GEO_BASELINE_MS = 7 * 24 * 60 * 60_000;
export const GEO_MIN_CLICKS = 50;
export const GEO_MIN_SHARE = 0.5;
export const GEO_MIN_SHARE_FACTOR = 5;
export const GEO_MIN_HISTORY_CLICKS = 100;
export const GEO_QUIET_MS = 24 * 60 * 60_000;

/**
 * The alerts count clicks from link_click_windows: per link, 5-minute window and country. Every
 * alert window and baseline is a whole number of these.
 */
export const CLICK_WINDOW_MS = SPIKE_WINDOW_MS;
/** How long windows are kept: the 7-day geo baseline, the hours evaluated late, and a margin. */
export const CLICK_WINDOW_RETENTION_MS = GEO_BASELINE_MS + 24 * 60 * 60_000;

/** The start of the window (aligned to UTC, as windows are) that holds `at`. */
export const windowStartOf = (at: number, windowMs: number) => Math.floor(at / windowMs) * windowMs;

export interface SpikeInput {
  windowStart: number;
  /** The link's clicks in [windowStart, windowStart + 5 minutes). */
  clicks: number;
  /** Clicks of the twelve windows before windowStart (missing windows count as 0). */
  previousWindows: number[];
  /** windowEnd of the link's previous analytics.spike, if any. */
  lastSpikeWindowEnd: number | null;
}

export interface Spike {
  windowStart: number;
  windowEnd: number;
  clicks: number;
  baseline: number;
  ratio: number;
}

/**
 * Fires when the window has at least 50 clicks and at least 5 times its baseline (the average
 * of the previous twelve windows, raised to at least 1); never within 60 minutes of the
 * windowEnd of the link's previous spike.
 */
export function detectSpike(input: SpikeInput): Spike | null {
  const windowEnd = input.windowStart + SPIKE_WINDOW_MS;
  if (input.clicks < SPIKE_MIN_CLICKS) return null;
  if (input.lastSpikeWindowEnd !== null && windowEnd - input.lastSpikeWindowEnd < SPIKE_QUIET_MS) return null;
  const previous = input.previousWindows.slice(-SPIKE_BASELINE_WINDOWS);
  const sum = previous.reduce((a, b) => a + b, 0);
  const baseline = Math.max(1, sum / SPIKE_BASELINE_WINDOWS);
  const ratio = input.clicks / baseline;
  if (ratio < SPIKE_MIN_RATIO) return null;
  return { windowStart: input.windowStart, windowEnd, clicks: input.clicks, baseline, ratio };
}

export interface GeoInput {
  windowStart: number;
  /** All of the link's clicks in the hour, countries known or not. */
  clicks: number;
  /** Clicks in the hour per country (ISO 3166-1 alpha-2); unknown countries are left out. */
  byCountry: Map<string, number>;
  /** All of the link's clicks in the 168 hours before windowStart. */
  historyClicks: number;
  /** Clicks per country in those 168 hours. */
  historyByCountry: Map<string, number>;
  /** windowEnd of the previous analytics.geo_anomaly of the link, per country. */
  lastEventWindowEnd: Map<string, number>;
}

export interface GeoAnomaly {
  windowStart: number;
  windowEnd: number;
  country: string;
  clicks: number;
  share: number;
  baselineShare: number;
}

/**
 * For an hour with at least 50 clicks: a country whose share is at least 0.5 and at least 5
 * times its share of the previous 7 days. A country unseen in those 7 days (baseline 0) fires
 * on the 50% rule alone, but only when the link had at least 100 clicks in them. At most one
 * event per link and country within 24 hours of the previous one's windowEnd.
 */
export function detectGeoAnomalies(input: GeoInput): GeoAnomaly[] {
  const windowEnd = input.windowStart + GEO_WINDOW_MS;
  if (input.clicks < GEO_MIN_CLICKS) return [];
  const found: GeoAnomaly[] = [];
  for (const [country, count] of [...input.byCountry].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const share = count / input.clicks;
    if (share < GEO_MIN_SHARE) continue;
    const seen = input.historyByCountry.get(country) ?? 0;
    const baselineShare = input.historyClicks > 0 ? seen / input.historyClicks : 0;
    if (baselineShare === 0) {
      if (input.historyClicks < GEO_MIN_HISTORY_CLICKS) continue;
    } else if (share < GEO_MIN_SHARE_FACTOR * baselineShare) {
      continue;
    }
    const last = input.lastEventWindowEnd.get(country);
    if (last !== undefined && windowEnd - last < GEO_QUIET_MS) continue;
    found.push({ windowStart: input.windowStart, windowEnd, country, clicks: input.clicks, share, baselineShare });
  }
  return found;
}
