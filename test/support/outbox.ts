// The webhook outbox in tests: subscriptions and PENDING deliveries written straight into the
// outbox tables (as the outbox does), and waits for a delivery to reach a state.
import type { Knex } from 'knex';
import { createWorkspace } from '../../src/db/repos/workspaces';
import { newId } from '../../src/domain/ids';
import { sealSecret } from '../../src/webhooks/secrets';

export interface SeededSubscription {
  id: string;
  workspaceId: string;
  variant: 'A' | 'B';
  secret: string;
}

export async function seedSubscription(
  knex: Knex,
  masterKey: Buffer,
  o: { url: string; variant: 'A' | 'B'; workspaceId?: string; secret?: string; events?: string[] },
): Promise<SeededSubscription> {
  const workspaceId =
    o.workspaceId ?? (await createWorkspace(knex, `Hooks ${Math.random().toString(36).slice(2, 8)}`, 'growth'));
  const id = newId(o.variant === 'A' ? 'wh' : 'whb');
  const secret = o.secret ?? `whsec_${newId('s')}`;
  const now = Date.now();
  await knex('webhook_subscriptions').insert({
    id,
    workspace_id: workspaceId,
    variant: o.variant,
    url: o.url,
    events: JSON.stringify(o.events ?? ['link.created']),
    secret_encrypted: sealSecret(masterKey, secret),
    enabled: true,
    created_at: now,
    updated_at: now,
  });
  return { id, workspaceId, variant: o.variant, secret };
}

/** A valid `data` object of link.created in each variant's form (asyncapi/*.yaml). */
export function linkCreatedData(variant: 'A' | 'B', workspaceId: string, n = 1): Record<string, unknown> {
  const slug = `launch-${n}`;
  return variant === 'A'
    ? {
        id: `lnk_${n}`,
        workspaceId,
        slug,
        domain: 'sho.rt',
        destinationUrl: `https://example.com/launch/${n}`,
        title: `Launch ${n}`,
      }
    : {
        link_id: `lnk_${n}`,
        slug,
        url: `https://example.com/launch/${n}`,
        short_url: `https://sho.rt/${slug}`,
        domain: 'sho.rt',
        tags: ['launch'],
        created_by: 'usr_test',
      };
}

export interface DeliveryRowOptions {
  eventType?: string;
  data?: Record<string, unknown>;
  requestId?: string | null;
  occurredAt?: number;
  nextAttemptAt?: number;
  id?: string;
}

export function deliveryRow(sub: SeededSubscription, o: DeliveryRowOptions = {}) {
  const now = Date.now();
  return {
    id: o.id ?? newId('dlv'),
    subscription_id: sub.id,
    workspace_id: sub.workspaceId,
    variant: sub.variant,
    event_id: newId('evt'),
    event_type: o.eventType ?? 'link.created',
    request_id: o.requestId === undefined ? `req_${newId('t')}` : o.requestId,
    occurred_at: o.occurredAt ?? now,
    data: JSON.stringify(o.data ?? linkCreatedData(sub.variant, sub.workspaceId)),
    status: 'PENDING',
    attempts: 0,
    next_attempt_at: o.nextAttemptAt ?? now,
    created_at: now,
    updated_at: now,
  };
}

/** Writes one PENDING delivery, due now; returns its id. */
export async function seedDelivery(knex: Knex, sub: SeededSubscription, o: DeliveryRowOptions = {}): Promise<string> {
  const row = deliveryRow(sub, o);
  await knex('webhook_deliveries').insert(row);
  return row.id;
}

export async function deliveryOf(knex: Knex, id: string) {
  const row = await knex('webhook_deliveries').where({ id }).first();
  const attempts = await knex('webhook_attempts').where({ delivery_id: id }).orderBy('attempt');
  return { ...row, attempts: Number(row.attempts), attemptRows: attempts };
}

/** Polls the delivery until `done` holds. */
export async function waitForDelivery(
  knex: Knex,
  id: string,
  done: (row: Awaited<ReturnType<typeof deliveryOf>>) => boolean,
  timeoutMs = 20_000,
) {
  const start = Date.now();
  for (;;) {
    const row = await deliveryOf(knex, id);
    if (done(row)) return row;
    if (Date.now() - start > timeoutMs)
      throw new Error(
        `delivery ${id} did not settle within ${timeoutMs} ms: ${JSON.stringify({ status: row.status, attempts: row.attempts, last_error: row.last_error })}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const settled = (row: { status: string }) => ['DELIVERED', 'FAILED', 'UNKNOWN'].includes(row.status);

/** Polls the delivery until it is settled (DELIVERED, FAILED or UNKNOWN). */
export const waitForSettled = (knex: Knex, id: string, timeoutMs?: number) =>
  waitForDelivery(knex, id, settled, timeoutMs);

/** The outcome of each attempt of a delivery that used up all six: five retries, then failed. */
export const SIX_ATTEMPTS_FAILED = ['retry', 'retry', 'retry', 'retry', 'retry', 'failed'];

/**
 * Writes one delivery that settled as `status` after all six attempts: made at `createdAt`,
 * finished `finishedAfterMs` later, with `extra` columns over that. Returns its id.
 */
export async function seedSettledDelivery(
  knex: Knex,
  sub: SeededSubscription,
  status: string,
  createdAt: number,
  o: { finishedAfterMs?: number; extra?: Record<string, unknown> } = {},
): Promise<string> {
  const row = {
    ...deliveryRow(sub),
    status,
    attempts: 6,
    created_at: createdAt,
    finished_at: createdAt + (o.finishedAfterMs ?? 0),
    next_attempt_at: createdAt,
    ...o.extra,
  };
  await knex('webhook_deliveries').insert(row);
  return row.id;
}
