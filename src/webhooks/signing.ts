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
}

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * Variant A: exactly `{ event, timestamp, data }`, `timestamp` being the time this attempt is sent;
 * every attempt is signed afresh. No delivery-id header.
 */
export function composeVariantA(d: DeliveryContent, secret: string, sentAt: number): SignedRequest {
  const body = JSON.stringify({ event: d.eventType, timestamp: new Date(sentAt).toISOString(), data: JSON.parse(d.data) });
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Webhook-Signature': signVariantA(secret, Math.floor(sentAt / 1000), body),
  };
  if (d.requestId) headers['X-Service-Request-Id'] = d.requestId;
  return { body, headers };
}

/**
 * Variant B: `{ id, type, timestamp, data }` built only from what the row holds (the event's id,
 * type and time), so every retry and replay sends the same bytes and the same signature.
 */
export function composeVariantB(d: DeliveryContent, secret: string): SignedRequest {
  const body = JSON.stringify({ id: d.eventId, type: d.eventType, timestamp: new Date(d.occurredAt).toISOString(), data: JSON.parse(d.data) });
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'X-Service-Signature': signVariantB(secret, body),
      'X-Service-Event': d.eventType,
      'X-Service-Delivery-Id': d.id,
    },
  };
}
