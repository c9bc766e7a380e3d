// A person's own sessions and "forgot password" (openapi/dashboard.yaml, Sessions; Mail).
import { endOtherSessions, endSession, listSessions } from '../../../operations/sessions.ts';
import { RESET_ACCEPTED, requestPasswordReset } from '../../../operations/password-reset.ts';
import { sendsMail } from '../../../operations/mail.ts';
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

    async endSession({ params }, { session }): Promise<DashboardResult<'endSession'>> {
      const { current } = await endSession(services, session!.userId, session!.id, params.sessionId);
      return current ? { status: 204, headers: { 'Set-Cookie': clearSessionCookie() } } : { status: 204 };
    },

    async endOtherSessions(_request, { session }): Promise<DashboardResult<'endOtherSessions'>> {
      await endOtherSessions(services, session!.userId, session!.id);
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
