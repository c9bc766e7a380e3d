// People in workspaces: added by the operator (a person without a password gets a one-time link
// to set one, 24 hours; the old password keeps working until such a link is used, and using it
// ends every session), invited, changed and removed in the dashboard, where only an OWNER makes,
// removes or invites an OWNER and a workspace always keeps one.
import type { Config } from '../config.ts';
import type { Db, DbTransaction } from '../db/knex.ts';
import * as accounts from '../db/repos/accounts.ts';
import * as invitations from '../db/repos/invitations.ts';
import * as workspaces from '../db/repos/workspaces.ts';
import type { Role } from '../domain/access.ts';
import { forbidden, invalid, notFound } from '../domain/errors.ts';
import type { MailPayload } from '../domain/mail.ts';
import { INVITATION_MS, invitationUrl, normalizeEmail, setupUrl } from '../domain/sessions.ts';
import { mailQueued, queueMail, sealMail, sendsMail } from './mail.ts';
import type { OperationServices } from './services.ts';
import { audit, type AuditActor } from './audit.ts';

type UrlConfig = Pick<Config, 'publicUrl'>;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** Who acts in the dashboard: their workspace (with their role there) and themselves. */
export interface Acting {
  workspace: { id: string; role: Role };
  userId: string;
}

/**
 * Adds the person (made when new) to the workspace; the link to set a password when they have none.
 * Recorded as member.joined, the entry an accepted invitation writes, in the membership's transaction.
 */
export async function addMember(
  knex: Db,
  config: UrlConfig,
  workspaceId: string,
  email: string,
  role: Role,
  actor: AuditActor,
): Promise<{ id: string; setupUrl?: string }> {
  const { id, token } = await knex.transaction(async (trx) => {
    const userId = await workspaces.addMember(trx, workspaceId, email, role);
    await audit(trx, actor, workspaceId, {
      action: 'member.joined',
      objectType: 'member',
      objectId: userId,
      changes: { role: { to: role } },
    });
    const user = await accounts.findUser(trx, userId);
    return { id: userId, token: user?.password_hash ? null : await accounts.createSetupToken(trx, userId, Date.now()) };
  });
  return token === null ? { id } : { id, setupUrl: setupUrl(config, token) };
}

export async function resetPassword(knex: Db, config: UrlConfig, email: string): Promise<{ setupUrl: string }> {
  const user = await accounts.findUserByEmail(knex, email);
  if (!user) throw notFound(`no user has the e-mail address ${normalizeEmail(email)}`);
  return { setupUrl: setupUrl(config, await accounts.createSetupToken(knex, user.id, Date.now())) };
}

/** The member of the workspace, or 404. */
export async function memberOf(knex: Db, workspaceId: string, userId: string) {
  const member = (await accounts.membersOf(knex, workspaceId)).find((m) => m.userId === userId);
  if (!member) throw notFound('Member not found');
  return member;
}

/** Changes a member's role; the workspace keeps an OWNER. */
export async function changeRole(knex: Db, workspaceId: string, userId: string, role: Role) {
  const member = await memberOf(knex, workspaceId, userId);
  await workspaces.setRole(knex, workspaceId, member.userId, role, { keepOwner: true });
  return memberOf(knex, workspaceId, member.userId);
}

/** Removes a member and ends their sessions; only an OWNER removes an OWNER. */
export async function removeMember(knex: Db, who: Acting, userId: string): Promise<void> {
  const member = await memberOf(knex, who.workspace.id, userId);
  if (member.role === 'OWNER' && who.workspace.role !== 'OWNER') throw forbidden('Only an OWNER removes an OWNER');
  await workspaces.removeMember(knex, who.workspace.id, member.userId, { keepOwner: true });
}

/**
 * Invites a person by e-mail. With mail, the link is mailed to that email, written to the outbox
 * in the invitation's transaction, and `inviteUrl` is undefined; without, the answer's link is
 * the only way to the invitation.
 */
export async function invite(
  services: Pick<OperationServices, 'db' | 'config' | 'masterKey'>,
  who: Acting,
  body: { email: string; role: Role },
  /** Written in the invitation's transaction (its audit entry). */
  also?: (trx: DbTransaction, made: { id: string; email: string; role: Role }) => Promise<void>,
): Promise<{ invitation: invitations.Invitation; inviteUrl: string | undefined }> {
  const { knex } = services.db;
  const { config } = services;
  if (!EMAIL.test(body.email.trim())) throw invalid('email must be an email address', 'email');
  if (body.role === 'OWNER' && who.workspace.role !== 'OWNER') throw forbidden('Only an OWNER invites an OWNER');
  const mail = sendsMail(config);
  const now = Date.now();
  const { invitation, token } = await invitations.createInvitation(
    knex,
    { workspaceId: who.workspace.id, email: body.email, role: body.role, invitedBy: who.userId },
    now,
    async (trx, made) => {
      await also?.(trx, { id: made.id, email: made.email, role: body.role });
      if (!mail) return;
      {
        const [workspace, inviter] = await Promise.all([
          trx('workspaces').where({ id: who.workspace.id }).first('name'),
          accounts.findUser(trx, who.userId),
        ]);
        const payload: MailPayload = {
          kind: 'invitation',
          version: 1,
          url: invitationUrl(config, made.token),
          workspaceName: workspace?.name ?? '',
          role: body.role,
          invitedBy: inviter?.email ?? null,
        };
        await queueMail(trx, made.email, payload, sealMail(services.masterKey, payload), now + INVITATION_MS, now);
      }
    },
  );
  if (mail) {
    mailQueued();
    return { invitation, inviteUrl: undefined };
  }
  return { invitation, inviteUrl: invitationUrl(config, token) };
}

/** Withdraws a pending invitation; only an OWNER withdraws one to be OWNER. */
export async function revokeInvitation(knex: Db, who: Acting, invitationId: string): Promise<void> {
  const now = Date.now();
  const invitation = await invitations.findPendingInvitation(knex, who.workspace.id, invitationId, now);
  if (!invitation) throw notFound('Invitation not found');
  if (invitation.role === 'OWNER' && who.workspace.role !== 'OWNER')
    throw forbidden('Only an OWNER revokes an invitation to be OWNER');
  await invitations.revokeInvitation(knex, who.workspace.id, invitation.id, now);
}
