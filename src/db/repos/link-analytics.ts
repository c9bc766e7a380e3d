// A link's analytics for the dashboard (openapi/dashboard.yaml, getLinkAnalytics): clicks and QR
// scans per day from the daily counts, and breakdowns of the last 90 days (raw clicks' retention)
// by country, device, browser, operating system and referrer host, from the click writer's counts
// per link, day and value (link_daily_dims, migration 20261125000000): for a link with a million
// clicks a few hundred thousand counts instead of a million raw clicks found among every click of
// the workspace (bench/README.md, dashboard reads).
import type { Knex } from 'knex';
import { readSnapshot } from '../knex.ts';
import { DIMENSION_CODES } from './click-batches.ts';

export const BREAKDOWN_DAYS = 90;
export const BREAKDOWN_TOP = 10;
export const BREAKDOWN_DIMENSIONS = ['country', 'device', 'browser', 'os', 'referrer'] as const;
export type BreakdownDimension = (typeof BREAKDOWN_DIMENSIONS)[number];

export interface LinkAnalyticsData {
  /** day → clicks through the short URL and scans of its QR codes. */
  days: Map<number, { clicks: number; scans: number }>;
  breakdowns: Record<BreakdownDimension, Array<{ value: string; clicks: number }>>;
}

/**
 * Days [fromDay, toDay] of the series; the breakdowns over the 90 days ending today. Counts per
 * value, largest first (all of them: the caller keeps the top ones and sums the rest).
 */
export async function readLinkAnalytics(knex: Knex, workspaceId: string, linkId: string, fromDay: number, toDay: number, today: number): Promise<LinkAnalyticsData> {
  return readSnapshot(knex, async (trx) => {
    const days = new Map<number, { clicks: number; scans: number }>();
    const rows = await trx('link_daily_clicks')
      .where({ workspace_id: workspaceId, link_id: linkId })
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .select('day', 'clicks', 'scans');
    // A day's `clicks` count every visit, QR scans among them.
    for (const r of rows) days.set(Number(r.day), { clicks: Number(r.clicks) - Number(r.scans), scans: Number(r.scans) });
    const breakdowns = {} as LinkAnalyticsData['breakdowns'];
    const byCode = new Map<number, Array<{ value: string; clicks: number }>>();
    for (const dim of BREAKDOWN_DIMENSIONS) byCode.set(DIMENSION_CODES[dim], (breakdowns[dim] = []));
    // Keyed (workspace, link, dim, value, day): the sums come out of one range of the key, already
    // grouped. Days from the first of the 90 on, as the raw clicks' `occurred_at >= ` it was.
    const counted = await trx('link_daily_dims')
      .where({ workspace_id: workspaceId, link_id: linkId })
      .where('day', '>=', today - BREAKDOWN_DAYS + 1)
      .groupBy('dim', 'value')
      .select('dim', 'value')
      .sum({ n: 'clicks' });
    for (const r of counted as Array<{ dim: number | string; value: string; n: number | string }>) byCode.get(Number(r.dim))?.push({ value: r.value, clicks: Number(r.n) });
    for (const dim of BREAKDOWN_DIMENSIONS) breakdowns[dim].sort((a, b) => b.clicks - a.clicks || (a.value < b.value ? -1 : 1));
    return { days, breakdowns };
  });
}
