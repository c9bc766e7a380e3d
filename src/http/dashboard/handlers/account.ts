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
import { sessionOrSecondStep } from '../second-factor-sign-in.ts';
import { clearSessionCookie, sessionBody, sessionCookie } from '../session.ts';
import type { DashboardHandlers, DashboardResult } from '../types.ts';

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

  /** A session for a new account (no second factor yet); a password sign-in goes through sessionOrSecondStep. */
  async function signedIn(
    userId: string,
    status: 201,
  ): Promise<DashboardResult<'claimFirstRun'> | DashboardResult<'registerWithInvitation'>> {
    const { token, session } = await accounts.createSession(knex, userId, Date.now());
    return { status, body: await sessionBody(knex, session), headers: { 'Set-Cookie': sessionCookie(token) } } as never;
  }

  function checkNewPassword(password: string, field: string) {
    const problem = passwordProblem(password);
    if (problem) throw invalid(problem, field);
  }

  return {
    async getSession(_request, { session }): Promise<DashboardResult<'getSession'>> {
      return { status: 200, body: await sessionBody(knex, session!) };
    },

    async signIn({ body }, { client }): Promise<DashboardResult<'signIn'>> {
      const user = await checkPassword(body.email, body.password, client);
      if (!user) throw unauthenticated('Wrong email or password');
      // Asked only after the right password, so the answer says nothing to someone guessing.
      if (await passwordSignInOff(knex, user.id, user.email))
        throw forbidden('Your workspace signs in with single sign-on: use "Sign in with SSO"');
      return sessionOrSecondStep(knex, factors, user.id, Date.now());
    },

    async signOut(_request, { session }): Promise<DashboardResult<'signOut'>> {
      await accounts.deleteSession(knex, session!.id);
      return { status: 204, headers: { 'Set-Cookie': clearSessionCookie() } };
    },

    async setPassword({ body }): Promise<DashboardResult<'setPassword'>> {
      checkNewPassword(body.password, 'password');
      const userId = await accounts.useSetupToken(knex, body.token, await hashPassword(body.password), Date.now());
      if (!userId)
        throw notFound(
          'This set-up link is not valid any more: it was used, or is older than 24 hours. Ask for a new one.',
        );
      return sessionOrSecondStep(knex, factors, userId, Date.now());
    },

    async getFirstRun({ query }): Promise<DashboardResult<'getFirstRun'>> {
      return { status: 200, body: { available: await accounts.firstRunTokenValid(knex, query.token) } };
    },

    async claimFirstRun({ body }): Promise<DashboardResult<'claimFirstRun'>> {
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
      return (await signedIn(userId, 201)) as DashboardResult<'claimFirstRun'>;
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

    async registerWithInvitation({ body }): Promise<DashboardResult<'registerWithInvitation'>> {
      checkNewPassword(body.password, 'password');
      const { userId, workspaceId } = await invitations.registerWithInvitation(
        knex,
        body.token,
        await hashPassword(body.password),
        Date.now(),
      );
      services.log.info({ userId, workspaceId }, 'an account was created with an invitation');
      return (await signedIn(userId, 201)) as DashboardResult<'registerWithInvitation'>;
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
