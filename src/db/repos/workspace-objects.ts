// The small objects of a workspace that links and pages refer to: tags, campaigns, QR codes and
// hosted images (assets).
import type { Knex } from 'knex';
import { notFound } from '../../domain/errors.ts';
import { newId, randomString } from '../../domain/ids.ts';
import { requireWorkspace } from './workspaces.ts';

export async function createTag(knex: Knex, workspaceId: string, name: string, color: string): Promise<string> {
  await requireWorkspace(knex, workspaceId);
  const id = newId('tag');
  await knex('tags').insert({ id, workspace_id: workspaceId, name, color, created_at: Date.now() });
  return id;
}

export async function createCampaign(knex: Knex, workspaceId: string, name: string): Promise<string> {
  await requireWorkspace(knex, workspaceId);
  const id = newId('cmp');
  await knex('campaigns').insert({ id, workspace_id: workspaceId, name, created_at: Date.now() });
  return id;
}

export async function findCampaign(knex: Knex, workspaceId: string, id: string): Promise<{ id: string } | undefined> {
  return knex('campaigns').where({ id, workspace_id: workspaceId }).whereNull('deleted_at').first('id');
}

export async function findQrCode(
  knex: Knex,
  workspaceId: string,
  id: string,
): Promise<{ id: string; link_id: string } | undefined> {
  return knex('qr_codes').where({ id, workspace_id: workspaceId }).whereNull('deleted_at').first('id', 'link_id');
}

/** A QR code points at one live link of the same workspace; `code` is its scan address. */
export async function createQrCode(
  knex: Knex,
  workspaceId: string,
  linkId: string,
): Promise<{ id: string; code: string }> {
  const link = await knex('links').where({ id: linkId, workspace_id: workspaceId }).whereNull('deleted_at').first('id');
  if (!link) throw notFound(`link ${linkId} not found in workspace ${workspaceId}`);
  const id = newId('qr');
  const code = randomString(10);
  await knex('qr_codes').insert({ id, workspace_id: workspaceId, link_id: linkId, code, created_at: Date.now() });
  return { id, code };
}

/** A hosted image of the workspace by its file name under ASSET_BASE_URL. */
export async function findAsset(
  knex: Knex,
  workspaceId: string,
  fileName: string,
): Promise<{ id: string } | undefined> {
  return knex('assets').where({ workspace_id: workspaceId, file_name: fileName }).first('id');
}

/**
 * Records an asset stored as `<id><extension>`; `store` writes the file inside the same
 * transaction, so a failed write leaves no row behind.
 */
export async function addAsset(
  knex: Knex,
  workspaceId: string,
  extension: string,
  contentType: string,
  store: (fileName: string) => void | Promise<void>,
): Promise<{ id: string; fileName: string }> {
  return knex.transaction(async (trx) => {
    await requireWorkspace(trx, workspaceId);
    const id = newId('ast');
    const fileName = `${id}${extension}`;
    await trx('assets').insert({
      id,
      workspace_id: workspaceId,
      file_name: fileName,
      content_type: contentType,
      created_at: Date.now(),
    });
    await store(fileName);
    return { id, fileName };
  });
}

export async function tagsOf(
  knex: Knex,
  workspaceId: string,
): Promise<Array<{ id: string; name: string; color: string }>> {
  return knex('tags').where({ workspace_id: workspaceId }).orderBy('name').select('id', 'name', 'color');
}

/**
 * The workspace's tags by name, each with how many of its links carry it. Deleted links are not
 * counted: they are not listed anywhere, so a tag's deletion takes it from none a person sees.
 */
export async function tagsWithLinkCounts(
  knex: Knex,
  workspaceId: string,
): Promise<Array<{ id: string; name: string; color: string; linkCount: number }>> {
  const counts = knex('link_tags as lt')
    .join('links as l', 'l.id', 'lt.link_id')
    .where('l.workspace_id', workspaceId)
    .whereNull('l.deleted_at')
    .groupBy('lt.tag_id')
    .select('lt.tag_id')
    .count({ n: '*' })
    .as('c');
  const rows = await knex('tags as t')
    .leftJoin(counts, 'c.tag_id', 't.id')
    .where('t.workspace_id', workspaceId)
    .orderBy('t.name')
    .select('t.id', 't.name', 't.color', 'c.n');
  // Postgres answers a count as a string (a bigint); none is a tag on no link.
  return rows.map((r) => ({ id: r.id, name: r.name, color: r.color, linkCount: Number(r.n ?? 0) }));
}

export async function findTag(
  knex: Knex,
  workspaceId: string,
  id: string,
): Promise<{ id: string; name: string; color: string } | undefined> {
  return knex('tags').where({ id, workspace_id: workspaceId }).first('id', 'name', 'color');
}

/** Changes a tag of the workspace; a name another tag has throws the unique violation. */
export async function updateTag(
  knex: Knex,
  workspaceId: string,
  id: string,
  change: { name?: string; color?: string },
): Promise<void> {
  if (Object.keys(change).length) await knex('tags').where({ id, workspace_id: workspaceId }).update(change);
}

/**
 * Deletes a tag of the workspace and takes it off every link in the same transaction (the
 * foreign key cascades too, but is not relied on). Whether anything was deleted.
 */
export async function deleteTag(knex: Knex, workspaceId: string, id: string): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const tag = await trx('tags').where({ id, workspace_id: workspaceId }).first('id');
    if (!tag) return false;
    await trx('link_tags').where({ tag_id: id }).delete();
    await trx('tags').where({ id }).delete();
    return true;
  });
}

export async function findTagByName(
  knex: Knex,
  workspaceId: string,
  name: string,
): Promise<{ id: string } | undefined> {
  return knex('tags').where({ workspace_id: workspaceId, name }).first('id');
}

export async function campaignsOf(
  knex: Knex,
  workspaceId: string,
): Promise<Array<{ id: string; name: string; created_at: number }>> {
  return knex('campaigns')
    .where({ workspace_id: workspaceId })
    .whereNull('deleted_at')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select('id', 'name', 'created_at');
}

/** The link's first QR code, if it has one. */
export async function qrCodeOfLink(
  knex: Knex,
  workspaceId: string,
  linkId: string,
): Promise<{ id: string; code: string } | undefined> {
  return knex('qr_codes')
    .where({ workspace_id: workspaceId, link_id: linkId })
    .whereNull('deleted_at')
    .orderBy('created_at')
    .first('id', 'code');
}
