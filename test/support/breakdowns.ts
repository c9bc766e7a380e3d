// Clicks of mixed traffic and the breakdowns a link's analytics must give for them, counted from
// the raw clicks: what the dashboard's analytics tests hold the service to
// (test/db/dashboard-aggregates.test.ts, test/db/click-folds.test.ts).
import type { Knex } from 'knex';
import type { StoredClick } from '../../src/db/repos/click-batches';
import { BREAKDOWN_DIMENSIONS } from '../../src/db/repos/link-analytics';
import { DAY, rng } from './recount';

/** A click's value of each dimension, '' when unknown; a city with its country, as `CC:City`. */
const VALUE: Record<string, (c: any) => string> = {
  country: (c) => c.country ?? '',
  city: (c) => (c.city === null ? '' : `${c.country ?? ''}:${c.city}`),
  device: (c) => c.device ?? '',
  browser: (c) => c.browser ?? '',
  os: (c) => c.os ?? '',
  referrer: (c) => c.referrer_host ?? '',
};

/** `count` clicks on the workspaces' links between `from` and `to`, a fifth QR scans, some values unknown. */
export function randomClicks(
  seed: number,
  workspaces: Array<{ ws: string; links: string[] }>,
  count: number,
  from: number,
  to: number,
): StoredClick[] {
  const r = rng(seed);
  const maybe = <T>(values: T[]) => (r.chance(0.15) ? null : r.pick(values));
  return Array.from({ length: count }, () => {
    const { ws, links } = r.pick(workspaces);
    const link = r.pick(links);
    return {
      workspace_id: ws,
      link_id: link,
      qr_code_id: r.chance(0.2) ? `qr_${link}` : null,
      occurred_at: from + Math.floor(r.next() * (to - from)),
      referrer_host: maybe(['news.example.org', 'mail.example.com', 'ünï.example']),
      country: maybe(['DE', 'FR', 'US', 'JP']),
      // One name in several countries, and cities whose country is unknown.
      city: maybe(['Springfield', 'Köln', 'Springfield', 'Paris']),
      route: null,
      device: maybe(['desktop', 'mobile', 'tablet']),
      browser: maybe(['Chrome', 'Firefox', 'Safari']),
      os: maybe(['Windows', 'iOS', 'Linux', 'Android']),
    };
  });
}

/** The breakdowns of a link's raw clicks since `fromDay`, as the analytics read must give them. */
export async function rawBreakdowns(knex: Knex, ws: string, link: string, fromDay: number) {
  const out: Record<string, Array<{ value: string; clicks: number }>> = {};
  const clicks = (await knex('clicks').where({ workspace_id: ws, link_id: link }).select('*')).filter(
    (c: any) => Number(c.occurred_at) >= fromDay * DAY,
  );
  for (const dim of BREAKDOWN_DIMENSIONS) {
    const counts = new Map<string, number>();
    for (const c of clicks) counts.set(VALUE[dim](c), (counts.get(VALUE[dim](c)) ?? 0) + 1);
    out[dim] = [...counts]
      .map(([value, n]) => ({ value, clicks: n }))
      .sort((a, b) => b.clicks - a.clicks || (a.value < b.value ? -1 : 1));
  }
  return out;
}
