// The signed-in person's passkeys, signing in with one alone, and one as the second step
// (openapi/dashboard.yaml, Second factors; Session). The rules are src/operations/passkeys.ts's;
// every change and every sign-in is audited in its own transaction.
import type { DbTransaction } from '../../../db/knex.ts';
import { asPerson, auditPerson, type AuditActor } from '../../../operations/audit.ts';
import { mailQueued } from '../../../operations/mail.ts';
import { passkeyOperations, type PasskeyOperations } from '../../../operations/passkeys.ts';
import { startSessionIn } from '../../../operations/sessions.ts';
import type { Services } from '../../services.ts';
import { clearPendingSignInCookie, pendingSignInToken, signInAudited } from '../second-factor-sign-in.ts';
import { browserCookie, sessionBody, sessionCookie } from '../session.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult } from '../types.ts';

/** A change to the person's own passkeys, in the chain of every workspace they belong to. */
const passkeyEvent = (
  trx: DbTransaction,
  actor: AuditActor,
  userId: string,
  action: string,
  passkeyId: string,
  changes?: Record<string, { from?: unknown; to?: unknown }>,
) => auditPerson(trx, actor, userId, { action, objectType: 'passkey', objectId: passkeyId, changes });

export function passkeyHandlers(
  services: Services,
  passkeys: PasskeyOperations = passkeyOperations(services),
): Pick<
  DashboardHandlers,
  | 'listPasskeys'
  | 'startPasskeyRegistration'
  | 'addPasskey'
  | 'renamePasskey'
  | 'removePasskey'
  | 'startPasskeySignIn'
  | 'signInWithPasskey'
  | 'startPasskeySecondFactor'
  | 'verifyPasskeySecondFactor'
> {
  const { knex } = services.db;

  /**
   * A wrong answer for a person who exists, in their workspaces' chains. Not awaited, as a wrong
   * password's is not (src/http/dashboard/handlers/account.ts): the answer does not wait on it.
   */
  function failedSignIn(actor: AuditActor, userId: string) {
    knex
      .transaction((trx) =>
        auditPerson(trx, asPerson(actor, userId), userId, {
          action: 'session.sign_in_failed',
          objectType: 'user',
          objectId: userId,
          changes: { method: { to: 'passkey' } },
        }),
      )
      .catch((err) => services.log.warn({ err }, 'a failed passkey sign-in could not be recorded in the audit log'));
  }

  /** The session started in the passkey's transaction, with its audit entry; its cookies. */
  function hooks(ctx: DashboardContext) {
    return {
      start: async (trx: DbTransaction, userId: string) => {
        const who = { userId, userAgent: ctx.userAgent, client: ctx.client, browserToken: ctx.browserToken };
        const made = await startSessionIn(trx, services, { ...who, notice: true });
        await signInAudited(trx, ctx.audit, userId);
        return made;
      },
      failed: (userId: string) => failedSignIn(ctx.audit, userId),
    };
  }

  async function signedIn(
    started: Awaited<ReturnType<ReturnType<typeof hooks>['start']>>,
    extraCookies: string[] = [],
  ) {
    if (started.queued) mailQueued();
    const cookies = [sessionCookie(started.token), ...extraCookies];
    if (started.newBrowserToken) cookies.push(browserCookie(started.newBrowserToken));
    return {
      status: 200 as const,
      body: await sessionBody(knex, started.session),
      headers: { 'Set-Cookie': cookies },
    };
  }

  return {
    async listPasskeys(_request, { session }): Promise<DashboardResult<'listPasskeys'>> {
      return { status: 200, body: { data: await passkeys.list(session!.userId) } };
    },

    async startPasskeyRegistration(_request, { session }): Promise<DashboardResult<'startPasskeyRegistration'>> {
      const data = await passkeys.registrationOptions({ userId: session!.userId, email: session!.email });
      return { status: 201, body: { data } };
    },

    async addPasskey({ body }, ctx): Promise<DashboardResult<'addPasskey'>> {
      const { userId, email } = ctx.session!;
      const data = await passkeys.add({ userId, email }, body.name, body.credential, ctx.origin, (trx, added) =>
        passkeyEvent(trx, ctx.audit, userId, 'user.passkey_added', added.id, { name: { to: added.name } }),
      );
      return { status: 201, body: { data } };
    },

    async renamePasskey({ body, params }, { session, audit: actor }): Promise<DashboardResult<'renamePasskey'>> {
      const userId = session!.userId;
      const after = await passkeys.rename(userId, params.passkeyId, body.name, (trx, before, renamed) =>
        passkeyEvent(trx, actor, userId, 'user.passkey_renamed', renamed.id, {
          name: { from: before.name, to: renamed.name },
        }),
      );
      return { status: 200, body: { data: after } };
    },

    async removePasskey({ params }, { session, audit: actor }): Promise<DashboardResult<'removePasskey'>> {
      await passkeys.remove(session!, params.passkeyId, (trx, removed) =>
        passkeyEvent(trx, actor, session!.userId, 'user.passkey_removed', removed.id, {
          name: { from: removed.name },
        }),
      );
      return { status: 204 };
    },

    async startPasskeySignIn(_request, { client }): Promise<DashboardResult<'startPasskeySignIn'>> {
      return { status: 200, body: { data: await passkeys.signInOptions(client) } };
    },

    async signInWithPasskey({ body }, ctx): Promise<DashboardResult<'signInWithPasskey'>> {
      return signedIn(await passkeys.signIn(body.credential, ctx.client, ctx.origin, hooks(ctx)));
    },

    async startPasskeySecondFactor({ headers }): Promise<DashboardResult<'startPasskeySecondFactor'>> {
      return { status: 200, body: { data: await passkeys.secondStepOptions(pendingSignInToken(headers)) } };
    },

    async verifyPasskeySecondFactor({ body, headers }, ctx): Promise<DashboardResult<'verifyPasskeySecondFactor'>> {
      const started = await passkeys.completeSecondStep(
        pendingSignInToken(headers),
        body.credential,
        ctx.origin,
        hooks(ctx),
      );
      return signedIn(started, [clearPendingSignInCookie()]);
    },
  };
}
