// What people do to webhook deliveries (`shortlink webhook replay | resolve`, the dashboard):
// find one to act on, replay failed ones, resolve an UNKNOWN one, record a "Send test event".
import type { Knex } from 'knex';
import type { AttemptResult, DeliveryDecision, DeliveryStatus, Variant } from '../../domain/webhook-delivery.ts';
import { type DeliveryEvent, TABLE } from './webhook-deliveries.ts';
import { type AttemptExchange, attemptRow, settledRow } from './webhook-delivery-rows.ts';

export interface FoundDelivery {
  id: string;
  variant: Variant;
  status: DeliveryStatus;
  workspaceId: string;
  subscriptionId: string;
  test: boolean;
}

/** The delivery an action names, with what decides whether the action applies to it. */
export async function findDelivery(knex: Knex, id: string): Promise<FoundDelivery | null> {
  const row = await knex(TABLE)
    .where({ id })
    .first('id', 'variant', 'status', 'workspace_id', 'subscription_id', 'is_test');
  return row
    ? {
        id: row.id,
        variant: row.variant,
        status: row.status,
        workspaceId: row.workspace_id,
        subscriptionId: row.subscription_id,
        test: Boolean(row.is_test),
      }
    : null;
}

/**
 * Writes a "Send test event" sample once its one attempt is over: a delivery already settled
 * (DELIVERED or FAILED, never retried, so the worker never claims it) and its attempt.
 */
export async function recordTestDelivery(
  knex: Knex,
  d: DeliveryEvent & {
    startedAt: number;
    now: number;
    result: AttemptResult;
    requestSent: boolean;
  } & AttemptExchange,
): Promise<DeliveryStatus> {
  const delivered = d.result.kind === 'answered' && d.result.statusCode >= 200 && d.result.statusCode <= 299;
  const decision: DeliveryDecision = delivered
    ? { status: 'DELIVERED', attemptOutcome: 'delivered' }
    : { status: 'FAILED', attemptOutcome: d.result.kind === 'refused' ? 'refused' : 'failed' };
  await knex.transaction(async (trx) => {
    await trx(TABLE).insert({
      id: d.id,
      subscription_id: d.subscriptionId,
      workspace_id: d.workspaceId,
      variant: d.variant,
      event_id: d.eventId,
      event_type: d.eventType,
      request_id: null,
      occurred_at: d.occurredAt,
      data: d.data,
      is_test: true,
      attempts: 1,
      created_at: d.startedAt,
      ...settledRow(decision, d.result, d.now),
      next_attempt_at: d.startedAt,
    });
    await trx('webhook_attempts').insert(attemptRow({ ...d, attempt: 1, decision }));
  });
  return decision.status;
}

/**
 * "Replay failed since…": every FAILED Variant B delivery of the subscription created at or after
 * `since` (test samples excepted) becomes PENDING again, as replayDelivery does one. Read through
 * the (workspace_id, status) index. Returns the ids replayed.
 */
export async function replayFailedSince(
  knex: Knex,
  o: { workspaceId: string; subscriptionId: string; since: number; now: number },
): Promise<string[]> {
  const rows: Array<{ id: string }> = await knex(TABLE)
    .where({
      workspace_id: o.workspaceId,
      status: 'FAILED',
      subscription_id: o.subscriptionId,
      variant: 'B',
      is_test: false,
    })
    .where('created_at', '>=', o.since)
    .update(replayedRow(knex, o.now), ['id']);
  return rows.map((r) => r.id);
}

function replayedRow(knex: Knex, now: number) {
  return {
    status: 'PENDING',
    next_attempt_at: now,
    round_start: knex.ref('attempts'),
    replays: knex.raw('replays + 1'),
    finished_at: null,
    updated_at: now,
  };
}

/**
 * Variant B only, FAILED only: the delivery becomes PENDING again, due now, with the same id
 * (so the same X-Service-Delivery-Id) and a new round of the first attempt and five retries.
 * Returns false when the row was not (or no longer) a FAILED Variant B delivery, or is a test sample.
 */
export async function replayDelivery(knex: Knex, id: string, now: number): Promise<boolean> {
  // A test sample is one attempt by design: sending another is "Send test event" again.
  const n = await knex(TABLE)
    .where({ id, variant: 'B', status: 'FAILED', is_test: false })
    .update(replayedRow(knex, now));
  return n === 1;
}

/** UNKNOWN only: a person's judgement of what the endpoint did. */
export async function resolveDelivery(
  knex: Knex,
  id: string,
  outcome: 'DELIVERED' | 'FAILED',
  now: number,
): Promise<boolean> {
  const n = await knex(TABLE)
    .where({ id, status: 'UNKNOWN' })
    .update({ status: outcome, resolved_at: now, updated_at: now });
  return n === 1;
}
