// The audit log's table (src/db/migrations/20270103000000_audit_log.ts): entries appended to their
// workspace's hash chain inside the caller's transaction, read with filters, checked, and
// deleted only by retention. No function here updates an entry.
import type { Knex } from 'knex';
import { entryHash, GENESIS_HASH, type AuditActorType, type AuditEntryFields } from '../../domain/audit.ts';
import { newId } from '../../domain/ids.ts';

export type NewAuditEntry = Omit<AuditEntryFields, 'id' | 'seq' | 'prevHash'>;

export interface AuditEntry extends AuditEntryFields {
  hash: string;
}

function present(row: any): AuditEntry {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    seq: Number(row.seq),
    at: Number(row.at),
    actorType: row.actor_type as AuditActorType,
    actorId: row.actor_id ?? null,
    actorUserId: row.actor_user_id ?? null,
    action: row.action,
    objectType: row.object_type,
    objectId: row.object_id ?? null,
    changes: row.changes,
    addressNetwork: row.address_network ?? null,
    addressHmac: row.address_hmac ?? null,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/** Postgres advisory locks of the audit chains share this first key (any constant of the project). */
const CHAIN_LOCK_CLASS = 0x61756474; // "audt"

/**
 * Holds the workspace's chain until the transaction ends, so two appends never take the same
 * `seq` or previous hash. Postgres: a transaction-scoped advisory lock on the workspace.
 * SQLite: the transaction already holds the database's only write lock (IMMEDIATE, src/db/knex.ts).
 */
async function lockChain(trx: Knex.Transaction, workspaceId: string): Promise<void> {
  if (trx.client.config.client === 'pg')
    await trx.raw('select pg_advisory_xact_lock(?, hashtext(?))', [CHAIN_LOCK_CLASS, workspaceId]);
}

async function chainHead(trx: Knex | Knex.Transaction, workspaceId: string): Promise<{ seq: number; hash: string }> {
  const last = await trx('audit_entries')
    .where({ workspace_id: workspaceId })
    .orderBy('seq', 'desc')
    .first('seq', 'hash');
  if (last) return { seq: Number(last.seq), hash: last.hash };
  const anchor = await trx('audit_anchors').where({ workspace_id: workspaceId }).first('seq', 'hash');
  return anchor ? { seq: Number(anchor.seq), hash: anchor.hash } : { seq: 0, hash: GENESIS_HASH };
}

/** Appends entries (in order) to their workspaces' chains, in the caller's transaction. */
export async function appendEntries(trx: Knex.Transaction, entries: NewAuditEntry[]): Promise<void> {
  const byWorkspace = new Map<string, NewAuditEntry[]>();
  for (const e of entries) byWorkspace.set(e.workspaceId, [...(byWorkspace.get(e.workspaceId) ?? []), e]);
  // Locks are taken in one order, so two transactions naming the same workspaces never deadlock.
  for (const workspaceId of [...byWorkspace.keys()].sort()) {
    await lockChain(trx, workspaceId);
    let head = await chainHead(trx, workspaceId);
    const rows = [];
    for (const e of byWorkspace.get(workspaceId)!) {
      const fields: AuditEntryFields = { ...e, id: newId('aud'), seq: head.seq + 1, prevHash: head.hash };
      const hash = entryHash(fields);
      rows.push({
        id: fields.id,
        workspace_id: fields.workspaceId,
        seq: fields.seq,
        at: fields.at,
        actor_type: fields.actorType,
        actor_id: fields.actorId,
        actor_user_id: fields.actorUserId,
        action: fields.action,
        object_type: fields.objectType,
        object_id: fields.objectId,
        changes: fields.changes,
        address_network: fields.addressNetwork,
        address_hmac: fields.addressHmac,
        prev_hash: fields.prevHash,
        hash,
      });
      head = { seq: fields.seq, hash };
    }
    for (let i = 0; i < rows.length; i += 200) await trx('audit_entries').insert(rows.slice(i, i + 200));
  }
}

export interface AuditFilter {
  workspaceId: string;
  /** The person: entries they made themselves or through one of their keys. */
  userId?: string;
  action?: string;
  objectType?: string;
  objectId?: string;
  /** Inclusive lower bound, ms. */
  since?: number;
  /** Exclusive upper bound, ms. */
  until?: number;
}

function filtered(knex: Knex, f: AuditFilter) {
  const q = knex('audit_entries').where({ workspace_id: f.workspaceId });
  if (f.userId) q.andWhere('actor_user_id', f.userId);
  if (f.action) q.andWhere('action', f.action);
  if (f.objectType) q.andWhere('object_type', f.objectType);
  if (f.objectId) q.andWhere('object_id', f.objectId);
  if (f.since !== undefined) q.andWhere('at', '>=', f.since);
  if (f.until !== undefined) q.andWhere('at', '<', f.until);
  return q;
}

/** Newest first; `before` is the `seq` the previous page ended on. */
export async function listEntries(
  knex: Knex,
  f: AuditFilter,
  page: { limit: number; before?: number },
): Promise<AuditEntry[]> {
  const q = filtered(knex, f);
  if (page.before !== undefined) q.andWhere('seq', '<', page.before);
  return (await q.orderBy('seq', 'desc').limit(page.limit)).map(present);
}

/** Oldest first, in pages of `batch` (the command line's list and the CSV stream). */
export async function* eachEntry(knex: Knex, f: AuditFilter, batch = 1000): AsyncGenerator<AuditEntry> {
  let after = 0;
  for (;;) {
    const rows = (await filtered(knex, f).andWhere('seq', '>', after).orderBy('seq').limit(batch)).map(present);
    yield* rows;
    if (rows.length < batch) return;
    after = rows[rows.length - 1].seq;
  }
}

/** The hash retention kept for a workspace's deleted entries, if any were deleted. */
export async function anchorOf(knex: Knex, workspaceId: string): Promise<{ seq: number; hash: string } | null> {
  const row = await knex('audit_anchors').where({ workspace_id: workspaceId }).first('seq', 'hash');
  return row ? { seq: Number(row.seq), hash: row.hash } : null;
}

/** Workspaces with a chain (entries or an anchor). */
export async function chainWorkspaces(knex: Knex): Promise<string[]> {
  const rows = await knex('audit_entries')
    .distinct('workspace_id')
    .union((q) => q.from('audit_anchors').select('workspace_id'));
  return [...new Set(rows.map((r: any) => r.workspace_id as string))].sort();
}

/**
 * Retention: deletes each workspace's entries older than `before`, in one transaction per
 * workspace, moving its anchor to the last deleted entry so the chain still checks from the
 * first kept one. The chain lock is held so an append never reads a head being deleted.
 */
export async function deleteEntriesBefore(knex: Knex, before: number): Promise<number> {
  const workspaces = await knex('audit_entries').where('at', '<', before).distinct('workspace_id');
  let deleted = 0;
  for (const { workspace_id: workspaceId } of workspaces) {
    deleted += await knex.transaction(async (trx) => {
      await lockChain(trx, workspaceId);
      const last = await trx('audit_entries')
        .where({ workspace_id: workspaceId })
        .andWhere('at', '<', before)
        .orderBy('seq', 'desc')
        .first('seq', 'hash');
      if (!last) return 0 as number;
      const anchor = { workspace_id: workspaceId, seq: Number(last.seq), hash: last.hash };
      await trx('audit_anchors').insert(anchor).onConflict('workspace_id').merge(['seq', 'hash']);
      return (await trx('audit_entries')
        .where({ workspace_id: workspaceId })
        .andWhere('seq', '<=', anchor.seq)
        .delete()) as number;
    });
  }
  return deleted;
}

/** The emails of the people entries name (a person deleted since has none). */
export async function emailsOf(knex: Knex, userIds: string[]): Promise<Map<string, string>> {
  const ids = [...new Set(userIds)];
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await knex('users')
      .whereIn('id', ids.slice(i, i + 500))
      .select('id', 'email');
    for (const r of rows) out.set(r.id, r.email);
  }
  return out;
}
