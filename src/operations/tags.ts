// Tags, from the dashboard and the public API: a name that is not blank, once per workspace (409
// naming it). Deleting a tag takes it off its links without a `link.updated` event: the tag's own
// deletion is the change (openapi/paths/api_v1_tags_id.yaml says so to subscribers).
import { isUniqueViolation, type Db } from '../db/knex.ts';
import * as objects from '../db/repos/workspace-objects.ts';
import { conflict, invalid, notFound, quoted } from '../domain/errors.ts';
import { audit, audited, diffFields, type AuditActor } from './audit.ts';

const DEFAULT_TAG_COLOR = '#6b7280';

function tagName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid('name must not be blank', 'name');
  return name;
}

const taken = (name: string) => conflict(`A tag named ${quoted(name)} already exists`);

export async function createTag(
  knex: Db,
  actor: AuditActor,
  workspaceId: string,
  body: { name: string; color?: string },
) {
  const name = tagName(body.name);
  const color = body.color ?? DEFAULT_TAG_COLOR;
  try {
    return await audited(
      knex,
      actor,
      workspaceId,
      async (trx) => ({ id: await objects.createTag(trx, workspaceId, name, color), name, color }),
      (tag) => ({
        action: 'tag.created',
        objectType: 'tag',
        objectId: tag.id,
        changes: diffFields(null, { name, color }),
      }),
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(name);
    throw err;
  }
}

export const listTags = (knex: Db, workspaceId: string) => objects.tagsOf(knex, workspaceId);

/** The dashboard's list: each tag with the number of links that lose it when it is deleted. */
export const listTagsWithLinkCounts = (knex: Db, workspaceId: string) => objects.tagsWithLinkCounts(knex, workspaceId);

export async function updateTag(
  knex: Db,
  actor: AuditActor,
  workspaceId: string,
  id: string,
  body: { name?: string; color?: string },
) {
  const before = await objects.findTag(knex, workspaceId, id);
  if (!before) throw notFound('Tag not found');
  const change: { name?: string; color?: string } = {};
  if (body.name !== undefined) change.name = tagName(body.name);
  if (body.color !== undefined) change.color = body.color;
  try {
    return await knex.transaction(async (trx) => {
      await objects.updateTag(trx, workspaceId, id, change);
      // Read in the change's transaction: a tag deleted meanwhile is 404, its entry not written.
      const after = await objects.findTag(trx, workspaceId, id);
      if (!after) throw notFound('Tag not found');
      const changes = diffFields(before as unknown as Record<string, unknown>, change);
      await audit(trx, actor, workspaceId, { action: 'tag.updated', objectType: 'tag', objectId: id, changes });
      return after;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(change.name!);
    throw err;
  }
}

export async function deleteTag(knex: Db, actor: AuditActor, workspaceId: string, id: string): Promise<void> {
  await knex.transaction(async (trx) => {
    const before = await objects.findTag(trx, workspaceId, id);
    if (!(await objects.deleteTag(trx, workspaceId, id))) throw notFound('Tag not found');
    await audit(trx, actor, workspaceId, {
      action: 'tag.deleted',
      objectType: 'tag',
      objectId: id,
      changes: { name: { from: before?.name } },
    });
  });
}
