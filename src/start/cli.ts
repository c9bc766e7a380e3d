// The `shortlink` command line: `serve`, and the operator commands of docs/configuration.md. Every
// operator command prints exactly one JSON object on stdout and exits 0, or prints a message
// on stderr and exits non-zero.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { PLANS, ROLES, SCOPES, type Plan, type Role, type Scope } from '../domain/access.ts';
import { isUniqueViolation, migrateLatest, openDatabase, type Database } from '../db/knex.ts';
import { IMAGE_TYPES, looksLike } from '../domain/assets.ts';
import { hostProblem } from '../domain/domains.ts';
import { AppError, conflict, ERROR_CODES, notFound, quoted, storageFailed, usage } from '../domain/errors.ts';
import * as ws from '../db/repos/workspaces.ts';
import * as accounts from '../db/repos/accounts.ts';
import { firstRunUrl, normalizeEmail, setupUrl } from '../domain/sessions.ts';
import { setPolicyDisabled } from '../db/repos/links.ts';
import { domainVerified } from '../webhooks/domain-events.ts';
import { policyDisabled } from '../webhooks/link-events.ts';
import { runRetention } from '../db/repos/retention.ts';
import * as deliveries from '../db/repos/webhook-delivery-log.ts';
import * as subscriptions from '../db/repos/subscriptions.ts';
import * as webhookOperator from '../webhooks/operator.ts';
import { subscriptionView } from '../webhooks/subscription-view.ts';
import { changeSubscription, createSubscription, deleteSubscription, type SubscriptionDeps } from '../http/subscription-operations.ts';
import { inlineQueries } from '../db/queries.ts';
import * as bioPages from '../db/repos/bio-pages.ts';
import { pageUrl, presentPage, publishPage, unpublishPage, type PageDeps } from '../http/page-operations.ts';
import { sendTestEvent } from '../webhooks/test-events.ts';
import { attemptLog } from '../webhooks/delivery-log.ts';
import { loadOrCreateMasterKey } from './master-key.ts';
import { createGoalCommand, GOAL_FLAGS, setGoalStatusCommand, updateGoalCommand } from './goal-commands.ts';


type Flags = Record<string, string | undefined>;
type Command = {
  flags: string[];
  required: string[];
  run(ctx: { db: Database; config: Config; flags: Flags }): Promise<object>;
};


const pageDeps = (db: Database, config: Config): PageDeps => ({
  knex: db.knex,
  shortDomain: config.shortDomain,
  // No redirect cache here: the services' change feeds drop theirs.
  forget: async () => undefined,
});

async function pageById(db: Database, id: string) {
  const row = await bioPages.findPage(db.knex, id);
  if (!row) throw notFound(`page ${id} not found`);
  return row;
}

const pageState = (row: bioPages.PageRow, config: Config) => ({
  id: row.id,
  handle: row.handle,
  url: pageUrl(config.shortDomain, row.handle),
  published: row.published !== null,
  publishedAt: row.published_at === null ? null : new Date(row.published_at).toISOString(),
});

/** A comma-separated flag (`--events a,b`) as its non-empty items. */
const listFlag = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);

const subscriptionDeps = (db: Database, config: Config): SubscriptionDeps => ({
  knex: db.knex,
  queries: inlineQueries(db.knex),
  masterKey: loadOrCreateMasterKey(config),
});

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  const v = (['--role', '--status', '--outcome', '--variant'].includes(flag) ? value.toUpperCase() : value.toLowerCase()) as T;
  if (!allowed.includes(v)) throw usage(`${flag} must be one of ${allowed.join(', ')}; got ${quoted(value)}`);
  return v;
}

// A calendar date (UTC midnight) or a date and time with a zone: Date.parse alone would take
// "1" as the year 2001, "2027-02-30" as 2 March and "12/31/2027" in the local zone.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2})))?$/i;

function isoTime(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  const m = ISO_TIME.exec(value.trim());
  const bad = () => usage(`${flag} must be an ISO 8601 date or date-time with a zone, such as 2027-01-31 or 2027-01-31T12:00:00Z; got ${quoted(value)}`);
  if (!m) throw bad();
  const [y, mo, d, h = 0, mi = 0, sec = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => (v === undefined ? undefined : Number(v))) as number[];
  const fraction = m[7] ? Math.floor(Number(m[7]) * 1000) : 0;
  const offset = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) throw bad();
  if (h > 23 || mi > 59 || sec > 59 || (m[9] && (Number(m[10]) > 23 || Number(m[11]) > 59))) throw bad();
  return Date.UTC(y, mo - 1, d, h, mi, sec, fraction) - offset * 60_000;
}

/** A required or optional free-text flag, held to its column's length on every engine. */
function text(value: string, flag: string, max: number): string {
  const v = value.trim();
  if (!v) throw usage(`${flag} must not be blank`);
  if (v.length > max) throw usage(`${flag} must be at most ${max} characters; got ${v.length}`);
  return v;
}

/** Turns a unique-constraint violation into a message naming what is taken. */
async function unique<T>(work: Promise<T>, message: string): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(message);
    throw err;
  }
}


const commands: Record<string, Command> = {
  migrate: { flags: [], required: [], run: async () => ({ migrated: true }) },
  'workspace create': {
    flags: ['name', 'plan'],
    required: ['name'],
    run: async ({ db, flags }) => ({
      id: await ws.createWorkspace(db.knex, text(flags.name!, '--name', 200), oneOf(flags.plan ?? 'growth', PLANS, '--plan') as Plan),
    }),
  },
  // Variant A's webhook body names the workspace, which no API answer returns: this is where a
  // key holder's operator finds its id.
  'workspace list': {
    flags: [],
    required: [],
    run: async ({ db }) => ({ data: await ws.listWorkspaces(db.knex) }),
  },
  'workspace set-plan': {
    flags: ['workspace', 'plan'],
    required: ['workspace', 'plan'],
    run: async ({ db, flags }) => {
      const plan = oneOf(flags.plan!, PLANS, '--plan');
      await ws.setPlan(db.knex, flags.workspace!, plan);
      return { id: flags.workspace, plan };
    },
  },
  'member add': {
    flags: ['workspace', 'email', 'role'],
    required: ['workspace', 'email', 'role'],
    run: async ({ db, config, flags }) => {
      if (!/^[^@\s]+@[^@\s]+$/.test(flags.email!.trim())) throw usage(`--email must be an e-mail address; got ${quoted(flags.email)}`);
      text(flags.email!, '--email', 320);
      const id = await ws.addMember(db.knex, flags.workspace!, flags.email!, oneOf(flags.role!, ROLES, '--role') as Role);
      // A person without a password gets a one-time link to set one (24 hours).
      const user = await accounts.findUser(db.knex, id);
      if (user?.password_hash) return { id };
      return { id, setupUrl: setupUrl(config, await accounts.createSetupToken(db.knex, id, Date.now())) };
    },
  },
  'member reset-password': {
    flags: ['email'],
    required: ['email'],
    run: async ({ db, config, flags }) => {
      const user = await accounts.findUserByEmail(db.knex, flags.email!);
      if (!user) throw notFound(`no user has the e-mail address ${normalizeEmail(flags.email!)}`);
      // The old password keeps working until the link is used; using it ends every session.
      return { setupUrl: setupUrl(config, await accounts.createSetupToken(db.knex, user.id, Date.now())) };
    },
  },
  'member set-role': {
    flags: ['workspace', 'user', 'role'],
    required: ['workspace', 'user', 'role'],
    run: async ({ db, flags }) => {
      await ws.setRole(db.knex, flags.workspace!, flags.user!, oneOf(flags.role!, ROLES, '--role') as Role);
      return { id: flags.user };
    },
  },
  'member remove': {
    flags: ['workspace', 'user'],
    required: ['workspace', 'user'],
    run: async ({ db, flags }) => {
      await ws.removeMember(db.knex, flags.workspace!, flags.user!);
      return { id: flags.user };
    },
  },
  'key create': {
    flags: ['workspace', 'user', 'scopes', 'expires-at'],
    required: ['workspace', 'user', 'scopes'],
    run: async ({ db, flags }) => {
      const scopes = [...new Set(listFlag(flags.scopes!))];
      if (!scopes.length) throw usage(`--scopes needs at least one of ${SCOPES.join(', ')}`);
      const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown.length) throw usage(`unknown scopes: ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
      const expiresAt = isoTime(flags['expires-at'], '--expires-at');
      if (expiresAt !== null && expiresAt <= Date.now()) throw usage(`--expires-at must be in the future; got ${quoted(flags['expires-at'])}`);
      return ws.createKey(db.knex, flags.workspace!, flags.user!, scopes as Scope[], expiresAt);
    },
  },
  'key revoke': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      await ws.revokeKey(db.knex, flags.id!);
      return { id: flags.id, revoked: true };
    },
  },
  'tag create': {
    flags: ['workspace', 'name', 'color'],
    required: ['workspace', 'name'],
    run: async ({ db, flags }) => {
      const name = text(flags.name!, '--name', 100);
      const color = flags.color === undefined ? '#6b7280' : text(flags.color, '--color', 32);
      return { id: await unique(ws.createTag(db.knex, flags.workspace!, name, color), `a tag named ${name} already exists in ${flags.workspace}`) };
    },
  },
  'domain add': {
    flags: ['workspace', 'host'],
    required: ['workspace', 'host'],
    run: async ({ db, config, flags }) => {
      // Requests are matched on the Host header's name without its port, so a port could never match.
      const host = flags.host!.trim().toLowerCase();
      const problem = hostProblem(host, [config.shortDomain, new URL(config.publicUrl).host]);
      if (problem) throw usage(`--host ${problem}; got ${quoted(flags.host)}`);
      // As in the dashboard: another workspace's unverified claim does not block; a verified domain does.
      return { id: await ws.addDomain(db.knex, flags.workspace!, host) };
    },
  },
  'domain verify': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      await ws.setDomainStatus(db.knex, flags.id!, 'ACTIVE', domainVerified());
      return { id: flags.id };
    },
  },
  'domain disable': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      await ws.setDomainStatus(db.knex, flags.id!, 'DISABLED');
      return { id: flags.id };
    },
  },
  'campaign create': {
    flags: ['workspace', 'name'],
    required: ['workspace', 'name'],
    run: async ({ db, flags }) => ({ id: await ws.createCampaign(db.knex, flags.workspace!, text(flags.name!, '--name', 200)) }),
  },
  'qr create': {
    flags: ['workspace', 'link'],
    required: ['workspace', 'link'],
    run: async ({ db, config, flags }) => {
      const { id, code } = await ws.createQrCode(db.knex, flags.workspace!, flags.link!);
      return { id, url: `https://${config.shortDomain}/qr/${code}` };
    },
  },
  'asset add': {
    flags: ['workspace', 'file'],
    required: ['workspace', 'file'],
    run: async ({ db, config, flags }) => {
      const source = path.resolve(flags.file!);
      const ext = path.extname(source).toLowerCase();
      if (!IMAGE_TYPES[ext]) throw usage(`--file must be a .png, .jpg, .jpeg, .gif or .webp image; got ${quoted(flags.file)}`);
      if (!fs.existsSync(source) || !fs.statSync(source).isFile()) throw usage(`--file ${flags.file} does not exist`);
      const head = Buffer.alloc(12);
      const fd = fs.openSync(source, 'r');
      try {
        fs.readSync(fd, head, 0, 12, 0);
      } finally {
        fs.closeSync(fd);
      }
      if (!looksLike(IMAGE_TYPES[ext], head)) throw usage(`--file ${flags.file} is not a ${ext.slice(1)} image: its content does not match its extension`);
      const dir = path.join(config.dataDir, 'assets');
      const { fileName } = await ws.addAsset(db.knex, flags.workspace!, ext, IMAGE_TYPES[ext], (name) => {
        try {
          fs.mkdirSync(dir, { recursive: true });
          fs.copyFileSync(source, path.join(dir, name));
        } catch (err) {
          throw storageFailed(`cannot store the asset in ${dir}: ${(err as Error).message}`);
        }
      });
      return { url: `${config.assetBaseUrl}${fileName}` };
    },
  },
  'goal create': {
    flags: ['workspace', ...GOAL_FLAGS],
    required: ['workspace', 'name', 'type'],
    run: ({ db, flags }) => createGoalCommand(db.knex, flags, isoTime),
  },
  'goal update': {
    flags: ['id', ...GOAL_FLAGS],
    required: ['id'],
    run: ({ db, flags }) => updateGoalCommand(db.knex, flags, isoTime),
  },
  'goal set-status': {
    flags: ['id', 'status'],
    required: ['id', 'status'],
    run: ({ db, flags }) => setGoalStatusCommand(db.knex, flags),
  },
  'retention run': {
    flags: [],
    required: [],
    run: async ({ db }) => runRetention(db.knex),
  },
  'webhook deliveries': {
    flags: ['workspace', 'subscription', 'event', 'status', 'limit'],
    required: [],
    run: async ({ db, flags }) => {
      const status = flags.status === undefined ? undefined : oneOf(flags.status, DELIVERY_STATUSES, '--status');
      const limit = flags.limit === undefined ? 100 : Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw usage(`--limit must be a whole number from 1 to 1000; got ${quoted(flags.limit)}`);
      if (flags.workspace !== undefined && !(await ws.getWorkspace(db.knex, flags.workspace))) {
        throw notFound(`workspace ${flags.workspace} not found`);
      }
      if (flags.subscription !== undefined) await webhookOperator.subscription(db.knex, flags.subscription, flags.workspace);
      return {
        data: await deliveries.listDeliveries(db.knex, {
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
      const summary = await deliveries.deliverySummary(db.knex, flags.delivery!);
      if (!summary) throw notFound(`delivery ${flags.delivery} not found`);
      return { ...summary, attempts: await attemptLog(db.knex, summary.id) };
    },
  },
  'webhook replay': {
    flags: ['delivery'],
    required: ['delivery'],
    run: async ({ db, flags }) => webhookOperator.replay(db.knex, flags.delivery!),
  },
  'webhook replay-since': {
    flags: ['subscription', 'since'],
    required: ['subscription', 'since'],
    run: async ({ db, flags }) => {
      const { subscriptionId, replayed } = await webhookOperator.replaySince(db.knex, flags.subscription!, isoTime(flags.since, '--since')!);
      return { id: subscriptionId, replayed };
    },
  },
  'webhook resolve': {
    flags: ['delivery', 'outcome'],
    required: ['delivery', 'outcome'],
    run: async ({ db, flags }) => webhookOperator.resolve(db.knex, flags.delivery!, oneOf(flags.outcome!, ['DELIVERED', 'FAILED'] as const, '--outcome')),
  },
  'webhook subscriptions': {
    flags: ['workspace'],
    required: ['workspace'],
    run: async ({ db, flags }) => {
      if (!(await ws.getWorkspace(db.knex, flags.workspace!))) throw notFound(`workspace ${flags.workspace} not found`);
      return { data: (await subscriptions.listWorkspaceSubscriptions(db.knex, flags.workspace!)).map(subscriptionView) };
    },
  },
  // Settings › Webhooks' making, changing and deleting, under the public endpoints' rules
  // (src/http/subscription-operations.ts). Variant A's secret is generated and printed once.
  'webhook create': {
    flags: ['workspace', 'variant', 'url', 'events', 'secret'],
    required: ['workspace', 'variant', 'url', 'events'],
    run: async ({ db, config, flags }) => {
      const variant = oneOf(flags.variant!, ['A', 'B'] as const, '--variant');
      if (!config.webhookVariants.has(variant)) throw usage(`Variant ${variant} webhooks are not offered by this deployment (WEBHOOK_VARIANTS)`);
      const workspace = await ws.getWorkspace(db.knex, flags.workspace!);
      if (!workspace) throw notFound(`workspace ${flags.workspace} not found`);
      const { row, secret } = await createSubscription(subscriptionDeps(db, config), {
        workspaceId: workspace.id,
        variant,
        url: flags.url!,
        events: listFlag(flags.events!),
        secret: flags.secret,
      });
      return secret === undefined ? { id: row.id, variant } : { id: row.id, variant, secret };
    },
  },
  'webhook update': {
    flags: ['subscription', 'url', 'events', 'enabled'],
    required: ['subscription'],
    run: async ({ db, config, flags }) => {
      const current = await webhookOperator.subscription(db.knex, flags.subscription!);
      const enabled = flags.enabled === undefined ? undefined : oneOf(flags.enabled, ['true', 'false'] as const, '--enabled') === 'true';
      await changeSubscription(subscriptionDeps(db, config), current, {
        url: flags.url,
        events: flags.events === undefined ? undefined : listFlag(flags.events),
        enabled,
      });
      return subscriptionView(await webhookOperator.subscription(db.knex, current.id));
    },
  },
  'webhook delete': {
    flags: ['subscription'],
    required: ['subscription'],
    run: async ({ db, flags }) => {
      await deleteSubscription(db.knex, await webhookOperator.subscription(db.knex, flags.subscription!));
      return { id: flags.subscription, deleted: true };
    },
  },
  'webhook enable': {
    flags: ['subscription'],
    required: ['subscription'],
    run: async ({ db, flags }) => webhookOperator.reEnable(db.knex, flags.subscription!),
  },
  'webhook test': {
    flags: ['subscription', 'event'],
    required: ['subscription', 'event'],
    run: async ({ db, config, flags }) => {
      const sub = await webhookOperator.subscription(db.knex, flags.subscription!);
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
  // Bio pages (made and edited in the dashboard): the published state, as "Publish" and
  // "Unpublish" change it, page.published included. The running services learn of it through the
  // change feed and show it from their next view.
  'page list': {
    flags: ['workspace'],
    required: ['workspace'],
    run: async ({ db, config, flags }) => {
      if (!(await ws.getWorkspace(db.knex, flags.workspace!))) throw notFound(`workspace ${flags.workspace} not found`);
      const rows = await bioPages.listPages(db.knex, flags.workspace!);
      return { data: await Promise.all(rows.map((r) => presentPage({ knex: db.knex, shortDomain: config.shortDomain }, r))) };
    },
  },
  'page publish': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, config, flags }) => pageState(await publishPage(pageDeps(db, config), await pageById(db, flags.id!), null), config),
  },
  'page unpublish': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, config, flags }) => pageState(await unpublishPage(pageDeps(db, config), await pageById(db, flags.id!)), config),
  },
  'link policy-disable': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, config, flags }) => {
      const row = await setPolicyDisabled(db.knex, flags.id!, policyDisabled({ shortDomain: config.shortDomain }));
      if (!row) throw notFound(`link ${flags.id} not found`);
      return { id: flags.id };
    },
  },
};

const DELIVERY_STATUSES = ['PENDING', 'SENDING', 'DELIVERED', 'FAILED', 'UNKNOWN'] as const;

export async function runCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<object> {
  const name2 = argv.slice(0, 2).join(' ');
  const name = commands[name2] ? name2 : argv[0];
  const command = commands[name];
  if (!command) {
    throw usage(`unknown command: ${argv.join(' ') || '(none)'}; commands: serve, ${Object.keys(commands).join(', ')}`);
  }
  const rest = argv.slice(name.split(' ').length);
  let values: Flags;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: Object.fromEntries(command.flags.map((f) => [f, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }) as { values: Flags });
  } catch (err) {
    throw usage(`${name}: ${(err as Error).message}`);
  }
  for (const f of command.required) {
    if (values[f] === undefined || values[f]!.trim() === '') throw usage(`${name}: --${f} is required`);
  }
  let config: Config;
  let db: Database;
  try {
    config = loadConfig(env);
    db = openDatabase(config.databaseUrl, { poolMax: 2 });
  } catch (err) {
    throw usage((err as Error).message);
  }
  // The failure reaches the operator once, as the command's message; knex would also log it with a stack.
  const logger = (db.knex.client as { logger?: { warn?: unknown } }).logger;
  if (logger) logger.warn = () => undefined;
  try {
    await migrateLatest(db);
    return await command.run({ db, config, flags: values });
  } finally {
    await db.knex.destroy();
  }
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === 'serve') {
    if (argv.length > 1) {
      process.stderr.write('usage: shortlink serve (configured by environment variables; see docs/configuration.md)\n');
      process.exit(argv[1] === '--help' || argv[1] === '-h' ? 0 : 2);
    }
    const config = loadConfig();
    // Loaded only here: the HTTP stack would double the start-up time of every operator command.
    const { startServer } = await import('./server.ts');
    // WEBHOOK_CA_FILE (tests only): a PEM certificate webhook deliveries trust besides the
    // system's, for receivers with self-signed certificates.
    const caFile = process.env.WEBHOOK_CA_FILE;
    const server = await startServer(config, { webhookCa: caFile ? [fs.readFileSync(caFile, 'utf8')] : undefined });
    // The first run (as Jupyter does): while nobody has an account, the way in is a one-time link
    // with an unguessable token, printed here for whoever started the service and no one else.
    const { knex } = server.services.db;
    if ((await accounts.userCount(knex)) === 0) {
      const token = await accounts.createFirstRunToken(knex, Date.now());
      process.stdout.write(`\nOpen ${firstRunUrl(config, token)} to create your workspace\n\n`);
    }
    const stop = async (signal: string) => {
      server.services.log.info({ signal }, 'shutting down');
      await server.close();
      process.exit(0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
    return;
  }
  try {
    const out = await runCommand(argv);
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } catch (err) {
    const e = err as Error;
    // The one place the command line answers an error: an AppError with its message and exit
    // code (src/domain/errors.ts); anything else in one line, its stack only when asked for
    // with LOG_LEVEL=debug or trace.
    const known = e instanceof AppError;
    const verbose = /^(debug|trace)$/i.test(process.env.LOG_LEVEL ?? '');
    const message = isUniqueViolation(e)
      ? 'that object already exists (a name, host or e-mail address is taken)'
      : !known && verbose ? e.stack ?? e.message : String(e.message || e).replace(/\s*\n\s*/g, ' ');
    process.stderr.write(`shortlink: ${message}\n`);
    process.exit(known ? ERROR_CODES[e.code].exit : 1);
  }
}

await main();
