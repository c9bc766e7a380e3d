// Tags, from the dashboard and the public API: a name that is not blank, once per workspace (409
// naming it). Deleting a tag takes it off its links without a `link.updated` event: the tag's own
// deletion is the change (openapi/paths/api_v1_tags_id.yaml says so to subscribers).
import { isUniqueViolation, type Db } from '../db/knex.ts';
import * as objects from '../db/repos/workspace-objects.ts';
import { conflict, invalid, notFound, quoted } from '../domain/errors.ts';

const DEFAULT_TAG_COLOR = '#6b7280';

function tagName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid('name must not be blank', 'name');
  return name;
}

const taken = (name: string) => conflict(`A tag named ${quoted(name)} already exists`);

export async function createTag(knex: Db, workspaceId: string, body: { name: string; color?: string }) {
  const name = tagName(body.name);
  const color = body.color ?? DEFAULT_TAG_COLOR;
  try {
    return { id: await objects.createTag(knex, workspaceId, name, color), name, color };
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(name);
    throw err;
  }
}

export const listTags = (knex: Db, workspaceId: string) => objects.tagsOf(knex, workspaceId);

/** The dashboard's list: each tag with the number of links that lose it when it is deleted. */
export const listTagsWithLinkCounts = (knex: Db, workspaceId: string) => objects.tagsWithLinkCounts(knex, workspaceId);

export async function updateTag(knex: Db, workspaceId: string, id: string, body: { name?: string; color?: string }) {
  if (!(await objects.findTag(knex, workspaceId, id))) throw notFound('Tag not found');
  const change: { name?: string; color?: string } = {};
  if (body.name !== undefined) change.name = tagName(body.name);
  if (body.color !== undefined) change.color = body.color;
  try {
    await objects.updateTag(knex, workspaceId, id, change);
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(change.name!);
    throw err;
  }
  return (await objects.findTag(knex, workspaceId, id))!;
}

export async function deleteTag(knex: Db, workspaceId: string, id: string): Promise<void> {
  if (!(await objects.deleteTag(knex, workspaceId, id))) throw notFound('Tag not found');
}
