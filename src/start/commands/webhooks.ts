// `shortlink webhook ...`: the delivery log and its actions (src/operations/deliveries.ts), and
// subscriptions made, changed and deleted under the public endpoints' rules
// (src/operations/subscriptions.ts). Variant A's secret is generated and printed once. Every change
// is recorded in the subscription's workspace as the dashboard records it; a test event changes
// no subscription and, as "Send test event" there, records nothing.
import fs from 'node:fs';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/knex.ts';
import { inlineQueries } from '../../db/queries.ts';
import * as subscriptions from '../../db/repos/subscriptions.ts';
import * as outbox from '../../db/repos/webhook-delivery-log.ts';
import { notFound, quoted, usage } from '../../domain/errors.ts';
import * as operator from '../../operations/deliveries.ts';
import {
  changeSubscription,
  createSubscription,
  deleteSubscription,
  type SubscriptionDeps,
} from '../../operations/subscriptions.ts';
import { workspaceOf } from '../../operations/workspaces.ts';
import { attemptLog } from '../../webhooks/delivery-log.ts';
import { subscriptionView } from '../../webhooks/subscription-view.ts';
import { sendTestEvent } from '../../webhooks/test-events.ts';
import { loadOrCreateMasterKey } from '../master-key.ts';
import { isoTime, listFlag, oneOf, type Command } from './command.ts';
import { CLI_ACTOR } from '../../operations/audit.ts';

const DELIVERY_STATUSES = ['PENDING', 'SENDING', 'DELIVERED', 'FAILED', 'UNKNOWN'] as const;

const subscriptionDeps = (db: Database, config: Config): SubscriptionDeps => ({
  knex: db.knex,
  queries: inlineQueries(db.knex),
  masterKey: loadOrCreateMasterKey(config),
});

export const webhookCommands: Record<string, Command> = {
  'webhook deliveries': {
    flags: ['workspace', 'subscription', 'event', 'status', 'limit'],
    required: [],
    run: async ({ db, flags }) => {
      const status = flags.status === undefined ? undefined : oneOf(flags.status, DELIVERY_STATUSES, '--status');
      const limit = flags.limit === undefined ? 100 : Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw usage(`--limit must be a whole number from 1 to 1000; got ${quoted(flags.limit)}`);
      }
      if (flags.workspace !== undefined) await workspaceOf(db.knex, flags.workspace);
      if (flags.subscription !== undefined) await operator.subscription(db.knex, flags.subscription, flags.workspace);
      return {
        data: await outbox.listDeliveries(db.knex, {
          workspaceId: flags.workspace,
          subscriptionId: flags.subscription,
          eventType: flags.event,
          status,
          limit,
        }),
      };
    },
  },
  // One delivery of the log with its attempts: what was sent and the first 4 KiB of each answer.
  'webhook show': {
    flags: ['delivery'],
    required: ['delivery'],
    run: async ({ db, flags }) => {
      const summary = await outbox.deliverySummary(db.knex, flags.delivery!);
      if (!summary) throw notFound(`delivery ${flags.delivery} not found`);
      return { ...summary, attempts: await attemptLog(db.knex, summary.id) };
    },
  },
  'webhook replay': {
    flags: ['delivery'],
    required: ['delivery'],
    run: async ({ db, flags }) =>
      operator.replayAudited(
        db.knex,
        CLI_ACTOR,
        flags.delivery!,
        await operator.deliveryWorkspace(db.knex, flags.delivery!),
      ),
  },
  'webhook replay-since': {
    flags: ['subscription', 'since'],
    required: ['subscription', 'since'],
    run: async ({ db, flags }) => {
      const since = isoTime(flags.since, '--since')!;
      const sub = await operator.subscription(db.knex, flags.subscription!);
      const { subscriptionId, replayed } = await operator.replaySinceAudited(db.knex, CLI_ACTOR, sub, since);
      return { id: subscriptionId, replayed };
    },
  },
  'webhook resolve': {
    flags: ['delivery', 'outcome'],
    required: ['delivery', 'outcome'],
    run: async ({ db, flags }) => {
      const outcome = oneOf(flags.outcome!, ['DELIVERED', 'FAILED'] as const, '--outcome');
      const workspaceId = await operator.deliveryWorkspace(db.knex, flags.delivery!);
      return operator.resolveAudited(db.knex, CLI_ACTOR, flags.delivery!, outcome, workspaceId);
    },
  },
  'webhook subscriptions': {
    flags: ['workspace'],
    required: ['workspace'],
    run: async ({ db, flags }) => {
      await workspaceOf(db.knex, flags.workspace!);
      return {
        data: (await subscriptions.listWorkspaceSubscriptions(db.knex, flags.workspace!)).map(subscriptionView),
      };
    },
  },
  'webhook create': {
    flags: ['workspace', 'variant', 'url', 'events', 'secret'],
    required: ['workspace', 'variant', 'url', 'events'],
    run: async ({ db, config, flags }) => {
      const variant = oneOf(flags.variant!, ['A', 'B'] as const, '--variant');
      if (!config.webhookVariants.has(variant)) {
        throw usage(`Variant ${variant} webhooks are not offered by this deployment (WEBHOOK_VARIANTS)`);
      }
      const workspace = await workspaceOf(db.knex, flags.workspace!);
      const { row, secret } = await createSubscription(
        subscriptionDeps(db, config),
        {
          workspaceId: workspace.id,
          variant,
          url: flags.url!,
          events: listFlag(flags.events!),
          secret: flags.secret,
        },
        CLI_ACTOR,
      );
      return secret === undefined ? { id: row.id, variant } : { id: row.id, variant, secret };
    },
  },
  'webhook update': {
    flags: ['subscription', 'url', 'events', 'enabled'],
    required: ['subscription'],
    run: async ({ db, config, flags }) => {
      const current = await operator.subscription(db.knex, flags.subscription!);
      const enabled =
        flags.enabled === undefined
          ? undefined
          : oneOf(flags.enabled, ['true', 'false'] as const, '--enabled') === 'true';
      await changeSubscription(
        subscriptionDeps(db, config),
        current,
        {
          url: flags.url,
          events: flags.events === undefined ? undefined : listFlag(flags.events),
          enabled,
        },
        CLI_ACTOR,
      );
      return subscriptionView(await operator.subscription(db.knex, current.id));
    },
  },
  'webhook delete': {
    flags: ['subscription'],
    required: ['subscription'],
    run: async ({ db, flags }) => {
      await deleteSubscription(db.knex, await operator.subscription(db.knex, flags.subscription!), CLI_ACTOR);
      return { id: flags.subscription, deleted: true };
    },
  },
  'webhook enable': {
    flags: ['subscription'],
    required: ['subscription'],
    run: async ({ db, flags }) =>
      operator.reEnableAudited(db.knex, CLI_ACTOR, await operator.subscription(db.knex, flags.subscription!)),
  },
  'webhook test': {
    flags: ['subscription', 'event'],
    required: ['subscription', 'event'],
    run: async ({ db, config, flags }) => {
      const sub = await operator.subscription(db.knex, flags.subscription!);
      // WEBHOOK_CA_FILE (tests only), as for `serve`: a certificate deliveries trust besides the system's.
      const caFile = process.env.WEBHOOK_CA_FILE;
      const result = await sendTestEvent(
        {
          knex: db.knex,
          masterKey: loadOrCreateMasterKey(config),
          allowPrivateNetworks: config.webhookAllowPrivateNetworks,
          timeoutMs: config.webhookTimeoutMs,
          extraCa: caFile ? [fs.readFileSync(caFile, 'utf8')] : undefined,
        },
        sub,
        flags.event!,
      );
      return { id: result.deliveryId, status: result.status, attempt: result.attempt };
    },
  },
};
