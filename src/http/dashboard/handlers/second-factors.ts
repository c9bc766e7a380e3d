// The signed-in person's second factors, the second step of signing in, and a workspace's
// requirement (openapi/dashboard.yaml, Second factors). The rules are the operations'.
import type { SecondFactorOperations } from '../../../operations/second-factors.ts';
import { clearPendingSignInCookie, pendingSignInToken } from '../second-factor-sign-in.ts';
import { sessionBody, sessionCookie } from '../session.ts';
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
    async verifySecondFactor({ body, headers }): Promise<DashboardResult<'verifySecondFactor'>> {
      const { token, session } = await factors.completeSignIn(
        pendingSignInToken(headers),
        body.method,
        body.code,
        Date.now(),
      );
      return {
        status: 200,
        body: await sessionBody(knex, session),
        headers: { 'Set-Cookie': [sessionCookie(token), clearPendingSignInCookie()] },
      };
    },

    async getSecondFactor(_request, { session }): Promise<DashboardResult<'getSecondFactor'>> {
      return { status: 200, body: { data: await factors.status(session!.userId) } };
    },

    async startTotpEnrolment(_request, { session }): Promise<DashboardResult<'startTotpEnrolment'>> {
      return { status: 201, body: { data: await factors.startEnrolment(person(session), Date.now()) } };
    },

    async confirmTotp({ body }, { session }): Promise<DashboardResult<'confirmTotp'>> {
      const recoveryCodes = await factors.confirmEnrolment(session!.userId, body.code, Date.now());
      return { status: 200, body: { data: { recoveryCodes } } };
    },

    async disableTotp({ body }, { session, client }): Promise<DashboardResult<'disableTotp'>> {
      await factors.disable(person(session), body, client, Date.now());
      return { status: 204 };
    },

    async regenerateRecoveryCodes({ body }, { session, client }): Promise<DashboardResult<'regenerateRecoveryCodes'>> {
      const recoveryCodes = await factors.regenerateRecoveryCodes(person(session), body, client, Date.now());
      return { status: 200, body: { data: { recoveryCodes } } };
    },

    async getSecondFactorRequirement(_request, { workspace }): Promise<DashboardResult<'getSecondFactorRequirement'>> {
      return { status: 200, body: { data: await factors.requirement(workspace!.id) } };
    },

    async setSecondFactorRequirement(
      { body },
      { workspace, session },
    ): Promise<DashboardResult<'setSecondFactorRequirement'>> {
      const data = await factors.setRequirement(workspace!.id, session!.userId, body.requireSecondFactor);
      return { status: 200, body: { data } };
    },
  };
}
