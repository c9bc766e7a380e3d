// Every operator command that changes a workspace writes one audit entry, as the command line
// (actor "cli"), with the dashboard's action for the same change, and the chain still verifies.
// The table names every command of the registry (src/start/commands/index.ts): a changing one with
// its case, any other with the reason it records nothing, so a command added to the registry
// without a row fails the first test. The commands run in-process through `runCommand` (flags,
// configuration, database opened and migrated, as `shortlink` runs them) on every engine; the
// spawned binary and its output contract are test/cli/cli.test.ts's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateLatest, openDatabase, type Database } from '../../src/db/knex';
import { insertLink } from '../../src/db/repos/links';
import { commands, runCommand } from '../../src/start/commands/index';
import { APPLE } from '../support/app-links';
import { createTestDatabase, testEngines, type TestDatabase } from '../support/databases';
import { seedSettledDelivery, seedSubscription } from '../support/outbox';
import { linkRow } from '../support/stored-rows';

// A 1x1 PNG (the command checks the signature).
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** What the cases share: ids made by earlier rows, files to name. */
type Made = Record<string, string>;
type Out = Record<string, any>;

interface Case {
  /** Rows written straight to the database first (what no command makes: links, pages, deliveries). */
  seed?: (made: Made) => Promise<void>;
  args: (made: Made) => string[];
  action: string;
  objectType: string;
  /** The object the entry names, from what the command printed. */
  object: (made: Made, out: Out) => string;
  /** Where the entry goes; the row's workspace unless said. */
  workspace?: (made: Made, out: Out) => string;
  /** Ids to keep for later rows, from what the command printed. */
  keep?: (out: Out) => Made;
}

/** The commands that change nothing in a workspace, and why they record nothing. */
const EXEMPT: Record<string, string> = {
  migrate: 'maintenance: the schema, not a workspace',
  backup: 'maintenance: copies the database, changes nothing',
  restore: 'maintenance: a whole database put in place, its chains as they were',
  'retention run': 'maintenance: drops entries past AUDIT_RETENTION_DAYS, the chain kept verifiable from its anchor',
  'workspace list': 'reads only',
  'app-links show': 'reads only',
  'audit list': 'reads only',
  'audit verify': 'reads only',
  'webhook deliveries': 'reads only',
  'webhook show': 'reads only',
  'webhook subscriptions': 'reads only',
  'page list': 'reads only',
  'member reset-password':
    'changes no workspace: issues a one-time link; the password it sets is recorded (user.password_set) when used',
  'webhook test':
    'sends a test event and changes no subscription; the dashboard’s "Send test event" records nothing either',
};

// In order: later rows use what earlier ones made.
const CASES: Record<string, Case> = {
  'workspace create': {
    args: () => ['workspace', 'create', '--name', 'Audited by the operator'],
    action: 'workspace.created',
    objectType: 'workspace',
    object: (_m, out) => out.id,
    workspace: (_m, out) => out.id,
    keep: (out) => ({ ws: out.id }),
  },
  'workspace set-plan': {
    args: (m) => ['workspace', 'set-plan', '--workspace', m.ws, '--plan', 'business'],
    action: 'workspace.updated',
    objectType: 'workspace',
    object: (m) => m.ws,
  },
  'member add': {
    args: (m) => ['member', 'add', '--workspace', m.ws, '--email', 'audited@example.com', '--role', 'member'],
    action: 'member.joined',
    objectType: 'member',
    object: (_m, out) => out.id,
    keep: (out) => ({ user: out.id }),
  },
  'member set-role': {
    args: (m) => ['member', 'set-role', '--workspace', m.ws, '--user', m.user, '--role', 'admin'],
    action: 'member.role_changed',
    objectType: 'member',
    object: (m) => m.user,
  },
  'key create': {
    args: (m) => ['key', 'create', '--workspace', m.ws, '--user', m.user, '--scopes', 'links:read'],
    action: 'api_key.created',
    objectType: 'api_key',
    object: (_m, out) => out.id,
    keep: (out) => ({ key: out.id, keySecret: out.key }),
  },
  'key revoke': {
    args: (m) => ['key', 'revoke', '--id', m.key],
    action: 'api_key.revoked',
    objectType: 'api_key',
    object: (m) => m.key,
  },
  'tag create': {
    args: (m) => ['tag', 'create', '--workspace', m.ws, '--name', 'Launch'],
    action: 'tag.created',
    objectType: 'tag',
    object: (_m, out) => out.id,
  },
  'campaign create': {
    args: (m) => ['campaign', 'create', '--workspace', m.ws, '--name', 'Spring'],
    action: 'campaign.created',
    objectType: 'campaign',
    object: (_m, out) => out.id,
  },
  'domain add': {
    args: (m) => ['domain', 'add', '--workspace', m.ws, '--host', 'go.audited.example'],
    action: 'domain.added',
    objectType: 'domain',
    object: (_m, out) => out.id,
    keep: (out) => ({ domain: out.id }),
  },
  'domain verify': {
    args: (m) => ['domain', 'verify', '--id', m.domain],
    action: 'domain.verified',
    objectType: 'domain',
    object: (m) => m.domain,
  },
  'app-links set': {
    args: (m) => ['app-links', 'set', '--domain', m.domain, '--apple', m.appleFile],
    action: 'domain.app_links_changed',
    objectType: 'domain',
    object: (m) => m.domain,
  },
  'app-links clear': {
    args: (m) => ['app-links', 'clear', '--domain', m.domain],
    action: 'domain.app_links_changed',
    objectType: 'domain',
    object: (m) => m.domain,
  },
  'domain disable': {
    args: (m) => ['domain', 'disable', '--id', m.domain],
    action: 'domain.disabled',
    objectType: 'domain',
    object: (m) => m.domain,
  },
  'qr create': {
    args: (m) => ['qr', 'create', '--workspace', m.ws, '--link', m.link],
    action: 'qr_code.created',
    objectType: 'qr_code',
    object: (_m, out) => out.id,
  },
  'asset add': {
    args: (m) => ['asset', 'add', '--workspace', m.ws, '--file', m.pngFile],
    action: 'asset.uploaded',
    objectType: 'asset',
    object: (_m, out) => path.basename(out.url, '.png'),
  },
  'goal create': {
    args: (m) => ['goal', 'create', '--workspace', m.ws, '--name', 'Sign-ups', '--type', 'signup'],
    action: 'goal.created',
    objectType: 'goal',
    object: (_m, out) => out.id,
    keep: (out) => ({ goal: out.id }),
  },
  'goal update': {
    args: (m) => ['goal', 'update', '--id', m.goal, '--name', 'Sign-ups this spring'],
    action: 'goal.updated',
    objectType: 'goal',
    object: (m) => m.goal,
  },
  'goal set-status': {
    args: (m) => ['goal', 'set-status', '--id', m.goal, '--status', 'paused'],
    action: 'goal.status_changed',
    objectType: 'goal',
    object: (m) => m.goal,
  },
  'page publish': {
    args: (m) => ['page', 'publish', '--id', m.page],
    action: 'page.published',
    objectType: 'page',
    object: (m) => m.page,
  },
  'page unpublish': {
    args: (m) => ['page', 'unpublish', '--id', m.page],
    action: 'page.unpublished',
    objectType: 'page',
    object: (m) => m.page,
  },
  'webhook create': {
    args: (m) => [
      ...['webhook', 'create', '--workspace', m.ws, '--variant', 'A'],
      ...['--url', 'https://hooks.example.com/audited', '--events', 'link.created'],
    ],
    action: 'webhook.created',
    objectType: 'webhook',
    object: (_m, out) => out.id,
    keep: (out) => ({ sub: out.id, subSecret: out.secret }),
  },
  'webhook update': {
    args: (m) => ['webhook', 'update', '--subscription', m.sub, '--enabled', 'false'],
    action: 'webhook.updated',
    objectType: 'webhook',
    object: (m) => m.sub,
  },
  'webhook enable': {
    args: (m) => ['webhook', 'enable', '--subscription', m.sub],
    action: 'webhook.enabled',
    objectType: 'webhook',
    object: (m) => m.sub,
  },
  'webhook replay': {
    args: (m) => ['webhook', 'replay', '--delivery', m.failed],
    action: 'webhook_delivery.replayed',
    objectType: 'webhook_delivery',
    object: (m) => m.failed,
  },
  // The delivery replayed above is PENDING now: only the other FAILED one goes again.
  'webhook replay-since': {
    args: (m) => ['webhook', 'replay-since', '--subscription', m.subB, '--since', m.since],
    action: 'webhook_delivery.replayed',
    objectType: 'webhook_delivery',
    object: (m) => m.failedLater,
  },
  'webhook resolve': {
    args: (m) => ['webhook', 'resolve', '--delivery', m.unknown, '--outcome', 'delivered'],
    action: 'webhook_delivery.resolved',
    objectType: 'webhook_delivery',
    object: (m) => m.unknown,
  },
  'webhook delete': {
    args: (m) => ['webhook', 'delete', '--subscription', m.sub],
    action: 'webhook.deleted',
    objectType: 'webhook',
    object: (m) => m.sub,
  },
  'link policy-disable': {
    args: (m) => ['link', 'policy-disable', '--id', m.link],
    action: 'link.updated',
    objectType: 'link',
    object: (m) => m.link,
  },
  'member remove': {
    args: (m) => ['member', 'remove', '--workspace', m.ws, '--user', m.user],
    action: 'member.removed',
    objectType: 'member',
    object: (m) => m.user,
  },
};

it('names every command of the registry once: a changing one with its case, any other with its reason', () => {
  const registered = Object.keys(commands).sort();
  const named = [...Object.keys(CASES), ...Object.keys(EXEMPT)].sort();
  expect(Object.keys(CASES).filter((c) => c in EXEMPT)).toEqual([]);
  expect(named).toEqual(registered);
});

describe.each(testEngines())('every changing operator command writes one audit entry (%s)', (engine) => {
  let database: TestDatabase;
  let db: Database;
  let dataDir: string;
  let env: Record<string, string>;
  const made: Made = {};
  const knex = () => db.knex;
  const run = (args: string[]) => runCommand(args, env) as Promise<Out>;
  const entries = (workspaceId: string) => knex()('audit_entries').where({ workspace_id: workspaceId }).orderBy('seq');

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    db = openDatabase(database.url, { poolMax: 2 });
    await migrateLatest(db);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-audit-commands-'));
    env = { DATABASE_URL: database.url, DATA_DIR: dataDir, PUBLIC_URL: 'https://localhost:8443', LOG_LEVEL: 'silent' };
    made.pngFile = path.join(dataDir, 'logo.png');
    fs.writeFileSync(made.pngFile, PNG);
    made.appleFile = path.join(dataDir, 'aasa.json');
    fs.writeFileSync(made.appleFile, JSON.stringify(APPLE));
  });
  afterAll(async () => {
    await db?.knex.destroy();
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** What no command makes, written once the workspace and its member exist. */
  async function seedObjects() {
    const link = linkRow({
      id: 'lnk_auditedcli01',
      workspace_id: made.ws,
      created_by: made.user,
      slug: 'audited',
      original_url: 'https://example.com/landing',
    });
    await insertLink(knex(), link, [], async () => []);
    made.link = link.id;
    const now = Date.now();
    made.page = 'pg_auditedcli';
    await knex()('bio_pages').insert({
      id: made.page,
      workspace_id: made.ws,
      handle: 'audited-cli',
      status: 'ACTIVE',
      draft: JSON.stringify({ title: 'Audited', bio: null, avatarUrl: null, theme: 'classic', blocks: [] }),
      published: null,
      published_at: null,
      created_by: made.user,
      created_at: now,
      updated_at: now,
    });
    const key = Buffer.alloc(32, 7);
    const subB = await seedSubscription(knex(), key, {
      url: 'https://hooks.example.com/b',
      variant: 'B',
      workspaceId: made.ws,
    });
    made.subB = subB.id;
    made.failed = await seedSettledDelivery(knex(), subB, 'FAILED', now - 60_000);
    made.failedLater = await seedSettledDelivery(knex(), subB, 'FAILED', now - 30_000);
    made.since = new Date(now - 120_000).toISOString();
    const subA = await seedSubscription(knex(), key, {
      url: 'https://hooks.example.com/a',
      variant: 'A',
      workspaceId: made.ws,
    });
    made.unknown = await seedSettledDelivery(knex(), subA, 'UNKNOWN', now - 60_000);
  }

  it('each writes exactly one entry: actor cli, the dashboard’s action, the object; never a secret', async () => {
    const seen: string[] = [];
    for (const [name, c] of Object.entries(CASES)) {
      if (name === 'key create') await seedObjects();
      const where = made.ws;
      const before = where ? (await entries(where)).length : 0;
      const out = await run(c.args(made));
      Object.assign(made, c.keep?.(out));
      const workspaceId = c.workspace?.(made, out) ?? where;
      const after = await entries(workspaceId);
      const added = after.slice(c.workspace ? 0 : before);
      expect(
        added.map((e: any) => ({
          actor: [e.actor_type, e.actor_id, e.actor_user_id],
          action: e.action,
          objectType: e.object_type,
          objectId: e.object_id,
        })),
        name,
      ).toEqual([
        { actor: ['cli', null, null], action: c.action, objectType: c.objectType, objectId: c.object(made, out) },
      ]);
      seen.push(name);
    }
    expect(seen).toEqual(Object.keys(CASES));
    // The key and the signing secret printed once are never in the log.
    const changes = (await entries(made.ws)).map((e: any) => e.changes).join('\n');
    expect(made.keySecret).toBeTruthy();
    expect(changes).not.toContain(made.keySecret);
    expect(made.subSecret).toBeTruthy();
    expect(changes).not.toContain(made.subSecret);
    // Fields as the dashboard records them, e.g. the plan and the role from and to.
    const byAction = async (action: string) =>
      JSON.parse((await knex()('audit_entries').where({ workspace_id: made.ws, action }).first()).changes);
    expect(await byAction('workspace.updated')).toEqual({ plan: { from: 'growth', to: 'business' } });
    expect(await byAction('member.role_changed')).toEqual({ role: { from: 'MEMBER', to: 'ADMIN' } });
    expect(await byAction('api_key.created')).toEqual({ key: { secret: true }, scopes: { to: ['links:read'] } });
    expect(await byAction('link.updated')).toEqual({
      policyLocked: { from: false, to: true },
      status: { from: 'ACTIVE', to: 'DISABLED' },
    });

    const verified = await run(['audit', 'verify']);
    expect(verified.ok).toBe(true);
    expect(verified.workspaces).toContainEqual(
      expect.objectContaining({ workspaceId: made.ws, checked: (await entries(made.ws)).length }),
    );
  });

  it('records nothing for a change that changes nothing, a failed command, or the shared domain’s app links', async () => {
    const count = async () => Number((await knex()('audit_entries').count({ n: '*' }).first())!.n);
    const before = await count();
    // Already so: the plan, the policy lock, an enabled subscription.
    await run(['workspace', 'set-plan', '--workspace', made.ws, '--plan', 'business']);
    await run(['link', 'policy-disable', '--id', made.link]);
    await run(['webhook', 'enable', '--subscription', made.subB]);
    // Refused: nothing changed, nothing recorded (the entry shares the change's transaction).
    await expect(run(['tag', 'create', '--workspace', made.ws, '--name', 'Launch'])).rejects.toThrow(/already exists/);
    await expect(run(['qr', 'create', '--workspace', made.ws, '--link', 'lnk_nope'])).rejects.toThrow(/not found/);
    await expect(run(['domain', 'verify', '--id', 'dom_nope'])).rejects.toThrow(/domain dom_nope not found/);
    // The shared short domain is no workspace's.
    await run(['app-links', 'set', '--shared', '--apple', made.appleFile]);
    expect(await count()).toBe(before);
  });
});
