// People who sign in to the dashboard: their passwords, sessions, one-time set-up links and the
// first run (openapi/dashboard.yaml, Sessions). Secrets are kept only as hashes.
import type { Knex } from 'knex';
import { notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { Plan, Role } from '../../domain/access.ts';
import {
  hashSecret,
  newSecret,
  normalizeEmail,
  SESSION_IDLE_MS,
  sessionPublicId,
  SETUP_LINK_MS,
} from '../../domain/sessions.ts';

export interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
  created_at: number;
}

export interface SessionRecord {
  id: string;
  userId: string;
  email: string;
  csrfToken: string;
  lastUsedAt: number;
  expiresAt: number;
}

export async function findUserByEmail(knex: Knex, email: string): Promise<UserRow | undefined> {
  return knex('users')
    .where({ email: normalizeEmail(email) })
    .first('id', 'email', 'password_hash', 'created_at');
}

export async function findUser(knex: Knex, id: string): Promise<UserRow | undefined> {
  return knex('users').where({ id }).first('id', 'email', 'password_hash', 'created_at');
}

/** The workspaces a person belongs to, with their role, by name. */
export async function workspacesOf(
  knex: Knex,
  userId: string,
): Promise<Array<{ id: string; name: string; plan: Plan; role: Role }>> {
  return knex('memberships as m')
    .join('workspaces as w', 'w.id', 'm.workspace_id')
    .where('m.user_id', userId)
    .orderBy([{ column: 'w.name' }, { column: 'w.id' }])
    .select('w.id', 'w.name', 'w.plan', 'm.role');
}

/** What a session keeps of the browser that signed in: families and a coarse place, never an address. */
export interface SessionTraits {
  browser: string | null;
  os: string | null;
  place: string | null;
}

/** Starts a session; the cookie's token is returned once, the database keeps its hash. */
export async function createSession(
  knex: Knex,
  userId: string,
  now: number,
  traits: SessionTraits = { browser: null, os: null, place: null },
): Promise<{ token: string; session: SessionRecord }> {
  const { token, hash } = newSecret();
  const csrfToken = newSecret().token;
  const row = {
    id: hash,
    user_id: userId,
    csrf_token: csrfToken,
    created_at: now,
    last_used_at: now,
    expires_at: now + SESSION_IDLE_MS,
    browser: traits.browser?.slice(0, 64) ?? null,
    os: traits.os?.slice(0, 64) ?? null,
    place: traits.place?.slice(0, 200) ?? null,
  };
  await knex('sessions').insert(row);
  const user = (await findUser(knex, userId))!;
  return {
    token,
    session: { id: hash, userId, email: user.email, csrfToken, lastUsedAt: now, expiresAt: row.expires_at },
  };
}

/** The live session a cookie's token opens, or undefined (unknown, ended or expired). */
export async function findSession(knex: Knex, token: string, now: number): Promise<SessionRecord | undefined> {
  const row = await knex('sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .where('s.id', hashSecret(token))
    .where('s.expires_at', '>', now)
    .first('s.id', 's.user_id', 'u.email', 's.csrf_token', 's.last_used_at', 's.expires_at');
  if (!row) return undefined;
  return {
    id: row.id,
    userId: row.user_id,
    email: row.email,
    csrfToken: row.csrf_token,
    lastUsedAt: Number(row.last_used_at),
    expiresAt: Number(row.expires_at),
  };
}

/** Slides the session's end to 14 days after now. */
export async function touchSession(knex: Knex, id: string, now: number): Promise<number> {
  const expiresAt = now + SESSION_IDLE_MS;
  await knex('sessions').where({ id }).update({ last_used_at: now, expires_at: expiresAt });
  return expiresAt;
}

export async function deleteSession(knex: Knex, id: string): Promise<void> {
  await knex('sessions').where({ id }).delete();
}

export interface SessionListing extends SessionTraits {
  /** The public id (sessionPublicId), never the stored hash or the token. */
  id: string;
  createdAt: number;
  lastUsedAt: number;
  /** The stored id, for the caller to tell the current session; not to be shown. */
  key: string;
}

/** A person's live sessions, most recently used first. */
export async function sessionsOf(knex: Knex, userId: string, now: number): Promise<SessionListing[]> {
  const rows = await knex('sessions')
    .where({ user_id: userId })
    .where('expires_at', '>', now)
    .orderBy([
      { column: 'last_used_at', order: 'desc' },
      { column: 'created_at', order: 'desc' },
    ])
    .select('id', 'created_at', 'last_used_at', 'browser', 'os', 'place');
  return rows.map((r) => ({
    id: sessionPublicId(r.id),
    key: r.id,
    createdAt: Number(r.created_at),
    lastUsedAt: Number(r.last_used_at),
    browser: r.browser ?? null,
    os: r.os ?? null,
    place: r.place ?? null,
  }));
}

/** Ends every session of a person but `keep` (the stored id of the one asking). */
export async function endOtherSessions(knex: Knex, userId: string, keep: string): Promise<number> {
  return knex('sessions').where({ user_id: userId }).whereNot({ id: keep }).delete();
}

/**
 * Records that a person signed in with a browser (the hash of its long-lived cookie). Answers
 * whether it was known, and whether any other browser was: a new browser for someone who has
 * signed in before is what a sign-in notice is for.
 */
export async function rememberBrowser(
  knex: Knex,
  userId: string,
  browserHash: string,
  now: number,
): Promise<{ known: boolean; others: boolean }> {
  const n = await knex('known_browsers')
    .where({ user_id: userId, browser_hash: browserHash })
    .update({ last_seen_at: now });
  if (n) return { known: true, others: true };
  const other = await knex('known_browsers').where({ user_id: userId }).first('browser_hash');
  await knex.raw(
    `INSERT INTO known_browsers (user_id, browser_hash, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id, browser_hash) DO UPDATE SET last_seen_at = excluded.last_seen_at`,
    [userId, browserHash, now, now],
  );
  return { known: false, others: !!other };
}

/** Ends every session of a person (a password change, removal from a workspace). */
export async function endSessionsOf(knex: Knex, userId: string): Promise<void> {
  await knex('sessions').where({ user_id: userId }).delete();
}

/** Sets a person's password (already hashed) and ends every session of theirs, in one transaction. */
export async function setPassword(knex: Knex, userId: string, passwordHash: string, now: number): Promise<void> {
  await knex.transaction(async (trx) => {
    const n = await trx('users')
      .where({ id: userId })
      .update({ password_hash: passwordHash, password_changed_at: now });
    if (!n) throw notFound(`user ${userId} not found`);
    await trx('sessions').where({ user_id: userId }).delete();
    await trx('password_setup_tokens').where({ user_id: userId }).whereNull('used_at').update({ used_at: now });
  });
}

/**
 * A reset link's token ("forgot password"), in the caller's transaction: works once, until
 * `expiresAt`; earlier unused reset links stop working (an operator's set-up link does not).
 */
export async function createResetToken(knex: Knex, userId: string, now: number, expiresAt: number): Promise<string> {
  const { token, hash } = newSecret();
  await knex('password_setup_tokens')
    .where({ user_id: userId, kind: 'reset' })
    .whereNull('used_at')
    .update({ used_at: now });
  await knex('password_setup_tokens').insert({
    token_hash: hash,
    user_id: userId,
    created_at: now,
    expires_at: expiresAt,
    used_at: null,
    kind: 'reset',
  });
  return token;
}

/** Holds the person's row until the transaction ends, so their changes are made one at a time. */
export async function lockUser(knex: Knex, userId: string): Promise<void> {
  await knex('users').where({ id: userId }).forUpdate().first('id');
}

/** Reset links made for a person since `since` (used or not): the mails they were sent in. */
export async function resetTokensSince(knex: Knex, userId: string, since: number): Promise<number> {
  const [{ n }] = await knex('password_setup_tokens')
    .where({ user_id: userId, kind: 'reset' })
    .where('created_at', '>=', since)
    .count({ n: '*' });
  return Number(n);
}

/** A fresh one-time set-up link's token for a person; earlier unused ones stop working. */
export async function createSetupToken(knex: Knex, userId: string, now: number): Promise<string> {
  const { token, hash } = newSecret();
  await knex.transaction(async (trx) => {
    await trx('password_setup_tokens').where({ user_id: userId }).whereNull('used_at').update({ used_at: now });
    await trx('password_setup_tokens').insert({
      token_hash: hash,
      user_id: userId,
      created_at: now,
      expires_at: now + SETUP_LINK_MS,
      used_at: null,
    });
  });
  return token;
}

/**
 * Uses a set-up link: sets the password of the person it was made for and ends their sessions,
 * in one transaction, once. Undefined when the token is unknown, used or expired.
 */
export async function useSetupToken(
  knex: Knex,
  token: string,
  passwordHash: string,
  now: number,
): Promise<string | undefined> {
  return knex.transaction(async (trx) => {
    const hash = hashSecret(token);
    // The condition on used_at makes one of two racing uses the one that counts.
    const n = await trx('password_setup_tokens')
      .where({ token_hash: hash })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .update({ used_at: now });
    if (!n) return undefined;
    const { user_id: userId } = await trx('password_setup_tokens').where({ token_hash: hash }).first('user_id');
    await trx('users').where({ id: userId }).update({ password_hash: passwordHash, password_changed_at: now });
    await trx('sessions').where({ user_id: userId }).delete();
    // Any other link still open for the person (a set-up or a reset link) stops working.
    await trx('password_setup_tokens').where({ user_id: userId }).whereNull('used_at').update({ used_at: now });
    return userId as string;
  });
}

export async function userCount(knex: Knex): Promise<number> {
  const [{ n }] = await knex('users').count({ n: '*' });
  return Number(n);
}

/** A first-run token while nobody has claimed the service; each process that starts without users makes one. */
export async function createFirstRunToken(knex: Knex, now: number): Promise<string> {
  const { token, hash } = newSecret();
  await knex('first_run_tokens').insert({ token_hash: hash, created_at: now, used_at: null });
  return token;
}

export async function firstRunTokenValid(knex: Knex, token: string): Promise<boolean> {
  if (await knex('first_run_claim').first('id')) return false;
  return !!(await knex('first_run_tokens')
    .where({ token_hash: hashSecret(token) })
    .whereNull('used_at')
    .first('token_hash'));
}

/**
 * The first run: with a valid token and while nobody has claimed the service, creates the
 * workspace and its OWNER (email and hashed password), in one transaction. A second claim (any
 * token) is refused: the claim row exists once.
 */
export async function claimFirstRun(
  knex: Knex,
  claim: { token: string; workspaceName: string; email: string; passwordHash: string },
  now: number,
): Promise<{ userId: string; workspaceId: string }> {
  return knex.transaction(async (trx) => {
    const hash = hashSecret(claim.token);
    const valid = await trx('first_run_tokens').where({ token_hash: hash }).whereNull('used_at').first('token_hash');
    if (!valid || (await trx('first_run_claim').first('id')) || (await userCount(trx)) > 0)
      throw notFound('This first-run link is not valid any more');
    const userId = newId('usr');
    const workspaceId = newId('ws');
    try {
      await trx('first_run_claim').insert({ id: 1, user_id: userId, claimed_at: now });
    } catch {
      throw notFound('This first-run link is not valid any more');
    }
    await trx('first_run_tokens').update({ used_at: now }).whereNull('used_at');
    await trx('workspaces').insert({
      id: workspaceId,
      name: claim.workspaceName.trim(),
      plan: 'growth',
      created_at: now,
    });
    await trx('users').insert({
      id: userId,
      email: normalizeEmail(claim.email),
      created_at: now,
      password_hash: claim.passwordHash,
      password_changed_at: now,
    });
    await trx('memberships').insert({ workspace_id: workspaceId, user_id: userId, role: 'OWNER', created_at: now });
    return { userId, workspaceId };
  });
}

/** Members of a workspace, by email. */
export async function membersOf(knex: Knex, workspaceId: string) {
  const rows = await knex('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('m.workspace_id', workspaceId)
    .orderBy('u.email')
    .select('u.id', 'u.email', 'm.role', 'm.created_at');
  return rows.map((r) => ({
    userId: r.id as string,
    email: r.email as string,
    role: r.role as Role,
    joinedAt: Number(r.created_at),
  }));
}

export async function ownerCount(knex: Knex, workspaceId: string): Promise<number> {
  const [{ n }] = await knex('memberships').where({ workspace_id: workspaceId, role: 'OWNER' }).count({ n: '*' });
  return Number(n);
}
