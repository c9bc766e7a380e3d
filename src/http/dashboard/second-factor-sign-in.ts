// The second step of signing in (openapi/dashboard.yaml, Second factors): after the right
// password a person with a second factor gets no session but a pending cookie, which
// `POST /session/second-factor` exchanges, with a code, for the session.
import { asPerson, auditPerson, type AuditActor } from '../../operations/audit.ts';
import { SECOND_FACTOR_COOKIE, SECOND_FACTOR_PENDING_MS } from '../../domain/second-factors.ts';
import type { SecondFactorOperations } from '../../operations/second-factors.ts';
import { parseCookies } from '../../redirect/password.ts';

/**
 * HttpOnly, Secure; SameSite=Strict and the second step's path only: no other request carries
 * it, and it lives as long as the pending sign-in in the database (which alone decides).
 */
export const pendingSignInCookie = (token: string) =>
  `${SECOND_FACTOR_COOKIE}=${token}; Path=/app/api/session; HttpOnly; Secure; SameSite=Strict; Max-Age=${SECOND_FACTOR_PENDING_MS / 1000}`;
export const clearPendingSignInCookie = () =>
  `${SECOND_FACTOR_COOKIE}=; Path=/app/api/session; HttpOnly; Secure; SameSite=Strict; Max-Age=0`;

export const pendingSignInToken = (headers: Record<string, string | string[] | undefined>) =>
  parseCookies(typeof headers.cookie === 'string' ? headers.cookie : undefined)[SECOND_FACTOR_COOKIE];

/**
 * What the right password leads to: the session, or for a person with a second factor the
 * pending sign-in. Every way of signing in with a password goes through here, so none skips the
 * second factor.
 */
export async function sessionOrSecondStep<T>(
  factors: SecondFactorOperations,
  userId: string,
  now: number,
  /** Starts the session when no second step is due. */
  start: () => Promise<T>,
) {
  const pending = await factors.challenge(userId, now);
  if (pending) {
    return {
      status: 200 as const,
      body: { secondFactor: { methods: pending.methods, expiresAt: new Date(pending.expiresAt).toISOString() } },
      headers: { 'Set-Cookie': pendingSignInCookie(pending.token) },
    };
  }
  return start();
}

/** The audit entry of a session started, in the transaction that starts it (every way in). */
export function signInAudited(trx: Parameters<typeof auditPerson>[0], actor: AuditActor, userId: string) {
  return auditPerson(trx, asPerson(actor, userId), userId, {
    action: 'session.signed_in',
    objectType: 'user',
    objectId: userId,
  });
}
