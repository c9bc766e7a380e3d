// People's second factors (openapi/dashboard.yaml, Second factors): the authenticator app's
// sealed secret, recovery codes (hashes), pending sign-ins (hashes) and the workspaces'
// requirement. Each change is one statement or one transaction, so a caller can add its own
// writes (an audit entry) in the same transaction by passing it as `knex`.
import type { Knex } from 'knex';
import type { Role } from '../../domain/access.ts';
import { hashSecret, newSecret } from '../../domain/sessions.ts';

export interface TotpFactorRow {
  user_id: string;
  secret_sealed: string | null;
  enabled_at: number | null;
  last_step: number | null;
  pending_sealed: string | null;
  pending_at: number | null;
}

export async function totpFactorOf(knex: Knex, userId: string): Promise<TotpFactorRow | undefined> {
  const row = await knex('totp_factors').where({ user_id: userId }).first();
  if (!row) return undefined;
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    ...row,
    enabled_at: num(row.enabled_at),
    last_step: num(row.last_step),
    pending_at: num(row.pending_at),
  };
}

export async function recoveryCodesLeft(knex: Knex, userId: string): Promise<number> {
  const [{ n }] = await knex('recovery_codes').where({ user_id: userId }).whereNull('used_at').count({ n: '*' });
  return Number(n);
}

/**
 * The person has a second factor on. Every check of "has a factor" goes through here (the
 * sign-in, the requirement), so a new kind of factor is added in one place.
 */
export async function hasSecondFactor(knex: Knex, userId: string): Promise<boolean> {
  const [app, passkey] = await Promise.all([
    knex('totp_factors').where({ user_id: userId }).whereNotNull('secret_sealed').first('user_id'),
    knex('passkeys').where({ user_id: userId }).first('id'),
  ]);
  return !!app || !!passkey;
}

/** The person has an authenticator app on (what turning it off and recovery codes need). */
export async function hasTotp(knex: Knex, userId: string): Promise<boolean> {
  return !!(await knex('totp_factors').where({ user_id: userId }).whereNotNull('secret_sealed').first('user_id'));
}

/** Neither an app on nor a passkey for the person of `m.user_id`: the one test of "no factor" in SQL. */
function withoutFactor(knex: Knex, q: Knex.QueryBuilder): void {
  q.whereNotExists(
    knex('totp_factors as f')
      .where('f.user_id', knex.ref('m.user_id'))
      .whereNotNull('f.secret_sealed')
      .select('f.user_id'),
  ).whereNotExists(knex('passkeys as p').where('p.user_id', knex.ref('m.user_id')).select('p.id'));
}

/** The person's workspaces that require a second factor, by name. */
export async function requiringWorkspaces(knex: Knex, userId: string): Promise<Array<{ id: string; name: string }>> {
  return knex('memberships as m')
    .join('workspaces as w', 'w.id', 'm.workspace_id')
    .where('m.user_id', userId)
    .where('w.require_second_factor', true)
    .orderBy([{ column: 'w.name' }, { column: 'w.id' }])
    .select('w.id', 'w.name');
}

/**
 * What holds a session back: the workspaces requiring a second factor of a person who has none
 * (neither an app nor a passkey; empty when nothing does). One query, as it runs on every
 * request of the dashboard.
 */
export async function restrictionOf(knex: Knex, userId: string): Promise<Array<{ id: string; name: string }>> {
  return knex('memberships as m')
    .join('workspaces as w', 'w.id', 'm.workspace_id')
    .where('m.user_id', userId)
    .where('w.require_second_factor', true)
    .modify((q) => withoutFactor(knex, q))
    .orderBy([{ column: 'w.name' }, { column: 'w.id' }])
    .select('w.id', 'w.name');
}

/** Keeps a started enrolment's sealed secret beside the app in use (replacing one not confirmed). */
export async function startTotpEnrolment(knex: Knex, userId: string, pendingSealed: string, now: number) {
  await knex('totp_factors')
    .insert({ user_id: userId, pending_sealed: pendingSealed, pending_at: now })
    .onConflict('user_id')
    .merge(['pending_sealed', 'pending_at']);
}

/**
 * Turns the started secret on, if it is still the one `pendingSealed` names (a second start in
 * between wins), accepting `step`, and replaces the recovery codes: in the caller's transaction.
 * False when the enrolment changed meanwhile.
 */
export async function confirmTotpEnrolment(
  trx: Knex.Transaction,
  userId: string,
  pendingSealed: string,
  step: number,
  codeHashes: string[],
  now: number,
): Promise<boolean> {
  const n = await trx('totp_factors').where({ user_id: userId, pending_sealed: pendingSealed }).update({
    secret_sealed: pendingSealed,
    enabled_at: now,
    last_step: step,
    pending_sealed: null,
    pending_at: null,
  });
  if (!n) return false;
  await replaceRecoveryCodes(trx, userId, codeHashes, now);
  return true;
}

/**
 * Records that the app's code of `step` was used: true once per step and only forwards (two
 * requests with the same code: one wins), so a code is never accepted twice.
 */
export async function useTotpStep(knex: Knex, userId: string, step: number): Promise<boolean> {
  const n = await knex('totp_factors')
    .where({ user_id: userId })
    .whereNotNull('secret_sealed')
    .where((q) => q.whereNull('last_step').orWhere('last_step', '<', step))
    .update({ last_step: step });
  return n > 0;
}

/** Uses up a recovery code: true once. */
export async function useRecoveryCode(knex: Knex, userId: string, codeHash: string, now: number): Promise<boolean> {
  const n = await knex('recovery_codes')
    .where({ user_id: userId, code_hash: codeHash })
    .whereNull('used_at')
    .update({ used_at: now });
  return n > 0;
}

/** All ten replaced: every earlier code, used or not, stops working. */
export async function replaceRecoveryCodes(knex: Knex, userId: string, codeHashes: string[], now: number) {
  await knex('recovery_codes').where({ user_id: userId }).delete();
  await knex('recovery_codes').insert(
    codeHashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now, used_at: null })),
  );
}

/** Deletes the app's secret and every recovery code, in the caller's transaction. */
export async function removeSecondFactor(trx: Knex.Transaction, userId: string): Promise<void> {
  await trx('totp_factors').where({ user_id: userId }).delete();
  await trx('recovery_codes').where({ user_id: userId }).delete();
  await trx('second_factor_challenges').where({ user_id: userId }).delete();
}

/** A pending sign-in for the person; the cookie's token is returned once, its hash kept. */
export async function createChallenge(knex: Knex, userId: string, now: number, lifetimeMs: number): Promise<string> {
  const { token, hash } = newSecret();
  await knex('second_factor_challenges').insert({
    id: hash,
    user_id: userId,
    created_at: now,
    expires_at: now + lifetimeMs,
  });
  return token;
}

/** The person a live pending sign-in belongs to, or undefined (unknown, used or expired). */
export async function challengeUser(knex: Knex, token: string, now: number): Promise<string | undefined> {
  const row = await knex('second_factor_challenges')
    .where({ id: hashSecret(token) })
    .where('expires_at', '>', now)
    .first('user_id');
  return row?.user_id;
}

/** Ends a pending sign-in: true for the one caller that ended it (single use). */
export async function endChallenge(knex: Knex, token: string): Promise<boolean> {
  return (
    (await knex('second_factor_challenges')
      .where({ id: hashSecret(token) })
      .delete()) > 0
  );
}

export async function requiresSecondFactor(knex: Knex, workspaceId: string): Promise<boolean> {
  const row = await knex('workspaces').where({ id: workspaceId }).first('require_second_factor');
  return !!row && Boolean(row.require_second_factor);
}

export async function setRequirement(knex: Knex, workspaceId: string, required: boolean): Promise<void> {
  await knex('workspaces').where({ id: workspaceId }).update({ require_second_factor: required });
}

/** The workspace's members who have no second factor, by email. */
export async function membersWithoutFactor(
  knex: Knex,
  workspaceId: string,
): Promise<Array<{ userId: string; email: string; role: Role }>> {
  const rows = await knex('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('m.workspace_id', workspaceId)
    .modify((q) => withoutFactor(knex, q))
    .orderBy('u.email')
    .select('u.id', 'u.email', 'm.role');
  return rows.map((r: { id: string; email: string; role: string }) => ({
    userId: r.id,
    email: r.email,
    role: r.role as Role,
  }));
}
