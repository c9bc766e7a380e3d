// The webhook delivery log as people read it: the dashboard's list and the CLI's `shortlink
// webhook deliveries`, a delivery's summary and content, and its attempts.
import type { Knex } from 'knex';
import type { DeliveryStatus, Variant } from '../../domain/webhook-delivery.ts';
import { TABLE } from './webhook-deliveries.ts';

export interface DeliverySummary {
  id: string;
  subscriptionId: string;
  variant: Variant;
  eventType: string;
  eventId: string;
  /** A "Send test event" sample. */
  test: boolean;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string | null;
  finishedAt: string | null;
}

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

export interface DeliveryFilter {
  workspaceId?: string;
  subscriptionId?: string;
  eventType?: string;
  status?: DeliveryStatus;
  /** Only deliveries created before this one (the next page of the log, newest first). */
  before?: { createdAt: number; seq: number };
  limit: number;
}

const SUMMARY_COLUMNS = [
  'id',
  'seq',
  'subscription_id',
  'workspace_id',
  'variant',
  'event_type',
  'event_id',
  'is_test',
  'status',
  'attempts',
  'last_status_code',
  'last_error',
  'created_at',
  'next_attempt_at',
  'finished_at',
];

/** Newest first (creation time, then the order of writing). */
export async function listDeliveries(knex: Knex, filter: DeliveryFilter): Promise<DeliverySummary[]> {
  const q = knex(TABLE)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'seq', order: 'desc' },
    ])
    .limit(filter.limit);
  if (filter.workspaceId) q.where('workspace_id', filter.workspaceId);
  if (filter.subscriptionId) q.where('subscription_id', filter.subscriptionId);
  if (filter.eventType) q.where('event_type', filter.eventType);
  if (filter.status) q.where('status', filter.status);
  if (filter.before) {
    const { createdAt, seq } = filter.before;
    q.where((w) =>
      w.where('created_at', '<', createdAt).orWhere((x) => x.where('created_at', createdAt).where('seq', '<', seq)),
    );
  }
  return (await q.select(SUMMARY_COLUMNS)).map(summaryOf);
}

/** What a delivery's requests were built from (signing.ts, DeliveryContent), with its variant. */
export async function deliveryContent(knex: Knex, id: string) {
  const r = await knex(TABLE)
    .where({ id })
    .first('id', 'variant', 'event_id', 'event_type', 'request_id', 'occurred_at', 'data', 'is_test');
  if (!r) return null;
  return {
    variant: r.variant as Variant,
    content: {
      id: r.id as string,
      eventId: r.event_id as string,
      eventType: r.event_type as string,
      requestId: (r.request_id ?? null) as string | null,
      occurredAt: Number(r.occurred_at),
      data: r.data as string,
      test: Boolean(r.is_test),
    },
  };
}

export async function deliverySummary(knex: Knex, id: string): Promise<DeliverySummary | null> {
  const row = await knex(TABLE).where({ id }).first(SUMMARY_COLUMNS);
  return row ? summaryOf(row) : null;
}

function summaryOf(r: any): DeliverySummary {
  return {
    id: r.id,
    subscriptionId: r.subscription_id,
    variant: r.variant,
    eventType: r.event_type,
    eventId: r.event_id,
    test: Boolean(r.is_test),
    status: r.status,
    attempts: Number(r.attempts),
    lastStatusCode: r.last_status_code === null || r.last_status_code === undefined ? null : Number(r.last_status_code),
    lastError: r.last_error ?? null,
    createdAt: iso(r.created_at)!,
    // Only a PENDING delivery has a next attempt.
    nextAttemptAt: r.status === 'PENDING' ? iso(r.next_attempt_at) : null,
    finishedAt: iso(r.finished_at),
  };
}

/** One delivery of the log, for the cursor of the next page. */
export async function deliveryCursor(knex: Knex, id: string): Promise<{ createdAt: number; seq: number } | null> {
  const row = await knex(TABLE).where({ id }).first('created_at', 'seq');
  return row ? { createdAt: Number(row.created_at), seq: Number(row.seq) } : null;
}

export interface AttemptLogEntry {
  attempt: number;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  outcome: string | null;
  statusCode: number | null;
  error: string | null;
  requestSent: boolean;
  /** What makes the request again with the delivery (null when nothing was sent, or for attempts made before the log kept it). */
  sent: { signature: string; sentAt: number } | null;
  /** The first 4 KiB of the answer's body; null when there was no answer. */
  response: { body: string; truncated: boolean } | null;
}

/** A delivery's attempts, first to last. */
export async function deliveryAttempts(knex: Knex, deliveryId: string): Promise<AttemptLogEntry[]> {
  const rows = await knex('webhook_attempts')
    .where({ delivery_id: deliveryId })
    .orderBy([{ column: 'attempt' }, { column: 'id' }]);
  return rows.map((r) => {
    const started = Number(r.started_at);
    const finished = r.finished_at === null || r.finished_at === undefined ? null : Number(r.finished_at);
    return {
      attempt: Number(r.attempt),
      startedAt: iso(started)!,
      finishedAt: iso(finished),
      durationMs: finished === null ? null : Math.max(0, finished - started),
      outcome: r.outcome ?? null,
      statusCode: r.status_code === null || r.status_code === undefined ? null : Number(r.status_code),
      error: r.error ?? null,
      requestSent: Boolean(r.request_sent),
      sent: r.request_signature ? { signature: r.request_signature, sentAt: Number(r.request_sent_at) } : null,
      response:
        r.response_body === null || r.response_body === undefined
          ? null
          : { body: r.response_body, truncated: Boolean(r.response_truncated) },
    };
  });
}
