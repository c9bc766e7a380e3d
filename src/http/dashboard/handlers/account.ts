// Signing in and out, set-up links, password changes, joining a workspace by invitation and the
// first run (openapi/dashboard.yaml, Sessions; Accounts and workspaces).
import * as accounts from '../../../db/repos/accounts.ts';
import * as invitations from '../../../db/repos/invitations.ts';
import { refundAttempt, takeAttempt } from '../../../db/attempt-limiter.ts';
import { invalid, notFound, tooManyWrongPasswords, unauthenticated } from '../../../domain/errors.ts';
import { hashPassword, verifyPassword } from '../../../domain/passwords.ts';
import { normalizeEmail, passwordProblem, SIGN_IN_ATTEMPTS } from '../../../domain/sessions.ts';
import type { Services } from '../../services.ts';
import { startSession } from '../../../operations/sessions.ts';
import { browserCookie, clearSessionCookie, sessionBody, sessionCookie } from '../session.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult } from '../types.ts';

/** Verified against when the email is unknown, so a wrong email takes as long as a wrong password. */
let decoyHash: Promise<string> | undefined;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

export function accountHandlers(
  services: Services,
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
    field?: string,
  ): Promise<accounts.UserRow | undefined> {
    const key = `${normalizeEmail(email)}:${client}`;
    const wait = await takeAttempt(limiter, key);
    if (wait > 0) throw tooManyWrongPasswords(wait, SIGN_IN_ATTEMPTS);
    const user = await accounts.findUserByEmail(knex, email);
    const stored = user?.password_hash ?? (await (decoyHash ??= hashPassword('decoy password for unknown emails')));
    const right = (await verifyPassword(password, stored)) && !!user?.password_hash;
    if (!right) {
      if (field) throw invalid('That password is not correct', field);
      return undefined;
    }
    await refundAttempt(limiter, key);
    return user;
  }

  /**
   * Starts the session (src/operations/sessions.ts): `notice` for a password sign-in, which mails
   * the person when the browser is new to them; a link that proved the email only remembers it.
   */
  async function signedIn(
    userId: string,
    status: 200 | 201,
    ctx: DashboardContext,
    notice = false,
  ): Promise<DashboardResult<'signIn'> | DashboardResult<'claimFirstRun'> | DashboardResult<'registerWithInvitation'>> {
    const { token, session, newBrowserToken } = await startSession(services, {
      userId,
      userAgent: ctx.userAgent,
      client: ctx.client,
      browserToken: ctx.browserToken,
      notice,
    });
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
      const user = await checkPassword(body.email, body.password, ctx.client);
      if (!user) throw unauthenticated('Wrong email or password');
      return (await signedIn(user.id, 200, ctx, true)) as DashboardResult<'signIn'>;
    },

    async signOut(_request, { session }): Promise<DashboardResult<'signOut'>> {
      await accounts.deleteSession(knex, session!.id);
      return { status: 204, headers: { 'Set-Cookie': clearSessionCookie() } };
    },

    async setPassword({ body }, ctx): Promise<DashboardResult<'setPassword'>> {
      checkNewPassword(body.password, 'password');
      const userId = await accounts.useSetupToken(knex, body.token, await hashPassword(body.password), Date.now());
      if (!userId)
        throw notFound(
          'This link is not valid any more: it was used, or has expired (a set-up link lasts 24 hours, a reset link 1 hour). Ask for a new one.',
        );
      return (await signedIn(userId, 200, ctx)) as DashboardResult<'setPassword'>;
    },

    async getFirstRun({ query }): Promise<DashboardResult<'getFirstRun'>> {
      return { status: 200, body: { available: await accounts.firstRunTokenValid(knex, query.token) } };
    },

    async claimFirstRun({ body }, ctx): Promise<DashboardResult<'claimFirstRun'>> {
      if (!EMAIL.test(body.email.trim())) throw invalid('email must be an email address', 'email');
      if (!body.workspaceName.trim()) throw invalid('workspaceName must not be blank', 'workspaceName');
      checkNewPassword(body.password, 'password');
      const { userId } = await accounts.claimFirstRun(
        knex,
        {
          token: body.token,
          workspaceName: body.workspaceName,
          email: body.email,
          passwordHash: await hashPassword(body.password),
        },
        Date.now(),
      );
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

    async acceptInvitation({ body }, { session }): Promise<DashboardResult<'acceptInvitation'>> {
      const { workspaceId } = await invitations.acceptInvitation(
        knex,
        body.token,
        { id: session!.userId, email: session!.email },
        Date.now(),
      );
      const joined = (await accounts.workspacesOf(knex, session!.userId)).find((w) => w.id === workspaceId)!;
      return { status: 200, body: { data: joined } };
    },

    async registerWithInvitation({ body }, ctx): Promise<DashboardResult<'registerWithInvitation'>> {
      checkNewPassword(body.password, 'password');
      const { userId, workspaceId } = await invitations.registerWithInvitation(
        knex,
        body.token,
        await hashPassword(body.password),
        Date.now(),
      );
      services.log.info({ userId, workspaceId }, 'an account was created with an invitation');
      return (await signedIn(userId, 201, ctx)) as DashboardResult<'registerWithInvitation'>;
    },

    async changePassword({ body }, { session, client }): Promise<DashboardResult<'changePassword'>> {
      checkNewPassword(body.newPassword, 'newPassword');
      await checkPassword(session!.email, body.currentPassword, client, 'currentPassword');
      // Every session of the person ends, this one too.
      await accounts.setPassword(knex, session!.userId, await hashPassword(body.newPassword), Date.now());
      return { status: 204, headers: { 'Set-Cookie': clearSessionCookie() } };
    },
  };
}
