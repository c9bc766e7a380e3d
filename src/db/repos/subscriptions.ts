// Webhook subscriptions of both variants. A Variant A subscription may name the traffic alerts,
// whose click windows are kept only for workspaces that want them (traffic-windows.ts): a change
// that starts that rebuilds them from the raw clicks in its own transaction.
import type { Knex } from 'knex';
import { changeAlertSubscriptions } from './traffic-windows.ts';
import { appendEntries, type NewAuditEntry } from './audit.ts';

export type Variant = 'A' | 'B';

export interface SubscriptionRow {
  id: string;
  workspace_id: string;
  variant: Variant;
  url: string;
  /** JSON array of event names. */
  events: string;
  /** Sealed with MASTER_KEY (src/webhooks/secrets.ts); the clear secret is never stored. */
  secret_encrypted: string;
  enabled: boolean | number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  /** Endpoint health (migration 20261128000000): the first failed attempt since the last success. */
  failing_since?: number | null;
  /** Set when the service disabled the subscription for its failures; cleared on re-enabling. */
  disabled_at?: number | null;
  disabled_reason?: string | null;
}

export type SubscriptionPatch = Partial<
  Pick<
    SubscriptionRow,
    'url' | 'events' | 'enabled' | 'updated_at' | 'failing_since' | 'disabled_at' | 'disabled_reason'
  >
>;

/**
 * What turning a subscription on writes: the health record starts afresh, so a re-enabled
 * endpoint has five new days before its failures disable it again.
 */
export const enabledAgain = (now: number): SubscriptionPatch => ({
  enabled: true,
  failing_since: null,
  disabled_at: null,
  disabled_reason: null,
  updated_at: now,
});

/** The live (not deleted) subscriptions of a workspace made through one variant's endpoints. */
function live(knex: Knex, variant: Variant, workspaceId: string) {
  return knex<SubscriptionRow>('webhook_subscriptions')
    .where({ workspace_id: workspaceId, variant })
    .whereNull('deleted_at');
}

export async function findSubscription(
  knex: Knex,
  variant: Variant,
  workspaceId: string,
  id: string,
): Promise<SubscriptionRow | undefined> {
  return (await live(knex, variant, workspaceId).where({ id }).first()) as SubscriptionRow | undefined;
}

/** Newest first. */
export async function listSubscriptions(knex: Knex, variant: Variant, workspaceId: string): Promise<SubscriptionRow[]> {
  return (await live(knex, variant, workspaceId).orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'id', order: 'desc' },
  ])) as SubscriptionRow[];
}

/** Both variants' live subscriptions of a workspace, newest first (Settings › Webhooks, the command line). */
export async function listWorkspaceSubscriptions(knex: Knex, workspaceId: string): Promise<SubscriptionRow[]> {
  return (await knex<SubscriptionRow>('webhook_subscriptions')
    .where({ workspace_id: workspaceId })
    .whereNull('deleted_at')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])) as SubscriptionRow[];
}

/**
 * Creates a subscription. A Variant A one may start the workspace's traffic windows, whose
 * rebuild reads up to 8 days of raw clicks, so this runs as a query (src/db/queries.ts).
 */
/** `audit`: the entries recording the change, appended in its transaction (they cross to a query thread as data). */
export async function insertSubscription(knex: Knex, row: SubscriptionRow, audit: NewAuditEntry[] = []): Promise<void> {
  const insert = async (trx: Knex.Transaction) => {
    await trx('webhook_subscriptions').insert(row);
    if (audit.length) await appendEntries(trx, audit);
  };
  if (row.variant === 'A') await changeAlertSubscriptions(knex, row.workspace_id, insert);
  else await knex.transaction(insert);
}

/** Changes a Variant A subscription (the only variant with an update); false when there is none. */
export async function updateSubscriptionA(
  knex: Knex,
  workspaceId: string,
  id: string,
  patch: SubscriptionPatch,
  audit: NewAuditEntry[] = [],
): Promise<boolean> {
  const n = await changeAlertSubscriptions(knex, workspaceId, async (trx) => {
    const changed = await live(trx, 'A', workspaceId).where({ id }).update(patch);
    if (changed > 0 && audit.length) await appendEntries(trx, audit);
    return changed;
  });
  return n > 0;
}

/** Soft delete: deliveries already made keep their subscription; false when there is none. */
export async function removeSubscription(
  knex: Knex,
  variant: Variant,
  workspaceId: string,
  id: string,
  now: number,
): Promise<boolean> {
  return (await live(knex, variant, workspaceId).where({ id }).update({ deleted_at: now, updated_at: now })) > 0;
}

/** A live subscription of either variant, by id alone (the operator's commands). */
export async function findAnySubscription(knex: Knex, id: string): Promise<SubscriptionRow | undefined> {
  return (await knex<SubscriptionRow>('webhook_subscriptions').where({ id }).whereNull('deleted_at').first()) as
    | SubscriptionRow
    | undefined;
}

/**
 * Turns a subscription (either variant) on again, also one the service disabled for its
 * failures; false when there is none. Variant A's events are unchanged, so its traffic windows are.
 */
export async function reEnableSubscription(knex: Knex, workspaceId: string, id: string, now: number): Promise<boolean> {
  const n = await knex('webhook_subscriptions')
    .where({ workspace_id: workspaceId, id })
    .whereNull('deleted_at')
    .update(enabledAgain(now));
  return n > 0;
}
