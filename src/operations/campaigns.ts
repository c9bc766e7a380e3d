// Campaigns made in the dashboard: a name that is not blank.
import type { Db } from '../db/knex.ts';
import * as objects from '../db/repos/workspace-objects.ts';
import { invalid } from '../domain/errors.ts';

export async function createCampaign(knex: Db, workspaceId: string, body: { name: string }) {
  const name = body.name.trim();
  if (!name) throw invalid('name must not be blank', 'name');
  const id = await objects.createCampaign(knex, workspaceId, name);
  const created = (await objects.campaignsOf(knex, workspaceId)).find((c) => c.id === id)!;
  return { id, name, createdAt: Number(created.created_at) };
}
