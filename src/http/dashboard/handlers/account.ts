// Signing in and out, set-up links, password changes, joining a workspace by invitation and the
// first run (openapi/dashboard.yaml, Sessions; Accounts and workspaces).
import * as accounts from '../../../db/repos/accounts.ts';
import * as invitations from '../../../db/repos/invitations.ts';
import { refundAttempt, takeAttempt } from '../../../db/attempt-limiter.ts';
import { passwordSignInOff } from '../../../db/repos/sso.ts';
import { forbidden, invalid, notFound, tooManyWrongPasswords, unauthenticated } from '../../../domain/errors.ts';
import { hashPassword, verifyPassword } from '../../../domain/passwords.ts';
import { normalizeEmail, passwordProblem, SIGN_IN_ATTEMPTS } from '../../../domain/sessions.ts';
import { secondFactorOperations, type SecondFactorOperations } from '../../../operations/second-factors.ts';
import type { Services } from '../../services.ts';
import { asPerson, audit, auditPerson, type AuditActor } from '../../../operations/audit.ts';
import { startSession } from '../../../operations/sessions.ts';
import { sessionOrSecondStep, signInAudited } from '../second-factor-sign-in.ts';
import { browserCookie, clearSessionCookie, sessionBody, sessionCookie } from '../session.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult } from '../types.ts';

/** Verified against when the email is unknown, so a wrong email takes as long as a wrong password. */
let decoyHash: Promise<string> | undefined;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

export function accountHandlers(
  services: Services,
  factors: SecondFactorOperations = secondFactorOperations(services),
): Pick<
  DashboardHandlers,
  | 'getSession'
  | 'signIn'
  | 'signOut'
  | 'setPassword'
  | 'getFirstRun'
  | 'claimFirstRun'
  | 'changePassword'
  | 'getInvitation'
  | 'acceptInvitation'
  | 'registerWithInvitation'
> {
  const { knex } = services.db;
  const limiter = services.signInThrottle;

  /** Checks a person's password, counting a wrong one against the email and client. */
  async function checkPassword(
    email: string,
    password: string,
    client: string,
    actor: AuditActor,
    field?: string,
  ): Promise<accounts.UserRow | undefined> {
    const key = `${normalizeEmail(email)}:${client}`;
    const wait = await takeAttempt(limiter, key);
    if (wait > 0) throw tooManyWrongPasswords(wait, SIGN_IN_ATTEMPTS);
    const user = await accounts.findUserByEmail(knex, email);
    const stored = user?.password_hash ?? (await (decoyHash ??= hashPassword('decoy password for unknown emails')));
    const right = (await verifyPassword(password, stored)) && !!user?.password_hash;
    if (!right) {
      if (user) failedSignIn(actor, user.id);
      if (field) throw invalid('That password is not correct', field);
      return undefined;
    }
    await refundAttempt(limiter, key);
    return user;
  }

  /**
   * A wrong password for a person who exists, in their workspaces' chains. Not awaited: the answer
   * and its time must be those of an unknown email (the decoy hash above), whatever the write costs.
   */
  function failedSignIn(actor: AuditActor, userId: string) {
    knex
      .transaction((trx) =>
        auditPerson(trx, actor, userId, { action: 'session.sign_in_failed', objectType: 'user', objectId: userId }),
      )
      .catch((err) => services.log.warn({ err }, 'a failed sign-in could not be recorded in the audit log'));
  }

  /**
   * Starts the session (src/operations/sessions.ts) with its audit entry: `notice` for a password
   * sign-in, which mails the person when the browser is new to them; a link that proved the email
   * only remembers it. A password sign-in comes here through sessionOrSecondStep.
   */
  async function signedIn(
    userId: string,
    status: 200 | 201,
    ctx: DashboardContext,
    notice = false,
  ): Promise<DashboardResult<'signIn'> | DashboardResult<'claimFirstRun'> | DashboardResult<'registerWithInvitation'>> {
    const { token, session, newBrowserToken } = await startSession(
      services,
      { userId, userAgent: ctx.userAgent, client: ctx.client, browserToken: ctx.browserToken, notice },
      (trx) => signInAudited(trx, ctx.audit, userId),
    );
    const cookies = [sessionCookie(token), ...(newBrowserToken ? [browserCookie(newBrowserToken)] : [])];
    return { status, body: await sessionBody(knex, session), headers: { 'Set-Cookie': cookies } } as never;
  }

  function checkNewPassword(password: string, field: string) {
    const problem = passwordProblem(password);
    if (problem) throw invalid(problem, field);
  }

  return {
    async getSession(_request, { session }): Promise<DashboardResult<'getSession'>> {
      return { status: 200, body: await sessionBody(knex, session!) };
    },

    async signIn({ body }, ctx): Promise<DashboardResult<'signIn'>> {
      const user = await checkPassword(body.email, body.password, ctx.client, ctx.audit);
      if (!user) throw unauthenticated('Wrong email or password');
      // Asked only after the right password, so the answer says nothing to someone guessing.
      if (await passwordSignInOff(knex, user.id, user.email))
        throw forbidden('Your workspace signs in with single sign-on: use "Sign in with SSO"');
      return sessionOrSecondStep(
        factors,
        user.id,
        Date.now(),
        async () => (await signedIn(user.id, 200, ctx, true)) as DashboardResult<'signIn'>,
      );
    },

    async signOut(_request, { session, audit: actor }): Promise<DashboardResult<'signOut'>> {
      await knex.transaction(async (trx) => {
        await accounts.deleteSession(trx, session!.id);
        const event = { action: 'session.signed_out', objectType: 'user', objectId: session!.userId };
        await auditPerson(trx, actor, session!.userId, event);
      });
      return { status: 204, headers: { 'Set-Cookie': clearSessionCookie() } };
    },

    async setPassword({ body }, ctx): Promise<DashboardResult<'setPassword'>> {
      checkNewPassword(body.password, 'password');
      const passwordHash = await hashPassword(body.password);
      const userId = await knex.transaction(async (trx) => {
        const id = await accounts.useSetupToken(trx, body.token, passwordHash, Date.now());
        if (!id)
          throw notFound(
            'This link is not valid any more: it was used, or has expired (a set-up link lasts 24 hours, a reset link 1 hour). Ask for a new one.',
          );
        const event = { action: 'user.password_set', objectType: 'user', objectId: id, changes: { password: {} } };
        await auditPerson(trx, asPerson(ctx.audit, id), id, event);
        return id;
      });
      return sessionOrSecondStep(
        factors,
        userId,
        Date.now(),
        async () => (await signedIn(userId, 200, ctx)) as DashboardResult<'setPassword'>,
      );
    },

    async getFirstRun({ query }): Promise<DashboardResult<'getFirstRun'>> {
      return { status: 200, body: { available: await accounts.firstRunTokenValid(knex, query.token) } };
    },

    async claimFirstRun({ body }, ctx): Promise<DashboardResult<'claimFirstRun'>> {
      const actor = ctx.audit;
      if (!EMAIL.test(body.email.trim())) throw invalid('email must be an email address', 'email');
      if (!body.workspaceName.trim()) throw invalid('workspaceName must not be blank', 'workspaceName');
      checkNewPassword(body.password, 'password');
      const passwordHash = await hashPassword(body.password);
      const { userId } = await knex.transaction(async (trx) => {
        const claimed = await accounts.claimFirstRun(
          trx,
          { token: body.token, workspaceName: body.workspaceName, email: body.email, passwordHash },
          Date.now(),
        );
        // The workspace's chain starts with its own making.
        await audit(trx, asPerson(actor, claimed.userId), claimed.workspaceId, {
          action: 'workspace.created',
          objectType: 'workspace',
          objectId: claimed.workspaceId,
          changes: { name: { to: body.workspaceName.trim() }, owner: { to: claimed.userId } },
        });
        return claimed;
      });
      services.log.info({ userId }, 'the first workspace was created from the first-run link');
      return (await signedIn(userId, 201, ctx)) as DashboardResult<'claimFirstRun'>;
    },

    async getInvitation({ query }): Promise<DashboardResult<'getInvitation'>> {
      const found = await invitations.invitationByToken(knex, query.token, Date.now());
      if (!found) throw notFound(invitations.INVALID_INVITATION);
      const { invitation, workspaceName } = found;
      return {
        status: 200,
        body: {
          data: {
            workspaceName,
            email: invitation.email,
            role: invitation.role,
            expiresAt: new Date(invitation.expiresAt).toISOString(),
          },
        },
      };
    },

    async acceptInvitation({ body }, { session, audit: actor }): Promise<DashboardResult<'acceptInvitation'>> {
      const { workspaceId } = await knex.transaction(async (trx) => {
        const accepted = await invitations.acceptInvitation(
          trx,
          body.token,
          { id: session!.userId, email: session!.email },
          Date.now(),
        );
        await audit(trx, actor, accepted.workspaceId, {
          action: 'member.joined',
          objectType: 'member',
          objectId: session!.userId,
          changes: { role: { to: accepted.role } },
        });
        return accepted;
      });
      const joined = (await accounts.workspacesOf(knex, session!.userId)).find((w) => w.id === workspaceId)!;
      return { status: 200, body: { data: joined } };
    },

    async registerWithInvitation({ body }, ctx): Promise<DashboardResult<'registerWithInvitation'>> {
      const actor = ctx.audit;
      checkNewPassword(body.password, 'password');
      const passwordHash = await hashPassword(body.password);
      const { userId, workspaceId } = await knex.transaction(async (trx) => {
        const joined = await invitations.registerWithInvitation(trx, body.token, passwordHash, Date.now());
        await audit(trx, asPerson(actor, joined.userId), joined.workspaceId, {
          action: 'member.joined',
          objectType: 'member',
          objectId: joined.userId,
        });
        return joined;
      });
      services.log.info({ userId, workspaceId }, 'an account was created with an invitation');
      return (await signedIn(userId, 201, ctx)) as DashboardResult<'registerWithInvitation'>;
    },

    async changePassword({ body }, { session, client, audit: actor }): Promise<DashboardResult<'changePassword'>> {
      checkNewPassword(body.newPassword, 'newPassword');
      await checkPassword(session!.email, body.currentPassword, client, actor, 'currentPassword');
      const passwordHash = await hashPassword(body.newPassword);
      // Every session of the person ends, this one too.
      await knex.transaction(async (trx) => {
        await accounts.setPassword(trx, session!.userId, passwordHash, Date.now());
        const event = { action: 'user.password_changed', objectType: 'user', objectId: session!.userId };
        await auditPerson(trx, actor, session!.userId, { ...event, changes: { password: {} } });
      });
      return { status: 204, headers: { 'Set-Cookie': clearSessionCookie() } };
    },
  };
}
