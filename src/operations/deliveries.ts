// What a person does to deliveries and endpoints, with the same rules from the command line
// (`shortlink webhook ...`, no workspace) and from Settings › Webhooks (scoped to the session's
// workspace: another workspace's delivery or subscription answers like one that does not exist).
import type { Db as Knex } from '../db/knex.ts';
import * as outbox from '../db/repos/webhook-delivery-actions.ts';
import * as subscriptions from '../db/repos/subscriptions.ts';
import { conflict, invalid, notFound } from '../domain/errors.ts';
import type { DeliveryStatus } from '../domain/webhook-delivery.ts';
import { type AuditActor, audited } from './audit.ts';

/**
 * `found` when it exists and, given a workspace, belongs to it; else not found, so that another
 * workspace's object answers like one that does not exist.
 */
function visible<T>(
  found: T | null | undefined,
  ownerOf: (t: T) => string,
  workspaceId: string | undefined,
  what: string,
): T {
  if (!found || (workspaceId !== undefined && ownerOf(found) !== workspaceId)) throw notFound(`${what} not found`);
  return found;
}

async function delivery(knex: Knex, id: string, workspaceId?: string): Promise<outbox.FoundDelivery> {
  return visible(await outbox.findDelivery(knex, id), (d) => d.workspaceId, workspaceId, `delivery ${id}`);
}

/** The workspace a delivery belongs to, whatever it is (the operator names any): its changes are recorded there. */
export async function deliveryWorkspace(knex: Knex, id: string): Promise<string> {
  return (await delivery(knex, id)).workspaceId;
}

export async function subscription(
  knex: Knex,
  id: string,
  workspaceId?: string,
): Promise<subscriptions.SubscriptionRow> {
  const found = await subscriptions.findAnySubscription(knex, id);
  return visible(found, (s) => s.workspace_id, workspaceId, `subscription ${id}`);
}

/** "Replay": a FAILED Variant B delivery is sent again, same id and same body. */
export async function replay(
  knex: Knex,
  id: string,
  workspaceId?: string,
): Promise<{ id: string; status: DeliveryStatus }> {
  const found = await delivery(knex, id, workspaceId);
  // Only Variant B promises replays (same body, same X-Service-Delivery-Id); an UNKNOWN
  // Variant A delivery is settled by a person with `webhook resolve`.
  if (found.variant !== 'B')
    throw conflict(`delivery ${id} is a Variant A delivery: only Variant B deliveries can be replayed`);
  if (found.test) throw conflict(`delivery ${id} is a test event: send another test event instead`);
  if (found.status !== 'FAILED' || !(await outbox.replayDelivery(knex, id, Date.now()))) {
    throw conflict(
      `delivery ${id} is ${found.status === 'FAILED' ? 'no longer FAILED' : found.status}: only FAILED deliveries can be replayed`,
    );
  }
  return { id, status: 'PENDING' };
}

/** "Mark delivered" / "Mark failed": a person's judgement of an UNKNOWN (Variant A) delivery. */
export async function resolve(
  knex: Knex,
  id: string,
  outcome: 'DELIVERED' | 'FAILED',
  workspaceId?: string,
): Promise<{ id: string; status: DeliveryStatus }> {
  const found = await delivery(knex, id, workspaceId);
  // Only for outcomes the service could not establish.
  if (found.status !== 'UNKNOWN' || !(await outbox.resolveDelivery(knex, id, outcome, Date.now()))) {
    throw conflict(
      `delivery ${id} is ${found.status === 'UNKNOWN' ? 'no longer UNKNOWN' : found.status}: only UNKNOWN deliveries can be resolved`,
    );
  }
  return { id, status: outcome };
}

/** "Replay failed since…": every FAILED Variant B delivery of the subscription created at or after `since`. */
export async function replaySince(
  knex: Knex,
  subscriptionId: string,
  since: number,
  workspaceId?: string,
): Promise<{ subscriptionId: string; replayed: string[] }> {
  const sub = await subscription(knex, subscriptionId, workspaceId);
  if (sub.variant !== 'B')
    throw conflict(
      `subscription ${subscriptionId} is a Variant A subscription: only Variant B deliveries can be replayed`,
    );
  // A replay to a disabled subscription would be FAILED again at once, with nothing sent.
  if (!sub.enabled)
    throw conflict(`subscription ${subscriptionId} is disabled: re-enable it before replaying its deliveries`);
  const now = Date.now();
  if (!Number.isFinite(since) || since > now) throw invalid('since must be a time in the past', 'since');
  const replayed = await outbox.replayFailedSince(knex, {
    workspaceId: sub.workspace_id,
    subscriptionId: sub.id,
    since,
    now,
  });
  return { subscriptionId: sub.id, replayed };
}

/** Re-enables a subscription, also one disabled by the endpoint health rule (its record starts afresh). */
export async function reEnable(
  knex: Knex,
  subscriptionId: string,
  workspaceId?: string,
): Promise<{ id: string; enabled: true }> {
  const sub = await subscription(knex, subscriptionId, workspaceId);
  // Already on: its health record is kept (re-enabling is not a way to forget failures).
  if (sub.enabled) return { id: sub.id, enabled: true };
  if (!(await subscriptions.reEnableSubscription(knex, sub.workspace_id, sub.id, Date.now())))
    throw notFound(`subscription ${subscriptionId} not found`);
  return { id: sub.id, enabled: true };
}

// The changes above as a person or the command line makes them: each with its audit entries, in
// its transaction, the same whichever way it was made.

export function replayAudited(knex: Knex, actor: AuditActor, id: string, workspaceId: string) {
  return audited(
    knex,
    actor,
    workspaceId,
    (trx) => replay(trx, id, workspaceId),
    (r) => ({
      action: 'webhook_delivery.replayed',
      objectType: 'webhook_delivery',
      objectId: r.id,
      changes: { status: { from: 'FAILED', to: r.status } },
    }),
  );
}

export function resolveAudited(
  knex: Knex,
  actor: AuditActor,
  id: string,
  outcome: 'DELIVERED' | 'FAILED',
  workspaceId: string,
) {
  return audited(
    knex,
    actor,
    workspaceId,
    (trx) => resolve(trx, id, outcome, workspaceId),
    (r) => ({
      action: 'webhook_delivery.resolved',
      objectType: 'webhook_delivery',
      objectId: r.id,
      changes: { status: { from: 'UNKNOWN', to: r.status } },
    }),
  );
}

/** One entry per delivery sent again, as a bulk change records one per object. */
export function replaySinceAudited(knex: Knex, actor: AuditActor, sub: subscriptions.SubscriptionRow, since: number) {
  return audited(
    knex,
    actor,
    sub.workspace_id,
    (trx) => replaySince(trx, sub.id, since, sub.workspace_id),
    (r) =>
      r.replayed.map((id) => ({
        action: 'webhook_delivery.replayed',
        objectType: 'webhook_delivery',
        objectId: id,
        changes: { status: { from: 'FAILED', to: 'PENDING' } },
      })),
  );
}

/** `before` as read by the caller: enabling an enabled subscription changes nothing, and records nothing. */
export function reEnableAudited(knex: Knex, actor: AuditActor, before: subscriptions.SubscriptionRow) {
  return audited(
    knex,
    actor,
    before.workspace_id,
    (trx) => reEnable(trx, before.id, before.workspace_id),
    ({ id }) =>
      before.enabled
        ? []
        : [
            {
              action: 'webhook.enabled',
              objectType: 'webhook',
              objectId: id,
              changes: { enabled: { from: false, to: true } },
            },
          ],
  );
}
