// Reading the audit log: the dashboard's list and CSV, `shortlink audit list`, and the check of a
// workspace's hash chain (`shortlink audit verify`). Nothing here changes an entry.
import type { Db } from '../db/knex.ts';
import * as repo from '../db/repos/audit.ts';
import { entryHash, GENESIS_HASH, type AuditChanges } from '../domain/audit.ts';

export type { AuditFilter } from '../db/repos/audit.ts';

export interface AuditEntryView {
  id: string;
  seq: number;
  at: string;
  actor: { type: repo.AuditEntry['actorType']; id: string | null; userId: string | null; email: string | null };
  action: string;
  objectType: string;
  objectId: string | null;
  changes: AuditChanges;
  address: { network: string | null; hmac: string | null };
  prevHash: string;
  hash: string;
}

function view(e: repo.AuditEntry, emails: Map<string, string>): AuditEntryView {
  return {
    id: e.id,
    seq: e.seq,
    at: new Date(e.at).toISOString(),
    actor: {
      type: e.actorType,
      id: e.actorId,
      userId: e.actorUserId,
      email: e.actorUserId ? (emails.get(e.actorUserId) ?? null) : null,
    },
    action: e.action,
    objectType: e.objectType,
    objectId: e.objectId,
    changes: JSON.parse(e.changes) as AuditChanges,
    address: { network: e.addressNetwork, hmac: e.addressHmac },
    prevHash: e.prevHash,
    hash: e.hash,
  };
}

const withEmails = async (knex: Db, entries: repo.AuditEntry[]) => {
  const emails = await repo.emailsOf(
    knex,
    entries.flatMap((e) => (e.actorUserId ? [e.actorUserId] : [])),
  );
  return entries.map((e) => view(e, emails));
};

/** A page, newest first; `next` is the `before` of the following page. */
export async function listAudit(
  knex: Db,
  filter: repo.AuditFilter,
  page: { limit: number; before?: number },
): Promise<{ data: AuditEntryView[]; next: number | null }> {
  const rows = await repo.listEntries(knex, filter, { limit: page.limit + 1, before: page.before });
  const kept = rows.slice(0, page.limit);
  return {
    data: await withEmails(knex, kept),
    next: rows.length > page.limit ? kept[kept.length - 1].seq : null,
  };
}

/** Every entry the filter selects, oldest first, a batch at a time (CSV, the command line). */
export async function* eachAudit(knex: Db, filter: repo.AuditFilter): AsyncGenerator<AuditEntryView[]> {
  let batch: repo.AuditEntry[] = [];
  for await (const e of repo.eachEntry(knex, filter)) {
    batch.push(e);
    if (batch.length === 1000) {
      yield await withEmails(knex, batch);
      batch = [];
    }
  }
  if (batch.length) yield await withEmails(knex, batch);
}

export interface ChainCheck {
  workspaceId: string;
  ok: boolean;
  /** Entries checked, from the first kept one. */
  checked: number;
  /** Where the chain starts: 0 (its first entry) or the last entry retention deleted. */
  anchoredAt: number;
  /** The first entry that does not hold, and why. */
  firstBad?: { seq: number; id: string | null; reason: string };
}

/**
 * Recomputes every kept entry's hash from its stored fields and the hash before it, starting at
 * retention's anchor (or the chain's start): an edited field, a deleted or inserted entry, or a
 * reordered one is named by the first entry where the chain stops holding.
 */
export async function verifyChain(knex: Db, workspaceId: string): Promise<ChainCheck> {
  const anchor = await repo.anchorOf(knex, workspaceId);
  let prev = anchor ?? { seq: 0, hash: GENESIS_HASH };
  let checked = 0;
  const bad = (seq: number, id: string | null, reason: string): ChainCheck => ({
    workspaceId,
    ok: false,
    checked,
    anchoredAt: anchor?.seq ?? 0,
    firstBad: { seq, id, reason },
  });
  for await (const e of repo.eachEntry(knex, { workspaceId })) {
    if (e.seq !== prev.seq + 1)
      return bad(prev.seq + 1, null, `entry ${prev.seq + 1} is missing (next kept is ${e.seq})`);
    if (e.prevHash !== prev.hash) return bad(e.seq, e.id, `its previous hash is not the hash of entry ${prev.seq}`);
    const { hash, ...fields } = e;
    if (entryHash(fields) !== hash) return bad(e.seq, e.id, 'its stored fields do not match its hash (edited)');
    prev = { seq: e.seq, hash };
    checked++;
  }
  return { workspaceId, ok: true, checked, anchoredAt: anchor?.seq ?? 0 };
}

/** The workspaces with an audit chain, for checking them all. */
export const auditedWorkspaces = (knex: Db) => repo.chainWorkspaces(knex);
