// A workspace's API keys: minted for a member within what the member's role may hold, stored as
// their hash, found by the key on every API request.
import type { Knex } from 'knex';
import { forbidden, notFound } from '../../domain/errors.ts';
import { generateApiKey, hashApiKey, mayHoldScope, scopesOfRole, type Plan, type Scope } from '../../domain/access.ts';
import { newId } from '../../domain/ids.ts';
import { requireWorkspace, roleOf } from './workspaces.ts';

/**
 * Mints a key for a member; only its hash is stored, the key itself is shown once. Every way of
 * making a key comes here, so none gives a key a scope its person's role may not hold
 * (domain/access.ts, SCOPE_ROLES).
 */
export async function createKey(
  knex: Knex,
  workspaceId: string,
  userId: string,
  scopes: Scope[],
  expiresAt: number | null,
  name: string | null = null,
): Promise<{ id: string; key: string }> {
  await requireWorkspace(knex, workspaceId);
  const role = await roleOf(knex, workspaceId, userId);
  if (!role) throw notFound(`user ${userId} is not a member of ${workspaceId}`);
  const beyond = scopes.filter((s) => !mayHoldScope(role, s));
  if (beyond.length) {
    const allowed = scopesOfRole(role);
    throw forbidden(
      `The role ${role} may not hold the scope${beyond.length > 1 ? 's' : ''} ${beyond.join(', ')} on an API key; ` +
        (allowed.length ? `it may hold ${allowed.join(', ')}` : 'it holds no API keys'),
      'scopes',
    );
  }
  const key = generateApiKey();
  const id = newId('key');
  await knex('api_keys').insert({
    id,
    workspace_id: workspaceId,
    user_id: userId,
    key_hash: hashApiKey(key),
    key_hint: key.slice(-4),
    name,
    scopes: scopes.join(' '),
    expires_at: expiresAt,
    revoked_at: null,
    created_at: Date.now(),
  });
  return { id, key };
}

/** The workspace a key belongs to (the operator names a key by its id alone). */
export async function workspaceOfKey(knex: Knex, id: string): Promise<string | undefined> {
  return (await knex('api_keys').where({ id }).first('workspace_id'))?.workspace_id;
}

export async function revokeKey(knex: Knex, id: string): Promise<void> {
  const n = await knex('api_keys')
    .where({ id })
    .update({ revoked_at: knex.raw('COALESCE(revoked_at, ?)', [Date.now()]) });
  if (!n) throw notFound(`key ${id} not found`);
}

export interface KeyRecord {
  id: string;
  workspaceId: string;
  userId: string;
  scopes: Set<string>;
  expiresAt: number | null;
  revokedAt: number | null;
  plan: Plan;
}

export async function findKey(knex: Knex, key: string): Promise<KeyRecord | null> {
  const row = await knex('api_keys as k')
    .join('workspaces as w', 'w.id', 'k.workspace_id')
    .where('k.key_hash', hashApiKey(key))
    .first('k.id', 'k.workspace_id', 'k.user_id', 'k.scopes', 'k.expires_at', 'k.revoked_at', 'w.plan');
  if (!row) return null;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    userId: row.user_id,
    scopes: new Set(String(row.scopes).split(' ').filter(Boolean)),
    expiresAt: row.expires_at ?? null,
    revokedAt: row.revoked_at ?? null,
    plan: row.plan,
  };
}

export interface KeyListRow {
  id: string;
  /** What the key is for; null for a key made without a name (every key before names). */
  name: string | null;
  hint: string;
  scopes: string[];
  expiresAt: number | null;
  revokedAt: number | null;
  createdAt: number;
  /** When the key last opened the API (to within a minute); null until then. */
  lastUsedAt: number | null;
  userId: string;
  email: string;
}

/** The workspace's API keys (one person's with `userId`), newest first. */
export async function keysOf(knex: Knex, workspaceId: string, userId?: string): Promise<KeyListRow[]> {
  const q = knex('api_keys as k').join('users as u', 'u.id', 'k.user_id').where('k.workspace_id', workspaceId);
  if (userId) q.where('k.user_id', userId);
  const rows = await q
    .orderBy([
      { column: 'k.created_at', order: 'desc' },
      { column: 'k.id', order: 'desc' },
    ])
    .select(
      'k.id',
      'k.name',
      'k.key_hint',
      'k.scopes',
      'k.expires_at',
      'k.revoked_at',
      'k.created_at',
      'k.last_used_at',
      'k.user_id',
      'u.email',
    );
  return rows.map((r) => ({
    id: r.id,
    name: r.name ?? null,
    hint: r.key_hint,
    scopes: String(r.scopes).split(' ').filter(Boolean),
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    createdAt: Number(r.created_at),
    lastUsedAt: r.last_used_at === null || r.last_used_at === undefined ? null : Number(r.last_used_at),
    userId: r.user_id,
    email: r.email,
  }));
}

export async function findKeyOf(
  knex: Knex,
  workspaceId: string,
  id: string,
): Promise<{ id: string; user_id: string } | undefined> {
  return knex('api_keys').where({ workspace_id: workspaceId, id }).first('id', 'user_id');
}

/**
 * Records when keys were last used, many in one transaction; a time never moves back (another
 * process may have written a later one).
 */
export async function recordKeyUses(knex: Knex, uses: Array<{ id: string; at: number }>): Promise<void> {
  if (!uses.length) return;
  await knex.transaction(async (trx) => {
    for (const { id, at } of uses) {
      await trx('api_keys')
        .where({ id })
        .where((w) => w.whereNull('last_used_at').orWhere('last_used_at', '<', at))
        .update({ last_used_at: at });
    }
  });
}
