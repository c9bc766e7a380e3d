// Deliveries whose lease ran out (the process that claimed them stopped mid-attempt) and pending
// deliveries whose subscription is gone: any process settles them, each write fenced on the lease
// as it was on record, so two processes sweeping at once settle a delivery once.
import type { Knex } from 'knex';
import type { AttemptResult, DeliveryDecision, Variant } from '../../domain/webhook-delivery.ts';
import { TABLE } from './webhook-deliveries.ts';
import { attemptRow, settledRow } from './webhook-delivery-rows.ts';

export interface ExpiredLease {
  id: string;
  variant: Variant;
  attempt: number;
  attemptInRound: number;
  requestSent: boolean;
  owner: string;
  leaseUntil: number;
  startedAt: number;
}

/** Deliveries whose lease ran out: the process that held them stopped mid-attempt. */
export async function expiredLeases(knex: Knex, now: number, limit = 500): Promise<ExpiredLease[]> {
  const rows = await knex(TABLE)
    .where('status', 'SENDING')
    .where('lease_until', '<', now)
    .limit(limit)
    .select(
      'id',
      'variant',
      'attempts',
      'round_start',
      'request_sent',
      'lease_owner',
      'lease_until',
      'attempt_started_at',
      'updated_at',
    );
  return rows.map((r) => ({
    id: r.id,
    variant: r.variant,
    attempt: Number(r.attempts),
    attemptInRound: Number(r.attempts) - Number(r.round_start),
    requestSent: Boolean(r.request_sent),
    owner: r.lease_owner,
    leaseUntil: Number(r.lease_until),
    startedAt: Number(r.attempt_started_at ?? r.updated_at),
  }));
}

/** Settles an attempt whose lease ran out, unless another process did so first. */
export async function settleExpired(
  knex: Knex,
  e: ExpiredLease,
  decision: DeliveryDecision,
  result: AttemptResult,
  now: number,
): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const n = await trx(TABLE)
      .where({ id: e.id, lease_owner: e.owner, attempts: e.attempt, status: 'SENDING', lease_until: e.leaseUntil })
      .update(settledRow(decision, result, now));
    if (n !== 1) return false;
    await trx('webhook_attempts').insert(attemptRow({ ...e, now, decision, result }));
    return true;
  });
}

/** Pending deliveries of a subscription that was deleted or disabled are FAILED, nothing sent. */
export async function failOrphaned(knex: Knex, now: number): Promise<number> {
  return knex(TABLE)
    .where('status', 'PENDING')
    .where('next_attempt_at', '<=', now)
    .whereNotExists(
      knex('webhook_subscriptions as s')
        .select(knex.raw('1'))
        .whereRaw(`s.id = ${TABLE}.subscription_id`)
        .whereNull('s.deleted_at')
        .where('s.enabled', true),
    )
    .update({
      status: 'FAILED',
      finished_at: now,
      updated_at: now,
      last_error: 'the subscription was deleted or disabled before this delivery was made; nothing was sent',
    });
}
