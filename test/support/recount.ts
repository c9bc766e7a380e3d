// An independent, in-memory recount of every conversion figure the API reports: the summary of
// GET /api/v1/conversions and the goal report of GET /api/v1/goals/{id}/report. It folds plain
// lists of seeded rows (conversions, clicks and QR scans) with the rules of the contract
// (the descriptions in openapi/), and knows nothing of the daily aggregates, the
// raw-edge split or any other way the service stores or reads them.
//
// Also here: a seeded pseudo-random generator and the helpers that write the rich data set
// the summary and goal tests share into a running server.

import type { Knex } from 'knex';
import { createKey } from '../../src/db/repos/api-keys';
import { createCampaign, createQrCode } from '../../src/db/repos/workspace-objects';
import type { Scope } from '../../src/domain/access';
import { DATA_SCOPES } from './seed';
import type { TestServer } from './server';

export const DAY = 86_400_000;
export const HOUR = 3_600_000;
export const MINUTE = 60_000;
export const CLICK_RETENTION = 90 * DAY;
export const CONVERSION_RETENTION = 400 * DAY;

export type EventType = 'signup' | 'lead' | 'purchase' | 'booking' | 'download' | 'custom';
export const EVENT_TYPES: EventType[] = ['signup', 'lead', 'purchase', 'booking', 'download', 'custom'];
export const LABELS: Record<Exclude<EventType, 'custom'>, string> = {
  signup: 'Sign-up',
  lead: 'Lead',
  purchase: 'Purchase',
  booking: 'Booking',
  download: 'Download',
};

/** A conversion as recorded: `linkId` is the link it is attributed to (the QR code's link when it named a QR code). */
export interface RConversion {
  id?: string;
  workspaceId: string;
  eventType: EventType;
  customName: string | null;
  linkId: string | null;
  campaignId: string | null;
  qrCodeId: string | null;
  value: { amountMinor: number; currency: string } | null;
  occurredAt: number;
}

/** A click; a QR scan is a click with `qrCodeId`. */
export interface RClick {
  workspaceId: string;
  linkId: string;
  qrCodeId: string | null;
  at: number;
}

export interface Win {
  from: number; // inclusive
  to: number; // exclusive
}

export interface ValueEntry {
  currency: string;
  valueMinor: number;
  conversions: number;
}

export interface Rate {
  supported: boolean;
  conversions: number;
  clicks: number;
  rate: number | null;
  reason?: 'beyond_click_retention' | 'no_clicks_in_window' | 'clicks_unavailable';
}

export interface Filters {
  eventType?: EventType;
  customName?: string;
  linkId?: string;
  campaignId?: string;
  qrCodeId?: string;
}

export const inWindow = (t: number, w: Win) => t >= w.from && t < w.to;
const asc = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Value per currency, never summed across currencies; conversions without a value are absent. */
export function valueEntriesOf(convs: RConversion[]): ValueEntry[] {
  const m = new Map<string, ValueEntry>();
  for (const c of convs) {
    if (!c.value) continue;
    const e = m.get(c.value.currency) ?? { currency: c.value.currency, valueMinor: 0, conversions: 0 };
    e.valueMinor += c.value.amountMinor;
    e.conversions += 1;
    m.set(c.value.currency, e);
  }
  return [...m.values()].sort((a, b) => asc(a.currency, b.currency));
}

/**
 * Conversions over clicks. Undefined (never 0) when clicks cannot be read, when the window
 * starts more than 90 days before `now`, or when no click was counted - in that order.
 */
export function rateOf(conversions: number, clicks: number | null, w: Win, now: number): Rate {
  if (clicks === null) return { supported: false, conversions, clicks: 0, rate: null, reason: 'clicks_unavailable' };
  if (w.from < now - CLICK_RETENTION)
    return { supported: false, conversions, clicks, rate: null, reason: 'beyond_click_retention' };
  if (clicks === 0) return { supported: false, conversions, clicks, rate: null, reason: 'no_clicks_in_window' };
  return { supported: true, conversions, clicks, rate: conversions / clicks };
}

const clicksIn = (clicks: RClick[], ws: string, w: Win, pick: (c: RClick) => boolean = () => true) =>
  clicks.filter((c) => c.workspaceId === ws && inWindow(c.at, w) && pick(c)).length;

function breakdown(convs: RConversion[], key: (c: RConversion) => string | null) {
  const m = new Map<string, RConversion[]>();
  for (const c of convs) {
    const k = key(c);
    if (k === null) continue;
    m.set(k, [...(m.get(k) ?? []), c]);
  }
  return [...m.entries()]
    .map(([id, list]) => ({ id, conversions: list.length, value: valueEntriesOf(list) }))
    .sort((a, b) => b.conversions - a.conversions || asc(a.id, b.id));
}

export function matchesFilters(c: RConversion, f: Filters): boolean {
  const eventType = f.customName !== undefined ? 'custom' : f.eventType;
  if (eventType && c.eventType !== eventType) return false;
  if (f.customName !== undefined && c.customName !== f.customName) return false;
  if (f.linkId !== undefined && c.linkId !== f.linkId) return false;
  if (f.campaignId !== undefined && c.campaignId !== f.campaignId) return false;
  if (f.qrCodeId !== undefined && c.qrCodeId !== f.qrCodeId) return false;
  return true;
}

/** The Conversion summary of workspace `ws` over `w`, narrowed by `f` (windowFrom/windowTo aside). */
export function recountSummary(ws: string, convs: RConversion[], clicks: RClick[], w: Win, f: Filters, now: number) {
  const inScope = convs.filter((c) => c.workspaceId === ws && inWindow(c.occurredAt, w) && matchesFilters(c, f));
  const attributed = inScope.filter((c) => c.linkId !== null);

  const types = new Map<string, { eventType: EventType; label: string; conversions: number }>();
  for (const c of inScope) {
    const label = c.eventType === 'custom' ? c.customName! : LABELS[c.eventType];
    const k = `${c.eventType}|${label}`;
    const e = types.get(k) ?? { eventType: c.eventType, label, conversions: 0 };
    e.conversions += 1;
    types.set(k, e);
  }
  const byEventType = [...types.values()].sort(
    (a, b) => b.conversions - a.conversions || asc(a.eventType, b.eventType) || asc(a.label, b.label),
  );

  /** Conversions by link or by QR code, each with its rate against that object's clicks. */
  const withRate = (object: 'linkId' | 'qrCodeId') =>
    breakdown(inScope, (c) => c[object]).map((e) => ({
      ...e,
      rate: rateOf(
        e.conversions,
        clicksIn(clicks, ws, w, (k) => k[object] === e.id),
        w,
        now,
      ),
    }));
  const byLink = withRate('linkId');
  const byCampaign = breakdown(inScope, (c) => c.campaignId);
  const byQr = withRate('qrCodeId');

  // The overall rate: what the summary is narrowed to - one QR code (its scans), one link (its
  // clicks), else every click of the workspace - against the attributed conversions.
  let rate: Rate;
  if (f.qrCodeId !== undefined)
    rate = rateOf(
      inScope.length,
      clicksIn(clicks, ws, w, (k) => k.qrCodeId === f.qrCodeId),
      w,
      now,
    );
  else if (f.linkId !== undefined)
    rate = rateOf(
      attributed.length,
      clicksIn(clicks, ws, w, (k) => k.linkId === f.linkId),
      w,
      now,
    );
  else rate = rateOf(attributed.length, clicksIn(clicks, ws, w), w, now);

  return {
    total: inScope.length,
    attributedConversions: attributed.length,
    unattributedConversions: inScope.length - attributed.length,
    byEventType,
    byLink,
    byCampaign,
    byQr,
    value: valueEntriesOf(inScope),
    rate,
    unavailable: w.from < now - CONVERSION_RETENTION,
  };
}

export interface RGoal {
  id: string;
  workspaceId: string;
  type: EventType;
  customName: string | null;
  linkId: string | null;
  qrCodeId: string | null;
  campaignId: string | null;
  targetCount: number | null;
  targetValueMinor: number | null;
  targetCurrency: string | null;
  windowStart: number | null;
  windowEnd: number | null;
}

export const isScoped = (g: RGoal) => !!(g.linkId || g.qrCodeId || g.campaignId);

/**
 * Whether a goal matches a conversion (the window aside). Only a goal with no scope counts
 * unattributed conversions: a scoped goal - a campaign goal included - never does.
 */
export function goalMatches(g: RGoal, c: RConversion): boolean {
  if (c.workspaceId !== g.workspaceId || c.eventType !== g.type) return false;
  if (g.type === 'custom' && g.customName !== null && c.customName !== g.customName) return false;
  if (g.linkId && c.linkId !== g.linkId) return false;
  if (g.qrCodeId && c.qrCodeId !== g.qrCodeId) return false;
  if (g.campaignId && c.campaignId !== g.campaignId) return false;
  if (isScoped(g) && c.linkId === null) return false;
  return true;
}

/** The requested window intersected with the goal's own [windowStart, windowEnd). */
export function intersect(requested: Win, g: RGoal) {
  const from = Math.max(requested.from, g.windowStart ?? -Infinity);
  const to = Math.min(requested.to, g.windowEnd ?? Infinity);
  const narrowedByGoal = from !== requested.from || to !== requested.to;
  const disjoint = from > to || (from === to && requested.from !== requested.to);
  return { window: disjoint ? requested : { from, to }, narrowedByGoal, disjoint };
}

const progressOf = (target: number, current: number) => ({
  target,
  current,
  ratio: target === 0 ? 1 : current / target,
  reached: current >= target,
});

/** `data` of the goal report, `definition` aside (the test adds what the goal row says). */
export function recountGoal(
  g: RGoal,
  convs: RConversion[],
  clicks: RClick[],
  requested: Win,
  now: number,
  scopeObjectMissing: boolean,
) {
  const { window: w, narrowedByGoal, disjoint } = intersect(requested, g);
  const matched = disjoint ? [] : convs.filter((c) => goalMatches(g, c) && inWindow(c.occurredAt, w));
  const attributed = matched.filter((c) => c.linkId !== null);
  const value = valueEntriesOf(matched);
  let rate: Rate;
  if (disjoint) rate = rateOf(0, 0, w, now);
  else if (g.qrCodeId)
    rate = rateOf(
      matched.length,
      clicksIn(clicks, g.workspaceId, w, (k) => k.qrCodeId === g.qrCodeId),
      w,
      now,
    );
  else if (g.linkId)
    rate = rateOf(
      attributed.length,
      clicksIn(clicks, g.workspaceId, w, (k) => k.linkId === g.linkId),
      w,
      now,
    );
  else rate = rateOf(attributed.length, clicksIn(clicks, g.workspaceId, w), w, now);
  return {
    goalId: g.id,
    window: { from: new Date(w.from).toISOString(), to: new Date(w.to).toISOString(), narrowedByGoal, disjoint },
    conversions: matched.length,
    value,
    unattributedConversions: isScoped(g) ? 0 : matched.length - attributed.length,
    unattributedIncluded: !isScoped(g),
    countProgress: g.targetCount === null ? null : progressOf(g.targetCount, matched.length),
    valueProgress:
      g.targetValueMinor === null || g.targetCurrency === null
        ? null
        : {
            currency: g.targetCurrency,
            ...progressOf(g.targetValueMinor, value.find((v) => v.currency === g.targetCurrency)?.valueMinor ?? 0),
          },
    rate,
    completeness: { windowTruncatedByRetention: w.from < now - CONVERSION_RETENTION, scopeObjectMissing },
  };
}

/** Sorts every `value` array by currency: the contract leaves their order open. */
export function normalizeValues<T>(x: T): T {
  if (Array.isArray(x)) return x.map(normalizeValues) as T;
  if (x && typeof x === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) {
      out[k] =
        k === 'value' && Array.isArray(v)
          ? [...v].sort((a: any, b: any) => asc(a.currency, b.currency))
          : normalizeValues(v);
    }
    return out as T;
  }
  return x;
}

// ---------------------------------------------------------------------------------------------
// Seeded data

/** mulberry32: a small, fast, seeded PRNG (same seed, same data set on every run). */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    chance: (p: number) => next() < p,
  };
}

export const dayOf = (t: number) => Math.floor(t / DAY);
export const midnight = (t: number) => dayOf(t) * DAY;

export interface Objects {
  workspaceId: string;
  links: string[];
  campaigns: string[];
  /** QR code id -> its link id. */
  qrs: Record<string, string>;
}

/** A conversion to POST: the body, and what the service should record for it. */
export interface PlannedConversion {
  body: Record<string, unknown>;
  expected: RConversion;
}

export const CUSTOM_NAMES = ['newsletter_optin', 'webinar', 'trial_start', 'x'.repeat(40)];
const CURRENCIES = ['EUR', 'USD', 'JPY'];

/** One random conversion of `o` at `at`, with a random type, attribution, value and metadata. */
export function randomConversion(r: ReturnType<typeof rng>, o: Objects, at: number): PlannedConversion {
  const eventType = r.pick<EventType>([
    'purchase',
    'purchase',
    'purchase',
    'signup',
    'signup',
    'lead',
    'booking',
    'download',
    'custom',
    'custom',
  ]);
  const customName = eventType === 'custom' ? r.pick(CUSTOM_NAMES) : null;
  const qrIds = Object.keys(o.qrs);
  let linkId: string | null = null;
  let qrCodeId: string | null = null;
  let campaignId: string | null = null;
  let sentLinkId: string | null = null;
  switch (r.int(0, 6)) {
    case 0: // a link
    case 1:
      linkId = sentLinkId = r.pick(o.links);
      break;
    case 2: // a link and a campaign
      linkId = sentLinkId = r.pick(o.links);
      campaignId = r.pick(o.campaigns);
      break;
    case 3: // a QR code alone, attributed to its link; sometimes with a campaign
      qrCodeId = r.pick(qrIds);
      linkId = o.qrs[qrCodeId];
      if (r.chance(0.4)) campaignId = r.pick(o.campaigns);
      break;
    case 4: // a QR code and its own link
      qrCodeId = r.pick(qrIds);
      linkId = sentLinkId = o.qrs[qrCodeId];
      break;
    case 5: // a campaign alone: unattributed
      campaignId = r.pick(o.campaigns);
      break;
    default: // nothing: unattributed
  }
  const value = r.chance(0.6)
    ? (() => {
        const currency = r.pick(CURRENCIES);
        const amountMinor = r.chance(0.05) ? 0 : currency === 'JPY' ? r.int(1, 200) * 100 : r.int(50, 99_999);
        return { amountMinor, currency };
      })()
    : null;
  const body: Record<string, unknown> = { eventType, occurredAt: new Date(at).toISOString() };
  if (customName !== null) body.customName = customName;
  if (sentLinkId) body.linkId = sentLinkId;
  if (qrCodeId) body.qrCodeId = qrCodeId;
  if (campaignId) body.campaignId = campaignId;
  if (value) body.value = value;
  if (r.chance(0.3)) body.metadata = { orderId: `o-${r.int(1, 1e9)}`, secret: 'METADATA-MUST-NOT-LEAK' };
  return {
    body,
    expected: {
      workspaceId: o.workspaceId,
      eventType,
      customName,
      linkId,
      campaignId,
      qrCodeId,
      value,
      occurredAt: at,
    },
  };
}

/**
 * Random clicks on the links of `o` (a third of them through one of the link's QR codes) at
 * the times `times`.
 */
export function randomClicks(r: ReturnType<typeof rng>, o: Objects, times: number[]): RClick[] {
  return times.map((at) => {
    const linkId = r.pick(o.links);
    const qrs = Object.keys(o.qrs).filter((q) => o.qrs[q] === linkId);
    const qrCodeId = qrs.length && r.chance(0.35) ? r.pick(qrs) : null;
    return { workspaceId: o.workspaceId, linkId, qrCodeId, at };
  });
}

// ---------------------------------------------------------------------------------------------
// Writing a data set into a running test server

export { DATA_SCOPES };

/** Mints keys of one member on demand, a new one every 50 requests (60 a minute per key). */
export function keyRing(knex: () => Knex, workspaceId: string, userId: string, scopes: Scope[] = DATA_SCOPES) {
  let key: string | undefined;
  let used = 0;
  return async () => {
    if (!key || used >= 50) {
      key = (await createKey(knex(), workspaceId, userId, scopes, null)).key;
      used = 0;
    }
    used++;
    return key;
  };
}

/** Creates `links` links (through the API), `campaigns` campaigns and QR codes on the links named by `qrOn` (indexes). */
export async function createObjects(
  server: TestServer,
  ws: { workspaceId: string; userId: string },
  counts: { links: number; campaigns: number; qrOn: number[] },
): Promise<Objects> {
  const knex = server.services.db.knex;
  const key = keyRing(() => knex, ws.workspaceId, ws.userId);
  const links: string[] = [];
  for (let i = 0; i < counts.links; i++) {
    const res = await server.request('POST', '/api/v1/links', {
      key: await key(),
      body: { url: `https://example.com/landing/${i}` },
    });
    if (res.status !== 201) throw new Error(`link not created: ${res.status} ${res.text}`);
    links.push(res.body.data.id);
  }
  const campaigns: string[] = [];
  for (let i = 0; i < counts.campaigns; i++)
    campaigns.push(await createCampaign(knex, ws.workspaceId, `Campaign ${i}`));
  const qrs: Record<string, string> = {};
  for (const i of counts.qrOn) qrs[(await createQrCode(knex, ws.workspaceId, links[i])).id] = links[i];
  return { workspaceId: ws.workspaceId, links, campaigns, qrs };
}

/**
 * Records the planned conversions through POST /api/v1/conversions (the real write path),
 * a few at a time, and returns what the recount folds (with the ids the service gave).
 */
export async function postConversions(
  server: TestServer,
  ws: { workspaceId: string; userId: string },
  planned: PlannedConversion[],
  parallel = 6,
): Promise<RConversion[]> {
  const key = keyRing(() => server.services.db.knex, ws.workspaceId, ws.userId);
  const out: RConversion[] = new Array(planned.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < planned.length) {
        const i = next++;
        const res = await server.request('POST', '/api/v1/conversions', { key: await key(), body: planned[i].body });
        if (res.status !== 201)
          throw new Error(`conversion not recorded: ${res.status} ${res.text} for ${JSON.stringify(planned[i].body)}`);
        out[i] = { ...planned[i].expected, id: res.body.data.id };
      }
    }),
  );
  return out;
}

/**
 * Writes clicks as the click pipeline leaves them after retention: daily counts per link (and
 * scans per link and per QR code) for every click, raw events only for clicks at or after
 * `rawFrom` (older raw events are gone after the 90-day retention).
 */
export async function insertClicks(knex: Knex, clicks: RClick[], rawFrom: number): Promise<void> {
  const raw = clicks
    .filter((c) => c.at >= rawFrom)
    .map((c) => ({ workspace_id: c.workspaceId, link_id: c.linkId, qr_code_id: c.qrCodeId, occurred_at: c.at }));
  const perLinkDay = new Map<
    string,
    { link_id: string; workspace_id: string; day: number; clicks: number; scans: number }
  >();
  const perQrDay = new Map<string, { qr_code_id: string; workspace_id: string; day: number; scans: number }>();
  for (const c of clicks) {
    const day = dayOf(c.at);
    const l = perLinkDay.get(`${c.linkId}|${day}`) ?? {
      link_id: c.linkId,
      workspace_id: c.workspaceId,
      day,
      clicks: 0,
      scans: 0,
    };
    l.clicks++;
    if (c.qrCodeId) l.scans++;
    perLinkDay.set(`${c.linkId}|${day}`, l);
    if (c.qrCodeId) {
      const q = perQrDay.get(`${c.qrCodeId}|${day}`) ?? {
        qr_code_id: c.qrCodeId,
        workspace_id: c.workspaceId,
        day,
        scans: 0,
      };
      q.scans++;
      perQrDay.set(`${c.qrCodeId}|${day}`, q);
    }
  }
  await knex.transaction(async (trx) => {
    for (let i = 0; i < raw.length; i += 200) await trx('clicks').insert(raw.slice(i, i + 200));
    const days = [...perLinkDay.values()];
    for (let i = 0; i < days.length; i += 200) await trx('link_daily_clicks').insert(days.slice(i, i + 200));
    const scans = [...perQrDay.values()];
    for (let i = 0; i < scans.length; i += 200) await trx('qr_daily_scans').insert(scans.slice(i, i + 200));
  });
}
