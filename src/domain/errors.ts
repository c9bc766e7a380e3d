// One error vocabulary for every layer: a domain rule, a repository, a handler or the command
// line throws an AppError with one of a closed set of codes, made by the factories below. The
// HTTP error handler renders it once as `{ error, field?, code? }` with its status
// (src/http/errors.ts); the command line once as a message on stderr with its exit code
// (src/start/cli.ts). Anything else thrown is a fault: 500, or exit code 1 with the message.

/** Every code, with what it means over HTTP and on the command line. */
export const ERROR_CODES = {
  /** A field, parameter or body the contract's rules refuse. */
  invalid: { status: 400, exit: 2 },
  /** A command line the CLI cannot run (unknown command, missing or malformed flag). */
  usage: { status: 400, exit: 2 },
  /** No, an unknown, revoked or expired key, or a workspace not on a paid plan. */
  unauthenticated: { status: 401, exit: 1 },
  /** The key lacks a scope, the plan a feature, or its owner the role. */
  forbidden: { status: 403, exit: 1 },
  /** No such object in this workspace (also another workspace's). */
  not_found: { status: 404, exit: 1 },
  method_not_allowed: { status: 405, exit: 1 },
  /** The state of an object forbids the change (already exists, not FAILED, policy-disabled). */
  conflict: { status: 409, exit: 1 },
  /** A slug another live link on the domain holds (a generated one is retried). */
  slug_taken: { status: 409, exit: 1 },
  too_large: { status: 413, exit: 1 },
  rate_limited: { status: 429, exit: 1 },
  /** A feature switched off, or something the service depends on is down. */
  unavailable: { status: 503, exit: 1 },
  /** The service could not store something it had accepted (a file, for the command line). */
  storage: { status: 500, exit: 1 },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorDetails {
  /** The offending field or query parameter, dotted (`value.amountMinor`). */
  field?: string;
  /** The stable code the contract publishes (`conversions_unavailable`); shown as `code`. */
  publicCode?: string;
  /** Seconds until a retry can succeed (rate limits, throttles, a dependency down). */
  retryAfterSeconds?: number;
  /** The rate limit's figures, for its headers. */
  rateLimit?: { limit: number; remaining: number; resetSeconds: number };
  /** The methods a path allows (405). */
  allow?: string[];
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/**
 * A value the client sent, as a message shows it: quoted, so that an empty or blank value reads
 * as one (`domainId "" is not ...`) rather than as a gap between two words, and cut short past
 * 60 characters so that a message never echoes a whole body back.
 */
export function quoted(value: unknown): string {
  const text = String(value);
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

export const isAppError = (err: unknown, code?: ErrorCode): err is AppError =>
  err instanceof AppError && (code === undefined || err.code === code);

export const invalid = (message: string, field?: string) => new AppError('invalid', message, { field });
export const usage = (message: string) => new AppError('usage', message);
export const unauthenticated = (message = 'A valid API key is required') => new AppError('unauthenticated', message);
export const forbidden = (message: string, field?: string) => new AppError('forbidden', message, { field });
export const notFound = (message = 'Not found') => new AppError('not_found', message);
export const methodNotAllowed = (message: string, allow: string[]) =>
  new AppError('method_not_allowed', message, { allow });
export const conflict = (message: string) => new AppError('conflict', message);
export const slugTaken = (slug: string) =>
  new AppError('slug_taken', `The slug '${slug}' is already taken on this domain`);
export const tooLarge = (message: string) => new AppError('too_large', message);
export const rateLimited = (message: string, rateLimit: ErrorDetails['rateLimit'] & {}) =>
  new AppError('rate_limited', message, { rateLimit, retryAfterSeconds: rateLimit.resetSeconds });
/** 429 after `limit` wrong passwords, saying in whole minutes when `waitSeconds` runs out. */
export const tooManyWrongPasswords = (waitSeconds: number, limit: number) => {
  const minutes = Math.ceil(waitSeconds / 60);
  return rateLimited(`Too many wrong passwords. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
    limit,
    remaining: 0,
    resetSeconds: waitSeconds,
  });
};
/** `publicCode` for a feature switched off (retrying does not help); none for an outage worth retrying. */
export const unavailable = (message: string, publicCode?: string) =>
  new AppError('unavailable', message, { publicCode });
export const storageFailed = (message: string) => new AppError('storage', message);
