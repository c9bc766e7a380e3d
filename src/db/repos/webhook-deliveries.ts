// The outbox of webhook deliveries as the delivery worker sees it: claims, attempts, settling.
// Rows are written PENDING by the outbox (src/db/repos/outbox.ts), one per (event, subscription).
// The rows a settled attempt writes are in webhook-delivery-rows.ts, the settling of expired leases
// and orphaned deliveries in webhook-delivery-leases.ts, the log's reads in webhook-delivery-log.ts,
// what people do to deliveries (replay, resolve, test events) in webhook-delivery-actions.ts, the
// /metrics gauge in webhook-delivery-gauges.ts.
//
// A process claims due rows with a lease (status SENDING, lease_owner, lease_until); every write
// about an attempt is fenced on (lease_owner, attempts), so a process that lost its lease can no
// longer change the row. Before the request is written, request_sent is set: a lease that runs
// out (the process died) is then settled by any process from what was on record.
import type { Knex } from 'knex';
import type { Engine } from '../knex.ts';
import {
  endpointDisabledReason,
  ENDPOINT_FAILING_DISABLE_MS,
  type AttemptResult,
  type DeliveryDecision,
  type Variant,
} from '../../domain/webhook-delivery.ts';
import { type AttemptExchange, attemptRow, lastErrorOf, settledRow } from './webhook-delivery-rows.ts';

export const TABLE = 'webhook_deliveries';

/** The event a delivery carries to one subscription, as its row holds it. */
export interface DeliveryEvent {
  id: string;
  subscriptionId: string;
  workspaceId: string;
  variant: Variant;
  eventId: string;
  eventType: string;
  occurredAt: number;
  data: string;
}

export interface ClaimedDelivery extends DeliveryEvent {
  requestId: string | null;
  /** The number of this attempt over the delivery's life (1, 2, ...). */
  attempt: number;
  /** The number of this attempt within its round (1 = first attempt; a replay starts a round). */
  attemptInRound: number;
  /** When this attempt was claimed. */
  startedAt: number;
  leaseUntil: number;
  /** The subscription as it is now: null when it was deleted or disabled meanwhile. */
  subscription: { url: string; secretEncrypted: string } | null;
}

export interface ClaimOptions {
  owner: string;
  now: number;
  limit: number;
  leaseMs: Record<Variant, number>;
}

const rowsOf = (result: any): any[] => (Array.isArray(result) ? result : result.rows);

/**
 * Claims up to `limit` due deliveries for `owner`, each for one attempt. On Postgres the
 * candidates are locked with SKIP LOCKED, so processes claiming at the same moment take disjoint
 * rows (and FOR UPDATE re-checks `status = 'PENDING'` on the row it locks); on SQLite the single
 * UPDATE is atomic. (No second status test outside the subquery: SQLite would then walk every
 * PENDING row through the status index instead of looking the claimed ids up.)
 */
export async function claimDue(knex: Knex, engine: Engine, o: ClaimOptions): Promise<ClaimedDelivery[]> {
  if (o.limit <= 0) return [];
  // SQLite has one write lock per database: an UPDATE takes it even when nothing is due, and
  // waits (blocking this thread) while the click writer thread holds it. A read never waits in
  // WAL mode, so look first; polls of an idle outbox then cost the redirect path nothing.
  if (
    engine === 'sqlite' &&
    !(await knex(TABLE).where('status', 'PENDING').where('next_attempt_at', '<=', o.now).first('id'))
  )
    return [];
  const lock = engine === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
  const claimed = rowsOf(
    await knex.raw(
      `UPDATE ${TABLE}
          SET status = 'SENDING', lease_owner = ?, request_sent = ?, attempts = attempts + 1, updated_at = ?,
              attempt_started_at = ?, lease_until = CASE WHEN variant = 'A' THEN CAST(? AS BIGINT) ELSE CAST(? AS BIGINT) END
        WHERE id IN (
              SELECT c.id FROM ${TABLE} c
               WHERE c.status = 'PENDING' AND c.next_attempt_at <= ?
                 AND EXISTS (SELECT 1 FROM webhook_subscriptions s
                              WHERE s.id = c.subscription_id AND s.deleted_at IS NULL AND s.enabled = ?)
               ORDER BY c.next_attempt_at
               LIMIT ? ${lock})
    RETURNING id, subscription_id, workspace_id, variant, event_id, event_type, request_id, occurred_at, data,
              attempts, round_start, lease_until`,
      [o.owner, false, o.now, o.now, o.now + o.leaseMs.A, o.now + o.leaseMs.B, o.now, true, o.limit],
    ),
  );
  if (!claimed.length) return [];
  const subscriptionIds = [...new Set(claimed.map((r) => r.subscription_id as string))];
  const subscriptions = new Map<string, { url: string; secretEncrypted: string }>();
  for (const s of await knex('webhook_subscriptions')
    .whereIn('id', subscriptionIds)
    .whereNull('deleted_at')
    .where('enabled', true)
    .select('id', 'url', 'secret_encrypted')) {
    subscriptions.set(s.id, { url: s.url, secretEncrypted: s.secret_encrypted });
  }
  return claimed.map((r) => ({
    id: r.id,
    subscriptionId: r.subscription_id,
    workspaceId: r.workspace_id,
    variant: r.variant,
    eventId: r.event_id,
    eventType: r.event_type,
    requestId: r.request_id ?? null,
    occurredAt: Number(r.occurred_at),
    data: r.data,
    attempt: Number(r.attempts),
    attemptInRound: Number(r.attempts) - Number(r.round_start),
    startedAt: o.now,
    leaseUntil: Number(r.lease_until),
    subscription: subscriptions.get(r.subscription_id) ?? null,
  }));
}

export interface AttemptRef {
  id: string;
  owner: string;
  attempt: number;
}

/**
 * Records that the requests of these attempts are about to be written (one statement for many).
 * Returns the ids still leased as they were: only those may be sent.
 */
export async function markRequestsSent(
  knex: Knex,
  owner: string,
  refs: AttemptRef[],
  now: number,
): Promise<Set<string>> {
  if (!refs.length) return new Set();
  const rows = rowsOf(
    await knex.raw(
      `UPDATE ${TABLE} SET request_sent = ?, updated_at = ?
        WHERE status = 'SENDING' AND lease_owner = ? AND id IN (${refs.map(() => '?').join(', ')})
    RETURNING id, attempts`,
      [true, now, owner, ...refs.map((r) => r.id)],
    ),
  );
  const attemptOf = new Map(refs.map((r) => [r.id, r.attempt]));
  return new Set(rows.filter((r) => attemptOf.get(r.id) === Number(r.attempts)).map((r) => r.id as string));
}

export interface Settlement extends AttemptRef, AttemptExchange {
  decision: DeliveryDecision;
  result: AttemptResult;
  startedAt: number;
  requestSent: boolean;
  now: number;
  /**
   * What the attempt says about the endpoint's health (domain/webhook-delivery.ts,
   * endpointSignal); absent when it says nothing (nothing was sent for the service's own reasons).
   */
  endpoint?: { subscriptionId: string; signal: 'up' | 'down' };
}

/**
 * Endpoint health, in the transaction that records the attempts: a success clears the
 * subscription's failing_since, a failure sets it when unset, and a subscription failing for
 * ENDPOINT_FAILING_DISABLE_MS is disabled with its reason. A subscription with a success in the
 * batch counts as up. Returns the ids disabled now.
 */
async function recordEndpointHealth(
  trx: Knex.Transaction,
  settled: Settlement[],
  up: Set<string>,
  upRecorded: boolean,
): Promise<string[]> {
  const down = new Map<string, Settlement>();
  for (const s of settled)
    if (s.endpoint?.signal === 'down' && !up.has(s.endpoint.subscriptionId)) down.set(s.endpoint.subscriptionId, s);
  // Nearly every batch of a healthy service is all successes: one statement, changing no row
  // (on Postgres part of the settling statement, so no round trip of its own).
  if (up.size && !upRecorded)
    await trx('webhook_subscriptions')
      .whereIn('id', [...up])
      .whereNotNull('failing_since')
      .update({ failing_since: null });
  if (!down.size) return [];
  const now = Math.min(...[...down.values()].map((s) => s.now));
  await trx('webhook_subscriptions')
    .whereIn('id', [...down.keys()])
    .whereNull('failing_since')
    .update({ failing_since: now });
  const exhausted: Array<{ id: string; failing_since: number | string }> = await trx('webhook_subscriptions')
    .whereIn('id', [...down.keys()])
    .where('enabled', true)
    .whereNull('deleted_at')
    .where('failing_since', '<=', now - ENDPOINT_FAILING_DISABLE_MS)
    .select('id', 'failing_since');
  for (const row of exhausted) {
    const s = down.get(row.id)!;
    const lastError = lastErrorOf(s.result);
    await trx('webhook_subscriptions')
      .where({ id: row.id, enabled: true })
      .update({
        enabled: false,
        disabled_at: s.now,
        disabled_reason: endpointDisabledReason(Number(row.failing_since), lastError),
        updated_at: s.now,
      });
  }
  return exhausted.map((r) => r.id);
}

/**
 * Applies the outcomes of attempts in one transaction (the deliveries, each row fenced on its
 * lease; their attempts; the endpoints' health); returns the ids whose lease was lost (settled
 * elsewhere meanwhile), for which nothing is written, and the subscriptions disabled now.
 */
export async function settleAttempts(
  knex: Knex,
  owner: string,
  settlements: Settlement[],
  engine: Engine = 'sqlite',
): Promise<{ lost: Set<string>; disabled: string[] }> {
  if (!settlements.length) return { lost: new Set(), disabled: [] };
  // Endpoints that answered 2xx (also in an attempt whose lease was lost: the answer was real).
  const up = new Set(settlements.filter((s) => s.endpoint?.signal === 'up').map((s) => s.endpoint!.subscriptionId));
  // Postgres: the health record of those endpoints is cleared by the settling statement itself
  // (a data-modifying CTE), saving a round trip per batch on the worker's measured path; SQLite,
  // in process, has no round trip to save and no such CTE.
  const upInline = engine === 'postgres' && up.size > 0;
  const recovered = upInline
    ? `, recovered AS (UPDATE webhook_subscriptions SET failing_since = NULL
                        WHERE id IN (${[...up].map(() => '?').join(', ')}) AND failing_since IS NOT NULL RETURNING id)`
    : '';
  const values: Knex.Value[] = [];
  const tuples = settlements.map((s) => {
    const row = settledRow(s.decision, s.result, s.now);
    values.push(
      s.id,
      s.attempt,
      row.status,
      row.next_attempt_at ?? null,
      row.finished_at,
      row.last_status_code,
      row.last_error,
      row.updated_at,
    );
    return '(?, CAST(? AS INTEGER), ?, CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS BIGINT))';
  });
  return knex.transaction(async (trx) => {
    const settle = `UPDATE ${TABLE}
            SET status = v.status,
                next_attempt_at = COALESCE(v.next_attempt_at, ${TABLE}.next_attempt_at),
                finished_at = v.finished_at,
                lease_owner = NULL, lease_until = NULL, request_sent = ?, attempt_started_at = NULL,
                last_status_code = v.last_status_code, last_error = v.last_error, updated_at = v.updated_at
           FROM v
          WHERE ${TABLE}.id = v.id AND ${TABLE}.attempts = v.attempt AND ${TABLE}.lease_owner = ? AND ${TABLE}.status = 'SENDING'
      RETURNING ${TABLE}.id`;
    const head = `WITH v(id, attempt, status, next_attempt_at, finished_at, last_status_code, last_error, updated_at) AS (VALUES ${tuples.join(', ')})`;
    const updated = rowsOf(
      upInline
        ? await trx.raw(`${head}, settled AS (${settle})${recovered} SELECT id FROM settled`, [
            ...values,
            false,
            owner,
            ...up,
          ])
        : await trx.raw(`${head} ${settle}`, [...values, false, owner]),
    );
    const done = new Set(updated.map((r) => r.id as string));
    const settled = settlements.filter((s) => done.has(s.id));
    if (settled.length) await trx('webhook_attempts').insert(settled.map(attemptRow));
    const disabled = await recordEndpointHealth(trx, settled, up, upInline);
    return { lost: new Set(settlements.filter((s) => !done.has(s.id)).map((s) => s.id)), disabled };
  });
}

/**
 * Hands back an attempt that never started sending (the process is shutting down): the delivery
 * is PENDING again, due at once, and the attempt is not counted.
 */
export async function releaseUnsent(knex: Knex, d: AttemptRef, now: number): Promise<void> {
  await knex(TABLE)
    .where({ id: d.id, lease_owner: d.owner, attempts: d.attempt, status: 'SENDING', request_sent: false })
    .update({
      status: 'PENDING',
      attempts: d.attempt - 1,
      lease_owner: null,
      lease_until: null,
      attempt_started_at: null,
      next_attempt_at: now,
      updated_at: now,
    });
}
