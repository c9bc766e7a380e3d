// Workspaces: as the operator's command line names them (by id, with a message that names it),
// and renamed by their OWNERs and ADMINs in the dashboard.
import type { Db } from '../db/knex.ts';
import { getWorkspace, renameWorkspace as storeName } from '../db/repos/workspaces.ts';
import { invalid, notFound } from '../domain/errors.ts';

/** The most a workspace's name holds: the first run's limit (openapi/dashboard/schemas/FirstRunClaim.yaml). */
export const WORKSPACE_NAME_MAX = 200;

/** The workspace, or 404 naming the id. */
export async function workspaceOf(knex: Db, id: string) {
  const workspace = await getWorkspace(knex, id);
  if (!workspace) throw notFound(`workspace ${id} not found`);
  return workspace;
}

/**
 * Renames the workspace to the trimmed name. The contract refuses a blank or too-long name first;
 * this holds the same rule for any caller, measured after trimming, so the stored name is never
 * blank and never longer than the first run allows.
 */
export async function renameWorkspace(knex: Db, id: string, raw: string): Promise<string> {
  const name = raw.trim();
  if (!name) throw invalid('name must not be blank', 'name');
  if ([...name].length > WORKSPACE_NAME_MAX)
    throw invalid(`name must be at most ${WORKSPACE_NAME_MAX} characters`, 'name');
  await storeName(knex, id, name);
  return name;
}
