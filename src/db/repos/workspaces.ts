// Workspaces, their members, API keys and the dashboard-managed objects the CLI creates.
import type { Knex } from 'knex';
import { conflict, forbidden, notFound } from '../../domain/errors.ts';
import {
  generateApiKey,
  hashApiKey,
  mayHoldScope,
  scopesOfRole,
  type Plan,
  type Role,
  type Scope,
} from '../../domain/access.ts';
import { claimExpired, claimExpiresAt } from '../../domain/domains.ts';
import { newId, randomString } from '../../domain/ids.ts';
import { isUniqueViolation } from '../knex.ts';
import { recordLinkChange } from './link-changes.ts';
import { enqueueEvents, type EmitEvents } from './outbox.ts';

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

async function requireWorkspace(knex: Knex, id: string) {
  const ws = await getWorkspace(knex, id);
  if (!ws) throw notFound(`workspace ${id} not found`);
  return ws;
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
    scopes: scopes.join(' '),
    expires_at: expiresAt,
    revoked_at: null,
    created_at: Date.now(),
  });
  return { id, key };
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

export async function createTag(knex: Knex, workspaceId: string, name: string, color: string): Promise<string> {
  await requireWorkspace(knex, workspaceId);
  const id = newId('tag');
  await knex('tags').insert({ id, workspace_id: workspaceId, name, color, created_at: Date.now() });
  return id;
}

const addedHere = (host: string) => conflict(`The domain ${host} is already added to this workspace`);
const verifiedElsewhere = (host: string) =>
  conflict(`The domain ${host} is already registered: another workspace verified it`);

/**
 * Claims a host for the workspace (PENDING until verified). Claims of other workspaces do not
 * stand in the way, a verified domain does (domain/domains.ts). The workspace's own lapsed claim
 * on the host is replaced: a new id, so a new verification record.
 */
export async function addDomain(knex: Knex, workspaceId: string, host: string, now = Date.now()): Promise<string> {
  const name = host.toLowerCase();
  try {
    return await knex.transaction(async (trx) => {
      await requireWorkspace(trx, workspaceId);
      const holder = await trx('domains').where({ host: name }).whereNotNull('verified_at').first('workspace_id');
      if (holder) throw holder.workspace_id === workspaceId ? addedHere(name) : verifiedElsewhere(name);
      const mine = await trx('domains')
        .where({ workspace_id: workspaceId, host: name })
        .first('id', 'verified_at', 'created_at');
      if (mine && !claimExpired(mine, now)) throw addedHere(name);
      if (mine) await trx('domains').where({ id: mine.id }).delete();
      const id = newId('dom');
      await trx('domains').insert({ id, workspace_id: workspaceId, host: name, status: 'PENDING', created_at: now });
      return id;
    });
  } catch (err) {
    // The same workspace adding the host twice at once: the second insert meets the first.
    if (isUniqueViolation(err)) throw addedHere(name);
    throw err;
  }
}

export interface DomainRow {
  id: string;
  workspace_id: string;
  host: string;
  status: 'PENDING' | 'ACTIVE' | 'DISABLED';
  verified_at: number | null;
  created_at?: number;
}

/**
 * Verifying (ACTIVE) or disabling a domain. Verifying a domain that is not yet ACTIVE sets
 * verified_at and raises what `onVerified` returns (domain.verified) in the same transaction;
 * verifying an ACTIVE domain again changes nothing and raises nothing. A lapsed claim is not
 * verified (409), nor a host another workspace verified: one verified row per host (the
 * migration 20261203010000_domain_claims), so of two workspaces verifying it at once, exactly
 * one wins and the other's claim stays as it was.
 */
export async function setDomainStatus(
  knex: Knex,
  id: string,
  status: 'ACTIVE' | 'DISABLED',
  onVerified?: EmitEvents<[domain: DomainRow]>,
  now = Date.now(),
) {
  let host: string | undefined;
  try {
    return await knex.transaction(async (trx) => {
      const current = await trx('domains').where({ id }).first('host', 'verified_at', 'created_at');
      if (!current) throw notFound(`domain ${id} not found`);
      host = current.host;
      if (status === 'ACTIVE' && claimExpired(current, now)) {
        const lapsed = new Date(claimExpiresAt(current)!).toISOString();
        throw conflict(`The claim on ${current.host} lapsed at ${lapsed} unverified; add the domain again`);
      }
      // The status condition makes one of two racing verifications the one that sends the event.
      const verifies =
        status === 'ACTIVE' &&
        (await trx('domains').where({ id }).whereNot({ status: 'ACTIVE' }).update({ status, verified_at: now })) > 0;
      if (!verifies) await trx('domains').where({ id }).update({ status });
      const domain = await trx('domains').where({ id }).first();
      if (verifies && onVerified) await enqueueEvents(trx, await onVerified(trx, domain));
      // Redirect caches forget the host, so the domain's links start or stop resolving.
      await recordLinkChange(trx, 'domain', id, domain.host);
      return domain as DomainRow;
    });
  } catch (err) {
    if (status === 'ACTIVE' && host && isUniqueViolation(err)) throw verifiedElsewhere(host);
    throw err;
  }
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

/**
 * Records an asset stored as `<id><extension>`; `store` writes the file inside the same
 * transaction, so a failed write leaves no row behind.
 */
/** A hosted image of the workspace by its file name under ASSET_BASE_URL. */
export async function findAsset(
  knex: Knex,
  workspaceId: string,
  fileName: string,
): Promise<{ id: string } | undefined> {
  return knex('assets').where({ workspace_id: workspaceId, file_name: fileName }).first('id');
}

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

export interface KeyListRow {
  id: string;
  hint: string;
  scopes: string[];
  expiresAt: number | null;
  revokedAt: number | null;
  createdAt: number;
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
    .select('k.id', 'k.key_hint', 'k.scopes', 'k.expires_at', 'k.revoked_at', 'k.created_at', 'k.user_id', 'u.email');
  return rows.map((r) => ({
    id: r.id,
    hint: r.key_hint,
    scopes: String(r.scopes).split(' ').filter(Boolean),
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    createdAt: Number(r.created_at),
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

export async function domainsOf(knex: Knex, workspaceId: string): Promise<DomainRow[]> {
  return knex('domains')
    .where({ workspace_id: workspaceId })
    .orderBy('host')
    .select('id', 'workspace_id', 'host', 'status', 'verified_at', 'created_at');
}

export async function findDomainOf(knex: Knex, workspaceId: string, id: string): Promise<DomainRow | undefined> {
  return knex('domains')
    .where({ workspace_id: workspaceId, id })
    .first('id', 'workspace_id', 'host', 'status', 'verified_at', 'created_at');
}

export async function tagsOf(
  knex: Knex,
  workspaceId: string,
): Promise<Array<{ id: string; name: string; color: string }>> {
  return knex('tags').where({ workspace_id: workspaceId }).orderBy('name').select('id', 'name', 'color');
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
