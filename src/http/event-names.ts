// The one answer to webhook event names a variant does not offer: 400 on `events`, naming each
// refused name as retired or unknown and listing the names the variant offers. The contract's
// enum refuses them first (src/http/validation.ts asks here for the words); the handlers check
// again, so a document that lost its enum could not let one through.
import { AppError, invalid, quoted } from '../domain/errors.ts';
import { eventCatalog, refusedEventNames, type Variant } from '../webhooks/catalog.ts';

/** The operations whose body's `events` name events, with the variant they belong to. */
const EVENT_NAME_OPERATIONS: Record<string, Variant | 'body'> = {
  createWebhook: 'A', updateWebhook: 'A', createWebhookV1: 'B',
  // The dashboard's: a new subscription says its variant; only Variant A's change their events.
  createDashboardWebhookSubscription: 'body', updateDashboardWebhookSubscription: 'A',
};

/** The variant whose catalogue the body's `events` are checked against, for an operation that takes some. */
export function eventVariantOf(operationId: string, body: unknown): Variant | undefined {
  const variant = EVENT_NAME_OPERATIONS[operationId];
  if (variant !== 'body') return variant;
  const sent = (body as { variant?: unknown } | undefined)?.variant;
  return sent === 'A' || sent === 'B' ? sent : undefined;
}

/** The 400 for the names of `names` the variant does not offer; null when it offers them all. */
export function refusedEventsError(variant: Variant, names: string[]): AppError | null {
  const { retired, unknown } = refusedEventNames(variant, [...new Set(names)]);
  const problems: string[] = [];
  if (retired.length) {
    problems.push(`retired event names that can no longer be subscribed to: ${retired.map(quoted).join(', ')}`);
  }
  if (unknown.length) problems.push(`unknown event names: ${unknown.map(quoted).join(', ')}`);
  if (!problems.length) return null;
  const offered = eventCatalog(variant).events.map((e) => e.name).join(', ');
  return invalid(`events names ${problems.join('; and ')}. Variant ${variant} offers: ${offered}`, 'events');
}

/** Duplicates count once; every name must be in the variant's catalogue. */
export function checkEventNames(variant: Variant, names: string[]): string[] {
  const refused = refusedEventsError(variant, names);
  if (refused) throw refused;
  return [...new Set(names)];
}
