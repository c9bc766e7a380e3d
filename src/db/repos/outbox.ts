// The webhook outbox: events are written in the transaction of the change that causes them,
// as one webhook_deliveries row per subscribed subscription, so a change and its deliveries
// commit or roll back together. The delivery worker (src/webhooks/worker.ts) sends the rows.
//
// Every change that raises events does it one way: the caller that makes the change supplies an
// EmitEvents function, the repository runs it inside the change's transaction (after the change,
// so it reads the changed rows) and writes what it returns here. Repositories never decide which
// events a change raises.
import type { Knex } from 'knex';
import { buildEventData, type ServiceEvent } from '../../domain/events.ts';
import { newId } from '../../domain/ids.ts';
import type { Variant } from '../../domain/webhook-delivery.ts';

/** The events a change raises, built inside its transaction. */
export type EmitEvents<A extends unknown[] = []> = (trx: Knex.Transaction, ...args: A) => Promise<ServiceEvent[]>;

export interface SubscriptionTarget {
  id: string;
  workspaceId: string;
  variant: Variant;
  events: Set<string>;
}

const INSERT_CHUNK = 200;

/** The enabled, not deleted subscriptions of the workspaces, as delivery targets. */
export async function subscriptionTargets(trx: Knex, workspaceIds: string[]): Promise<SubscriptionTarget[]> {
  if (!workspaceIds.length) return [];
  const rows = await trx('webhook_subscriptions')
    .whereIn('workspace_id', [...new Set(workspaceIds)])
    .whereNull('deleted_at')
    .where({ enabled: true })
    .orderBy('seq')
    .select('id', 'workspace_id', 'variant', 'events');
  return rows.map((r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    variant: r.variant as Variant,
    events: new Set(JSON.parse(r.events) as string[]),
  }));
}

/**
 * Fans events out into webhook_deliveries: one PENDING row per subscription of the event's
 * workspace that names the event, in that subscription's variant. A variant without the
 * event (e.g. link.clicked in Variant A) delivers nothing to its subscriptions.
 * `targets` may be passed when the caller already loaded them for these workspaces.
 */
export async function enqueueEvents(
  trx: Knex,
  events: ServiceEvent[],
  targets?: SubscriptionTarget[],
): Promise<number> {
  if (!events.length) return 0;
  const subscriptions =
    targets ??
    (await subscriptionTargets(
      trx,
      events.map((e) => e.workspaceId),
    ));
  if (!subscriptions.length) return 0;
  const now = Date.now();
  const rows: Record<string, unknown>[] = [];
  for (const event of events) {
    const interested = subscriptions.filter((s) => s.workspaceId === event.workspaceId && s.events.has(event.type));
    if (!interested.length) continue;
    const eventId = newId('evt');
    const dataByVariant = new Map<Variant, string | null>();
    for (const subscription of interested) {
      if (!dataByVariant.has(subscription.variant)) {
        const data = buildEventData(subscription.variant, event);
        dataByVariant.set(subscription.variant, data ? JSON.stringify(data) : null);
      }
      const data = dataByVariant.get(subscription.variant);
      if (data === null || data === undefined) continue;
      rows.push({
        id: newId('dlv'),
        subscription_id: subscription.id,
        workspace_id: event.workspaceId,
        variant: subscription.variant,
        event_id: eventId,
        event_type: event.type,
        request_id: event.requestId ?? null,
        occurred_at: event.occurredAt,
        data,
        status: 'PENDING',
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      });
    }
  }
  for (let i = 0; i < rows.length; i += INSERT_CHUNK)
    await trx('webhook_deliveries').insert(rows.slice(i, i + INSERT_CHUNK));
  return rows.length;
}
