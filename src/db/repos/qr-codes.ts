// QR codes as the public API reads and deletes them (a code is made in workspace-objects.ts). A
// code of a deleted link is gone with it: never listed, never found. A deleted code keeps its row
// (`deleted_at`): conversions and goals that name it still read it.
import type { Knex } from 'knex';
import { recordLinkChange } from './link-changes.ts';

export interface QrCodeRow {
  id: string;
  link_id: string;
  code: string;
  created_at: number | string;
}

const live = (knex: Knex, workspaceId: string) =>
  knex('qr_codes')
    .join('links', 'links.id', 'qr_codes.link_id')
    .where('qr_codes.workspace_id', workspaceId)
    .whereNull('qr_codes.deleted_at')
    .whereNull('links.deleted_at');

const COLUMNS = ['qr_codes.id', 'qr_codes.link_id', 'qr_codes.code', 'qr_codes.created_at'];

export async function findLiveQrCode(knex: Knex, workspaceId: string, id: string): Promise<QrCodeRow | undefined> {
  return live(knex, workspaceId).where('qr_codes.id', id).first(COLUMNS);
}

/** One page, newest first (ties by id, so a page is stable), and how many there are. */
export async function qrCodesPage(
  knex: Knex,
  workspaceId: string,
  page: number,
  limit: number,
  linkId?: string,
): Promise<{ rows: QrCodeRow[]; total: number }> {
  const scoped = () => {
    const q = live(knex, workspaceId);
    return linkId === undefined ? q : q.where('qr_codes.link_id', linkId);
  };
  const [{ n }] = await scoped().count({ n: '*' });
  const rows = await scoped()
    .orderBy([
      { column: 'qr_codes.created_at', order: 'desc' },
      { column: 'qr_codes.id', order: 'desc' },
    ])
    .limit(limit)
    .offset((page - 1) * limit)
    .select(COLUMNS);
  return { rows, total: Number(n) };
}

/**
 * Marks the code deleted and writes its link's address to the change feed in the same
 * transaction, so every process drops the code from its redirect cache (src/redirect/changes.ts).
 * The link's address, or undefined when there was no live code to delete.
 */
export async function softDeleteQrCode(
  knex: Knex,
  workspaceId: string,
  id: string,
): Promise<{ domainKey: string; slug: string } | undefined> {
  return knex.transaction(async (trx) => {
    const row = await live(trx, workspaceId).where('qr_codes.id', id).first('links.domain_key', 'links.slug');
    if (!row) return undefined;
    await trx('qr_codes').where({ id }).update({ deleted_at: Date.now() });
    await recordLinkChange(trx, 'link', row.domain_key, row.slug);
    return { domainKey: row.domain_key, slug: row.slug };
  });
}
