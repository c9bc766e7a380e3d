// A person's own sessions and "forgot password" (openapi/dashboard.yaml, Sessions; Mail).
import { endOtherSessions, endSession, listSessions } from '../../../operations/sessions.ts';
import { RESET_ACCEPTED, requestPasswordReset } from '../../../operations/password-reset.ts';
import { sendsMail } from '../../../operations/mail.ts';
import { auditPerson } from '../../../operations/audit.ts';
import type { Services } from '../../services.ts';
import { clearSessionCookie } from '../session.ts';
import type { DashboardHandlers, DashboardResult } from '../types.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export function sessionHandlers(
  services: Services,
): Pick<
  DashboardHandlers,
  'listSessions' | 'endSession' | 'endOtherSessions' | 'getPasswordReset' | 'requestPasswordReset'
> {
  return {
    async listSessions(_request, { session }): Promise<DashboardResult<'listSessions'>> {
      const rows = await listSessions(services, session!.userId, session!.id);
      return {
        status: 200,
        body: {
          data: rows.map((s) => ({
            id: s.id,
            createdAt: iso(s.createdAt),
            lastSeenAt: iso(s.lastUsedAt),
            browser: s.browser,
            os: s.os,
            place: s.place,
            current: s.current,
          })),
        },
      };
    },

    async endSession({ params }, { session, audit: actor }): Promise<DashboardResult<'endSession'>> {
      const userId = session!.userId;
      const { current } = await endSession(services, userId, session!.id, params.sessionId, (trx) =>
        auditPerson(trx, actor, userId, {
          action: 'session.ended',
          objectType: 'session',
          objectId: params.sessionId,
        }),
      );
      return current ? { status: 204, headers: { 'Set-Cookie': clearSessionCookie() } } : { status: 204 };
    },

    async endOtherSessions(_request, { session, audit: actor }): Promise<DashboardResult<'endOtherSessions'>> {
      const userId = session!.userId;
      await endOtherSessions(services, userId, session!.id, (trx, ended) =>
        auditPerson(trx, actor, userId, {
          action: 'session.others_ended',
          objectType: 'user',
          objectId: userId,
          changes: { sessions: { to: ended } },
        }),
      );
      return { status: 204 };
    },

    async getPasswordReset(): Promise<DashboardResult<'getPasswordReset'>> {
      return { status: 200, body: { byEmail: sendsMail(services.config) } };
    },

    // The answer is given before the email is looked up (the operation's `then` does that), so
    // neither its body nor its timing depends on whether the email has an account.
    async requestPasswordReset({ body }, { client }): Promise<DashboardResult<'requestPasswordReset'>> {
      await requestPasswordReset(services, services.resetThrottle, body.email, client);
      return { status: 202, body: { message: RESET_ACCEPTED } };
    },
  };
}
