// Webhook subscriptions of both variants (DECISIONS.md, Webhooks) and the public Variant A
// event catalogue. A subscription is delivered in the form of the variant whose endpoint
// created it, and is invisible (404) through the other variant's endpoints.
import { randomBytes } from 'node:crypto';
import type { components } from '../../../generated/api.ts';
import { planHasApi } from '../../domain/access.ts';
import { newId } from '../../domain/ids.ts';
import { eventCatalog, type Variant } from '../../webhooks/catalog.ts';
import { checkEventNames } from '../event-names.ts';
import { sealSecret } from '../../webhooks/secrets.ts';
import type { AuthContext } from '../auth.ts';
import { forbidden, invalid, notFound } from '../../domain/errors.ts';
import type { Services } from '../services.ts';
import type { Handlers, ResultOf } from './types.ts';
import * as subscriptions from '../../db/repos/subscriptions.ts';

type SubscriptionA = components['schemas']['WebhookSubscriptionA'];
type SubscriptionB = components['schemas']['WebhookSubscriptionB'];

type SubscriptionRow = subscriptions.SubscriptionRow;

const iso = (ms: number) => new Date(Number(ms)).toISOString();

const presentA = (row: SubscriptionRow): SubscriptionA => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events),
  enabled: !!row.enabled,
  createdAt: iso(row.created_at),
});

const presentB = (row: SubscriptionRow): SubscriptionB => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events),
  active: !!row.enabled,
  created_at: iso(row.created_at),
});

/** Variant A's secret is generated here: 256 random bits, shown once. */
export const generateSecret = () => `whsec_${randomBytes(32).toString('hex')}`;

export function checkUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('url must be an absolute https URL', 'url');
  }
  if (url.protocol === 'http:') throw invalid('url must use https; plain http URLs are refused', 'url');
  if (url.protocol !== 'https:' || !url.hostname) throw invalid('url must be an absolute https URL', 'url');
  return value;
}

export function webhookHandlers(
  services: Services,
): Pick<Handlers, 'getEventSchema' | 'createWebhook' | 'listWebhooks' | 'updateWebhook' | 'deleteWebhook' | 'createWebhookV1' | 'listWebhooksV1' | 'deleteWebhookV1'> {
  const { config, db, masterKey } = services;
  const knex = db.knex;

  /** A variant switched off by WEBHOOK_VARIANTS has no endpoints at all. */
  function requireVariant(variant: Variant) {
    if (!config.webhookVariants.has(variant)) throw notFound('No such API route');
  }

  function requireWebhooksPlan(auth: AuthContext) {
    if (!planHasApi(auth.plan)) throw forbidden(`Webhooks need the Growth plan or above; this workspace is on ${auth.plan}`);
  }

  async function findSubscription(variant: Variant, workspaceId: string, id: string): Promise<SubscriptionRow> {
    const row = await subscriptions.findSubscription(knex, variant, workspaceId, id);
    if (!row) throw notFound('Webhook subscription not found');
    return row;
  }

  async function create(variant: Variant, workspaceId: string, url: string, events: string[], secret: string): Promise<SubscriptionRow> {
    const now = Date.now();
    const row: SubscriptionRow = {
      id: newId('whk'),
      workspace_id: workspaceId,
      variant,
      url,
      events: JSON.stringify(events),
      // Only the sealed form is stored; the clear secret never reaches the database or a log.
      secret_encrypted: sealSecret(masterKey, secret),
      enabled: true,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await services.queries.insertSubscription(row);
    return row;
  }

  async function remove(variant: Variant, workspaceId: string, id: string): Promise<void> {
    if (!(await subscriptions.removeSubscription(knex, variant, workspaceId, id, Date.now()))) throw notFound('Webhook subscription not found');
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

    async createWebhook({ body }, { auth }): Promise<ResultOf<'createWebhook'>> {
      requireVariant('A');
      requireWebhooksPlan(auth);
      // Another workspace's id answers like one that does not exist.
      if (body.workspaceId !== auth.workspaceId) throw notFound(`Workspace ${body.workspaceId} not found`);
      const url = checkUrl(body.url);
      const events = checkEventNames('A', body.events);
      const secret = generateSecret();
      const row = await create('A', auth.workspaceId, url, events, secret);
      return { status: 201, body: { success: true, data: { ...presentA(row), secret } } };
    },

    async listWebhooks(_request, { auth }): Promise<ResultOf<'listWebhooks'>> {
      requireVariant('A');
      requireWebhooksPlan(auth);
      return { status: 200, body: { success: true, data: (await subscriptions.listSubscriptions(knex, 'A', auth.workspaceId)).map(presentA) } };
    },

    async updateWebhook({ params, body }, { auth }): Promise<ResultOf<'updateWebhook'>> {
      requireVariant('A');
      requireWebhooksPlan(auth);
      const current = await findSubscription('A', auth.workspaceId, params.id);
      const patch: subscriptions.SubscriptionPatch = {};
      if (body.url !== undefined) patch.url = checkUrl(body.url);
      if (body.events !== undefined) patch.events = JSON.stringify(checkEventNames('A', body.events));
      if (body.enabled !== undefined) patch.enabled = body.enabled;
      // Turning a disabled subscription on clears what the endpoint health rule kept.
      if (body.enabled === true && !current.enabled) Object.assign(patch, subscriptions.enabledAgain(Date.now()));
      if (Object.keys(patch).length) {
        patch.updated_at = Date.now();
        // A subscription deleted meanwhile is found by the read below, which answers 404.
        await services.queries.updateSubscriptionA(auth.workspaceId, current.id, patch);
      }
      const updated = await findSubscription('A', auth.workspaceId, current.id);
      return { status: 200, body: { success: true, data: presentA(updated) } };
    },

    async deleteWebhook({ params }, { auth }): Promise<ResultOf<'deleteWebhook'>> {
      requireVariant('A');
      requireWebhooksPlan(auth);
      await remove('A', auth.workspaceId, params.id);
      return { status: 200, body: { success: true } };
    },

    async createWebhookV1({ body }, { auth }): Promise<ResultOf<'createWebhookV1'>> {
      requireVariant('B');
      requireWebhooksPlan(auth);
      const url = checkUrl(body.url);
      const events = checkEventNames('B', body.events);
      // The schema holds the length too; this keeps the rule when the body is not validated.
      if (typeof body.secret !== 'string' || [...body.secret].length < 16) {
        throw invalid('secret must be at least 16 characters', 'secret');
      }
      const row = await create('B', auth.workspaceId, url, events, body.secret);
      return { status: 201, body: presentB(row) };
    },

    async listWebhooksV1(_request, { auth }): Promise<ResultOf<'listWebhooksV1'>> {
      requireVariant('B');
      requireWebhooksPlan(auth);
      return { status: 200, body: { data: (await subscriptions.listSubscriptions(knex, 'B', auth.workspaceId)).map(presentB) } };
    },

    async deleteWebhookV1({ params }, { auth }): Promise<ResultOf<'deleteWebhookV1'>> {
      requireVariant('B');
      requireWebhooksPlan(auth);
      await remove('B', auth.workspaceId, params.id);
      return { status: 204 };
    },
  };
}
