// A link's analytics for the dashboard (openapi/dashboard.yaml, getLinkAnalytics): clicks and QR
// scans per day from the daily counts, and breakdowns of the last 90 days (raw clicks' retention)
// by country, device, browser, operating system and referrer host.
import type { Knex } from 'knex';
import { readSnapshot } from '../knex.ts';

export const BREAKDOWN_DAYS = 90;
export const BREAKDOWN_TOP = 10;
export const BREAKDOWN_DIMENSIONS = ['country', 'device', 'browser', 'os', 'referrer'] as const;
export type BreakdownDimension = (typeof BREAKDOWN_DIMENSIONS)[number];
const COLUMN: Record<BreakdownDimension, string> = { country: 'country', device: 'device', browser: 'browser', os: 'os', referrer: 'referrer_host' };

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
    const since = (today - BREAKDOWN_DAYS + 1) * 86_400_000;
    const breakdowns = {} as LinkAnalyticsData['breakdowns'];
    for (const dim of BREAKDOWN_DIMENSIONS) {
      const col = COLUMN[dim];
      const counted = await trx('clicks')
        .where({ workspace_id: workspaceId, link_id: linkId })
        .where('occurred_at', '>=', since)
        .groupBy(col)
        .select({ value: col })
        .count({ n: '*' });
      breakdowns[dim] = counted
        .map((r: any) => ({ value: r.value ?? '', clicks: Number(r.n) }))
        .sort((a, b) => b.clicks - a.clicks || (a.value < b.value ? -1 : 1));
    }
    return { days, breakdowns };
  });
}
