// Retention: raw click events are kept 90 days (daily counts per link stay beyond that);
// conversion events 400 days. Runs on a schedule inside every `serve` process (deletes are
// idempotent, so several processes may run it) and on demand with `shortlink retention run`.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { BLOCK_DAYS } from '../db/migrations/20261122060000_conversion_blocks';
import { CLICK_WINDOW_RETENTION_MS } from '../domain/analytics-alerts';

export const CLICK_RETENTION_DAYS = 90;
export const CONVERSION_RETENTION_DAYS = 400;
const DAY_MS = 86_400_000;
const BATCH = 5_000;
export const RETENTION_INTERVAL_MS = 3_600_000;

export interface RetentionResult {
  clicksDeleted: number;
  conversionsDeleted: number;
}

/** Deletes in batches so a large backlog never holds one long write lock (by an index on `column`). */
async function deleteOlderThan(knex: Knex, table: string, column: string, cutoff: number): Promise<number> {
  if (!(await knex.schema.hasTable(table))) return 0;
  let total = 0;
  for (;;) {
    const ids = await knex(table).where(column, '<', cutoff).limit(BATCH).pluck('id');
    if (!ids.length) return total;
    total += await knex(table).whereIn('id', ids).delete();
  }
}

/**
 * Raw clicks older than `cutoff`, found in id order: the clicks have no index on their time
 * alone (migration 20261123010000 says why), and ids follow time, because a click is written
 * within a flush interval of happening. The walk goes BATCH clicks at a time from the oldest id
 * and deletes the expired ones of each batch; it stops at the first batch with none expired,
 * so a click written late (held in the buffer through a database outage, or by a process whose
 * clock is behind) among newer ones is deleted once the walk reaches it, at the latest when the
 * clicks written just before it expire, so kept past its 90 days by at most as long as it was
 * late. Never deleted before its 90 days.
 */
async function deleteExpiredClicks(knex: Knex, cutoff: number): Promise<number> {
  if (!(await knex.schema.hasTable('clicks'))) return 0;
  let total = 0;
  let after: number | string = 0;
  for (;;) {
    const rows: Array<{ id: number | string; occurred_at: number | string }> = await knex('clicks')
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .select('id', 'occurred_at');
    const expired = rows.filter((r) => Number(r.occurred_at) < cutoff).map((r) => r.id);
    if (!expired.length) return total;
    total += await knex('clicks').whereIn('id', expired).delete();
    after = rows[rows.length - 1].id;
  }
}

export async function runRetention(knex: Knex, now = Date.now()): Promise<RetentionResult> {
  const conversionCutoff = now - CONVERSION_RETENTION_DAYS * DAY_MS;
  const result = {
    clicksDeleted: await deleteExpiredClicks(knex, now - CLICK_RETENTION_DAYS * DAY_MS),
    conversionsDeleted: await deleteOlderThan(knex, 'conversions', 'occurred_at', conversionCutoff),
  };
  // The daily conversion aggregates go with the events they count (whole days only).
  const cutoffDay = Math.floor(conversionCutoff / DAY_MS);
  for (const name of ['type', 'link', 'campaign', 'qr']) {
    if (await knex.schema.hasTable(`conversion_daily_${name}`)) await knex(`conversion_daily_${name}`).where('day', '<', cutoffDay).delete();
    // A 32-day block goes once all of its days are past retention.
    if (await knex.schema.hasTable(`conversion_block_${name}`)) {
      await knex(`conversion_block_${name}`).where('block', '<', Math.floor(cutoffDay / BLOCK_DAYS)).delete();
    }
  }
  // The traffic alerts' click windows: a week of baseline and a margin (analytics-alerts.ts).
  if (await knex.schema.hasTable('link_click_windows')) await knex('link_click_windows').where('window_start', '<', now - CLICK_WINDOW_RETENTION_MS).delete();
  // Idempotency keys are remembered for 24 hours.
  if (await knex.schema.hasTable('idempotency_keys')) await knex('idempotency_keys').where('created_at', '<', now - 86_400_000).delete();
  return result;
}

export function scheduleRetention(knex: Knex, log: Logger, intervalMs = RETENTION_INTERVAL_MS): () => void {
  const run = () =>
    runRetention(knex)
      .then((r) => (r.clicksDeleted || r.conversionsDeleted) && log.info(r, 'retention removed old events'))
      .catch((err) => log.warn({ err }, 'retention run failed'));
  const first = setTimeout(run, 10_000);
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
