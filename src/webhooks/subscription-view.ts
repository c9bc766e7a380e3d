// A subscription as the operator and the dashboard see it: both variants in one shape, with what
// the endpoint health rule (asyncapi/*.yaml, "Endpoint health") kept. Never the secret.
import type { SubscriptionRow } from '../db/repos/subscriptions.ts';
import type { Variant } from '../domain/webhook-delivery.ts';

export interface SubscriptionView {
  id: string;
  variant: Variant;
  url: string;
  events: string[];
  enabled: boolean;
  createdAt: string;
  /** The first failed attempt since the last successful one; null while the endpoint answers 2xx. */
  failingSince: string | null;
  /** When and why the service disabled the subscription (null when it did not). */
  disabledAt: string | null;
  disabledReason: string | null;
}

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

export function subscriptionView(row: SubscriptionRow): SubscriptionView {
  return {
    id: row.id,
    variant: row.variant,
    url: row.url,
    events: JSON.parse(row.events),
    enabled: Boolean(row.enabled),
    createdAt: iso(row.created_at)!,
    failingSince: iso(row.failing_since),
    disabledAt: iso(row.disabled_at),
    disabledReason: row.disabled_reason ?? null,
  };
}
