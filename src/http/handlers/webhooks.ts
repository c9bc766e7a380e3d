// Webhook subscriptions of both variants and the public Variant A event catalogue, through the
// subscription operations (src/operations/subscriptions.ts). A subscription is delivered in the
// form of the variant whose endpoint created it, and is invisible (404) through the other
// variant's endpoints.
import type { components } from '../../../generated/api.ts';
import { eventCatalog, type Variant } from '../../webhooks/catalog.ts';
import { notFound, quoted } from '../../domain/errors.ts';
import {
  changeSubscription,
  createSubscription,
  deleteSubscription,
  requireWebhooksPlan,
  requireWebhookWriter,
  subscriptionOf,
} from '../../operations/subscriptions.ts';
import type { Services } from '../services.ts';
import type { Handlers, ResultOf } from './types.ts';
import * as subscriptions from '../../db/repos/subscriptions.ts';

type SubscriptionA = components['schemas']['WebhookSubscriptionA'];
type SubscriptionB = components['schemas']['WebhookSubscriptionB'];

type SubscriptionRow = subscriptions.SubscriptionRow;

const iso = (ms: number) => new Date(Number(ms)).toISOString();

/** What both variants present alike; the rest differ in name only (Variant B's are snake_case). */
const presentShared = (row: SubscriptionRow) => ({ id: row.id, url: row.url, events: JSON.parse(row.events) });

const presentA = (row: SubscriptionRow): SubscriptionA => ({
  ...presentShared(row),
  enabled: !!row.enabled,
  createdAt: iso(row.created_at),
});

const presentB = (row: SubscriptionRow): SubscriptionB => ({
  ...presentShared(row),
  active: !!row.enabled,
  created_at: iso(row.created_at),
});

export function webhookHandlers(
  services: Services,
): Pick<
  Handlers,
  | 'getEventSchema'
  | 'createWebhook'
  | 'listWebhooks'
  | 'updateWebhook'
  | 'deleteWebhook'
  | 'createWebhookV1'
  | 'listWebhooksV1'
  | 'deleteWebhookV1'
> {
  const { config, db, masterKey } = services;
  const knex = db.knex;
  const deps = { knex, queries: services.queries, masterKey };

  /** A variant switched off by WEBHOOK_VARIANTS has no endpoints at all. */
  function requireVariant(variant: Variant) {
    if (!config.webhookVariants.has(variant)) throw notFound('No such API route');
  }

  return {
    async getEventSchema(): Promise<ResultOf<'getEventSchema'>> {
      requireVariant('A');
      const catalog = eventCatalog('A');
      return {
        status: 200,
        body: {
          events: catalog.events.map((e) => ({ name: e.name, description: e.description, payload: e.payload })),
          retired: catalog.retired.map((r) => ({ name: r.name })),
        },
      };
    },

    async createWebhook({ body }, { auth, audit }): Promise<ResultOf<'createWebhook'>> {
      requireVariant('A');
      requireWebhooksPlan(auth.plan, 'key');
      await requireWebhookWriter(knex, auth, 'create');
      // Another workspace's id answers like one that does not exist.
      if (body.workspaceId !== auth.workspaceId) throw notFound(`Workspace ${quoted(body.workspaceId)} not found`);
      const { row, secret } = await createSubscription(
        deps,
        {
          workspaceId: auth.workspaceId,
          variant: 'A',
          url: body.url,
          events: body.events,
        },
        audit,
      );
      return { status: 201, body: { success: true, data: { ...presentA(row), secret: secret! } } };
    },

    async listWebhooks(_request, { auth }): Promise<ResultOf<'listWebhooks'>> {
      requireVariant('A');
      requireWebhooksPlan(auth.plan, 'key');
      return {
        status: 200,
        body: {
          success: true,
          data: (await subscriptions.listSubscriptions(knex, 'A', auth.workspaceId)).map(presentA),
        },
      };
    },

    async updateWebhook({ params, body }, { auth, audit }): Promise<ResultOf<'updateWebhook'>> {
      requireVariant('A');
      requireWebhooksPlan(auth.plan, 'key');
      await requireWebhookWriter(knex, auth, 'change');
      const current = await subscriptionOf(knex, 'A', auth.workspaceId, params.id);
      await changeSubscription(deps, current, body, audit);
      const updated = await subscriptionOf(knex, 'A', auth.workspaceId, current.id);
      return { status: 200, body: { success: true, data: presentA(updated) } };
    },

    async deleteWebhook({ params }, { auth, audit }): Promise<ResultOf<'deleteWebhook'>> {
      requireVariant('A');
      requireWebhooksPlan(auth.plan, 'key');
      await requireWebhookWriter(knex, auth, 'delete');
      await deleteSubscription(knex, await subscriptionOf(knex, 'A', auth.workspaceId, params.id), audit);
      return { status: 200, body: { success: true } };
    },

    async createWebhookV1({ body }, { auth, audit }): Promise<ResultOf<'createWebhookV1'>> {
      requireVariant('B');
      requireWebhooksPlan(auth.plan, 'key');
      await requireWebhookWriter(knex, auth, 'create');
      const { row } = await createSubscription(
        deps,
        {
          workspaceId: auth.workspaceId,
          variant: 'B',
          url: body.url,
          events: body.events,
          secret: body.secret,
        },
        audit,
      );
      return { status: 201, body: presentB(row) };
    },

    async listWebhooksV1(_request, { auth }): Promise<ResultOf<'listWebhooksV1'>> {
      requireVariant('B');
      requireWebhooksPlan(auth.plan, 'key');
      return {
        status: 200,
        body: { data: (await subscriptions.listSubscriptions(knex, 'B', auth.workspaceId)).map(presentB) },
      };
    },

    async deleteWebhookV1({ params }, { auth, audit }): Promise<ResultOf<'deleteWebhookV1'>> {
      requireVariant('B');
      requireWebhooksPlan(auth.plan, 'key');
      await requireWebhookWriter(knex, auth, 'delete');
      await deleteSubscription(knex, await subscriptionOf(knex, 'B', auth.workspaceId, params.id), audit);
      return { status: 204 };
    },
  };
}
