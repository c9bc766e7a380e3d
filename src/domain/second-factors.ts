// Second factors (openapi/dashboard.yaml, Second factors): the authenticator app's codes (TOTP,
// RFC 6238, through otpauth) and the recovery codes. Plain functions; the secrets are sealed and
// the codes hashed by their callers before anything is stored.
import { randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { hashSecret } from './sessions.ts';

/** What every authenticator app reads the same way: SHA-1, six digits, 30 seconds. */
const TOTP_ALGORITHM = 'SHA1';
const TOTP_DIGITS = 6;
export const TOTP_PERIOD_S = 30;
/** A code of the step before or after now is accepted too: clocks drift and people type slowly. */
const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** The pending sign-in between the password and the code lives 5 minutes, once. */
export const SECOND_FACTOR_PENDING_MS = 5 * 60_000;
export const SECOND_FACTOR_COOKIE = 'sl_second_factor';
/** Wrong codes allowed per person, per window, as wrong passwords (src/domain/sessions.ts). */
export const SECOND_FACTOR_ATTEMPTS = 5;
export const SECOND_FACTOR_WINDOW_S = 15 * 60;

export type SecondFactorMethod = 'passkey' | 'totp' | 'recovery';
/** The methods answered with a typed code (a passkey answers with a WebAuthn assertion). */
export type CodeMethod = Exclude<SecondFactorMethod, 'passkey'>;

/** A new secret of 160 bits (RFC 4226's recommended length), in base32 as apps take it. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

function totpOf(secret: string, issuer = '', label = ''): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(secret),
  });
}

/** The otpauth:// URI an app scans. */
export const totpUri = (secret: string, issuer: string, label: string): string =>
  totpOf(secret, issuer, label).toString();

/** The code the app shows at `at` (ms); for tests and the command line's operators. */
export const totpCode = (secret: string, at: number): string => totpOf(secret).generate({ timestamp: at });

/**
 * The time step a code was made for, when it is one of the accepted steps around `at` and later
 * than `lastStep` (a code once accepted, or one older than it, is never accepted again); else null.
 */
export function acceptedTotpStep(secret: string, code: string, at: number, lastStep: number | null): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpOf(secret).validate({ token, timestamp: at, window: TOTP_WINDOW });
  if (delta === null) return null;
  const step = Math.floor(at / 1000 / TOTP_PERIOD_S) + delta;
  return lastStep !== null && step <= lastStep ? null : step;
}

/** Letters and digits a person cannot mistake for one another (no 0/o, 1/l/i). */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten recovery codes `xxxxx-xxxxx` (about 49 random bits each). */
export function newRecoveryCodes(): string[] {
  const one = () => {
    let s = '';
    for (let i = 0; i < 10; i++) s += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
    return `${s.slice(0, 5)}-${s.slice(5)}`;
  };
  return Array.from({ length: RECOVERY_CODE_COUNT }, one);
}

/** The hash a recovery code is kept as: of its letters and digits only, in lower case. */
export const recoveryCodeHash = (code: string): string => hashSecret(code.toLowerCase().replace(/[^a-z0-9]/g, ''));
