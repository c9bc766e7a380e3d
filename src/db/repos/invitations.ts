// Invitations to a workspace (openapi/dashboard.yaml, Members and invitations). A membership
// made in the dashboard exists only once its own invitation is accepted by the person who signs
// in as the invited email, or who creates that account with it: nothing a workspace does sets
// another account's credentials, and a token opens its own workspace and nothing else.
import type { Knex } from 'knex';
import { isUniqueViolation } from '../knex.ts';
import type { Role } from '../../domain/access.ts';
import { conflict, forbidden, notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { hashSecret, INVITATION_MS, newSecret, normalizeEmail } from '../../domain/sessions.ts';

export interface Invitation {
  id: string;
  workspaceId: string;
  email: string;
  role: Role;
  invitedBy: { id: string; email: string } | null;
  createdAt: number;
  expiresAt: number;
}

/** What the holder of a live invitation's token may read of it. */
export interface InvitationView {
  invitation: Invitation;
  workspaceName: string;
}

const INVALID =
  'This invitation is not valid any more: it was used, revoked, replaced by a newer one or is older than 7 days. Ask for a new one.';

function present(row: any): Invitation {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    email: row.email,
    role: row.role as Role,
    invitedBy: row.invited_by ? { id: row.invited_by, email: row.inviter_email } : null,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

const live = (q: Knex.QueryBuilder, now: number) => q.whereNull('i.ended_at').where('i.expires_at', '>', now);

function selectInvitations(knex: Knex) {
  return knex('invitations as i')
    .leftJoin('users as inviter', 'inviter.id', 'i.invited_by')
    .select(
      'i.id',
      'i.workspace_id',
      'i.email',
      'i.role',
      'i.invited_by',
      'inviter.email as inviter_email',
      'i.created_at',
      'i.expires_at',
    );
}

/** The workspace's invitations still waiting for their person, newest first. */
export async function pendingInvitations(knex: Knex, workspaceId: string, now: number): Promise<Invitation[]> {
  const rows = await live(selectInvitations(knex).where('i.workspace_id', workspaceId), now).orderBy([
    { column: 'i.created_at', order: 'desc' },
    { column: 'i.id', order: 'desc' },
  ]);
  return rows.map(present);
}

export async function findPendingInvitation(
  knex: Knex,
  workspaceId: string,
  id: string,
  now: number,
): Promise<Invitation | undefined> {
  const row = await live(selectInvitations(knex).where({ 'i.workspace_id': workspaceId, 'i.id': id }), now).first();
  return row ? present(row) : undefined;
}

/**
 * Invites an email to a workspace with a role; the token is returned once. A live invitation of
 * the same email to the same workspace ends (its link stops working). Someone who is already a
 * member with that email: 409. Whether the email has an account anywhere is not looked at, so the
 * answer tells the workspace nothing about other workspaces' people.
 */
export async function createInvitation(
  knex: Knex,
  input: { workspaceId: string; email: string; role: Role; invitedBy: string | null },
  now: number,
  /** Runs in the invitation's transaction once it is written (the caller's mail goes here). */
  alsoInTransaction?: (trx: Knex.Transaction, made: { id: string; token: string; email: string }) => Promise<void>,
): Promise<{ invitation: Invitation; token: string }> {
  const email = normalizeEmail(input.email);
  const { token, hash } = newSecret();
  const id = newId('inv');
  await knex.transaction(async (trx) => {
    // Serialises invitations and acceptances of one workspace, so a member and a live invitation
    // of the same email are never made at once.
    await trx('workspaces').where({ id: input.workspaceId }).forUpdate().first('id');
    const member = await trx('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.workspace_id': input.workspaceId, 'u.email': email })
      .first('m.user_id');
    if (member) throw conflict(`${email} is already a member of this workspace`);
    await trx('invitations')
      .where({ workspace_id: input.workspaceId, email })
      .whereNull('ended_at')
      .update({ ended_at: now });
    await trx('invitations').insert({
      id,
      workspace_id: input.workspaceId,
      email,
      role: input.role,
      token_hash: hash,
      invited_by: input.invitedBy,
      created_at: now,
      expires_at: now + INVITATION_MS,
      ended_at: null,
      accepted_by: null,
    });
    await alsoInTransaction?.(trx, { id, token, email });
  });
  const invitation = (await findPendingInvitation(knex, input.workspaceId, id, now))!;
  return { invitation, token };
}

/** Ends a live invitation; its link stops working. */
export async function revokeInvitation(knex: Knex, workspaceId: string, id: string, now: number): Promise<void> {
  const n = await knex('invitations')
    .where({ workspace_id: workspaceId, id })
    .whereNull('ended_at')
    .where('expires_at', '>', now)
    .update({ ended_at: now });
  if (!n) throw notFound('Invitation not found');
}

/** A live invitation by its token, with its workspace's name; undefined for any other token. */
export async function invitationByToken(knex: Knex, token: string, now: number): Promise<InvitationView | undefined> {
  const row = await live(
    selectInvitations(knex).join('workspaces as w', 'w.id', 'i.workspace_id').where('i.token_hash', hashSecret(token)),
    now,
  ).first('w.name as workspace_name');
  return row ? { invitation: present(row), workspaceName: row.workspace_name } : undefined;
}

/**
 * Accepts a live invitation as `userId` (signed in as, or just created with, the invited email),
 * once: the membership is made and the invitation ended in one transaction. The invitation stands
 * only while whoever sent it may still invite to its role (an OWNER for an OWNER, else an OWNER
 * or ADMIN); an invitation the operator made has no sender to check.
 */
async function acceptIn(
  trx: Knex.Transaction,
  token: string,
  user: { id: string; email: string },
  now: number,
): Promise<{ workspaceId: string; role: Role }> {
  const row = await trx('invitations')
    .where({ token_hash: hashSecret(token) })
    .whereNull('ended_at')
    .where('expires_at', '>', now)
    .first();
  if (!row) throw notFound(INVALID);
  await trx('workspaces').where({ id: row.workspace_id }).forUpdate().first('id');
  if (normalizeEmail(user.email) !== row.email) {
    throw forbidden(
      `This invitation is for ${row.email}; you are signed in as ${user.email}. Sign out and sign in as ${row.email} to accept it.`,
    );
  }
  if (row.invited_by) {
    const sender = await trx('memberships')
      .where({ workspace_id: row.workspace_id, user_id: row.invited_by })
      .first('role');
    const allowed = row.role === 'OWNER' ? ['OWNER'] : ['OWNER', 'ADMIN'];
    if (!sender || !allowed.includes(sender.role)) throw notFound(INVALID);
  }
  // The condition on ended_at makes one of two racing acceptances the one that counts.
  const n = await trx('invitations')
    .where({ id: row.id })
    .whereNull('ended_at')
    .update({ ended_at: now, accepted_by: user.id });
  if (!n) throw notFound(INVALID);
  const existing = await trx('memberships').where({ workspace_id: row.workspace_id, user_id: user.id }).first('role');
  if (existing) throw conflict(`You are already a member of this workspace (${existing.role})`);
  await trx('memberships').insert({
    workspace_id: row.workspace_id,
    user_id: user.id,
    role: row.role,
    created_at: now,
  });
  return { workspaceId: row.workspace_id, role: row.role as Role };
}

export async function acceptInvitation(
  knex: Knex,
  token: string,
  user: { id: string; email: string },
  now: number,
): Promise<{ workspaceId: string; role: Role }> {
  return knex.transaction((trx) => acceptIn(trx, token, user, now));
}

/**
 * The invited person creates their account with the invitation: the account (with the hashed
 * password they chose) and the membership are made, and the invitation ended, in one transaction.
 * An email that already has an account is refused (409): its credentials are its person's, who
 * signs in and accepts instead. Two creations racing for one email: the unique email lets one win.
 */
export async function registerWithInvitation(
  knex: Knex,
  token: string,
  passwordHash: string,
  now: number,
): Promise<{ userId: string; workspaceId: string }> {
  const taken = () => conflict('An account with this email already exists. Sign in to it, then accept the invitation.');
  try {
    return await knex.transaction(async (trx) => {
      const row = await trx('invitations')
        .where({ token_hash: hashSecret(token) })
        .whereNull('ended_at')
        .where('expires_at', '>', now)
        .first('email');
      if (!row) throw notFound(INVALID);
      if (await trx('users').where({ email: row.email }).first('id')) throw taken();
      const userId = newId('usr');
      await trx('users').insert({
        id: userId,
        email: row.email,
        created_at: now,
        password_hash: passwordHash,
        password_changed_at: now,
      });
      const { workspaceId } = await acceptIn(trx, token, { id: userId, email: row.email }, now);
      return { userId, workspaceId };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
}

export { INVALID as INVALID_INVITATION };
