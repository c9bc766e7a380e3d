// Single sign-on's rules that need no I/O (openapi/dashboard.yaml, Single sign-on): the email
// domains a provider answers for, the roles it may give, the codes a failed sign-in is sent back
// with, and who may no longer sign in with a password.
import { normalizeEmail } from './sessions.ts';

/** A sign-in under way lasts 10 minutes: long enough to type a password at the provider. */
export const SSO_LOGIN_MS = 10 * 60_000;
/** The cookie that binds a sign-in under way to the browser that started it. */
export const SSO_COOKIE = 'sl_sso';
/** Where the provider sends the browser back, under the dashboard's origin. */
export const SSO_CALLBACK_PATH = '/app/api/sso/callback';
/** A provider never makes an OWNER: the workspace's owners decide who owns it. */
export const SSO_ROLES = ['ADMIN', 'MEMBER', 'ANALYST'] as const;
export type SsoRole = (typeof SSO_ROLES)[number];
export const MAX_SSO_DOMAINS = 20;

/**
 * Why a sign-in through the provider ended without a session, as the sign-in screen is told
 * (`/app/login?sso_error=CODE`): a code, never text from the request, so a crafted link cannot
 * put words on the screen. The screen holds the sentence of each.
 */
export const SSO_ERRORS = [
  'expired',
  'disabled',
  'provider_refused',
  'provider_unreachable',
  'token_invalid',
  'email_unverified',
  'domain_not_allowed',
  'link_required',
  'email_mismatch',
  'identity_taken',
] as const;
export type SsoErrorCode = (typeof SSO_ERRORS)[number];

export class SsoRefusal extends Error {
  constructor(
    readonly code: SsoErrorCode,
    detail: string,
  ) {
    super(detail);
  }
}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** A domain as stored: lower case, no surrounding spaces or leading `@`; null when it is not one. */
export function normalizeDomain(domain: string): string | null {
  const d = domain.trim().toLowerCase().replace(/^@/, '').replace(/\.$/, '');
  return DOMAIN.test(d) ? d : null;
}

/** The domain of an email address (after its last `@`), or null. */
export function emailDomain(email: string): string | null {
  const e = normalizeEmail(email);
  const at = e.lastIndexOf('@');
  return at > 0 ? normalizeDomain(e.slice(at + 1)) : null;
}

/**
 * Password sign-in is refused only to a person of a domain whose provider turned it off, and only
 * when every workspace they belong to turned it off for their domain: one workspace's choice must
 * not lock its people out of another workspace that still signs them in with a password. A person
 * in no workspace keeps their password.
 */
export function passwordSignInRefused(memberships: Array<{ passwordOffForTheirDomain: boolean }>): boolean {
  return memberships.length > 0 && memberships.every((m) => m.passwordOffForTheirDomain);
}
