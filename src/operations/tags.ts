// Tags made in the dashboard: a name that is not blank, once per workspace (409 naming it).
import { isUniqueViolation, type Db } from '../db/knex.ts';
import * as objects from '../db/repos/workspace-objects.ts';
import { conflict, invalid, quoted } from '../domain/errors.ts';

const DEFAULT_TAG_COLOR = '#6b7280';

export async function createTag(knex: Db, workspaceId: string, body: { name: string; color?: string }) {
  const name = body.name.trim();
  if (!name) throw invalid('name must not be blank', 'name');
  const color = body.color ?? DEFAULT_TAG_COLOR;
  try {
    return { id: await objects.createTag(knex, workspaceId, name, color), name, color };
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`A tag named ${quoted(name)} already exists`);
    throw err;
  }
}
