// The request of a delivery, per variant (asyncapi/variant-a.yaml and variant-b.yaml, "The
// request" and "Verifying a delivery"): the envelope, its signature and the headers. The matching
// reference verifiers for receivers are in verify.mjs.
import { createHmac } from 'node:crypto';

export const USER_AGENT = 'Shortlink-Webhooks/1.0';

/** Variant A: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. */
export function signVariantA(secret: string, unixSeconds: number, rawBody: string | Buffer): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.`).update(rawBody).digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

/** Variant B: hex HMAC-SHA256(secret, raw body). */
export function signVariantB(secret: string, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** What a delivery row holds about its event. */
export interface DeliveryContent {
  id: string;
  eventId: string;
  eventType: string;
  requestId: string | null;
  occurredAt: number;
  /** JSON text of the event's data object for the delivery's variant. */
  data: string;
  /**
   * A "Send test event" sample (asyncapi/*.yaml, "Test events"): sent with `X-Service-Test: true`,
   * a hint to route on. The envelope is the variant's own, unchanged; what a receiver can trust
   * is inside the signed body (the documented example's ids; Variant B's `evt_test_` event id).
   */
  test?: boolean;
}

/** The header that marks a sample (not signed: the body's ids are the proof, see "Test events"). */
export const TEST_HEADER = 'X-Service-Test';

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
  /** When it was composed for sending (Variant A's `timestamp` and `t`). */
  sentAt: number;
}

/** The signature header of each variant: the one part of a request that needs the secret. */
export const SIGNATURE_HEADER = { A: 'X-Webhook-Signature', B: 'X-Service-Signature' } as const;

/**
 * The body of an attempt sent at `sentAt`. Variant A: exactly `{ event, timestamp, data }`,
 * `timestamp` being the time this attempt is sent. Variant B: exactly `{ id, type, timestamp,
 * data }` built only from what the row holds (the event's id, type and time), so every retry and
 * replay sends the same bytes. A test event's envelope is the same.
 */
export function requestBody(variant: 'A' | 'B', d: DeliveryContent, sentAt: number): string {
  const data = JSON.parse(d.data);
  return JSON.stringify(
    variant === 'A'
      ? { event: d.eventType, timestamp: new Date(sentAt).toISOString(), data }
      : { id: d.eventId, type: d.eventType, timestamp: new Date(d.occurredAt).toISOString(), data },
  );
}

/** The headers of an attempt whose signature header has the value `signature`. */
export function requestHeaders(variant: 'A' | 'B', d: DeliveryContent, signature: string): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    [SIGNATURE_HEADER[variant]]: signature,
  };
  if (variant === 'A') {
    // No delivery-id header in Variant A.
    if (d.requestId) headers['X-Service-Request-Id'] = d.requestId;
  } else {
    headers['X-Service-Event'] = d.eventType;
    headers['X-Service-Delivery-Id'] = d.id;
  }
  if (d.test) headers[TEST_HEADER] = 'true';
  return headers;
}

/**
 * The request an attempt sent, from the delivery and what its attempt row keeps (the time it was
 * sent and its signature): the same functions built it for sending, so the bytes are the same.
 * The delivery log keeps these two values instead of a copy of every body and header.
 */
export function rebuildRequest(
  variant: 'A' | 'B',
  d: DeliveryContent,
  sentAt: number,
  signature: string,
): SignedRequest {
  return { body: requestBody(variant, d, sentAt), headers: requestHeaders(variant, d, signature), sentAt };
}

/** Variant A: every attempt is signed afresh, over its own `timestamp`. */
export function composeVariantA(d: DeliveryContent, secret: string, sentAt: number): SignedRequest {
  const body = requestBody('A', d, sentAt);
  return { body, headers: requestHeaders('A', d, signVariantA(secret, Math.floor(sentAt / 1000), body)), sentAt };
}

/** Variant B: the same bytes and the same signature on every retry and replay. */
export function composeVariantB(d: DeliveryContent, secret: string, sentAt = Date.now()): SignedRequest {
  const body = requestBody('B', d, sentAt);
  return { body, headers: requestHeaders('B', d, signVariantB(secret, body)), sentAt };
}
