// The password form of a protected link: a signed anti-forgery token (double-submitted in a
// SameSite=Strict cookie and the form), and throttling of wrong passwords per link and client.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { createAttemptLimiter, refundAttempt, takeAttempt } from '../db/attempt-limiter.ts';
import type { Database } from '../db/knex.ts';

export const WRONG_PASSWORDS_ALLOWED = 5;
export const WRONG_PASSWORD_WINDOW_S = 15 * 60;
const TOKEN_TTL_MS = 60 * 60 * 1000;
export const CSRF_COOKIE = 'sl_csrf';

export class CsrfTokens {
  private readonly key: Buffer;
  constructor(masterKey: Buffer) {
    this.key = createHmac('sha256', masterKey).update('shortlink visitor csrf').digest();
  }
  private sign(linkId: string, body: string): string {
    return createHmac('sha256', this.key).update(`${linkId}.${body}`).digest('base64url');
  }
  issue(linkId: string, now = Date.now()): string {
    const body = `${now.toString(36)}.${randomBytes(12).toString('base64url')}`;
    return `${body}.${this.sign(linkId, body)}`;
  }
  /** The form's token must equal the cookie's, be signed for this link and be fresh. */
  verify(linkId: string, formToken: string | undefined, cookieToken: string | undefined, now = Date.now()): boolean {
    if (!formToken || !cookieToken || formToken.length !== cookieToken.length) return false;
    if (!timingSafeEqual(Buffer.from(formToken), Buffer.from(cookieToken))) return false;
    const parts = formToken.split('.');
    if (parts.length !== 3) return false;
    const [ts, nonce, mac] = parts;
    const expected = this.sign(linkId, `${ts}.${nonce}`);
    if (mac.length !== expected.length || !timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) return false;
    const issued = parseInt(ts, 36);
    return Number.isFinite(issued) && now - issued < TOKEN_TTL_MS && issued <= now + 60_000;
  }
}

export function createPasswordThrottle(db: Database): RateLimiterAbstract {
  return createAttemptLimiter(db, 'pw', WRONG_PASSWORDS_ALLOWED, WRONG_PASSWORD_WINDOW_S);
}

export { refundAttempt, takeAttempt };

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const value = part.slice(i + 1).trim();
    try {
      out[part.slice(0, i).trim()] = decodeURIComponent(value);
    } catch {
      out[part.slice(0, i).trim()] = value; // malformed %-escape: kept as sent (it will not verify)
    }
  }
  return out;
}
