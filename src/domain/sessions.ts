// The dashboard's sessions and sign-in rules (openapi/dashboard.yaml, Sessions).
import { createHash, randomBytes } from 'node:crypto';

/** A session ends 14 days after its last use. */
export const SESSION_IDLE_MS = 14 * 24 * 3_600_000;
/** Using a session slides its end at most this often (a write per request would be wasted). */
export const SESSION_TOUCH_MS = 10 * 60_000;
/** A set-up link works once, for 24 hours. */
export const SETUP_LINK_MS = 24 * 3_600_000;
/** An invitation to a workspace works once, for 7 days. */
export const INVITATION_MS = 7 * 24 * 3_600_000;
export const MIN_PASSWORD_LENGTH = 10;
/** Wrong passwords allowed per email and client, per window. */
export const SIGN_IN_ATTEMPTS = 5;
export const SIGN_IN_WINDOW_S = 15 * 60;
export const SESSION_COOKIE = 'sl_session';

/** A secret for a cookie or a link (256 bits), and the hash the database keeps of it. */
export function newSecret(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSecret(token) };
}

export const hashSecret = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The id a session is shown by (GET /sessions): derived from the stored hash, so neither the
 * token nor the row's key can be read back from it.
 */
export const sessionPublicId = (storedId: string) =>
  createHash('sha256').update(`session:${storedId}`).digest('base64url').slice(0, 22);

/** The browser cookie: a long-lived random token per browser, whose hash is kept per person. */
export const BROWSER_COOKIE = 'sl_browser';
/** 400 days, the longest a browser keeps a cookie. */
export const BROWSER_COOKIE_S = 400 * 86_400;
const BROWSER_TOKEN = /^[A-Za-z0-9_-]{43}$/;
export const isBrowserToken = (value: string | undefined): value is string => !!value && BROWSER_TOKEN.test(value);

/** Emails are compared without case or surrounding spaces. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function passwordProblem(password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH)
    return `The password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  return null;
}

/** The page where a person sets their password with a one-time set-up token. */
export const setupUrl = (config: { publicUrl: string }, token: string) =>
  `${config.publicUrl}/app/setup-password?token=${token}`;

/** The page where an invited person joins a workspace (signing in, or creating their account). */
export const invitationUrl = (config: { publicUrl: string }, token: string) =>
  `${config.publicUrl}/app/invite?token=${token}`;

/** The page where the first person creates the first workspace (printed by `serve` while nobody has). */
export const firstRunUrl = (config: { publicUrl: string }, token: string) =>
  `${config.publicUrl}/app/setup?token=${token}`;
