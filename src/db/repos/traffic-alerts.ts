// What the Variant A traffic alerts read and claim (src/webhooks/click-events.ts evaluates them):
// clicks per link, 5-minute window and country (link_click_windows, traffic-windows.ts keeps
// them), and the last window each alert was raised for (analytics_alert_state).
import type { Knex } from 'knex';

export interface AlertKey {
  link_id: string;
  kind: 'spike' | 'geo_anomaly';
  /** '' for a spike. */
  country: string;
}

/**
 * Takes the alert's rate-limit slot: true when no alert of this key was raised within `quietMs`
 * before `windowEnd` (and records this one), false when another event or process holds it.
 */
export async function claimAlert(trx: Knex, key: AlertKey, windowEnd: number, quietMs: number): Promise<boolean> {
  const inserted = await trx('analytics_alert_state')
    .insert({ ...key, last_window_end: windowEnd })
    .onConflict(['link_id', 'kind', 'country'])
    .ignore()
    .returning('link_id');
  if (inserted.length) return true;
  const updated = await trx('analytics_alert_state')
    .where(key)
    .where('last_window_end', '<=', windowEnd - quietMs)
    .update({ last_window_end: windowEnd });
  return updated > 0;
}

/** The last window end each alert of the link was raised for. */
export async function lastAlertsOf(
  trx: Knex,
  linkId: string,
): Promise<{ spike: number | null; geo: Map<string, number> }> {
  const rows = await trx('analytics_alert_state')
    .where({ link_id: linkId })
    .select('kind', 'country', 'last_window_end');
  const spike = rows.find((r) => r.kind === 'spike');
  const geo = new Map<string, number>(
    rows.filter((r) => r.kind === 'geo_anomaly').map((r) => [r.country, Number(r.last_window_end)]),
  );
  return { spike: spike ? Number(spike.last_window_end) : null, geo };
}

/**
 * The link's rows of link_click_windows at the given window starts. The table is keyed
 * (window_start, link_id, country), so naming each start is one key lookup per window rather
 * than a scan of every link's windows in the range.
 */
export async function linkWindows(
  trx: Knex,
  linkId: string,
  starts: number[],
): Promise<Array<{ window_start: number; country: string; clicks: number }>> {
  const rows: Array<{ window_start: number; country: string; clicks: number }> = [];
  for (let i = 0; i < starts.length; i += 500) {
    const part = await trx('link_click_windows')
      .whereIn('window_start', starts.slice(i, i + 500))
      .where({ link_id: linkId })
      .select('window_start', 'country', 'clicks');
    for (const r of part)
      rows.push({ window_start: Number(r.window_start), country: r.country, clicks: Number(r.clicks) });
  }
  return rows;
}

/** Clicks per link and window start (all countries) of many links at once. */
export async function windowTotals(
  trx: Knex,
  linkIds: string[],
  starts: number[],
): Promise<Array<{ link_id: string; window_start: number; clicks: number }>> {
  const out: Array<{ link_id: string; window_start: number; clicks: number }> = [];
  for (let i = 0; i < linkIds.length; i += 200) {
    const rows = await trx('link_click_windows')
      .whereIn('window_start', starts)
      .whereIn('link_id', linkIds.slice(i, i + 200))
      .groupBy('link_id', 'window_start')
      .select('link_id', 'window_start', trx.raw('SUM(clicks) AS n'));
    for (const r of rows as Array<{ link_id: string; window_start: number | string; n: number | string }>) {
      out.push({ link_id: r.link_id, window_start: Number(r.window_start), clicks: Number(r.n) });
    }
  }
  return out;
}
