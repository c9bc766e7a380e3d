// Types of the reference verifiers in verify.mjs.

export interface VerifyVariantAOptions {
  /** How far `t` may be from `now`, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock: milliseconds since the epoch, or a Date. Default the current time. */
  now?: number | Date;
}

/**
 * Checks a Variant A delivery: `X-Webhook-Signature` against the raw body, in constant time, with
 * `t` within the tolerance. Returns false for a missing, malformed or wrong header or a tampered
 * body; throws a TypeError only when no secret is given.
 */
export function verifyVariantA(
  rawBody: string | Buffer | Uint8Array,
  signatureHeader: string | undefined | null,
  secret: string | Buffer,
  options?: VerifyVariantAOptions,
): boolean;

/**
 * Checks a Variant B delivery: `X-Service-Signature` against the raw body, in constant time.
 * Returns false for a missing, malformed or wrong header or a tampered body; throws a TypeError
 * only when no secret is given.
 */
export function verifyVariantB(
  rawBody: string | Buffer | Uint8Array,
  signatureHeader: string | undefined | null,
  secret: string | Buffer,
): boolean;
