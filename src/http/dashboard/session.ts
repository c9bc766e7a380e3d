// The session cookie and what a session answers (openapi/dashboard.yaml, Sessions).
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { createAttemptLimiter } from '../../db/attempt-limiter.ts';
import type { Database, Db } from '../../db/knex.ts';
import * as accounts from '../../db/repos/accounts.ts';
import { hasSecondFactor, requiringWorkspaces } from '../../db/repos/second-factors.ts';
import {
  BROWSER_COOKIE,
  BROWSER_COOKIE_S,
  SESSION_COOKIE,
  SESSION_IDLE_MS,
  SIGN_IN_ATTEMPTS,
  SIGN_IN_WINDOW_S,
} from '../../domain/sessions.ts';
import type { components } from '../../../generated/dashboard.ts';
import type { Actor } from '../../operations/link-rules.ts';
import type { DashboardContext } from './types.ts';

/**
 * HttpOnly (no script reads it), Secure (HTTPS only), SameSite=Lax (not sent on cross-site
 * sub-requests or posts), for the dashboard's paths only.
 */
export const sessionCookie = (token: string) =>
  `${SESSION_COOKIE}=${token}; Path=/app; HttpOnly; Secure; SameSite=Lax; Max-Age=${Math.floor(SESSION_IDLE_MS / 1000)}`;
/**
 * The browser's own long-lived token (a new-browser sign-in is noticed by its hash, kept per
 * person): the session cookie's attributes, 400 days, and kept on signing out.
 */
export const browserCookie = (token: string) =>
  `${BROWSER_COOKIE}=${token}; Path=/app; HttpOnly; Secure; SameSite=Lax; Max-Age=${BROWSER_COOKIE_S}`;
export const clearSessionCookie = () => `${SESSION_COOKIE}=; Path=/app; HttpOnly; Secure; SameSite=Lax; Max-Age=0`;

/**
 * When this session last changed something (ms): another instance reads its heavy reads from the
 * primary until a replica has that change (src/db/read-replicas.ts). Set only with replicas.
 */
export const WROTE_COOKIE = 'sl_wrote';
export const wroteCookie = (at: number, rememberMs: number) =>
  `${WROTE_COOKIE}=${at}; Path=/app/api; HttpOnly; Secure; SameSite=Lax; Max-Age=${Math.ceil(rememberMs / 1000)}`;

export async function sessionBody(
  knex: Db,
  session: accounts.SessionRecord,
): Promise<components['schemas']['Session']> {
  const [workspaces, enabled, requiredBy] = await Promise.all([
    accounts.workspacesOf(knex, session.userId),
    hasSecondFactor(knex, session.userId),
    requiringWorkspaces(knex, session.userId),
  ]);
  return {
    user: { id: session.userId, email: session.email },
    workspaces,
    csrfToken: session.csrfToken,
    expiresAt: new Date(session.expiresAt).toISOString(),
    secondFactor: { enabled, restricted: !enabled && requiredBy.length > 0, requiredBy },
  };
}

/** Wrong sign-in passwords: SIGN_IN_ATTEMPTS per email and client in SIGN_IN_WINDOW_S, across processes. */
export function createSignInThrottle(db: Database): RateLimiterAbstract {
  return createAttemptLimiter(db, 'signin', SIGN_IN_ATTEMPTS, SIGN_IN_WINDOW_S);
}

/** Who acts in a request signed in to the dashboard, as the link and page operations name them. */
export const sessionActor = (ctx: DashboardContext): Actor => ({
  workspaceId: ctx.workspace!.id,
  userId: ctx.session!.userId,
  plan: ctx.workspace!.plan,
  requestId: ctx.requestId,
  via: 'session',
  audit: ctx.audit,
});
