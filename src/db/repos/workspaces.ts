// Workspaces and their members. A workspace's API keys are in api-keys.ts, its domains in
// domains.ts, its tags, campaigns, QR codes and hosted images in workspace-objects.ts.
import type { Knex } from 'knex';
import { conflict, notFound } from '../../domain/errors.ts';
import type { Plan, Role } from '../../domain/access.ts';
import { newId } from '../../domain/ids.ts';

export async function createWorkspace(knex: Knex, name: string, plan: Plan): Promise<string> {
  const id = newId('ws');
  await knex('workspaces').insert({ id, name, plan, created_at: Date.now() });
  return id;
}

export async function getWorkspace(knex: Knex, id: string) {
  return knex('workspaces').where({ id }).first() as Promise<
    { id: string; name: string; plan: Plan; created_at: number } | undefined
  >;
}

/** Every workspace, newest first (`shortlink workspace list`: where an operator finds an id). */
export async function listWorkspaces(
  knex: Knex,
): Promise<Array<{ id: string; name: string; plan: Plan; createdAt: string }>> {
  const rows = await knex('workspaces')
    .select('id', 'name', 'plan', 'created_at')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    plan: r.plan,
    createdAt: new Date(Number(r.created_at)).toISOString(),
  }));
}

/** The workspace, or 404: what every object of a workspace is made in. */
export async function requireWorkspace(knex: Knex, id: string) {
  const ws = await getWorkspace(knex, id);
  if (!ws) throw notFound(`workspace ${id} not found`);
  return ws;
}

/** Renames a workspace; the caller has trimmed and checked the name (operations/workspaces.ts). */
export async function renameWorkspace(knex: Knex, id: string, name: string): Promise<void> {
  const n = await knex('workspaces').where({ id }).update({ name });
  if (!n) throw notFound(`workspace ${id} not found`);
}

export async function setPlan(knex: Knex, id: string, plan: Plan): Promise<void> {
  const n = await knex('workspaces').where({ id }).update({ plan });
  if (!n) throw notFound(`workspace ${id} not found`);
}

/** Adds a person (created on first sight of the e-mail address) to a workspace. */
export async function addMember(knex: Knex, workspaceId: string, email: string, role: Role): Promise<string> {
  return knex.transaction(async (trx) => {
    await requireWorkspace(trx, workspaceId);
    const normalized = email.trim().toLowerCase();
    let user = await trx('users').where({ email: normalized }).first();
    if (!user) {
      user = { id: newId('usr'), email: normalized, created_at: Date.now() };
      await trx('users').insert(user);
    }
    const existing = await trx('memberships').where({ workspace_id: workspaceId, user_id: user.id }).first();
    if (existing) throw conflict(`${normalized} is already a member of ${workspaceId}; use member set-role`);
    await trx('memberships').insert({ workspace_id: workspaceId, user_id: user.id, role, created_at: Date.now() });
    return user.id as string;
  });
}

/**
 * The dashboard keeps a workspace from losing its last OWNER (the command line, for operators,
 * does not): the owners are counted and the change made under a lock on the workspace row, so
 * two OWNERs demoting or removing each other at once cannot both succeed.
 */
async function keepingAnOwner(
  trx: Knex.Transaction,
  workspaceId: string,
  userId: string,
  message: string,
): Promise<void> {
  await trx('workspaces').where({ id: workspaceId }).forUpdate().first('id');
  const owners = await trx('memberships').where({ workspace_id: workspaceId, role: 'OWNER' }).pluck('user_id');
  if (owners.length === 1 && owners[0] === userId) throw conflict(message);
}

export async function setRole(
  knex: Knex,
  workspaceId: string,
  userId: string,
  role: Role,
  opts: { keepOwner?: boolean } = {},
): Promise<void> {
  await knex.transaction(async (trx) => {
    if (opts.keepOwner && role !== 'OWNER')
      await keepingAnOwner(trx, workspaceId, userId, 'The workspace needs an OWNER: make someone else OWNER first');
    const n = await trx('memberships').where({ workspace_id: workspaceId, user_id: userId }).update({ role });
    if (!n) throw notFound(`user ${userId} is not a member of ${workspaceId}`);
  });
}

/**
 * The interface: when the person who created a key leaves, the key keeps working for everything
 * except update and delete (403), so removing a member revokes nothing. Their dashboard sessions
 * end only when they belong to no workspace any more: one workspace never signs a person out of
 * another (each request checks the membership of the workspace it names).
 */
export async function removeMember(
  knex: Knex,
  workspaceId: string,
  userId: string,
  opts: { keepOwner?: boolean } = {},
): Promise<void> {
  await knex.transaction(async (trx) => {
    if (opts.keepOwner) await keepingAnOwner(trx, workspaceId, userId, 'The last OWNER cannot be removed');
    const n = await trx('memberships').where({ workspace_id: workspaceId, user_id: userId }).delete();
    if (!n) throw notFound(`user ${userId} is not a member of ${workspaceId}`);
    if (!(await trx('memberships').where({ user_id: userId }).first('workspace_id')))
      await trx('sessions').where({ user_id: userId }).delete();
  });
}

export async function roleOf(knex: Knex, workspaceId: string, userId: string): Promise<Role | null> {
  const row = await knex('memberships').where({ workspace_id: workspaceId, user_id: userId }).first('role');
  return (row?.role as Role) ?? null;
}
