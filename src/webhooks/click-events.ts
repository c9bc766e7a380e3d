// Webhook events from flushed clicks, raised inside the click flush transaction (the click
// writer, src/clicks/writer.ts, writes what this returns to the outbox):
// link.clicked / qr.scanned (Variant B, one per recorded click; a click through a QR code is
// a scan, not a click), and the Variant A traffic alerts analytics.spike and
// analytics.geo_anomaly, evaluated per link of the batch over the windows that have closed,
// from the link's clicks per 5-minute window and country (link_click_windows, written by the
// same flush just before this runs).
import type { DbTransaction } from '../db/knex.ts';
import * as links from '../db/repos/links.ts';
import type { SubscriptionTarget } from '../db/repos/outbox.ts';
import { claimAlert, lastAlertsOf, linkWindows, windowTotals } from '../db/repos/traffic-alerts.ts';
import type { ClickSink, StoredClick } from '../db/repos/click-batches.ts';
import {
  CLICK_WINDOW_MS,
  detectGeoAnomalies,
  detectSpike,
  GEO_BASELINE_MS,
  GEO_MIN_CLICKS,
  GEO_QUIET_MS,
  GEO_WINDOW_MS,
  SPIKE_BASELINE_WINDOWS,
  SPIKE_MIN_CLICKS,
  SPIKE_QUIET_MS,
  SPIKE_WINDOW_MS,
  TRAFFIC_ALERT_EVENTS,
  windowStartOf,
} from '../domain/analytics-alerts.ts';
import { serviceEvent, type EventSubjects, type ServiceEvent } from '../domain/events.ts';
import { linkHost } from './link-events.ts';
import { pageViewSink } from './page-events.ts';

/** Every event a click flush can raise: link.clicked, qr.scanned, the traffic alerts and page.viewed. */
export const clickSinks = (opts: ClickEventOptions): ClickSink[] => [webhookClickSink(opts), pageViewSink()];

/** How many closed windows back a flush still evaluates (a link's clicks may pause). */
const SPIKE_LOOKBACK_WINDOWS = 12;
const GEO_LOOKBACK_WINDOWS = 3;
const MEMO_LIMIT = 50_000;

export interface ClickEventOptions {
  shortDomain: string;
  /**
   * A window is evaluated once it closed this long ago, so that the clicks of its last moments
   * have been flushed (by every process) too.
   */
  settleMs: number;
  now?: () => number;
}

type LinkInfo = links.ClickedLink;
type TrafficAlertType = (typeof TRAFFIC_ALERT_EVENTS)[number];

const wants = (targets: SubscriptionTarget[], workspaceId: string, variant: 'A' | 'B', events: readonly string[]) =>
  targets.some((t) => t.workspaceId === workspaceId && t.variant === variant && events.some((e) => t.events.has(e)));

export function webhookClickSink(opts: ClickEventOptions): ClickSink {
  const now = opts.now ?? Date.now;
  // The last window end evaluated per link in this process: each window is read once.
  const evaluated = { spike: new Map<string, number>(), geo: new Map<string, number>() };

  async function linksOf(trx: DbTransaction, ids: string[]): Promise<Map<string, LinkInfo & { host: string }>> {
    const rows = await links.clickedLinks(trx, ids);
    const hosts = new Map<string | null, string>();
    const out = new Map<string, LinkInfo & { host: string }>();
    for (const row of rows) {
      if (!hosts.has(row.domain_id)) hosts.set(row.domain_id, await linkHost(trx, row.domain_id, opts.shortDomain));
      out.set(row.id, { ...row, host: hosts.get(row.domain_id)! });
    }
    return out;
  }

  function visitEvents(clicks: StoredClick[], links: Map<string, LinkInfo & { host: string }>): ServiceEvent[] {
    const events: ServiceEvent[] = [];
    for (const click of clicks) {
      const link = links.get(click.link_id);
      if (!link) continue;
      const visit = {
        linkId: link.id,
        slug: link.slug,
        destinationUrl: link.original_url,
        domain: link.host,
        referrer: click.referrer_host,
        country: click.country,
        city: click.city,
        device: click.device,
        browser: click.browser,
        os: click.os,
      };
      const fields = { workspaceId: click.workspace_id, requestId: null, occurredAt: Number(click.occurred_at) };
      events.push(
        click.qr_code_id
          ? serviceEvent('qr.scanned', { ...fields, subject: { ...visit, qrCodeId: click.qr_code_id } })
          : serviceEvent('link.clicked', { ...fields, subject: visit }),
      );
    }
    return events;
  }

  /** The link's click windows in [from, to) (both on window boundaries). */
  async function windowsOf(trx: DbTransaction, linkId: string, from: number, to: number) {
    const starts: number[] = [];
    for (let w = windowStartOf(from, CLICK_WINDOW_MS); w < to; w += CLICK_WINDOW_MS) starts.push(w);
    return linkWindows(trx, linkId, starts);
  }

  /** Clicks of the link per window in [from, to), keyed by window start. */
  async function countsPerWindow(
    trx: DbTransaction,
    linkId: string,
    from: number,
    to: number,
    windowMs: number,
  ): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    for (const r of await windowsOf(trx, linkId, from, to)) {
      const w = windowStartOf(r.window_start, windowMs);
      counts.set(w, (counts.get(w) ?? 0) + r.clicks);
    }
    return counts;
  }

  async function countriesIn(trx: DbTransaction, linkId: string, from: number, to: number) {
    const byCountry = new Map<string, number>();
    let total = 0;
    for (const r of await windowsOf(trx, linkId, from, to)) {
      total += r.clicks;
      // '' is a click whose country is unknown: it counts, but is never a country.
      if (r.country) byCountry.set(r.country, (byCountry.get(r.country) ?? 0) + r.clicks);
    }
    return { total, byCountry };
  }

  function remember(memo: Map<string, number>, linkId: string, windowEnd: number): boolean {
    if (memo.get(linkId) === windowEnd) return false;
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(linkId, windowEnd);
    return true;
  }

  /** A traffic alert on the link, raised now: its subject is the link and what was detected. */
  function alertEvent<T extends TrafficAlertType>(
    type: T,
    link: LinkInfo,
    detected: Omit<EventSubjects[T], 'linkId' | 'slug'>,
  ): ServiceEvent {
    const subject = { linkId: link.id, slug: link.slug, ...detected } as EventSubjects[T];
    return serviceEvent(type, { workspaceId: link.workspace_id, requestId: null, occurredAt: now(), subject });
  }

  async function spikes(
    trx: DbTransaction,
    link: LinkInfo,
    latestEnd: number,
    last: number | null,
  ): Promise<ServiceEvent[]> {
    const firstCandidate = latestEnd - SPIKE_LOOKBACK_WINDOWS * SPIKE_WINDOW_MS;
    const counts = await countsPerWindow(
      trx,
      link.id,
      firstCandidate - SPIKE_BASELINE_WINDOWS * SPIKE_WINDOW_MS,
      latestEnd,
      SPIKE_WINDOW_MS,
    );
    const events: ServiceEvent[] = [];
    for (let start = firstCandidate; start < latestEnd; start += SPIKE_WINDOW_MS) {
      const previousWindows = Array.from(
        { length: SPIKE_BASELINE_WINDOWS },
        (_, i) => counts.get(start - (SPIKE_BASELINE_WINDOWS - i) * SPIKE_WINDOW_MS) ?? 0,
      );
      const spike = detectSpike({
        windowStart: start,
        clicks: counts.get(start) ?? 0,
        previousWindows,
        lastSpikeWindowEnd: last,
      });
      if (
        !spike ||
        !(await claimAlert(trx, { link_id: link.id, kind: 'spike', country: '' }, spike.windowEnd, SPIKE_QUIET_MS))
      )
        continue;
      last = spike.windowEnd;
      events.push(alertEvent('analytics.spike', link, spike));
    }
    return events;
  }

  async function geoAnomalies(
    trx: DbTransaction,
    link: LinkInfo,
    latestEnd: number,
    last: Map<string, number>,
  ): Promise<ServiceEvent[]> {
    const firstCandidate = latestEnd - GEO_LOOKBACK_WINDOWS * GEO_WINDOW_MS;
    const totals = await countsPerWindow(trx, link.id, firstCandidate, latestEnd, GEO_WINDOW_MS);
    const events: ServiceEvent[] = [];
    for (let start = firstCandidate; start < latestEnd; start += GEO_WINDOW_MS) {
      if ((totals.get(start) ?? 0) < GEO_MIN_CLICKS) continue;
      const hour = await countriesIn(trx, link.id, start, start + GEO_WINDOW_MS);
      const history = await countriesIn(trx, link.id, start - GEO_BASELINE_MS, start);
      const found = detectGeoAnomalies({
        windowStart: start,
        clicks: hour.total,
        byCountry: hour.byCountry,
        historyClicks: history.total,
        historyByCountry: history.byCountry,
        lastEventWindowEnd: last,
      });
      for (const anomaly of found) {
        if (
          !(await claimAlert(
            trx,
            { link_id: link.id, kind: 'geo_anomaly', country: anomaly.country },
            anomaly.windowEnd,
            GEO_QUIET_MS,
          ))
        )
          continue;
        last.set(anomaly.country, anomaly.windowEnd);
        events.push(alertEvent('analytics.geo_anomaly', link, anomaly));
      }
    }
    return events;
  }

  /**
   * The links of `ids` that could raise an alert now: a spike needs a window of at least
   * SPIKE_MIN_CLICKS among the spike candidates, a geo anomaly an hour of at least GEO_MIN_CLICKS
   * among the geo candidates (detectSpike and geoAnomalies skip anything less). Read for many
   * links at once, window totals only: most visited links have far fewer clicks, and reading
   * each link's windows and alert state one query at a time made the click writer fall behind on
   * a million links visited at random (bench/README.md, click writer).
   */
  async function busyLinks(trx: DbTransaction, ids: string[], spikeEnd: number, geoEnd: number) {
    const spikeFrom = spikeEnd - SPIKE_LOOKBACK_WINDOWS * SPIKE_WINDOW_MS;
    const geoFrom = geoEnd - GEO_LOOKBACK_WINDOWS * GEO_WINDOW_MS;
    const starts: number[] = [];
    for (
      let w = windowStartOf(Math.min(spikeFrom, geoFrom), CLICK_WINDOW_MS);
      w < Math.max(spikeEnd, geoEnd);
      w += CLICK_WINDOW_MS
    )
      starts.push(w);
    const busy = new Map<string, { spike: boolean; geo: boolean }>();
    const hours = new Map<string, number>();
    for (const r of await windowTotals(trx, ids, starts)) {
      const start = r.window_start;
      const n = r.clicks;
      const b = busy.get(r.link_id) ?? { spike: false, geo: false };
      if (start >= spikeFrom && start < spikeEnd && n >= SPIKE_MIN_CLICKS) b.spike = true;
      if (start >= geoFrom && start < geoEnd) {
        const key = `${r.link_id} ${windowStartOf(start, GEO_WINDOW_MS)}`;
        const total = (hours.get(key) ?? 0) + n;
        hours.set(key, total);
        if (total >= GEO_MIN_CLICKS) b.geo = true;
      }
      busy.set(r.link_id, b);
    }
    return busy;
  }

  return async (trx, clicks, targets) => {
    if (!clicks.length || !targets.length) return [];
    const visits = clicks.filter((c) => wants(targets, c.workspace_id, 'B', ['link.clicked', 'qr.scanned']));

    // Alerts: each link of the batch is looked at once per window end (per process), and only
    // the busy ones are evaluated.
    const at = now() - opts.settleMs;
    const spikeEnd = windowStartOf(at, SPIKE_WINDOW_MS);
    const geoEnd = windowStartOf(at, GEO_WINDOW_MS);
    const toCheck = new Map<string, { spike: boolean; geo: boolean }>();
    for (const c of clicks) {
      if (toCheck.has(c.link_id) || !wants(targets, c.workspace_id, 'A', TRAFFIC_ALERT_EVENTS)) continue;
      const spike =
        wants(targets, c.workspace_id, 'A', ['analytics.spike']) && remember(evaluated.spike, c.link_id, spikeEnd);
      const geo =
        wants(targets, c.workspace_id, 'A', ['analytics.geo_anomaly']) && remember(evaluated.geo, c.link_id, geoEnd);
      if (spike || geo) toCheck.set(c.link_id, { spike, geo });
    }
    const busy = await busyLinks(trx, [...toCheck.keys()].sort(), spikeEnd, geoEnd);
    const evaluate = [...toCheck]
      .map(([id, c]) => ({ id, spike: c.spike && !!busy.get(id)?.spike, geo: c.geo && !!busy.get(id)?.geo }))
      .filter((e) => e.spike || e.geo)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (!visits.length && !evaluate.length) return [];
    const links = await linksOf(trx, [...new Set([...visits.map((c) => c.link_id), ...evaluate.map((e) => e.id)])]);
    const events = visitEvents(visits, links);

    for (const e of evaluate) {
      const link = links.get(e.id);
      if (!link) continue;
      const last = await lastAlertsOf(trx, e.id);
      if (e.spike) events.push(...(await spikes(trx, link, spikeEnd, last.spike)));
      if (e.geo) events.push(...(await geoAnomalies(trx, link, geoEnd, last.geo)));
    }
    return events;
  };
}
