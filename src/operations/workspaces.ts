// Workspaces as the operator's command line names them: by id, with a message that names it.
import type { Db } from '../db/knex.ts';
import { getWorkspace } from '../db/repos/workspaces.ts';
import { notFound } from '../domain/errors.ts';

/** The workspace, or 404 naming the id. */
export async function workspaceOf(knex: Db, id: string) {
  const workspace = await getWorkspace(knex, id);
  if (!workspace) throw notFound(`workspace ${id} not found`);
  return workspace;
}
