// Which operations' bodies name webhook events, and of which variant. The contract's enum
// refuses a name the variant does not offer first (src/http/validation.ts answers it with the
// words of src/operations/subscriptions.ts); the operations check again, so a document that lost
// its enum could not let one through.
import type { Variant } from '../webhooks/catalog.ts';

/** The operations whose body's `events` name events, with the variant they belong to. */
const EVENT_NAME_OPERATIONS: Record<string, Variant | 'body'> = {
  createWebhook: 'A',
  updateWebhook: 'A',
  createWebhookV1: 'B',
  // The dashboard's: a new subscription says its variant; only Variant A's change their events.
  createDashboardWebhookSubscription: 'body',
  updateDashboardWebhookSubscription: 'A',
};

/** The variant whose catalogue the body's `events` are checked against, for an operation that takes some. */
export function eventVariantOf(operationId: string, body: unknown): Variant | undefined {
  const variant = EVENT_NAME_OPERATIONS[operationId];
  if (variant !== 'body') return variant;
  const sent = (body as { variant?: unknown } | undefined)?.variant;
  return sent === 'A' || sent === 'B' ? sent : undefined;
}
