// "Forgot password" (openapi/dashboard.yaml, POST /password-reset): a link to set a new password
// mailed to an email that has an account. The answer must not tell whether it has one, so it is
// the same for every accepted request and is given before the account is looked up: the lookup,
// the reset link and its mail are written afterwards, in one transaction.
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from '../db/knex.ts';
import { createAttemptLimiter, takeAttempt } from '../db/attempt-limiter.ts';
import * as accounts from '../db/repos/accounts.ts';
import { invalid, rateLimited, unavailable } from '../domain/errors.ts';
import {
  RESET_LINK_MS,
  RESET_MAILS_PER_HOUR,
  RESET_REQUEST_WINDOW_S,
  RESET_REQUESTS,
  type MailPayload,
} from '../domain/mail.ts';
import { normalizeEmail } from '../domain/sessions.ts';
import { mailQueued, queueMail, sealMail, sendsMail } from './mail.ts';
import type { OperationServices } from './services.ts';

const EMAIL = /^[^@\s]+@[^@\s]+$/;

export const RESET_ACCEPTED =
  'If this email has a Shortlink account, a link to set a new password is on its way to it. It works once, for 1 hour.';

/** Requests per email and client, counted in the database so the limit holds across processes. */
export function createResetThrottle(db: Database): RateLimiterAbstract {
  return createAttemptLimiter(db, 'reset', RESET_REQUESTS, RESET_REQUEST_WINDOW_S);
}

/** The page a reset link opens (the set-up screen, worded for a reset). */
export const resetUrl = (config: { publicUrl: string }, token: string) =>
  `${config.publicUrl}/app/reset-password?token=${token}`;

/**
 * Accepts a request (400 for a malformed email, 429 past the throttle, 503 without mail) and
 * leaves the rest to run after the answer: `then` settles when the mail (if any) is queued.
 */
export async function requestPasswordReset(
  services: OperationServices,
  throttle: RateLimiterAbstract,
  email: string,
  client: string,
): Promise<{ then: Promise<void> }> {
  if (!EMAIL.test(email.trim())) throw invalid('email must be an email address', 'email');
  if (!sendsMail(services.config))
    throw unavailable(
      'This service sends no email. Ask an owner or admin of your workspace, or the person who runs the service, for a link to set a new password.',
      'mail_unavailable',
    );
  const address = normalizeEmail(email);
  const wait = await takeAttempt(throttle, `${address}:${client}`);
  if (wait > 0) {
    const minutes = Math.ceil(wait / 60);
    throw rateLimited(`Too many requests for this email. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
      limit: RESET_REQUESTS,
      remaining: 0,
      resetSeconds: wait,
    });
  }
  const then = mailResetLink(services, address).catch((err) =>
    services.log.error({ err }, 'a password reset could not be queued'),
  );
  return { then };
}

async function mailResetLink(services: OperationServices, email: string): Promise<void> {
  const { knex } = services.db;
  const now = Date.now();
  const queued = await knex.transaction(async (trx) => {
    const user = await accounts.findUserByEmail(trx, email);
    // An unknown email ends here, after the same answer; nothing is written for it.
    if (!user) return false;
    // Requests for one account are counted one at a time: their work runs after their answers,
    // so several can be at this point at once (SQLite's transactions already take the lock).
    await accounts.lockUser(trx, user.id);
    if ((await accounts.resetTokensSince(trx, user.id, now - 3_600_000)) >= RESET_MAILS_PER_HOUR) {
      services.log.info({ userId: user.id }, 'reset link not mailed: this hour’s mails to the account are used up');
      return false;
    }
    const token = await accounts.createResetToken(trx, user.id, now, now + RESET_LINK_MS);
    const payload: MailPayload = { kind: 'password_reset', version: 1, url: resetUrl(services.config, token) };
    await queueMail(trx, user.email, payload, sealMail(services.masterKey, payload), now + RESET_LINK_MS, now);
    return true;
  });
  if (queued) mailQueued();
}
