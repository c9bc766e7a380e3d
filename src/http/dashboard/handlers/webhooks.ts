// Settings › Webhooks in the dashboard (openapi/dashboard.yaml, Webhooks): both variants'
// subscriptions made and changed with the rules of their public endpoints, the event catalogue,
// "Send test event", the delivery log with its attempts, and the actions of `shortlink webhook`
// (src/operations/deliveries.ts) scoped to the path's workspace.
import * as outbox from '../../../db/repos/webhook-delivery-log.ts';
import { findDelivery } from '../../../db/repos/webhook-delivery-actions.ts';
import * as subscriptions from '../../../db/repos/subscriptions.ts';
import { invalid, notFound, quoted } from '../../../domain/errors.ts';
import { eventCatalog, type Variant } from '../../../webhooks/catalog.ts';
import * as operator from '../../../operations/deliveries.ts';
import { subscriptionView } from '../../../webhooks/subscription-view.ts';
import { sendTestEvent } from '../../../webhooks/test-events.ts';
import { attemptLog } from '../../../webhooks/delivery-log.ts';
import {
  changeSubscription,
  createSubscription,
  deleteSubscription,
  requireWebhooksPlan,
} from '../../../operations/subscriptions.ts';
import type { Services } from '../../services.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult } from '../types.ts';
import { gatedWorkspace } from './gated-workspace.ts';

type WebhookOperation =
  | 'listDashboardWebhookSubscriptions'
  | 'createDashboardWebhookSubscription'
  | 'updateDashboardWebhookSubscription'
  | 'deleteDashboardWebhookSubscription'
  | 'enableDashboardWebhookSubscription'
  | 'sendDashboardWebhookTest'
  | 'replayDashboardWebhookFailedSince'
  | 'getDashboardWebhookCatalog'
  | 'listDashboardWebhookDeliveries'
  | 'getDashboardWebhookDelivery'
  | 'replayDashboardWebhookDelivery'
  | 'resolveDashboardWebhookDelivery';

const DEFAULT_LOG_PAGE = 50;

export function webhookDashboardHandlers(services: Services): Pick<DashboardHandlers, WebhookOperation> {
  const { knex } = services.db;
  const { config } = services;

  /** The workspace, when its plan has webhooks. */
  const webhooksOf = (ctx: DashboardContext) => gatedWorkspace(ctx, (plan) => requireWebhooksPlan(plan, 'session'));

  const deps = { knex, queries: services.queries, masterKey: services.masterKey };
  const view = async (workspaceId: string, id: string) =>
    subscriptionView(await operator.subscription(knex, id, workspaceId));

  return {
    async listDashboardWebhookSubscriptions(
      _request,
      ctx,
    ): Promise<DashboardResult<'listDashboardWebhookSubscriptions'>> {
      const w = webhooksOf(ctx);
      return {
        status: 200,
        body: { data: (await subscriptions.listWorkspaceSubscriptions(knex, w.id)).map(subscriptionView) },
      };
    },

    async createDashboardWebhookSubscription(
      { body },
      ctx,
    ): Promise<DashboardResult<'createDashboardWebhookSubscription'>> {
      const w = webhooksOf(ctx);
      const variant = body.variant as Variant;
      if (!config.webhookVariants.has(variant))
        throw invalid(`Variant ${variant} webhooks are not offered by this deployment`, 'variant');
      const { row, secret } = await createSubscription(
        deps,
        {
          workspaceId: w.id,
          variant,
          url: body.url,
          events: body.events,
          secret: body.secret,
        },
        ctx.audit,
      );
      const data = await view(w.id, row.id);
      return { status: 201, body: secret !== undefined ? { data, secret } : { data } };
    },

    async updateDashboardWebhookSubscription(
      { params, body },
      ctx,
    ): Promise<DashboardResult<'updateDashboardWebhookSubscription'>> {
      const w = webhooksOf(ctx);
      const current = await operator.subscription(knex, params.subscriptionId, w.id);
      await changeSubscription(deps, current, body, ctx.audit);
      return { status: 200, body: { data: await view(w.id, current.id) } };
    },

    async deleteDashboardWebhookSubscription(
      { params },
      ctx,
    ): Promise<DashboardResult<'deleteDashboardWebhookSubscription'>> {
      const w = webhooksOf(ctx);
      await deleteSubscription(knex, await operator.subscription(knex, params.subscriptionId, w.id), ctx.audit);
      return { status: 204 };
    },

    async enableDashboardWebhookSubscription(
      { params },
      ctx,
    ): Promise<DashboardResult<'enableDashboardWebhookSubscription'>> {
      const w = webhooksOf(ctx);
      await operator.reEnableAudited(knex, ctx.audit, await operator.subscription(knex, params.subscriptionId, w.id));
      return { status: 200, body: { data: await view(w.id, params.subscriptionId) } };
    },

    async sendDashboardWebhookTest({ params, body }, ctx): Promise<DashboardResult<'sendDashboardWebhookTest'>> {
      const w = webhooksOf(ctx);
      const sub = await operator.subscription(knex, params.subscriptionId, w.id);
      const result = await sendTestEvent(
        {
          knex,
          masterKey: services.masterKey,
          allowPrivateNetworks: config.webhookAllowPrivateNetworks,
          timeoutMs: config.webhookTimeoutMs,
          extraCa: services.webhookCa,
        },
        sub,
        body.event,
      );
      return {
        status: 200,
        body: {
          data: {
            deliveryId: result.deliveryId,
            status: result.status as 'DELIVERED' | 'FAILED',
            attempt: result.attempt,
          },
        },
      };
    },

    async replayDashboardWebhookFailedSince(
      { params, body },
      ctx,
    ): Promise<DashboardResult<'replayDashboardWebhookFailedSince'>> {
      const w = webhooksOf(ctx);
      const since = Date.parse(body.since);
      if (!Number.isFinite(since)) throw invalid('since must be an ISO 8601 date-time', 'since');
      const sub = await operator.subscription(knex, params.subscriptionId, w.id);
      const { replayed } = await operator.replaySinceAudited(knex, ctx.audit, sub, since);
      return { status: 200, body: { data: { replayed } } };
    },

    async getDashboardWebhookCatalog(_request, ctx): Promise<DashboardResult<'getDashboardWebhookCatalog'>> {
      webhooksOf(ctx);
      const variants = (['A', 'B'] as const).filter((v) => config.webhookVariants.has(v));
      return {
        status: 200,
        body: {
          data: variants.map((variant) => {
            const catalog = eventCatalog(variant);
            return {
              variant,
              events: catalog.events.map((e) => ({
                name: e.name,
                description: e.description,
                payload: e.payload,
                example: e.example,
              })),
              retired: catalog.retired.map((r) => ({ name: r.name })),
            };
          }),
        },
      };
    },

    async listDashboardWebhookDeliveries({ query }, ctx): Promise<DashboardResult<'listDashboardWebhookDeliveries'>> {
      const w = webhooksOf(ctx);
      const limit = query.limit ?? DEFAULT_LOG_PAGE;
      let before: { createdAt: number; seq: number } | undefined;
      if (query.before !== undefined) {
        const found = await findDelivery(knex, query.before);
        if (!found || found.workspaceId !== w.id) throw invalid('before must be the next of a previous page', 'before');
        before = (await outbox.deliveryCursor(knex, query.before))!;
      }
      if (query.subscriptionId !== undefined) await operator.subscription(knex, query.subscriptionId, w.id);
      const rows = await outbox.listDeliveries(knex, {
        workspaceId: w.id,
        subscriptionId: query.subscriptionId,
        eventType: query.event,
        status: query.status,
        before,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      return { status: 200, body: { data: page, next: rows.length > limit ? page[page.length - 1].id : null } };
    },

    async getDashboardWebhookDelivery({ params }, ctx): Promise<DashboardResult<'getDashboardWebhookDelivery'>> {
      const w = webhooksOf(ctx);
      const found = await findDelivery(knex, params.deliveryId);
      const summary = found && found.workspaceId === w.id ? await outbox.deliverySummary(knex, found.id) : null;
      if (!summary) throw notFound(`delivery ${quoted(params.deliveryId)} not found`);
      return { status: 200, body: { data: summary, attempts: await attemptLog(knex, summary.id) } };
    },

    async replayDashboardWebhookDelivery({ params }, ctx): Promise<DashboardResult<'replayDashboardWebhookDelivery'>> {
      const w = webhooksOf(ctx);
      const { id, status } = await operator.replayAudited(knex, ctx.audit, params.deliveryId, w.id);
      return { status: 200, body: { data: { id, status: status as 'PENDING' } } };
    },

    async resolveDashboardWebhookDelivery(
      { params, body },
      ctx,
    ): Promise<DashboardResult<'resolveDashboardWebhookDelivery'>> {
      const w = webhooksOf(ctx);
      const { id, status } = await operator.resolveAudited(knex, ctx.audit, params.deliveryId, body.outcome, w.id);
      return { status: 200, body: { data: { id, status: status as 'DELIVERED' | 'FAILED' } } };
    },
  };
}
