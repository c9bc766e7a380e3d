// Webhooks: the dashboard API's webhook operations as Settings › Webhooks uses them, and their
// query keys (every change invalidates the screen's subscriptions and log).
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { components } from '../../../generated/dashboard.ts';
import { api } from './client.ts';
import { unwrap } from './errors.ts';
import { type Answer, type OnWrite, useWrite } from './writes.ts';

type Schemas = components['schemas'];
export type WebhookSubscription = Schemas['WebhookSubscription'];
export type WebhookVariant = Schemas['WebhookVariant'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookAttempt = Schemas['WebhookAttempt'];
export type WebhookCatalog = Schemas['WebhookCatalog']['data'];
export type DeliveryStatus = WebhookDelivery['status'];
/** An event name of either variant's catalogue. */
export type WebhookEventName = Schemas['WebhookEventA'] | Schemas['WebhookEventB'];

export const webhookKeys = {
  all: (ws: string) => ['webhooks', ws] as const,
  subscriptions: (ws: string) => ['webhooks', ws, 'subscriptions'] as const,
  catalog: (ws: string) => ['webhooks', ws, 'catalog'] as const,
  log: (ws: string, filter: string) => ['webhooks', ws, 'log', filter] as const,
  delivery: (ws: string, id: string) => ['webhooks', ws, 'delivery', id] as const,
};

const path = (workspaceId: string) => ({ path: { workspaceId } });
const subscription = (workspaceId: string, subscriptionId: string) => ({
  params: { path: { workspaceId, subscriptionId } },
});
const delivery = (workspaceId: string, deliveryId: string) => ({ params: { path: { workspaceId, deliveryId } } });

/**
 * The screen's event names come from the service's own catalogue (GET .../webhooks/events), read
 * as text: they are the names the contract's enums hold, of the subscription's variant.
 */
const eventNames = (names: string[]) => names as WebhookEventName[];
/** A new subscription: Variant A's takes no secret, Variant B's its caller's. */
export type NewSubscription = { variant: WebhookVariant; url: string; events: string[]; secret?: string };

/** What the delivery log is filtered by. */
export type DeliveryQuery = { status?: DeliveryStatus; event?: string; subscriptionId?: string };
type SubscriptionChange = { url?: string; events?: string[]; enabled?: boolean };

const webhookApi = {
  subscriptions: async (ws: string) =>
    (await unwrap(api.GET('/workspaces/{workspaceId}/webhooks/subscriptions', { params: path(ws) }))).data,
  catalog: async (ws: string) =>
    (await unwrap(api.GET('/workspaces/{workspaceId}/webhooks/events', { params: path(ws) }))).data,
  create: (ws: string, { variant, url, events, secret }: NewSubscription) => {
    const body: Schemas['WebhookSubscriptionCreate'] =
      variant === 'B'
        ? { variant, url, events: eventNames(events), secret: secret ?? '' }
        : { variant, url, events: eventNames(events) };
    return unwrap(api.POST('/workspaces/{workspaceId}/webhooks/subscriptions', { params: path(ws), body }));
  },
  update: (ws: string, subscriptionId: string, { events, ...body }: SubscriptionChange) =>
    unwrap(
      api.PATCH('/workspaces/{workspaceId}/webhooks/subscriptions/{subscriptionId}', {
        ...subscription(ws, subscriptionId),
        // Only Variant A subscriptions change, with names of Variant A's catalogue.
        body: { ...body, ...(events ? { events: eventNames(events) as Array<Schemas['WebhookEventA']> } : {}) },
      }),
    ),
  remove: (ws: string, subscriptionId: string) =>
    unwrap(
      api.DELETE('/workspaces/{workspaceId}/webhooks/subscriptions/{subscriptionId}', subscription(ws, subscriptionId)),
    ),
  enable: (ws: string, subscriptionId: string) =>
    unwrap(
      api.POST(
        '/workspaces/{workspaceId}/webhooks/subscriptions/{subscriptionId}/enable',
        subscription(ws, subscriptionId),
      ),
    ),
  test: (ws: string, subscriptionId: string, event: string) =>
    unwrap(
      api.POST('/workspaces/{workspaceId}/webhooks/subscriptions/{subscriptionId}/test', {
        ...subscription(ws, subscriptionId),
        body: { event: eventNames([event])[0] },
      }),
    ),
  replaySince: (ws: string, subscriptionId: string, since: string) =>
    unwrap(
      api.POST('/workspaces/{workspaceId}/webhooks/subscriptions/{subscriptionId}/replay-failed', {
        ...subscription(ws, subscriptionId),
        body: { since },
      }),
    ),
  log: (ws: string, { event, ...query }: DeliveryQuery & { before?: string }) =>
    unwrap(
      api.GET('/workspaces/{workspaceId}/webhooks/deliveries', {
        params: { path: { workspaceId: ws }, query: { ...query, ...(event ? { event: eventNames([event])[0] } : {}) } },
      }),
    ),
  delivery: (ws: string, deliveryId: string) =>
    unwrap(api.GET('/workspaces/{workspaceId}/webhooks/deliveries/{deliveryId}', delivery(ws, deliveryId))),
  replay: (ws: string, deliveryId: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/webhooks/deliveries/{deliveryId}/replay', delivery(ws, deliveryId))),
  resolve: (ws: string, deliveryId: string, outcome: 'DELIVERED' | 'FAILED') =>
    unwrap(
      api.POST('/workspaces/{workspaceId}/webhooks/deliveries/{deliveryId}/resolve', {
        ...delivery(ws, deliveryId),
        body: { outcome },
      }),
    ),
};

/** A subscription as a person names it in a list. */
export const subscriptionName = (s: Pick<WebhookSubscription, 'url' | 'variant'>) => `${s.url} (Variant ${s.variant})`;

/** The events a variant's catalogue offers. */
export const eventsOf = (catalog: WebhookCatalog, variant: WebhookVariant) =>
  catalog.find((c) => c.variant === variant)?.events ?? [];

export const useWebhookSubscriptions = (ws: string, enabled: boolean) =>
  useQuery({ queryKey: webhookKeys.subscriptions(ws), queryFn: () => webhookApi.subscriptions(ws), enabled });

export const useWebhookCatalog = (ws: string, enabled: boolean) =>
  useQuery({ queryKey: webhookKeys.catalog(ws), queryFn: () => webhookApi.catalog(ws), enabled });

/** The delivery log, newest first, a page at a time (each page after the last one's `next`). */
export const useDeliveryLog = (ws: string, query: DeliveryQuery) =>
  useInfiniteQuery({
    queryKey: webhookKeys.log(ws, JSON.stringify(query)),
    queryFn: ({ pageParam }) => webhookApi.log(ws, { ...query, ...(pageParam ? { before: pageParam } : {}) }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next ?? undefined,
  });

/** A delivery with its attempts. */
export const useDelivery = (ws: string, id: string) =>
  useQuery({ queryKey: webhookKeys.delivery(ws, id), queryFn: () => webhookApi.delivery(ws, id) });

// Every change below makes the whole screen stale: subscriptions, their health and the log.
type Change<K extends keyof typeof webhookApi, TVars> = OnWrite<Answer<(typeof webhookApi)[K]>, TVars>;
type Subscription = Pick<WebhookSubscription, 'id'>;

export const useCreateSubscription = (ws: string, on?: Change<'create', NewSubscription>) =>
  useWrite((s: NewSubscription) => webhookApi.create(ws, s), [webhookKeys.all(ws)], on);

export const useUpdateSubscription = (ws: string, id: string, on?: Change<'update', SubscriptionChange>) =>
  useWrite((change: SubscriptionChange) => webhookApi.update(ws, id, change), [webhookKeys.all(ws)], on);

export const useDeleteSubscription = <S extends Subscription>(ws: string, on?: Change<'remove', S>) =>
  useWrite((s: S) => webhookApi.remove(ws, s.id), [webhookKeys.all(ws)], on);

export const useEnableSubscription = <S extends Subscription>(ws: string, on?: Change<'enable', S>) =>
  useWrite((s: S) => webhookApi.enable(ws, s.id), [webhookKeys.all(ws)], on);

export const useSendTestEvent = (ws: string, id: string, on?: Change<'test', string>) =>
  useWrite((event: string) => webhookApi.test(ws, id, event), [webhookKeys.all(ws)], on);

/** Sends again every failed delivery of a subscription since a moment (an ISO date-time). */
export const useReplayFailedSince = (ws: string, id: string, on?: Change<'replaySince', string>) =>
  useWrite((since: string) => webhookApi.replaySince(ws, id, since), [webhookKeys.all(ws)], on);

/** Sends a delivery again, or marks it delivered or failed by hand. */
export type DeliveryAction = 'replay' | 'DELIVERED' | 'FAILED';
export const useActOnDelivery = (ws: string, on?: OnWrite<unknown, { d: WebhookDelivery; action: DeliveryAction }>) =>
  useWrite(
    ({ d, action }: { d: WebhookDelivery; action: DeliveryAction }) =>
      action === 'replay' ? webhookApi.replay(ws, d.id) : webhookApi.resolve(ws, d.id, action),
    [webhookKeys.all(ws)],
    on,
  );
