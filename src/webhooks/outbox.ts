// The webhook outbox: events are written in the transaction of the change that causes them.
// (Interface fixed here; the implementation fans an event out into webhook_deliveries.)
import type { Knex } from 'knex';

export type ServiceEventType =
  | 'link.created'
  | 'link.updated'
  | 'link.deleted'
  | 'link.clicked'
  | 'qr.scanned'
  | 'conversion.created'
  | 'domain.verified'
  | 'analytics.spike'
  | 'analytics.geo_anomaly';

export interface ServiceEvent {
  type: ServiceEventType;
  workspaceId: string;
  /** The X-Service-Request-Id of the API request (or CLI run) that caused the event. */
  requestId?: string | null;
  occurredAt: number;
  /** The facts of the event; each variant's `data` object is built from them. */
  subject: Record<string, unknown>;
}

export async function enqueueEvent(_trx: Knex, _event: ServiceEvent): Promise<void> {
  // Implemented with the webhook delivery work (issue 5).
}
