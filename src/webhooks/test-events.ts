// "Send test event" (Settings › Webhooks, `shortlink webhook test`): one signed sample of a
// catalogue event — its documented example (asyncapi/*.yaml) as `data` — sent at once to one
// subscription's endpoint through the same signing, network rules (ssrf.ts) and attempt code
// (delivery.ts) as every delivery, and answered with what came back. The envelope is the
// variant's own; a receiver tells the sample by what is inside the signed body (asyncapi/*.yaml,
// "Test events"): the documented example's ids, and in Variant B an event id that begins with
// `evt_test_`. It is logged as a test, one attempt, never retried or replayed, and says nothing
// about the endpoint's health.
import type { Db as Knex } from '../db/knex.ts';
import * as outbox from '../db/repos/webhook-delivery-actions.ts';
import type { SubscriptionRow } from '../db/repos/subscriptions.ts';
import { newId, randomString } from '../domain/ids.ts';
import { invalid, quoted } from '../domain/errors.ts';
import { attemptTimeoutMs, type DeliveryStatus } from '../domain/webhook-delivery.ts';
import { eventCatalog } from './catalog.ts';
import { attemptDelivery } from './delivery.ts';
import { attemptLog, keptRequest, type AttemptView } from './delivery-log.ts';
import { openSecret } from './secrets.ts';
import { composeVariantA, composeVariantB, type DeliveryContent } from './signing.ts';
import type { Lookup } from './ssrf.ts';

/** How a sample's event id begins (Variant B's envelope `id`, inside the signed body). */
export const TEST_EVENT_ID_PREFIX = 'evt_test_';

export interface TestEventOptions {
  knex: Knex;
  masterKey: Buffer;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS=1 (tests only). */
  allowPrivateNetworks: boolean;
  /** WEBHOOK_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Certificates trusted besides the system's (tests: the receiver's). */
  extraCa?: string[];
  lookup?: Lookup;
}

export interface TestEventResult {
  deliveryId: string;
  status: DeliveryStatus;
  /** The one attempt, as the delivery log shows it: what was sent and what came back. */
  attempt: AttemptView;
}

export async function sendTestEvent(
  o: TestEventOptions,
  subscription: SubscriptionRow,
  eventType: string,
): Promise<TestEventResult> {
  const variant = subscription.variant;
  const event = eventCatalog(variant).events.find((e) => e.name === eventType);
  if (!event) throw invalid(`event ${quoted(eventType)} is not an event of Variant ${variant}'s catalogue`, 'event');
  // Opened only for this one request; the clear secret is never stored or returned.
  const secret = openSecret(o.masterKey, subscription.secret_encrypted);
  const startedAt = Date.now();
  const content: DeliveryContent = {
    id: newId('dlv'),
    // A real event id is `evt_` and 20 characters of [a-z0-9]: it never begins with `evt_test_`.
    eventId: `${TEST_EVENT_ID_PREFIX}${randomString(16)}`,
    eventType,
    requestId: null,
    occurredAt: startedAt,
    data: JSON.stringify(event.example),
    test: true,
  };
  const report = await attemptDelivery({
    url: subscription.url,
    timeoutMs: attemptTimeoutMs(variant, o.timeoutMs),
    policy: { allowPrivateNetworks: o.allowPrivateNetworks },
    extraCa: o.extraCa,
    lookup: o.lookup,
    beforeSend: async () => true,
    compose: () => (variant === 'A' ? composeVariantA(content, secret, Date.now()) : composeVariantB(content, secret)),
  });
  const status = await outbox.recordTestDelivery(o.knex, {
    id: content.id,
    subscriptionId: subscription.id,
    workspaceId: subscription.workspace_id,
    variant,
    eventId: content.eventId,
    eventType,
    occurredAt: content.occurredAt,
    data: content.data,
    startedAt,
    now: Date.now(),
    result: report.result,
    requestSent: report.sent,
    request: keptRequest(variant, report.request),
    response: report.response,
  });
  const [attempt] = await attemptLog(o.knex, content.id);
  return { deliveryId: content.id, status, attempt };
}
