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
