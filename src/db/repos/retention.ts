// Retention: raw click events and bio page views are kept 90 days (daily counts stay beyond that);
// conversion events 400 days. Scheduled by src/jobs/retention.ts; it deletes in batches, and on
// SQLite runs on a query thread, so even a large backlog never holds the redirect path. On
// Postgres raw clicks and page views are partitioned by day, and whole days are dropped.
import type { Knex } from 'knex';
import { CLICK_WINDOW_RETENTION_MS } from '../../domain/analytics-alerts.ts';
import { deleteExpiredFolds } from './click-folds.ts';
import { deleteEntriesBefore } from './audit.ts';
import { deleteOldPageViews } from './bio-pages.ts';
import { dropExpiredEvents, partitionedEventTables } from './event-partitions.ts';
import { takeFromBlocks } from './conversions.ts';
import { BLOCK_DAYS, CLICK_RETENTION_DAYS, CONVERSION_RETENTION_DAYS, DAY_MS } from '../../domain/conversions.ts';
const BATCH = 5_000;

export interface RetentionResult {
  clicksDeleted: number;
  conversionsDeleted: number;
  auditEntriesDeleted: number;
}

/** The audit log's retention when the operator sets none (AUDIT_RETENTION_DAYS). */
export const AUDIT_RETENTION_DAYS = 400;

/**
 * Conversions older than `cutoff`, in batches so a large backlog never holds one long write lock.
 * Each batch takes its events out of the 32-day blocks (which count exactly the kept events) and
 * its values from the workspaces' kept totals in its own transaction (conversion_value_totals:
 * what a workspace may still record stays exact).
 */
async function deleteExpiredConversions(knex: Knex, cutoff: number): Promise<number> {
  if (!(await knex.schema.hasTable('conversions'))) return 0;
  let total = 0;
  for (;;) {
    const deleted = await knex.transaction(async (trx) => {
      const rows: Array<{
        id: string;
        workspace_id: string;
        currency: string | null;
        amount_minor: number | string | null;
      }> = await trx('conversions')
        .where('occurred_at', '<', cutoff)
        .limit(BATCH)
        .select('id', 'workspace_id', 'currency', 'amount_minor');
      if (!rows.length) return 0;
      await takeFromBlocks(
        trx,
        rows.map((r) => r.id),
      );
      await trx('conversions')
        .whereIn(
          'id',
          rows.map((r) => r.id),
        )
        .delete();
      const values = new Map<string, { workspace_id: string; currency: string; value: number }>();
      for (const r of rows) {
        if (!r.currency) continue;
        const k = `${r.workspace_id}\u0000${r.currency}`;
        const v = values.get(k) ?? { workspace_id: r.workspace_id, currency: r.currency, value: 0 };
        v.value += Number(r.amount_minor ?? 0);
        values.set(k, v);
      }
      for (const v of values.values()) {
        await trx('conversion_value_totals')
          .where({ workspace_id: v.workspace_id, currency: v.currency })
          .update({ value_minor: trx.raw('value_minor - ?', [v.value]) });
      }
      return rows.length;
    });
    if (!deleted) return total;
    total += deleted;
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

export async function runRetention(
  knex: Knex,
  now = Date.now(),
  auditRetentionDays = AUDIT_RETENTION_DAYS,
): Promise<RetentionResult> {
  const conversionCutoff = now - CONVERSION_RETENTION_DAYS * DAY_MS;
  const rawCutoff = now - CLICK_RETENTION_DAYS * DAY_MS;
  // Postgres after migration 20270102000000: whole days go (event-partitions.ts).
  const partitioned = await partitionedEventTables(knex);
  const result = {
    clicksDeleted: partitioned.has('clicks')
      ? await dropExpiredEvents(knex, 'clicks', rawCutoff)
      : await deleteExpiredClicks(knex, rawCutoff),
    conversionsDeleted: await deleteExpiredConversions(knex, conversionCutoff),
    // The only deletion of audit entries; the last one deleted stays as the chain's anchor.
    auditEntriesDeleted: (await knex.schema.hasTable('audit_entries'))
      ? await deleteEntriesBefore(knex, now - auditRetentionDays * DAY_MS)
      : 0,
  };
  // The daily conversion aggregates go with the events they count (whole days only).
  const cutoffDay = Math.floor(conversionCutoff / DAY_MS);
  for (const name of ['type', 'link', 'campaign', 'qr', 'type_link', 'type_campaign', 'type_qr']) {
    if (await knex.schema.hasTable(`conversion_daily_${name}`))
      await knex(`conversion_daily_${name}`).where('day', '<', cutoffDay).delete();
    // A 32-day block goes once all of its days are past retention (its events went one by one).
    if (await knex.schema.hasTable(`conversion_block_${name}`)) {
      await knex(`conversion_block_${name}`)
        .where('block', '<', Math.floor(cutoffDay / BLOCK_DAYS))
        .delete();
    }
  }
  // The click fold's counts of days before the 90 (the breakdowns' window).
  await deleteExpiredFolds(knex, now);
  // The traffic alerts' click windows: a week of baseline and a margin (analytics-alerts.ts).
  if (await knex.schema.hasTable('link_click_windows'))
    await knex('link_click_windows')
      .where('window_start', '<', now - CLICK_WINDOW_RETENTION_MS)
      .delete();
  // Raw views of bio pages, like raw clicks (their daily counts stay).
  if (partitioned.has('page_views')) await dropExpiredEvents(knex, 'page_views', rawCutoff);
  else if (await knex.schema.hasTable('page_views')) await deleteOldPageViews(knex, rawCutoff);
  // Idempotency keys are remembered for 24 hours.
  if (await knex.schema.hasTable('idempotency_keys'))
    await knex('idempotency_keys')
      .where('created_at', '<', now - 86_400_000)
      .delete();
  return result;
}
