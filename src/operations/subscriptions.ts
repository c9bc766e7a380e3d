// The rules of making, changing and deleting webhook subscriptions, in one place for the three
// ways in: the public endpoints of both variants (src/http/handlers/webhooks.ts), Settings ›
// Webhooks (src/http/dashboard/handlers/webhooks.ts) and `shortlink webhook create|update|delete`.
// Each caller checks who may act and in which workspace; this module holds what a subscription may
// be, and the one answer to event names a variant does not offer: 400 on `events`, naming each
// refused name as retired or unknown and listing the names the variant offers.
import { audit, auditEntries, createdFields, diffFields, type AuditActor } from './audit.ts';
import { randomBytes } from 'node:crypto';
import type { Db as Knex } from '../db/knex.ts';
import { roleOf } from '../db/repos/workspaces.ts';
import { mayHoldScope, planHasApi, rolesHolding, type Plan } from '../domain/access.ts';
import type { Queries } from '../db/queries.ts';
import * as subscriptions from '../db/repos/subscriptions.ts';
import { type AppError, conflict, forbidden, invalid, notFound, quoted } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { eventCatalog, refusedEventNames, type Variant } from '../webhooks/catalog.ts';
import { sealSecret } from '../webhooks/secrets.ts';

/** What the operations need: the database, its queries (SQLite: off the event loop) and the key that seals secrets. */
export interface SubscriptionDeps {
  knex: Knex;
  queries: Pick<Queries, 'insertSubscription' | 'updateSubscriptionA'>;
  masterKey: Buffer;
}

/** The 400 for the names of `names` the variant does not offer; null when it offers them all. */
export function refusedEventsError(variant: Variant, names: string[]): AppError | null {
  const { retired, unknown } = refusedEventNames(variant, [...new Set(names)]);
  const problems: string[] = [];
  if (retired.length) {
    problems.push(`retired event names that can no longer be subscribed to: ${retired.map(quoted).join(', ')}`);
  }
  if (unknown.length) problems.push(`unknown event names: ${unknown.map(quoted).join(', ')}`);
  if (!problems.length) return null;
  const offered = eventCatalog(variant)
    .events.map((e) => e.name)
    .join(', ');
  return invalid(`events names ${problems.join('; and ')}. Variant ${variant} offers: ${offered}`, 'events');
}

/** Duplicates count once; every name must be in the variant's catalogue. */
export function checkEventNames(variant: Variant, names: string[]): string[] {
  const refused = refusedEventsError(variant, names);
  if (refused) throw refused;
  return [...new Set(names)];
}

/** Webhooks come with the Growth plan or above (403 naming the plan, in the words of the API or the dashboard). */
export function requireWebhooksPlan(plan: Plan, via: 'key' | 'session'): void {
  if (planHasApi(plan)) return;
  throw forbidden(
    via === 'key'
      ? `Webhooks need the Growth plan or above; this workspace is on ${plan}`
      : `The ${plan} plan does not include webhooks; webhooks need the Growth plan or above`,
  );
}

/**
 * Creating, changing and deleting subscriptions with a key needs the key's person to hold
 * webhooks:write now (OWNER or ADMIN, src/domain/access.ts): a key made before a demotion or a
 * departure loses it.
 */
export async function requireWebhookWriter(knex: Knex, key: { workspaceId: string; userId: string }, action: string) {
  const role = await roleOf(knex, key.workspaceId, key.userId);
  if (mayHoldScope(role, 'webhooks:write')) return;
  const needs = rolesHolding('webhooks:write');
  throw forbidden(
    role
      ? `The key's owner has the role ${role}, which may not ${action} webhook subscriptions: that needs ${needs}`
      : `The key's owner is no longer a member of this workspace and may not ${action} webhook subscriptions`,
  );
}

/** The workspace's subscription of the variant, or 404: the other variant's endpoints do not see it. */
export async function subscriptionOf(
  knex: Knex,
  variant: Variant,
  workspaceId: string,
  id: string,
): Promise<subscriptions.SubscriptionRow> {
  const row = await subscriptions.findSubscription(knex, variant, workspaceId, id);
  if (!row) throw notFound('Webhook subscription not found');
  return row;
}

/** Variant A's secret is generated here: 256 random bits, shown once. */
export const generateSecret = () => `whsec_${randomBytes(32).toString('hex')}`;

export function checkUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('url must be an absolute https URL', 'url');
  }
  if (url.protocol === 'http:') throw invalid('url must use https; plain http URLs are refused', 'url');
  if (url.protocol !== 'https:' || !url.hostname) throw invalid('url must be an absolute https URL', 'url');
  return value;
}

/** The caller's secret (Variant B): the interface's minimum of 16 characters. */
function checkCallerSecret(secret: unknown): string {
  // The schemas hold the length too; this keeps the rule for callers whose input is not validated.
  if (typeof secret !== 'string' || [...secret].length < 16)
    throw invalid('secret must be at least 16 characters', 'secret');
  return secret;
}

export interface NewSubscription {
  workspaceId: string;
  variant: Variant;
  url: string;
  events: string[];
  /** Variant B only: chosen by the caller. Variant A's is generated. */
  secret?: string;
}

/**
 * Makes a subscription under its variant's rules. Returns the row and, for Variant A, the
 * generated secret (shown once: only its sealed form is stored).
 */
export async function createSubscription(
  deps: SubscriptionDeps,
  s: NewSubscription,
  actor: AuditActor,
): Promise<{ row: subscriptions.SubscriptionRow; secret?: string }> {
  const url = checkUrl(s.url);
  const events = checkEventNames(s.variant, s.events);
  let secret: string;
  if (s.variant === 'A') {
    // The service generates Variant A's secret; the caller may not choose it.
    if (s.secret !== undefined)
      throw invalid('secret is chosen by the service for Variant A; send it for Variant B only', 'secret');
    secret = generateSecret();
  } else {
    secret = checkCallerSecret(s.secret);
  }
  const now = Date.now();
  const row: subscriptions.SubscriptionRow = {
    id: newId('whk'),
    workspace_id: s.workspaceId,
    variant: s.variant,
    url,
    events: JSON.stringify(events),
    // Only the sealed form is stored; the clear secret never reaches the database or a log.
    secret_encrypted: sealSecret(deps.masterKey, secret),
    enabled: true,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await deps.queries.insertSubscription(
    row,
    auditEntries(actor, s.workspaceId, {
      action: 'webhook.created',
      objectType: 'webhook',
      objectId: row.id,
      changes: { ...createdFields({ variant: s.variant, url, events }), secret: { secret: true } },
    }),
  );
  return s.variant === 'A' ? { row, secret } : { row };
}

export interface SubscriptionChange {
  url?: string;
  events?: string[];
  enabled?: boolean;
}

/**
 * Changes a Variant A subscription (Variant B's API has no update). Turning a disabled
 * subscription on clears what the endpoint health rule kept. 404 when it is gone.
 */
export async function changeSubscription(
  deps: SubscriptionDeps,
  current: subscriptions.SubscriptionRow,
  change: SubscriptionChange,
  actor: AuditActor,
): Promise<void> {
  if (current.variant !== 'A') {
    throw conflict(
      'Variant B subscriptions cannot be changed (their API has no update): delete it and make another, or re-enable it',
    );
  }
  const patch: subscriptions.SubscriptionPatch = {};
  if (change.url !== undefined) patch.url = checkUrl(change.url);
  if (change.events !== undefined) patch.events = JSON.stringify(checkEventNames('A', change.events));
  if (change.enabled !== undefined) patch.enabled = change.enabled;
  if (change.enabled === true && !current.enabled) Object.assign(patch, subscriptions.enabledAgain(Date.now()));
  if (!Object.keys(patch).length) return;
  patch.updated_at = Date.now();
  const before = { url: current.url, events: JSON.parse(current.events), enabled: !!current.enabled };
  const after = {
    url: patch.url,
    events: patch.events === undefined ? undefined : JSON.parse(patch.events),
    enabled: patch.enabled,
  };
  const entries = auditEntries(actor, current.workspace_id, {
    action: 'webhook.updated',
    objectType: 'webhook',
    objectId: current.id,
    changes: diffFields(before, after),
  });
  if (!(await deps.queries.updateSubscriptionA(current.workspace_id, current.id, patch, entries)))
    throw notFound('Webhook subscription not found');
}

/** Soft delete: deliveries already made keep their subscription and stay in the log. */
export async function deleteSubscription(
  knex: Knex,
  current: Pick<subscriptions.SubscriptionRow, 'variant' | 'workspace_id' | 'id'>,
  actor: AuditActor,
): Promise<void> {
  await knex.transaction(async (trx) => {
    if (!(await subscriptions.removeSubscription(trx, current.variant, current.workspace_id, current.id, Date.now()))) {
      throw notFound('Webhook subscription not found');
    }
    await audit(trx, actor, current.workspace_id, {
      action: 'webhook.deleted',
      objectType: 'webhook',
      objectId: current.id,
    });
  });
}
