// The delivery rules of both webhook variants (asyncapi/variant-a.yaml and variant-b.yaml,
// "Delivery outcomes and retries"), as pure functions: what one attempt's result means for the
// delivery, and when the next attempt is due. No I/O here; the worker applies the decisions.

export type Variant = 'A' | 'B';
export type DeliveryStatus = 'PENDING' | 'SENDING' | 'DELIVERED' | 'FAILED' | 'UNKNOWN';

/** Seconds to wait before retry 1..5. */
export const RETRY_DELAYS_S: Record<Variant, readonly number[]> = {
  // Doubling from 10 s, capped at 30 minutes (never reached with five retries).
  A: [10, 20, 40, 80, 160],
  B: [1, 5, 30, 120, 600],
};
const A_CAP_S = 30 * 60;

/** The first attempt and five retries. */
export const MAX_ATTEMPTS = 1 + 5;

/** How long the endpoint has to answer. */
export const DEFAULT_TIMEOUT_MS: Record<Variant, number> = { A: 10_000, B: 30_000 };

/** What happened to one attempt, as far as the sender can tell. */
export type AttemptResult =
  /** The endpoint answered with this status line. */
  | { kind: 'answered'; statusCode: number }
  /** Nothing was written to the endpoint: DNS failure, refused connection, TLS failure, no connection in time. */
  | { kind: 'not_sent'; error: string }
  /** The address is not one deliveries may reach (or the URL is not https); nothing was sent. */
  | { kind: 'refused'; error: string }
  /**
   * The request was (or may have been) written and no answer came: a timeout, a reset, a broken
   * answer, or the process sending it stopped. Whether the endpoint acted cannot be told.
   */
  | { kind: 'lost'; error: string };

/** The label of an attempt in webhook_attempts.outcome. */
export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'unknown' | 'refused';

export type DeliveryDecision =
  | { status: 'DELIVERED' | 'FAILED' | 'UNKNOWN'; attemptOutcome: AttemptOutcome }
  | { status: 'PENDING'; attemptOutcome: AttemptOutcome; retryInMs: number };

/** Delay before retry number `retry` (1..5), scaled by WEBHOOK_RETRY_SCALE. */
export function retryDelayMs(variant: Variant, retry: number, scale = 1): number {
  const table = RETRY_DELAYS_S[variant];
  if (retry < 1 || retry > table.length) throw new RangeError(`retry ${retry} is outside 1..${table.length}`);
  const seconds = variant === 'A' ? Math.min(table[retry - 1], A_CAP_S) : table[retry - 1];
  return Math.round(seconds * 1000 * scale);
}

const is2xx = (code: number) => code >= 200 && code <= 299;

/**
 * The decision after attempt number `attempt` (1 = the first attempt of this round; a replay
 * starts a new round) ended with `result`.
 */
export function deliveryOutcome(variant: Variant, attempt: number, result: AttemptResult, scale = 1): DeliveryDecision {
  const retryOrFail = (): DeliveryDecision =>
    attempt >= MAX_ATTEMPTS
      ? { status: 'FAILED', attemptOutcome: 'failed' }
      : { status: 'PENDING', attemptOutcome: 'retry', retryInMs: retryDelayMs(variant, attempt, scale) };

  if (result.kind === 'answered' && is2xx(result.statusCode))
    return { status: 'DELIVERED', attemptOutcome: 'delivered' };

  if (variant === 'B') {
    // Variant B: anything but a 2xx is a failed attempt on the schedule, a refused address too.
    const decision = retryOrFail();
    return result.kind === 'refused' ? { ...decision, attemptOutcome: 'refused' } : decision;
  }

  switch (result.kind) {
    case 'answered': {
      const code = result.statusCode;
      if (code >= 500 || code === 408 || code === 429) return retryOrFail();
      // Any other 4xx, and a 3xx: redirects are never followed, so the answer is final.
      return { status: 'FAILED', attemptOutcome: 'failed' };
    }
    case 'not_sent':
      // Nothing reached the endpoint, so repeating cannot make it act twice.
      return retryOrFail();
    case 'refused':
      // The address will not become acceptable by waiting: failed at once, nothing was sent.
      return { status: 'FAILED', attemptOutcome: 'refused' };
    case 'lost':
      // The endpoint may have acted: not repeated automatically, left for a person to judge.
      return { status: 'UNKNOWN', attemptOutcome: 'unknown' };
  }
}

/** How long one attempt has to get an answer. */
export function attemptTimeoutMs(variant: Variant, override?: number): number {
  return override && override > 0 ? override : DEFAULT_TIMEOUT_MS[variant];
}

/**
 * How long a claimed delivery stays leased to the process that claimed it. An attempt takes at
 * most one timeout to connect and one to be answered; the rest is room for the database writes
 * around it. Once the lease has run out, any process may settle the attempt (see the worker).
 */
export function leaseMs(timeoutMs: number): number {
  return 2 * timeoutMs + 5_000;
}

/**
 * Endpoint health (asyncapi/*.yaml, "Endpoint health"): a subscription whose every attempt has
 * failed for this long — from its first failed attempt after its last successful one to a later
 * failed attempt — is disabled by the service, with the reason and time kept, until a person
 * re-enables it. A single success starts the count again.
 */
export const ENDPOINT_FAILING_DISABLE_MS = 5 * 24 * 60 * 60 * 1000;

/**
 * What an attempt says about the endpoint: 'up' for a 2xx, 'down' for anything else the endpoint
 * (or its address) caused. Attempts that said nothing about it (nothing sent because the
 * subscription went away, or the service could not open the secret) are left out by the caller.
 */
export function endpointSignal(result: AttemptResult): 'up' | 'down' {
  return result.kind === 'answered' && is2xx(result.statusCode) ? 'up' : 'down';
}

/** Whether a subscription failing since `failingSince` is to be disabled at `now`. */
export function endpointExhausted(failingSince: number | null, now: number): boolean {
  return failingSince !== null && now - failingSince >= ENDPOINT_FAILING_DISABLE_MS;
}

/** The reason kept on a subscription the service disabled. */
export function endpointDisabledReason(failingSince: number, lastError: string): string {
  return (
    `Every delivery attempt since ${new Date(failingSince).toISOString()} failed (the last: ${lastError}); ` +
    'subscriptions whose deliveries all fail for 5 days are disabled. Re-enable it once the endpoint answers 2xx.'
  );
}
