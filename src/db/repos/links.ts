// Links and their tags. Slug uniqueness per domain is enforced by the partial unique index
// links_live_slug, so two requests racing for one slug cannot both win.
import type { Knex } from 'knex';
import { slugTaken } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { DEFAULT_TAG_COLOR } from '../../domain/links.ts';
import { isUniqueViolation, readSnapshot } from '../knex.ts';
import { recordLinkChange, recordLinkChanges } from './link-changes.ts';
import { enqueueEvents, type EmitEvents } from './outbox.ts';

export interface LinkRow {
  seq?: number;
  id: string;
  workspace_id: string;
  created_by: string;
  domain_id: string | null;
  domain_key: string;
  slug: string;
  original_url: string;
  title: string | null;
  status: 'ACTIVE' | 'DISABLED';
  policy_locked: boolean | number;
  redirect_type: 'TEMPORARY' | 'PERMANENT';
  expires_at: number | null;
  expired_url: string | null;
  click_limit: number | null;
  start_at: number | null;
  end_at: number | null;
  password_hash: string | null;
  preview_title: string | null;
  preview_description: string | null;
  preview_image: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface TagRow {
  id: string;
  name: string;
  color: string;
}

/** Which of these addresses a live link holds, as `${domainKey}\u0000${slug}`. */
export async function takenSlugs(
  knex: Knex,
  addresses: Array<{ domainKey: string; slug: string }>,
): Promise<Set<string>> {
  const taken = new Set<string>();
  for (let i = 0; i < addresses.length; i += 500) {
    const part = addresses.slice(i, i + 500);
    const rows = await knex('links')
      .whereNull('deleted_at')
      .whereIn('slug', [...new Set(part.map((a) => a.slug))])
      .whereIn('domain_key', [...new Set(part.map((a) => a.domainKey))])
      .select('domain_key', 'slug');
    for (const r of rows) taken.add(`${r.domain_key}\u0000${r.slug}`);
  }
  return taken;
}

/**
 * The ids of the workspace's tags of these names, without regard to case, making in `trx` those it
 * lacks (as first spelled): a tag named by a link is made with the link, or not at all.
 */
async function tagIdsByName(trx: Knex.Transaction, workspaceId: string, names: string[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  if (!names.length) return ids;
  const existing = await trx('tags').where({ workspace_id: workspaceId }).select('id', 'name');
  for (const t of existing) ids.set(t.name.toLowerCase(), t.id);
  const missing = new Map<string, string>();
  for (const name of names) if (!ids.has(name.toLowerCase())) missing.set(name.toLowerCase(), name);
  if (missing.size) {
    const now = Date.now();
    const rows = [...missing.values()].map((name) => ({
      id: newId('tag'),
      workspace_id: workspaceId,
      name,
      color: DEFAULT_TAG_COLOR,
      created_at: now,
    }));
    // Another request may have made one of them meanwhile: its tag is used.
    for (let i = 0; i < rows.length; i += 200) {
      await trx('tags')
        .insert(rows.slice(i, i + 200))
        .onConflict(['workspace_id', 'name'])
        .ignore();
    }
    const made = await trx('tags')
      .where({ workspace_id: workspaceId })
      .whereIn('name', [...missing.values()]);
    for (const t of made) ids.set(t.name.toLowerCase(), t.id);
  }
  return ids;
}

/** A link's tags as link_tags rows: its tag ids, and the tags it names (`tagIdsByName`), each once. */
function linkTagRows(row: LinkRow, tagIds: string[], tagNames: string[], byName: Map<string, string>) {
  const ids = new Set([...tagIds, ...tagNames.map((name) => byName.get(name.toLowerCase())!)]);
  return [...ids].map((tag_id) => ({ link_id: row.id, tag_id }));
}

/**
 * Creates many links with their tags, change-feed entries and events in one transaction (the
 * CSV import); a slug taken meanwhile fails the whole transaction with slug_taken. `tagNames`
 * are made with the links that name them, in the same transaction.
 */
export async function insertLinks(
  knex: Knex,
  items: Array<{ row: LinkRow; tagIds: string[]; tagNames?: string[] }>,
  emit: (rows: LinkRow[]) => EmitEvents,
): Promise<void> {
  if (!items.length) return;
  try {
    await knex.transaction(async (trx) => {
      for (let i = 0; i < items.length; i += 100)
        await trx('links').insert(items.slice(i, i + 100).map((it) => it.row));
      await recordLinkChanges(
        trx,
        'link',
        items.map(({ row }) => ({ domainKey: row.domain_key, slug: row.slug })),
      );
      const byName = await tagIdsByName(
        trx,
        items[0].row.workspace_id,
        items.flatMap((it) => it.tagNames ?? []),
      );
      const tags = items.flatMap(({ row, tagIds, tagNames }) => linkTagRows(row, tagIds, tagNames ?? [], byName));
      for (let i = 0; i < tags.length; i += 200) await trx('link_tags').insert(tags.slice(i, i + 200));
      await enqueueEvents(trx, await emit(items.map((it) => it.row))(trx));
    });
  } catch (err) {
    if (
      isUniqueViolation(err) &&
      /slug|links_live_slug|UNIQUE constraint failed: links\.domain_key/i.test(String((err as Error).message))
    ) {
      throw slugTaken(items[0].row.slug);
    }
    throw err;
  }
}

/**
 * Creates a link with its tags, the change-feed entry, and the events `emit` returns (the caller
 * decides them; link.created), in one transaction. A live slug on the same domain: slug_taken.
 * `tagNames` are made if the workspace lacks them, in the same transaction.
 */
export async function insertLink(
  knex: Knex,
  row: LinkRow,
  tagIds: string[],
  emit: EmitEvents,
  tagNames: string[] = [],
): Promise<void> {
  try {
    await knex.transaction(async (trx) => {
      await trx('links').insert(row);
      await recordLinkChange(trx, 'link', row.domain_key, row.slug);
      const tags = linkTagRows(row, tagIds, tagNames, await tagIdsByName(trx, row.workspace_id, tagNames));
      if (tags.length) await trx('link_tags').insert(tags);
      await enqueueEvents(trx, await emit(trx));
    });
  } catch (err) {
    if (
      isUniqueViolation(err) &&
      /slug|links_live_slug|UNIQUE constraint failed: links\.domain_key/i.test(String((err as Error).message))
    ) {
      throw slugTaken(row.slug);
    }
    throw err;
  }
}

export async function updateLink(
  knex: Knex,
  current: LinkRow,
  patch: Partial<LinkRow>,
  tagIds: string[] | undefined,
  emit: EmitEvents,
): Promise<void> {
  const id = current.id;
  try {
    await knex.transaction(async (trx) => {
      await trx('links').where({ id }).whereNull('deleted_at').update(patch);
      await recordLinkChange(trx, 'link', current.domain_key, current.slug);
      if (patch.slug && patch.slug !== current.slug)
        await recordLinkChange(trx, 'link', current.domain_key, patch.slug);
      if (tagIds) {
        await trx('link_tags').where({ link_id: id }).delete();
        if (tagIds.length) await trx('link_tags').insert(tagIds.map((tag_id) => ({ link_id: id, tag_id })));
      }
      await enqueueEvents(trx, await emit(trx));
    });
  } catch (err) {
    if (isUniqueViolation(err) && patch.slug) throw slugTaken(patch.slug);
    throw err;
  }
}

export async function getLink(knex: Knex, workspaceId: string, id: string): Promise<LinkRow | undefined> {
  return knex('links').where({ id, workspace_id: workspaceId }).whereNull('deleted_at').first();
}

/** Clicks per link of the workspace: the sum of its daily counts (0 for a link never clicked). */
export async function clickTotals(knex: Knex, workspaceId: string, linkIds: string[]): Promise<Map<string, number>> {
  const totals = new Map<string, number>(linkIds.map((id) => [id, 0]));
  if (!linkIds.length) return totals;
  // The daily counts' key starts with the workspace (20261122080000_daily_clicks_by_workspace).
  const rows = await knex('link_daily_clicks')
    .where('workspace_id', workspaceId)
    .whereIn('link_id', linkIds)
    .groupBy('link_id')
    .select('link_id')
    .sum({ n: 'clicks' });
  for (const r of rows as Array<{ link_id: string; n: number | string }>) totals.set(r.link_id, Number(r.n));
  return totals;
}

/**
 * A page of GET /api/v1/links with what each link shows (its tags and clicks), read in one
 * snapshot. The count and a deep page walk the workspace's links, so it runs as a query
 * (src/db/queries.ts).
 */
export async function readLinksPage(knex: Knex, workspaceId: string, page: number, limit: number) {
  return readSnapshot(knex, async (trx) => {
    // One statement at a time: they share the snapshot's one connection.
    const rows: LinkRow[] = await trx('links')
      .where({ workspace_id: workspaceId })
      .whereNull('deleted_at')
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'seq', order: 'desc' },
      ])
      .offset((page - 1) * limit)
      .limit(limit);
    // Kept by triggers with every write to links (migration 20261230000000): counting a million
    // index entries per page took over 100 ms.
    const counted = await trx('live_link_counts').where({ workspace_id: workspaceId }).first('links');
    const total = counted?.links ?? 0;
    const ids = rows.map((r) => r.id);
    const tags = await tagsOf(trx, ids);
    const clicks = await clickTotals(trx, workspaceId, ids);
    return { rows, total: Number(total), tags, clicks };
  });
}

/** Deleting keeps the row (click history stays) and frees the slug. */
export async function softDeleteLink(
  knex: Knex,
  workspaceId: string,
  id: string,
  emit: EmitEvents<[row: LinkRow, deletedAt: number]>,
): Promise<LinkRow | undefined> {
  return knex.transaction(async (trx) => {
    const row = await trx('links').where({ id, workspace_id: workspaceId }).whereNull('deleted_at').first();
    if (!row) return undefined;
    const deletedAt = Date.now();
    await trx('links').where({ id }).update({ deleted_at: deletedAt, updated_at: deletedAt });
    await recordLinkChange(trx, 'link', row.domain_key, row.slug);
    await enqueueEvents(trx, await emit(trx, row as LinkRow, deletedAt));
    return row as LinkRow;
  });
}

export async function tagsOf(knex: Knex, linkIds: string[]): Promise<Map<string, TagRow[]>> {
  const out = new Map<string, TagRow[]>(linkIds.map((id) => [id, []]));
  if (!linkIds.length) return out;
  const rows = await knex('link_tags as lt')
    .join('tags as t', 't.id', 'lt.tag_id')
    .whereIn('lt.link_id', linkIds)
    .orderBy('t.name')
    .select('lt.link_id', 't.id', 't.name', 't.color');
  for (const r of rows) out.get(r.link_id)!.push({ id: r.id, name: r.name, color: r.color });
  return out;
}

export async function existingTagIds(knex: Knex, workspaceId: string, tagIds: string[]): Promise<Set<string>> {
  if (!tagIds.length) return new Set();
  const rows = await knex('tags').where({ workspace_id: workspaceId }).whereIn('id', tagIds).select('id');
  return new Set(rows.map((r) => r.id as string));
}

export async function findLiveLinkByAddress(knex: Knex, domainKey: string, slug: string): Promise<LinkRow | undefined> {
  return knex('links').where({ domain_key: domainKey, slug }).whereNull('deleted_at').first();
}

export async function getDomain(knex: Knex, id: string) {
  return knex('domains').where({ id }).first() as Promise<
    { id: string; workspace_id: string; host: string; status: string } | undefined
  >;
}

export async function activeDomainByHost(knex: Knex, host: string) {
  return knex('domains').where({ host: host.toLowerCase(), status: 'ACTIVE' }).first() as Promise<
    { id: string; workspace_id: string; host: string } | undefined
  >;
}

/**
 * The operator's policy disable. `emit` runs only when the link was ACTIVE (a link already
 * DISABLED changes no field a receiver sees): link.updated with changedFields [status].
 */
export async function setPolicyDisabled(
  knex: Knex,
  id: string,
  emit: EmitEvents<[linkId: string]>,
): Promise<LinkRow | undefined> {
  return knex.transaction(async (trx) => {
    const live = () => trx('links').where({ id }).whereNull('deleted_at');
    const before = await live().first('updated_at');
    if (!before) return undefined;
    const patch = {
      status: 'DISABLED',
      policy_locked: true,
      updated_at: Math.max(Date.now(), Number(before.updated_at) + 1),
    };
    // The status condition makes one of two racing disables the one that raises the event.
    const statusChanged = (await live().where({ status: 'ACTIVE' }).update(patch)) > 0;
    if (!statusChanged) await live().update(patch);
    const row = (await trx('links').where({ id }).first()) as LinkRow;
    await recordLinkChange(trx, 'link', row.domain_key, row.slug);
    if (statusChanged) await enqueueEvents(trx, await emit(trx, id));
    return row;
  });
}

export async function getLinkById(knex: Knex, id: string): Promise<LinkRow | undefined> {
  return knex('links').where({ id }).first();
}

/** What the click events need of the links clicked in a batch. */
export interface ClickedLink {
  id: string;
  workspace_id: string;
  slug: string;
  original_url: string;
  domain_id: string | null;
}

export async function clickedLinks(knex: Knex, ids: string[]): Promise<ClickedLink[]> {
  return knex('links').whereIn('id', ids).select('id', 'workspace_id', 'slug', 'original_url', 'domain_id');
}
