// Single sign-on's rows (openapi/dashboard.yaml, Single sign-on): a workspace's provider and the
// domains it answers for, the identities linked through it, and the sign-ins under way. Each
// change of state is one transaction, so whoever records it (an audit entry) can join it.
import type { Knex } from 'knex';
import type { Role } from '../../domain/access.ts';
import { conflict } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { hashSecret, normalizeEmail } from '../../domain/sessions.ts';
import { emailDomain, passwordSignInRefused, SsoRefusal, type SsoRole } from '../../domain/sso.ts';
import { isUniqueViolation } from '../knex.ts';

export interface SsoProviderRecord {
  workspaceId: string;
  issuer: string;
  clientId: string;
  clientSecretSealed: string;
  domains: string[];
  defaultRole: SsoRole;
  enabled: boolean;
  passwordSignIn: boolean;
  createdAt: number;
  updatedAt: number;
}

export type SsoProviderChange = Omit<SsoProviderRecord, 'workspaceId' | 'createdAt' | 'updatedAt'>;

const truthy = (v: unknown) => v === true || v === 1 || v === '1';

async function domainsOf(knex: Knex, workspaceId: string): Promise<string[]> {
  return knex('sso_domains').where({ workspace_id: workspaceId }).orderBy('domain').pluck('domain');
}

function present(row: any, domains: string[]): SsoProviderRecord {
  return {
    workspaceId: row.workspace_id,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecretSealed: row.client_secret_sealed,
    domains,
    defaultRole: row.default_role,
    enabled: truthy(row.enabled),
    passwordSignIn: truthy(row.password_sign_in),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** The workspace's provider, or undefined. */
export async function ssoProviderOf(knex: Knex, workspaceId: string): Promise<SsoProviderRecord | undefined> {
  const row = await knex('sso_providers').where({ workspace_id: workspaceId }).first();
  return row ? present(row, await domainsOf(knex, workspaceId)) : undefined;
}

/** The provider that answers for an email's domain, enabled or not, or undefined. */
export async function ssoProviderForEmail(knex: Knex, email: string): Promise<SsoProviderRecord | undefined> {
  const domain = emailDomain(email);
  if (!domain) return undefined;
  const claim = await knex('sso_domains').where({ domain }).first('workspace_id');
  return claim ? ssoProviderOf(knex, claim.workspace_id) : undefined;
}

/**
 * Stores the workspace's provider and the domains it answers for, in one transaction. A domain
 * another workspace's provider holds answers 409 (the primary key decides between two at once).
 */
export async function saveSsoProvider(
  knex: Knex,
  workspaceId: string,
  change: SsoProviderChange,
  now: number,
  /** Written in the same transaction, with the provider as it was and as stored (its audit entry). */
  also?: (trx: Knex.Transaction, before: SsoProviderRecord | undefined, after: SsoProviderRecord) => Promise<void>,
): Promise<SsoProviderRecord> {
  try {
    return await knex.transaction(async (trx) => {
      const before = also ? await ssoProviderOf(trx, workspaceId) : undefined;
      const taken = await trx('sso_domains')
        .whereIn('domain', change.domains)
        .whereNot({ workspace_id: workspaceId })
        .orderBy('domain')
        .first('domain');
      if (taken) throw domainTaken(taken.domain);
      const row = {
        issuer: change.issuer,
        client_id: change.clientId,
        client_secret_sealed: change.clientSecretSealed,
        default_role: change.defaultRole,
        enabled: change.enabled,
        password_sign_in: change.passwordSignIn,
        updated_at: now,
      };
      const n = await trx('sso_providers').where({ workspace_id: workspaceId }).update(row);
      if (!n) await trx('sso_providers').insert({ ...row, workspace_id: workspaceId, created_at: now });
      await trx('sso_domains').where({ workspace_id: workspaceId }).delete();
      await trx('sso_domains').insert(change.domains.map((domain) => ({ domain, workspace_id: workspaceId })));
      const stored = await trx('sso_providers').where({ workspace_id: workspaceId }).first();
      const after = present(stored, [...change.domains].sort());
      await also?.(trx, before, after);
      return after;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw domainTaken(change.domains.join(', '));
    throw err;
  }
}

const domainTaken = (domain: string) =>
  conflict(`${domain} is already claimed by another workspace's single sign-on; a domain has one provider`);

/** Removes the provider, its domains, the identities linked through it and its sign-ins under way. */
export async function deleteSsoProvider(
  knex: Knex,
  workspaceId: string,
  also?: (trx: Knex.Transaction) => Promise<void>,
): Promise<boolean> {
  return knex.transaction(async (trx) => {
    await trx('sso_logins').where({ workspace_id: workspaceId }).delete();
    await trx('sso_identities').where({ workspace_id: workspaceId }).delete();
    await trx('sso_domains').where({ workspace_id: workspaceId }).delete();
    const gone = (await trx('sso_providers').where({ workspace_id: workspaceId }).delete()) > 0;
    if (gone) await also?.(trx);
    return gone;
  });
}

export interface SsoLoginStart {
  state: string;
  browserSecret: string;
  workspaceId: string;
  nonce: string;
  verifierSealed: string;
  redirectUri: string;
  linkUserId: string | null;
}

/** Records a sign-in under way (only hashes of the state and of the browser's cookie), dropping expired ones. */
export async function startSsoLogin(knex: Knex, login: SsoLoginStart, now: number, lifetimeMs: number): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('sso_logins').where('expires_at', '<', now).delete();
    await trx('sso_logins').insert({
      state_hash: hashSecret(login.state),
      workspace_id: login.workspaceId,
      browser_hash: hashSecret(login.browserSecret),
      nonce: login.nonce,
      verifier_sealed: login.verifierSealed,
      redirect_uri: login.redirectUri,
      link_user_id: login.linkUserId,
      created_at: now,
      expires_at: now + lifetimeMs,
      used_at: null,
    });
  });
}

export interface SsoLoginRecord {
  workspaceId: string;
  nonce: string;
  verifierSealed: string;
  redirectUri: string;
  linkUserId: string | null;
}

/**
 * Uses a sign-in under way once: the state must be known, unused, younger than its lifetime and
 * started by this browser (its cookie). The condition on used_at makes one of two racing uses,
 * and never a replay, the one that counts.
 */
export async function takeSsoLogin(
  knex: Knex,
  state: string,
  browserSecret: string,
  now: number,
): Promise<SsoLoginRecord | undefined> {
  return knex.transaction(async (trx) => {
    const where = {
      state_hash: hashSecret(state),
      browser_hash: hashSecret(browserSecret),
    };
    const n = await trx('sso_logins')
      .where(where)
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .update({ used_at: now });
    if (!n) return undefined;
    const row = await trx('sso_logins').where(where).first();
    return {
      workspaceId: row.workspace_id,
      nonce: row.nonce,
      verifierSealed: row.verifier_sealed,
      redirectUri: row.redirect_uri,
      linkUserId: row.link_user_id ?? null,
    };
  });
}

export interface SsoAssertion {
  workspaceId: string;
  issuer: string;
  subject: string;
  email: string;
  defaultRole: Role;
  /** The signed-in person linking their account, when this sign-in was started to link. */
  linkUserId: string | null;
}

/**
 * Who an assertion of the workspace's provider signs in, in one transaction (openapi/dashboard.yaml,
 * Single sign-on): the person linked to its identity (issuer + subject) through this workspace; else
 * a new person with that email; else the person with that email when they belong to no workspace
 * but this one (the provider's word reaches no further than its workspace); else, only when that
 * person started the sign-in while signed in, to link it. A membership of the workspace is made
 * with the provider's role when missing.
 */
export async function signInWithSso(
  knex: Knex,
  a: SsoAssertion,
  now: number,
): Promise<{ userId: string; created: boolean; linked: boolean }> {
  try {
    return await signInOnce(knex, a, now);
  } catch (err) {
    // Two first sign-ins of one person at once: one made the person (or the link); the other,
    // asked again, finds it.
    if (isUniqueViolation(err)) return signInOnce(knex, a, now);
    throw err;
  }
}

async function signInOnce(
  knex: Knex,
  a: SsoAssertion,
  now: number,
): Promise<{ userId: string; created: boolean; linked: boolean }> {
  return knex.transaction(async (trx) => {
    const identity = { workspace_id: a.workspaceId, issuer: a.issuer, subject: a.subject };
    const email = normalizeEmail(a.email);
    const linked = await trx('sso_identities').where(identity).first('user_id');
    let userId: string;
    let created = false;
    let newLink = false;
    if (linked) {
      userId = linked.user_id;
      if (a.linkUserId && a.linkUserId !== userId)
        throw new SsoRefusal('identity_taken', 'this identity is linked to another person');
    } else {
      const user = await trx('users').where({ email }).first('id');
      if (a.linkUserId) {
        if (!user || user.id !== a.linkUserId)
          throw new SsoRefusal('email_mismatch', "the provider's email is not the signed-in person's");
        userId = user.id;
      } else if (!user) {
        userId = newId('usr');
        await trx('users').insert({ id: userId, email, created_at: now });
        created = true;
      } else {
        const elsewhere = await trx('memberships')
          .where({ user_id: user.id })
          .whereNot({ workspace_id: a.workspaceId })
          .first('workspace_id');
        if (elsewhere)
          throw new SsoRefusal(
            'link_required',
            'the person belongs to another workspace and has not linked this identity',
          );
        userId = user.id;
      }
      await trx('sso_identities').insert({ ...identity, user_id: userId, created_at: now });
      newLink = true;
    }
    const member = await trx('memberships').where({ workspace_id: a.workspaceId, user_id: userId }).first('role');
    if (!member)
      await trx('memberships').insert({
        workspace_id: a.workspaceId,
        user_id: userId,
        role: a.defaultRole,
        created_at: now,
      });
    return { userId, created, linked: newLink };
  });
}

/**
 * Whether a person may not sign in with a password: every workspace they belong to has an
 * enabled provider for their email's domain with password sign-in off (domain/sso.ts).
 */
export async function passwordSignInOff(knex: Knex, userId: string, email: string): Promise<boolean> {
  const domain = emailDomain(email);
  const rows = await knex('memberships as m')
    .leftJoin('sso_providers as p', 'p.workspace_id', 'm.workspace_id')
    .leftJoin('sso_domains as d', function () {
      this.on('d.workspace_id', '=', 'm.workspace_id').andOn('d.domain', '=', knex.raw('?', [domain ?? '']));
    })
    .where('m.user_id', userId)
    .select('p.enabled', 'p.password_sign_in', 'd.domain');
  return passwordSignInRefused(
    rows.map((r) => ({
      passwordOffForTheirDomain: !!r.domain && truthy(r.enabled) && !truthy(r.password_sign_in),
    })),
  );
}
