// The rows an attempt leaves behind once it is over: the delivery's settled columns and the
// attempt's row in webhook_attempts. The worker (webhook-deliveries.ts, webhook-delivery-leases.ts)
// and the test events (webhook-delivery-actions.ts) write the same rows, so the log reads them alike.
import type { AttemptResult, DeliveryDecision } from '../../domain/webhook-delivery.ts';

/**
 * What the delivery log keeps of an attempt's exchange (bounded, migration 20261128000000): of
 * the request, what with the delivery row makes its exact headers and body again; of the answer,
 * the first 4 KiB of its body (delivery.ts).
 */
export interface AttemptExchange {
  /** The signature header's value and when the request was composed; absent when nothing was sent. */
  request?: { signature: string; sentAt: number };
  /** The first 4 KiB of the answer's body; absent when there was no answer. */
  response?: { body: string; truncated: boolean };
}

const statusCodeOf = (r: AttemptResult) => (r.kind === 'answered' ? r.statusCode : null);
const errorOf = (r: AttemptResult) => (r.kind === 'answered' ? null : r.error);
/** What a delivery's last_error says of a failed attempt: its error, or the status it was answered with. */
export const lastErrorOf = (r: AttemptResult) => errorOf(r) ?? `HTTP ${statusCodeOf(r)}`;

/** A delivery's columns once an attempt is over, as `decision` says. */
export function settledRow(decision: DeliveryDecision, result: AttemptResult, now: number) {
  const final = decision.status !== 'PENDING';
  return {
    status: decision.status,
    next_attempt_at: decision.status === 'PENDING' ? now + decision.retryInMs : undefined,
    finished_at: final ? now : null,
    lease_owner: null,
    lease_until: null,
    request_sent: false,
    attempt_started_at: null,
    last_status_code: statusCodeOf(result),
    last_error: decision.status === 'DELIVERED' ? null : lastErrorOf(result),
    updated_at: now,
  };
}

/** The row of webhook_attempts that records an attempt. */
export function attemptRow(
  s: {
    id: string;
    attempt: number;
    startedAt: number;
    now: number;
    requestSent: boolean;
    decision: DeliveryDecision;
    result: AttemptResult;
  } & AttemptExchange,
) {
  return {
    delivery_id: s.id,
    attempt: s.attempt,
    started_at: s.startedAt,
    finished_at: s.now,
    outcome: s.decision.attemptOutcome,
    status_code: statusCodeOf(s.result),
    error: errorOf(s.result),
    request_sent: s.requestSent,
    // The signature header is kept (it proves nothing without the secret); the secret itself
    // never reaches a delivery or an attempt row.
    request_signature: s.request?.signature ?? null,
    request_sent_at: s.request?.sentAt ?? null,
    response_body: s.response ? s.response.body : null,
    response_truncated: s.response?.truncated ?? false,
  };
}
