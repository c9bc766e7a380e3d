// The audit log in tests: the entries a workspace gained after a point, as stored.
import type { Knex } from 'knex';

export interface StoredEntry {
  seq: number;
  action: string;
  object_type: string;
  object_id: string | null;
  actor_type: string;
  actor_id: string | null;
  actor_user_id: string | null;
  changes: string;
  address_network: string | null;
  address_hmac: string | null;
}

/** The last `seq` of the workspace's chain (0 when it has none): entries after it are new. */
export async function auditMark(knex: Knex, workspaceId: string): Promise<number> {
  const row = await knex('audit_entries').where({ workspace_id: workspaceId }).max('seq as seq').first();
  return Number(row?.seq ?? 0);
}

/** The workspace's entries after `mark`, oldest first. */
export async function auditSince(knex: Knex, workspaceId: string, mark: number): Promise<StoredEntry[]> {
  const rows = await knex('audit_entries')
    .where({ workspace_id: workspaceId })
    .andWhere('seq', '>', mark)
    .orderBy('seq');
  return rows.map((r: any) => ({ ...r, seq: Number(r.seq) }));
}

/**
 * Hashes a workspace's chain again from the genesis hash after a test rewrote its rows (moved
 * their times): the set-up's own repair, never a code path of the service.
 */
export async function rehashChain(knex: Knex, workspaceId: string): Promise<void> {
  const { entryHash, GENESIS_HASH } = await import('../../src/domain/audit');
  let prev = GENESIS_HASH;
  for (const r of await knex('audit_entries').where({ workspace_id: workspaceId }).orderBy('seq')) {
    const fields = {
      id: r.id,
      workspaceId: r.workspace_id,
      seq: Number(r.seq),
      at: Number(r.at),
      actorType: r.actor_type,
      actorId: r.actor_id,
      actorUserId: r.actor_user_id,
      action: r.action,
      objectType: r.object_type,
      objectId: r.object_id,
      changes: r.changes,
      addressNetwork: r.address_network,
      addressHmac: r.address_hmac,
      prevHash: prev,
    };
    prev = entryHash(fields);
    await knex('audit_entries').where({ id: r.id }).update({ prev_hash: fields.prevHash, hash: prev });
  }
}
