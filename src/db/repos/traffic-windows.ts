// The traffic alerts' click windows (link_click_windows: clicks per link, 5-minute window and
// country) are kept only for workspaces that may want them: those with a live Variant A
// subscription (enabled or not) naming analytics.spike or analytics.geo_anomaly.
//
// Why: nothing else reads the windows, and writing them is most of what a click costs the click
// writer beyond the raw click and the daily count. Each flush adds to one row per link, window
// and country, so with clicks spread over many links every click dirties a page of its own, which
// is then written to the WAL and copied back: leaving them out cut the click writer's CPU per
// click by about 40% on 1,000,000 links (bench/README.md, click writer).
//
// Nothing is lost by it: the raw clicks (kept 90 days) hold everything the windows count. When a
// workspace starts to want alerts, the change's transaction rebuilds its windows of the alerts'
// look-back (CLICK_WINDOW_RETENTION_MS) from its raw clicks, so the first evaluation has the same
// history as if the windows had been written all along.
//
// Concurrency: a flush decides per workspace whether to write windows, and a rebuild counts raw
// clicks; a flush that commits clicks between the two would be counted by neither. So both take
// a lock on the workspace's row first: the flush a shared one (Postgres: FOR SHARE; SQLite: the
// flush writes its raw clicks before it reads, which takes the one write lock), the change an
// exclusive one (a write to the workspace's row, the first statement of its transaction;
// SQLite: the write lock its BEGIN IMMEDIATE takes). A
// flush that waited sees the new subscription and writes its windows; a rebuild that waited
// counts the flush's clicks.
import type { Knex } from 'knex';
import {
  CLICK_WINDOW_MS,
  CLICK_WINDOW_RETENTION_MS,
  TRAFFIC_ALERT_EVENTS,
  windowStartOf,
} from '../../domain/analytics-alerts.ts';

const isPg = (knex: Knex) => knex.client.config.client === 'pg';

const namesAlert = (events: string) => {
  try {
    const list = JSON.parse(events) as unknown;
    return Array.isArray(list) && list.some((e) => (TRAFFIC_ALERT_EVENTS as readonly string[]).includes(e as string));
  } catch {
    return false;
  }
};

/**
 * The workspaces among `workspaceIds` whose clicks are counted in windows. Called by the click
 * flush inside its transaction, after its raw clicks are written (see the lock order above).
 */
export async function workspacesWithTrafficAlerts(trx: Knex, workspaceIds: string[]): Promise<Set<string>> {
  const ids = [...new Set(workspaceIds)];
  const out = new Set<string>();
  if (!ids.length) return out;
  if (isPg(trx)) await trx('workspaces').whereIn('id', ids).forShare().select('id');
  const rows = await trx('webhook_subscriptions')
    .whereIn('workspace_id', ids)
    .where({ variant: 'A' })
    .whereNull('deleted_at')
    .select('workspace_id', 'events');
  for (const r of rows) if (namesAlert(r.events)) out.add(r.workspace_id);
  return out;
}

/**
 * Runs `change` (which creates or changes a Variant A subscription of the workspace) in a
 * transaction, and rebuilds the workspace's windows from its raw clicks when the change makes it
 * want traffic alerts. Returns what `change` returned.
 */
export async function changeAlertSubscriptions<T>(
  knex: Knex,
  workspaceId: string,
  change: (trx: Knex.Transaction) => Promise<T>,
  now = Date.now(),
): Promise<T> {
  return knex.transaction(async (trx) => {
    // The lock first (see above), with a write that changes nothing: on Postgres it locks the
    // workspace's row against a flush's FOR SHARE. On SQLite the transaction already holds the
    // one write lock from its BEGIN IMMEDIATE (src/db/knex.ts).
    await trx('workspaces')
      .where({ id: workspaceId })
      .update({ name: trx.raw('name') });
    const before = await trx('webhook_subscriptions')
      .where({ workspace_id: workspaceId, variant: 'A' })
      .whereNull('deleted_at')
      .select('id', 'events');
    const result = await change(trx);
    const wanted = (await workspacesWithTrafficAlerts(trx, [workspaceId])).has(workspaceId);
    if (wanted && !before.some((r) => namesAlert(r.events))) await rebuildTrafficWindows(trx, workspaceId, now);
    return result;
  });
}

/** Replaces the workspace's windows with counts of its raw clicks over the alerts' look-back. */
export async function rebuildTrafficWindows(trx: Knex, workspaceId: string, now = Date.now()): Promise<void> {
  // Rows left from an earlier time the workspace wanted alerts are stale: clicks since then were
  // not added to them.
  await trx('link_click_windows').where({ workspace_id: workspaceId }).delete();
  const since = windowStartOf(now - CLICK_WINDOW_RETENTION_MS, CLICK_WINDOW_MS);
  await trx.raw(
    `INSERT INTO link_click_windows (window_start, link_id, country, workspace_id, clicks)
     SELECT (occurred_at / ${CLICK_WINDOW_MS}) * ${CLICK_WINDOW_MS}, link_id, COALESCE(country, ''), MIN(workspace_id), COUNT(*)
       FROM clicks WHERE workspace_id = ? AND occurred_at >= ?
      GROUP BY (occurred_at / ${CLICK_WINDOW_MS}) * ${CLICK_WINDOW_MS}, link_id, COALESCE(country, '')`,
    [workspaceId, since],
  );
}
