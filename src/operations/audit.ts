// The one way a change is recorded in the audit log: `audit(trx, actor, workspaceId, event)` inside
// the change's own transaction, so an entry exists exactly when its change does. Repositories that
// already take an EmitEvents function for webhook events take `withAudit(emit, ...)` instead.
import type { Db, DbTransaction } from '../db/knex.ts';
import { workspacesOf } from '../db/repos/accounts.ts';
import { appendEntries, type NewAuditEntry } from '../db/repos/audit.ts';
import type { EmitEvents } from '../db/repos/outbox.ts';
import { addressKey, redactChanges, type AuditActor, type AuditChanges } from '../domain/audit.ts';

export type { AuditActor } from '../domain/audit.ts';
export { CLI_ACTOR, actorAt, changedBetween, createdFields, diffFields } from '../domain/audit.ts';

/** What a change did: `link.created` on `link` `lnk_…`, with the fields it set or changed. */
export interface AuditEvent {
  action: string;
  objectType: string;
  objectId: string | null;
  changes?: AuditChanges;
}

const keys = new WeakMap<Buffer, Buffer>();
/** The address HMAC's key for this MASTER_KEY, derived once per process. */
export function auditAddressKey(masterKey: Buffer): Buffer {
  let key = keys.get(masterKey);
  if (!key) keys.set(masterKey, (key = addressKey(masterKey)));
  return key;
}

/**
 * The entries as stored, secrets redacted: for a repository that appends them in a transaction
 * of its own (one that runs on a query thread, such as a webhook subscription's).
 */
export function auditEntries(actor: AuditActor, workspaceId: string, ...events: AuditEvent[]): NewAuditEntry[] {
  const at = Date.now();
  return events.map((e) => ({
    workspaceId,
    at,
    actorType: actor.type,
    actorId: actor.id,
    actorUserId: actor.userId,
    action: e.action,
    objectType: e.objectType,
    objectId: e.objectId,
    changes: redactChanges(e.changes),
    addressNetwork: actor.addressNetwork,
    addressHmac: actor.addressHmac,
  }));
}

/** Records `events` in the workspace's chain, in the caller's transaction. */
export async function audit(
  trx: DbTransaction,
  actor: AuditActor,
  workspaceId: string,
  ...events: AuditEvent[]
): Promise<void> {
  if (events.length) await appendEntries(trx, auditEntries(actor, workspaceId, ...events));
}

/** Runs `change` and records what it returns in one transaction (a change without its own). */
export async function audited<T>(
  knex: Db,
  actor: AuditActor,
  workspaceId: string,
  change: (trx: DbTransaction) => Promise<T>,
  describe: (result: T) => AuditEvent | AuditEvent[],
): Promise<T> {
  return knex.transaction(async (trx) => {
    const result = await change(trx);
    const events = describe(result);
    await audit(trx, actor, workspaceId, ...(Array.isArray(events) ? events : [events]));
    return result;
  });
}

/** A repository's EmitEvents that also records the change, in the same transaction. */
export function withAudit<A extends unknown[]>(
  emit: EmitEvents<A> | undefined,
  actor: AuditActor,
  workspaceId: string,
  describe: (...args: A) => AuditEvent | AuditEvent[],
): EmitEvents<A> {
  return async (trx, ...args) => {
    const events = describe(...args);
    await audit(trx, actor, workspaceId, ...(Array.isArray(events) ? events : [events]));
    return emit ? emit(trx, ...args) : [];
  };
}

/**
 * A change to a person rather than to one workspace (a sign-in, a failed one, a password): it goes
 * in the chain of every workspace the person is a member of at the time, and in none when they are
 * a member of none.
 */
export async function auditPerson(
  trx: DbTransaction,
  actor: AuditActor,
  userId: string,
  event: AuditEvent,
): Promise<void> {
  const workspaces = await workspacesOf(trx, userId);
  await appendEntries(
    trx,
    workspaces.flatMap((w) => auditEntries(actor, w.id, event)),
  );
}

/** The person themselves at the actor's address (a sign-in names who signed in). */
export const asPerson = (actor: AuditActor, userId: string): AuditActor => ({
  ...actor,
  type: 'user',
  id: userId,
  userId,
});
