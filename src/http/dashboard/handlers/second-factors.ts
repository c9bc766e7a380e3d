// The signed-in person's second factors, the second step of signing in, and a workspace's
// requirement (openapi/dashboard.yaml, Second factors). The rules are the operations'.
import type { DbTransaction } from '../../../db/knex.ts';
import { audit, auditPerson, diffFields, type AuditActor } from '../../../operations/audit.ts';
import type { SecondFactorOperations } from '../../../operations/second-factors.ts';

/** A change to the person's own factors, in the chain of every workspace they belong to. */
const personEvent = (trx: DbTransaction, actor: AuditActor, userId: string, action: string) =>
  auditPerson(trx, actor, userId, { action, objectType: 'user', objectId: userId });
import { clearPendingSignInCookie, pendingSignInToken, signInAudited } from '../second-factor-sign-in.ts';
import { mailQueued } from '../../../operations/mail.ts';
import { startSessionIn } from '../../../operations/sessions.ts';
import { browserCookie, sessionBody, sessionCookie } from '../session.ts';
import type { Services } from '../../services.ts';
import type { DashboardHandlers, DashboardResult } from '../types.ts';

export function secondFactorHandlers(
  services: Services,
  factors: SecondFactorOperations,
): Pick<
  DashboardHandlers,
  | 'verifySecondFactor'
  | 'getSecondFactor'
  | 'startTotpEnrolment'
  | 'confirmTotp'
  | 'disableTotp'
  | 'regenerateRecoveryCodes'
  | 'getSecondFactorRequirement'
  | 'setSecondFactorRequirement'
> {
  const { knex } = services.db;
  const person = (session: { userId: string; email: string } | undefined) => ({
    userId: session!.userId,
    email: session!.email,
  });

  return {
    async verifySecondFactor({ body, headers }, ctx): Promise<DashboardResult<'verifySecondFactor'>> {
      const { token, session, newBrowserToken, queued } = await factors.completeSignIn(
        pendingSignInToken(headers),
        body.method,
        body.code,
        Date.now(),
        async (trx, userId) => {
          // A sign-in that began with a password: a browser new to the person is mailed about.
          const who = { userId, userAgent: ctx.userAgent, client: ctx.client, browserToken: ctx.browserToken };
          const made = await startSessionIn(trx, services, { ...who, notice: true });
          await signInAudited(trx, ctx.audit, userId);
          return made;
        },
      );
      if (queued) mailQueued();
      const cookies = [sessionCookie(token), clearPendingSignInCookie()];
      if (newBrowserToken) cookies.push(browserCookie(newBrowserToken));
      return { status: 200, body: await sessionBody(knex, session), headers: { 'Set-Cookie': cookies } };
    },

    async getSecondFactor(_request, { session }): Promise<DashboardResult<'getSecondFactor'>> {
      return { status: 200, body: { data: await factors.status(session!.userId) } };
    },

    async startTotpEnrolment(_request, { session }): Promise<DashboardResult<'startTotpEnrolment'>> {
      return { status: 201, body: { data: await factors.startEnrolment(person(session), Date.now()) } };
    },

    async confirmTotp({ body }, { session, audit: actor }): Promise<DashboardResult<'confirmTotp'>> {
      const recoveryCodes = await factors.confirmEnrolment(session!.userId, body.code, Date.now(), (trx) =>
        personEvent(trx, actor, session!.userId, 'user.second_factor_enabled'),
      );
      return { status: 200, body: { data: { recoveryCodes } } };
    },

    async disableTotp({ body }, { session, client, audit: actor }): Promise<DashboardResult<'disableTotp'>> {
      await factors.disable(person(session), body, client, Date.now(), (trx) =>
        personEvent(trx, actor, session!.userId, 'user.second_factor_disabled'),
      );
      return { status: 204 };
    },

    async regenerateRecoveryCodes(
      { body },
      { session, client, audit: actor },
    ): Promise<DashboardResult<'regenerateRecoveryCodes'>> {
      const recoveryCodes = await factors.regenerateRecoveryCodes(person(session), body, client, Date.now(), (trx) =>
        personEvent(trx, actor, session!.userId, 'user.recovery_codes_renewed'),
      );
      return { status: 200, body: { data: { recoveryCodes } } };
    },

    async getSecondFactorRequirement(_request, { workspace }): Promise<DashboardResult<'getSecondFactorRequirement'>> {
      return { status: 200, body: { data: await factors.requirement(workspace!.id) } };
    },

    async setSecondFactorRequirement(
      { body },
      { workspace, session, audit: actor },
    ): Promise<DashboardResult<'setSecondFactorRequirement'>> {
      const before = (await factors.requirement(workspace!.id)).requireSecondFactor;
      const data = await factors.setRequirement(workspace!.id, session!.userId, body.requireSecondFactor, (trx) =>
        audit(trx, actor, workspace!.id, {
          action: 'workspace.updated',
          objectType: 'workspace',
          objectId: workspace!.id,
          changes: diffFields({ requireSecondFactor: before }, { requireSecondFactor: body.requireSecondFactor }),
        }),
      );
      return { status: 200, body: { data } };
    },
  };
}
