// The operator command line of DECISIONS.md, run as an operator runs it: `node bin/shortlink.mjs`
// in a child process, on every database engine, each engine on a fresh database. Every
// success is checked against the database; every failure must leave stdout empty and say
// what went wrong in one line on stderr.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateLatest, openDatabase, type Database } from '../../src/db/knex';
import { insertLink } from '../../src/db/repos/links';
import * as accounts from '../../src/db/repos/accounts';
import { DELIVERY_KEYS, describeEachEngine, expectFailure, expectJsonLine, runCli } from '../support/cli';
import { deliveryRow, seedSubscription, type SeededSubscription } from '../support/outbox';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { linkRow } from '../support/stored-rows';
import { addMember, createWorkspace, roleOf } from '../../src/db/repos/workspaces';

// A 1x1 PNG, and the first bytes of a JPEG (the command checks the signature, not the pixels).
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from('JFIF\0'),
  Buffer.alloc(32),
]);
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const PUBLIC_URL = 'https://localhost:8443';

function tmpDir(prefix: string) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// A link of the workspace's, as `insertLink` would store one made there.
const cliLink = (workspaceId: string, createdBy: string, slug: string) =>
  linkRow({
    id: `lnk_cli${Math.random().toString(36).slice(2, 14)}`,
    workspace_id: workspaceId,
    created_by: createdBy,
    slug,
    original_url: 'https://example.com/landing',
  });

describeEachEngine('shortlink operator commands on %s', (engine) => {
  let database: TestDatabase;
  let db: Database;
  let dataDir: string;
  let files: string;
  let env: Record<string, string>;
  const knex = () => db.knex;

  const cli = (args: string[], extraEnv: Record<string, string> = {}) => runCli(args, { ...env, ...extraEnv });
  const ok = async (args: string[], keys: string[], extraEnv: Record<string, string> = {}) =>
    expectJsonLine(args, await cli(args, extraEnv), keys);
  const fails = async (args: string[], message: RegExp, extraEnv: Record<string, string> = {}) =>
    expectFailure(args, await cli(args, extraEnv), message);

  /** `webhook create` with its four flags, and `--secret` when one is given. */
  const webhookCreate = (workspace: string, variant: string, url: string, events: string, secret?: string) => [
    ...['webhook', 'create', '--workspace', workspace, '--variant', variant, '--url', url, '--events', events],
    ...(secret === undefined ? [] : ['--secret', secret]),
  ];

  // Shared by the steps below, which run in order.
  let wsId: string;
  let ws2Id: string;
  let ownerId: string;
  let analystId: string;
  let keyId: string;
  let linkId: string;
  let otherLinkId: string;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    db = openDatabase(database.url, { poolMax: 2 });
    dataDir = tmpDir('shortlink-cli-data-');
    files = tmpDir('shortlink-cli-files-');
    fs.writeFileSync(path.join(files, 'logo.png'), PNG);
    fs.writeFileSync(path.join(files, 'photo.jpg'), JPEG);
    env = { DATABASE_URL: database.url, DATA_DIR: dataDir, PUBLIC_URL, LOG_LEVEL: 'silent' };
  });
  afterAll(async () => {
    await db?.knex.destroy();
    await database?.drop();
    for (const dir of [dataDir, files]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('migrate prints {migrated:true}, creates the schema, and can run again', async () => {
    expect(await ok(['migrate'], ['migrated'])).toEqual({ migrated: true });
    expect(await knex().schema.hasTable('workspaces')).toBe(true);
    expect(await knex().schema.hasTable('api_keys')).toBe(true);
    expect(await ok(['migrate'], ['migrated'])).toEqual({ migrated: true });
  });

  it('workspace list on a database without workspaces prints {data:[]}', async () => {
    expect(await ok(['workspace', 'list'], ['data'])).toEqual({ data: [] });
  });

  it('workspace create defaults to growth and takes --plan', async () => {
    wsId = (await ok(['workspace', 'create', '--name', 'Acme Marketing'], ['id'])).id;
    expect(wsId).toMatch(/^ws_/);
    expect(await knex()('workspaces').where({ id: wsId }).first()).toMatchObject({
      name: 'Acme Marketing',
      plan: 'growth',
    });

    ws2Id = (await ok(['workspace', 'create', '--name', 'Beta', '--plan', 'Business'], ['id'])).id;
    expect(ws2Id).not.toBe(wsId);
    expect(await knex()('workspaces').where({ id: ws2Id }).first()).toMatchObject({ name: 'Beta', plan: 'business' });
  });

  it('workspace set-plan prints {id, plan} and changes the plan', async () => {
    expect(await ok(['workspace', 'set-plan', '--workspace', ws2Id, '--plan', 'pro'], ['id', 'plan'])).toEqual({
      id: ws2Id,
      plan: 'pro',
    });
    expect((await knex()('workspaces').where({ id: ws2Id }).first()).plan).toBe('pro');
  });

  it('workspace list prints {data:[{id, name, plan, createdAt}]}, newest first; it takes no flags', async () => {
    const out = await ok(['workspace', 'list'], ['data']);
    expect(out.data).toEqual([
      {
        id: ws2Id,
        name: 'Beta',
        plan: 'pro',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      },
      { id: wsId, name: 'Acme Marketing', plan: 'growth', createdAt: expect.any(String) },
    ]);
    for (const w of out.data) {
      const row = await knex()('workspaces').where({ id: w.id }).first();
      expect(Date.parse(w.createdAt)).toBe(Number(row.created_at));
    }
    await fails(['workspace', 'list', '--workspace', wsId], /workspace list: .*--workspace/);
  });

  it('workspace set-plan on an unknown workspace fails', async () => {
    await fails(['workspace', 'set-plan', '--workspace', 'ws_nope', '--plan', 'pro'], /workspace ws_nope not found/);
  });

  it('member add prints the user id and a set-up link, creates the user once per e-mail address', async () => {
    const added = await ok(
      ['member', 'add', '--workspace', wsId, '--email', 'Owner@Example.com', '--role', 'OWNER'],
      ['id', 'setupUrl'],
    );
    ownerId = added.id;
    expect(added.setupUrl).toMatch(new RegExp(`^${PUBLIC_URL}/app/setup-password\\?token=[A-Za-z0-9_-]{43}$`));
    // Only a hash of the link's token is kept, for 24 hours.
    const token = new URL(added.setupUrl).searchParams.get('token')!;
    const stored = await knex()('password_setup_tokens').where({ user_id: ownerId }).first();
    expect(stored.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(Number(stored.expires_at) - Number(stored.created_at)).toBe(24 * 3_600_000);
    analystId = (
      await ok(
        ['member', 'add', '--workspace', wsId, '--email', 'analyst@example.com', '--role', 'analyst'],
        ['id', 'setupUrl'],
      )
    ).id;
    expect(ownerId).toMatch(/^usr_/);
    expect(await knex()('users').where({ id: ownerId }).first()).toMatchObject({ email: 'owner@example.com' });
    expect(await roleOf(knex(), wsId, ownerId)).toBe('OWNER');
    expect(await roleOf(knex(), wsId, analystId)).toBe('ANALYST');

    // The same person joining a second workspace is the same user.
    const again = await ok(
      ['member', 'add', '--workspace', ws2Id, '--email', 'owner@example.com', '--role', 'MEMBER'],
      ['id', 'setupUrl'],
    );
    expect(again.id).toBe(ownerId);
    expect(Number((await knex()('users').where({ email: 'owner@example.com' }).count({ n: '*' }))[0].n)).toBe(1);
    expect(await roleOf(knex(), ws2Id, ownerId)).toBe('MEMBER');
  });

  it('member add of someone who has a password prints only the id; reset-password prints a fresh link', async () => {
    const userId = (
      await ok(
        ['member', 'add', '--workspace', wsId, '--email', 'haspw@example.com', '--role', 'MEMBER'],
        ['id', 'setupUrl'],
      )
    ).id;
    await accounts.setPassword(knex(), userId, 'scrypt$x', Date.now());
    expect(
      await ok(['member', 'add', '--workspace', ws2Id, '--email', 'haspw@example.com', '--role', 'MEMBER'], ['id']),
    ).toEqual({ id: userId });
    const first = await ok(['member', 'reset-password', '--email', 'HasPW@example.com'], ['setupUrl']);
    const second = await ok(['member', 'reset-password', '--email', 'haspw@example.com'], ['setupUrl']);
    expect(first.setupUrl).not.toBe(second.setupUrl);
    // The newer link replaces the older: one unused token per person.
    const open = await knex()('password_setup_tokens').where({ user_id: userId }).whereNull('used_at');
    expect(open).toHaveLength(1);
    expect(open[0].token_hash).toBe(
      createHash('sha256').update(new URL(second.setupUrl).searchParams.get('token')!).digest('hex'),
    );
    await fails(
      ['member', 'reset-password', '--email', 'nobody@example.com'],
      /no user has the e-mail address nobody@example.com/,
    );
    await fails(['member', 'reset-password'], /--email is required/);
  });

  it('member add of an existing member fails and changes nothing', async () => {
    await fails(
      ['member', 'add', '--workspace', wsId, '--email', 'OWNER@example.com', '--role', 'ADMIN'],
      /already a member/,
    );
    expect(await roleOf(knex(), wsId, ownerId)).toBe('OWNER');
  });

  it('member set-role prints {id} and changes the role', async () => {
    expect(
      await ok(['member', 'set-role', '--workspace', wsId, '--user', analystId, '--role', 'admin'], ['id']),
    ).toEqual({ id: analystId });
    expect(await roleOf(knex(), wsId, analystId)).toBe('ADMIN');
  });

  it('member set-role of an unknown user fails', async () => {
    await fails(
      ['member', 'set-role', '--workspace', wsId, '--user', 'usr_nope', '--role', 'ADMIN'],
      /usr_nope is not a member/,
    );
  });

  it('key create prints {id, key}; only the sha256 hash of the key is stored', async () => {
    const out = await ok(
      ['key', 'create', '--workspace', wsId, '--user', ownerId, '--scopes', 'links:read, links:write'],
      ['id', 'key'],
    );
    expect(out.key).toMatch(/^mk_[0-9a-f]{64}$/);
    expect(out.id).toMatch(/^key_/);
    keyId = out.id;
    const row = await knex()('api_keys').where({ id: keyId }).first();
    expect(row).toMatchObject({
      workspace_id: wsId,
      user_id: ownerId,
      key_hash: sha256(out.key),
      scopes: 'links:read links:write',
    });
    expect(row.expires_at).toBeNull();
    expect(row.revoked_at).toBeNull();
    expect(JSON.stringify(Object.values(row))).not.toContain(out.key);
    expect(JSON.stringify(Object.values(row))).not.toContain(out.key.slice(3));
  });

  it('key create --name names the key, trimmed; a name past 100 characters is refused and nothing made', async () => {
    const keyNamed = (name: string) => [
      ...['key', 'create', '--workspace', wsId, '--user', ownerId, '--scopes', 'links:read'],
      ...['--name', name],
    ];
    const out = await ok(keyNamed('  nightly export '), ['id', 'key']);
    expect((await knex()('api_keys').where({ id: out.id }).first()).name).toBe('nightly export');
    const before = (await knex()('api_keys').count({ n: '*' }))[0].n;
    await fails(keyNamed('x'.repeat(101)), /--name must be at most 100 characters/);
    expect((await knex()('api_keys').count({ n: '*' }))[0].n).toBe(before);
    // Without --name a key has none, as every key made before names.
    const plain = await ok(
      ['key', 'create', '--workspace', wsId, '--user', ownerId, '--scopes', 'links:read'],
      ['id', 'key'],
    );
    expect((await knex()('api_keys').where({ id: plain.id }).first()).name).toBeNull();
  });

  it('key create --expires-at stores the instant, zone offset included', async () => {
    const out = await ok(
      [
        'key',
        'create',
        '--workspace',
        wsId,
        '--user',
        analystId,
        '--scopes',
        'analytics:read',
        '--expires-at',
        '2030-01-31T12:00:00+01:00',
      ],
      ['id', 'key'],
    );
    expect(out.key).toMatch(/^mk_[0-9a-f]{64}$/);
    const row = await knex()('api_keys').where({ id: out.id }).first();
    expect(Number(row.expires_at)).toBe(Date.UTC(2030, 0, 31, 11, 0, 0));
    expect(row.key_hash).toBe(sha256(out.key));
  });

  it("key create refuses scopes the person's role may not hold, naming them and the role", async () => {
    const add = async (email: string, role: string) =>
      (await ok(['member', 'add', '--workspace', wsId, '--email', email, '--role', role], ['id', 'setupUrl'])).id;
    const member = await add('keys-member@example.com', 'MEMBER');
    const analyst = await add('keys-analyst@example.com', 'ANALYST');
    const keyFor = (user: string, scopes: string) => [
      'key',
      'create',
      '--workspace',
      wsId,
      '--user',
      user,
      '--scopes',
      scopes,
    ];
    await fails(
      keyFor(member, 'links:read,webhooks:write'),
      /The role MEMBER may not hold the scope webhooks:write on an API key; it may hold links:read, .*, team:read/,
    );
    await fails(keyFor(analyst, 'links:read'), /The role ANALYST may not hold the scope links:read on an API key; it/);
    const [{ n }] = await knex()('api_keys').whereIn('user_id', [member, analyst]).count({ n: '*' });
    expect(Number(n)).toBe(0);
    expect(await ok(keyFor(member, 'links:read,webhooks:read'), ['id', 'key'])).toBeTruthy();
  });

  it('key create for someone who is not a member fails', async () => {
    await fails(
      ['key', 'create', '--workspace', ws2Id, '--user', analystId, '--scopes', 'links:read'],
      /is not a member/,
    );
    await fails(
      ['key', 'create', '--workspace', 'ws_nope', '--user', ownerId, '--scopes', 'links:read'],
      /workspace ws_nope not found/,
    );
  });

  it('key revoke prints {id, revoked:true} and marks the key revoked', async () => {
    expect(await ok(['key', 'revoke', '--id', keyId], ['id', 'revoked'])).toEqual({ id: keyId, revoked: true });
    const row = await knex()('api_keys').where({ id: keyId }).first();
    expect(Number(row.revoked_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('key revoke of an unknown key fails', async () => {
    await fails(['key', 'revoke', '--id', 'key_nope'], /key key_nope not found/);
  });

  // The interface: a departed member's key keeps working (except update and delete), so nothing is revoked.
  it('member remove prints {id} and removes the membership; the user and their keys stay', async () => {
    const live = await knex()('api_keys').where({ workspace_id: wsId, user_id: analystId }).whereNull('revoked_at');
    expect(live.length).toBe(1);
    expect(await ok(['member', 'remove', '--workspace', wsId, '--user', analystId], ['id'])).toEqual({ id: analystId });
    expect(await knex()('memberships').where({ workspace_id: wsId, user_id: analystId }).first()).toBeUndefined();
    expect(await knex()('users').where({ id: analystId }).first()).toBeDefined();
    expect(
      (await knex()('api_keys').where({ workspace_id: wsId, user_id: analystId }).whereNull('revoked_at')).length,
    ).toBe(1);
    // A second removal: no longer a member.
    await fails(['member', 'remove', '--workspace', wsId, '--user', analystId], /is not a member/);
  });

  it('tag create prints {id}, with a default or a given colour; a taken name fails', async () => {
    const a = await ok(['tag', 'create', '--workspace', wsId, '--name', 'Launch'], ['id']);
    const b = await ok(['tag', 'create', '--workspace', wsId, '--name', 'Spring', '--color', '#22c55e'], ['id']);
    expect(await knex()('tags').where({ id: a.id }).first()).toMatchObject({
      workspace_id: wsId,
      name: 'Launch',
      color: '#6b7280',
    });
    expect(await knex()('tags').where({ id: b.id }).first()).toMatchObject({
      workspace_id: wsId,
      name: 'Spring',
      color: '#22c55e',
    });
    await fails(['tag', 'create', '--workspace', wsId, '--name', 'Launch'], /tag named Launch already exists/);
  });

  it('domain add / verify / disable print {id} and move the status PENDING -> ACTIVE -> DISABLED', async () => {
    const { id } = await ok(['domain', 'add', '--workspace', wsId, '--host', 'Go.Example.com'], ['id']);
    expect(id).toMatch(/^dom_/);
    expect(await knex()('domains').where({ id }).first()).toMatchObject({
      workspace_id: wsId,
      host: 'go.example.com',
      status: 'PENDING',
    });
    expect(await ok(['domain', 'verify', '--id', id], ['id'])).toEqual({ id });
    const verified = await knex()('domains').where({ id }).first();
    expect(verified.status).toBe('ACTIVE');
    expect(verified.verified_at).not.toBeNull();
    expect(await ok(['domain', 'disable', '--id', id], ['id'])).toEqual({ id });
    expect((await knex()('domains').where({ id }).first()).status).toBe('DISABLED');
    // The host belongs to the workspace that verified it (disabled, it stays held).
    await fails(
      ['domain', 'add', '--workspace', ws2Id, '--host', 'go.example.com'],
      /go\.example\.com is already registered/,
    );
    await fails(['domain', 'verify', '--id', 'dom_nope'], /domain dom_nope not found/);
  });

  it('domain add / verify: claims block nobody, the first verification wins, a lapsed claim is refused', async () => {
    const host = 'claimed.example.com';
    const add = (workspace: string, name: string) => ['domain', 'add', '--workspace', workspace, '--host', name];
    const first = (await ok(add(wsId, host), ['id'])).id;
    const second = (await ok(add(ws2Id, host), ['id'])).id;
    await fails(add(wsId, host), /claimed\.example\.com is already added to this workspace/);
    expect(await ok(['domain', 'verify', '--id', second], ['id'])).toEqual({ id: second });
    await fails(['domain', 'verify', '--id', first], /claimed\.example\.com is already registered: another workspace/);
    expect((await knex()('domains').where({ id: first }).first()).status).toBe('PENDING');

    const late = (await ok(add(wsId, 'late.example.com'), ['id'])).id;
    await knex()('domains')
      .where({ id: late })
      .update({ created_at: Date.now() - 8 * 86_400_000 });
    await fails(['domain', 'verify', '--id', late], /claim on late\.example\.com lapsed at .* unverified; add the/);
    const fresh = (await ok(add(wsId, 'late.example.com'), ['id'])).id;
    expect(fresh).not.toBe(late);
    expect(await ok(['domain', 'verify', '--id', fresh], ['id'])).toEqual({ id: fresh });
  });

  it('campaign create prints {id}', async () => {
    const { id } = await ok(['campaign', 'create', '--workspace', wsId, '--name', 'Spring sale'], ['id']);
    expect(await knex()('campaigns').where({ id }).first()).toMatchObject({
      workspace_id: wsId,
      name: 'Spring sale',
      deleted_at: null,
    });
  });

  it('qr create prints {id, url} with the scan address on the short domain', async () => {
    const link = cliLink(wsId, ownerId, 'cli-qr');
    await insertLink(knex(), link, [], async () => []);
    linkId = link.id;
    const other = cliLink(ws2Id, ownerId, 'cli-other');
    await insertLink(knex(), other, [], async () => []);
    otherLinkId = other.id;

    const out = await ok(['qr', 'create', '--workspace', wsId, '--link', linkId], ['id', 'url']);
    const m = /^https:\/\/localhost:8443\/qr\/([a-z0-9]+)$/.exec(out.url);
    expect(m, out.url).not.toBeNull();
    expect(await knex()('qr_codes').where({ id: out.id }).first()).toMatchObject({
      workspace_id: wsId,
      link_id: linkId,
      code: m![1],
    });
  });

  it('qr create for an unknown link, or a link of another workspace, fails', async () => {
    await fails(['qr', 'create', '--workspace', wsId, '--link', 'lnk_nope'], /link lnk_nope not found/);
    await fails(['qr', 'create', '--workspace', wsId, '--link', otherLinkId], /not found/);
    expect(await knex()('qr_codes').where({ link_id: otherLinkId })).toEqual([]);
  });

  it('asset add prints {url} under PUBLIC_URL/assets/ and copies the file into DATA_DIR/assets', async () => {
    const { url } = await ok(['asset', 'add', '--workspace', wsId, '--file', path.join(files, 'logo.png')], ['url']);
    const m = /^https:\/\/localhost:8443\/assets\/(ast_[a-z0-9]+\.png)$/.exec(url);
    expect(m, url).not.toBeNull();
    const stored = path.join(dataDir, 'assets', m![1]);
    expect(fs.readFileSync(stored).equals(PNG)).toBe(true);
    expect(await knex()('assets').where({ file_name: m![1] }).first()).toMatchObject({
      workspace_id: wsId,
      content_type: 'image/png',
    });
  });

  it('asset add for an unknown workspace fails and copies nothing', async () => {
    const before = fs.readdirSync(path.join(dataDir, 'assets')).length;
    await fails(
      ['asset', 'add', '--workspace', 'ws_nope', '--file', path.join(files, 'logo.png')],
      /workspace ws_nope not found/,
    );
    expect(fs.readdirSync(path.join(dataDir, 'assets')).length).toBe(before);
  });

  it('asset add that cannot write the file fails cleanly, leaves no row, and does not block the next one', async () => {
    const broken = tmpDir('shortlink-cli-broken-');
    try {
      fs.writeFileSync(path.join(broken, 'assets'), 'not a directory');
      const before = Number((await knex()('assets').count({ n: '*' }))[0].n);
      await fails(
        ['asset', 'add', '--workspace', wsId, '--file', path.join(files, 'photo.jpg')],
        /cannot store the asset/,
        { DATA_DIR: broken },
      );
      expect(Number((await knex()('assets').count({ n: '*' }))[0].n)).toBe(before);
    } finally {
      fs.rmSync(broken, { recursive: true, force: true });
    }
    // ASSET_BASE_URL without its trailing slash still yields one slash.
    const { url } = await ok(['asset', 'add', '--workspace', wsId, '--file', path.join(files, 'photo.jpg')], ['url'], {
      ASSET_BASE_URL: 'https://cdn.example.com/img',
    });
    const m = /^https:\/\/cdn\.example\.com\/img\/(ast_[a-z0-9]+\.jpg)$/.exec(url);
    expect(m, url).not.toBeNull();
    expect(fs.readFileSync(path.join(dataDir, 'assets', m![1])).equals(JPEG)).toBe(true);
    expect(await knex()('assets').where({ file_name: m![1] }).first()).toMatchObject({ content_type: 'image/jpeg' });
  });

  it('link policy-disable prints {id}; the link is DISABLED and policy-locked', async () => {
    expect(await ok(['link', 'policy-disable', '--id', linkId], ['id'])).toEqual({ id: linkId });
    const row = await knex()('links').where({ id: linkId }).first();
    expect(row.status).toBe('DISABLED');
    expect(Boolean(row.policy_locked)).toBe(true);
    await fails(['link', 'policy-disable', '--id', 'lnk_nope'], /link lnk_nope not found/);
  });

  it('retention run prints {clicksDeleted, conversionsDeleted, auditEntriesDeleted, partitionsCreated} and deletes raw clicks older than 90 days', async () => {
    const old = Date.now() - 91 * 86_400_000;
    await knex()('clicks').insert([
      { workspace_id: wsId, link_id: linkId, occurred_at: old },
      { workspace_id: wsId, link_id: linkId, occurred_at: Date.now() },
    ]);
    const out = await ok(
      ['retention', 'run'],
      ['clicksDeleted', 'conversionsDeleted', 'auditEntriesDeleted', 'partitionsCreated'],
    );
    // On Postgres the migration made the days ahead already.
    expect(out).toEqual({ clicksDeleted: 1, conversionsDeleted: 0, auditEntriesDeleted: 0, partitionsCreated: 0 });
    expect(await knex()('clicks').where({ link_id: linkId }).pluck('occurred_at')).toHaveLength(1);
  });

  it('webhook deliveries lists the outbox newest first; replay takes FAILED Variant B only; resolve takes UNKNOWN only', async () => {
    const key = Buffer.alloc(32, 7);
    const subA = await seedSubscription(knex(), key, {
      url: 'https://hooks.example.com/a',
      variant: 'A',
      workspaceId: wsId,
    });
    const subB = await seedSubscription(knex(), key, {
      url: 'https://hooks.example.com/b',
      variant: 'B',
      workspaceId: wsId,
    });
    const other = await seedSubscription(knex(), key, {
      url: 'https://hooks.example.com/o',
      variant: 'B',
      workspaceId: ws2Id,
    });
    const t = Date.UTC(2026, 0, 1);
    const row = (sub: SeededSubscription, minute: number, fields: Record<string, unknown>) => ({
      ...deliveryRow(sub, { occurredAt: t }),
      created_at: t + minute * 60_000,
      ...fields,
    });
    const failedB = row(subB, 1, {
      status: 'FAILED',
      attempts: 6,
      last_status_code: 500,
      last_error: 'HTTP 500',
      finished_at: t + 90_000_000,
    });
    const unknownA = row(subA, 2, {
      status: 'UNKNOWN',
      attempts: 1,
      last_error: 'no answer within 10000 ms after the request was sent',
      finished_at: t + 200_000,
    });
    const failedA = row(subA, 3, {
      status: 'FAILED',
      attempts: 1,
      last_status_code: 404,
      last_error: 'HTTP 404',
      finished_at: t + 200_000,
    });
    const pendingB = row(subB, 4, {
      status: 'PENDING',
      attempts: 2,
      last_status_code: 503,
      last_error: 'HTTP 503',
      next_attempt_at: t + 300_000,
    });
    const elsewhere = row(other, 5, {
      status: 'DELIVERED',
      attempts: 1,
      last_status_code: 200,
      finished_at: t + 301_000,
    });
    await knex()('webhook_deliveries').insert([failedB, unknownA, failedA, pendingB, elsewhere]);

    const listed = (await ok(['webhook', 'deliveries', '--workspace', wsId], ['data'])).data;
    expect(listed.map((d: any) => d.id)).toEqual([pendingB.id, failedA.id, unknownA.id, failedB.id]);
    for (const d of listed) {
      expect(Object.keys(d).sort()).toEqual([...DELIVERY_KEYS].sort());
    }
    expect(listed[0]).toEqual({
      id: pendingB.id,
      subscriptionId: subB.id,
      variant: 'B',
      eventType: 'link.created',
      eventId: pendingB.event_id,
      test: false,
      status: 'PENDING',
      attempts: 2,
      lastStatusCode: 503,
      lastError: 'HTTP 503',
      createdAt: new Date(t + 4 * 60_000).toISOString(),
      nextAttemptAt: new Date(t + 300_000).toISOString(),
      finishedAt: null,
    });
    expect(listed[3]).toMatchObject({
      id: failedB.id,
      status: 'FAILED',
      attempts: 6,
      nextAttemptAt: null,
      finishedAt: new Date(t + 90_000_000).toISOString(),
    });
    expect(JSON.stringify(listed)).not.toMatch(/secret|launch-1/);
    expect(
      (await ok(['webhook', 'deliveries', '--workspace', wsId, '--status', 'failed'], ['data'])).data.map(
        (d: any) => d.id,
      ),
    ).toEqual([failedA.id, failedB.id]);
    const everything = (await ok(['webhook', 'deliveries'], ['data'])).data.map((d: any) => d.id);
    expect(everything.slice(0, 5)).toEqual([elsewhere.id, pendingB.id, failedA.id, unknownA.id, failedB.id]);
    expect((await ok(['webhook', 'deliveries', '--limit', '2'], ['data'])).data).toHaveLength(2);

    // replay: a FAILED Variant B delivery becomes PENDING again under the same id, for a new round.
    expect(await ok(['webhook', 'replay', '--delivery', failedB.id], ['id', 'status'])).toEqual({
      id: failedB.id,
      status: 'PENDING',
    });
    expect(await knex()('webhook_deliveries').where({ id: failedB.id }).first()).toMatchObject({
      status: 'PENDING',
      attempts: 6,
      round_start: 6,
      replays: 1,
      finished_at: null,
    });
    await fails(
      ['webhook', 'replay', '--delivery', failedB.id],
      new RegExp(`delivery ${failedB.id} is PENDING: only FAILED deliveries can be replayed`),
    );
    await fails(
      ['webhook', 'replay', '--delivery', failedA.id],
      /is a Variant A delivery: only Variant B deliveries can be replayed/,
    );
    expect((await knex()('webhook_deliveries').where({ id: failedA.id }).first()).status).toBe('FAILED');

    // resolve: a person's judgement of an UNKNOWN delivery, once.
    expect(
      await ok(['webhook', 'resolve', '--delivery', unknownA.id, '--outcome', 'delivered'], ['id', 'status']),
    ).toEqual({ id: unknownA.id, status: 'DELIVERED' });
    const resolved = await knex()('webhook_deliveries').where({ id: unknownA.id }).first();
    expect(resolved.status).toBe('DELIVERED');
    expect(Number(resolved.resolved_at)).toBeGreaterThan(0);
    await fails(
      ['webhook', 'resolve', '--delivery', unknownA.id, '--outcome', 'FAILED'],
      /is DELIVERED: only UNKNOWN deliveries can be resolved/,
    );
    await fails(
      ['webhook', 'resolve', '--delivery', failedA.id, '--outcome', 'DELIVERED'],
      /is FAILED: only UNKNOWN deliveries can be resolved/,
    );
  });

  it("webhook create / update / delete: the public endpoints' rules, Variant A's secret printed once and stored sealed", async () => {
    const a = await ok(webhookCreate(wsId, 'a', 'https://hooks.example.com/cli-a', 'link.created, link.deleted'), [
      'id',
      'variant',
      'secret',
    ]);
    expect(a).toEqual({
      id: expect.stringMatching(/^whk_/),
      variant: 'A',
      secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/),
    });
    const stored = await knex()('webhook_subscriptions').where({ id: a.id }).first();
    expect(stored).toMatchObject({
      workspace_id: wsId,
      variant: 'A',
      url: 'https://hooks.example.com/cli-a',
      events: JSON.stringify(['link.created', 'link.deleted']),
    });
    expect(JSON.stringify(stored)).not.toContain(a.secret);

    const b = await ok(
      webhookCreate(wsId, 'B', 'https://hooks.example.com/cli-b', 'link.clicked', 'a-secret-of-20-chars'),
      ['id', 'variant'],
    );
    expect(b).toEqual({ id: expect.stringMatching(/^whk_/), variant: 'B' });
    expect(JSON.stringify(await knex()('webhook_subscriptions').where({ id: b.id }).first())).not.toContain(
      'a-secret-of-20-chars',
    );

    // The refusals of POST /api/webhooks and POST /api/v1/webhooks, nothing written.
    const before = (await knex()('webhook_subscriptions').count({ n: '*' }).first())!.n;
    await fails(webhookCreate(wsId, 'A', 'http://hooks.example.com/x', 'link.created'), /url must use https/);
    await fails(
      webhookCreate(wsId, 'A', 'https://hooks.example.com/x', 'click.recorded'),
      /retired event names that can no longer be subscribed to: "click.recorded"/,
    );
    await fails(
      webhookCreate(wsId, 'A', 'https://hooks.example.com/x', 'link.created', 'mine-mine-mine-mine'),
      /secret is chosen by the service for Variant A/,
    );
    await fails(
      webhookCreate(wsId, 'B', 'https://hooks.example.com/x', 'link.clicked', 'short'),
      /secret must be at least 16 characters/,
    );
    await fails(
      webhookCreate(wsId, 'B', 'https://hooks.example.com/x', 'report.shared', 'a-secret-of-20-chars'),
      /unknown event names: "report.shared"/,
    );
    await fails(
      webhookCreate(wsId, 'C', 'https://hooks.example.com/x', 'link.created'),
      /--variant must be one of A, B/,
    );
    await fails(
      webhookCreate('ws_nope', 'A', 'https://hooks.example.com/x', 'link.created'),
      /workspace ws_nope not found/,
    );
    await fails(
      webhookCreate(wsId, 'B', 'https://hooks.example.com/x', 'link.clicked', 'a-secret-of-20-chars'),
      /not offered by this deployment/,
      { WEBHOOK_VARIANTS: 'A' },
    );
    expect((await knex()('webhook_subscriptions').count({ n: '*' }).first())!.n).toEqual(before);

    const changed = await ok(
      [
        'webhook',
        'update',
        '--subscription',
        a.id,
        '--url',
        'https://hooks.example.com/cli-a2',
        '--events',
        'domain.verified',
        '--enabled',
        'false',
      ],
      ['id', 'variant', 'url', 'events', 'enabled', 'createdAt', 'failingSince', 'disabledAt', 'disabledReason'],
    );
    expect(changed).toMatchObject({
      id: a.id,
      url: 'https://hooks.example.com/cli-a2',
      events: ['domain.verified'],
      enabled: false,
    });
    await fails(
      ['webhook', 'update', '--subscription', b.id, '--url', 'https://hooks.example.com/y'],
      /Variant B subscriptions cannot be changed/,
    );
    await fails(
      ['webhook', 'update', '--subscription', a.id, '--enabled', 'maybe'],
      /--enabled must be one of true, false/,
    );

    expect(await ok(['webhook', 'delete', '--subscription', a.id], ['id', 'deleted'])).toEqual({
      id: a.id,
      deleted: true,
    });
    expect(await ok(['webhook', 'delete', '--subscription', b.id], ['id', 'deleted'])).toEqual({
      id: b.id,
      deleted: true,
    });
    await fails(['webhook', 'delete', '--subscription', a.id], new RegExp(`subscription ${a.id} not found`));
    const listed = (await ok(['webhook', 'subscriptions', '--workspace', wsId], ['data'])).data.map((s: any) => s.id);
    expect(listed).not.toContain(a.id);
    expect(listed).not.toContain(b.id);
  });

  it("page list / publish / unpublish: the dashboard's published state, page.published included", async () => {
    const now = Date.now();
    const draft = JSON.stringify({
      title: 'Acme links',
      bio: null,
      avatarUrl: null,
      theme: 'classic',
      blocks: [{ id: 'blk_0123456789', type: 'link', text: 'Go', linkId }],
    });
    await knex()('bio_pages').insert({
      id: 'pg_cli',
      workspace_id: wsId,
      handle: 'acme-cli',
      status: 'ACTIVE',
      draft,
      published: null,
      published_at: null,
      created_by: ownerId,
      created_at: now,
      updated_at: now,
    });
    const listed = await ok(['page', 'list', '--workspace', wsId], ['data']);
    expect(listed.data).toEqual([
      expect.objectContaining({
        id: 'pg_cli',
        handle: 'acme-cli',
        url: `https://localhost:8443/@acme-cli`,
        published: false,
        publishedAt: null,
        title: 'Acme links',
        status: 'ACTIVE',
      }),
    ]);
    expect(listed.data[0].blocks).toEqual([
      expect.objectContaining({
        id: 'blk_0123456789',
        type: 'link',
        linkId,
        shortUrl: expect.stringMatching(/^https:\/\/localhost:8443\//),
      }),
    ]);
    const sub = await seedSubscription(knex(), Buffer.alloc(32, 7), {
      url: 'https://hooks.example.com/pages',
      variant: 'A',
      workspaceId: wsId,
      events: ['page.published'],
    });

    const published = await ok(
      ['page', 'publish', '--id', 'pg_cli'],
      ['id', 'handle', 'url', 'published', 'publishedAt'],
    );
    expect(published).toMatchObject({ id: 'pg_cli', handle: 'acme-cli', published: true });
    const row = await knex()('bio_pages').where({ id: 'pg_cli' }).first();
    expect(row.published).toBe(draft);
    expect(new Date(published.publishedAt).getTime()).toBe(Number(row.published_at));
    // page.published is in the outbox with the change, for the subscription that wants it.
    const events = await knex()('webhook_deliveries').where({ subscription_id: sub.id });
    expect(events.map((e: any) => e.event_type)).toEqual(['page.published']);
    // The services learn of it through the change feed.
    const changes = async () =>
      Number((await knex()('link_changes').where({ kind: 'page', slug: 'acme-cli' }).count({ n: '*' }).first())!.n);
    expect(await changes()).toBe(1);

    expect(
      await ok(['page', 'unpublish', '--id', 'pg_cli'], ['id', 'handle', 'url', 'published', 'publishedAt']),
    ).toMatchObject({ id: 'pg_cli', published: false, publishedAt: null });
    expect((await knex()('bio_pages').where({ id: 'pg_cli' }).first()).published).toBeNull();
    expect(await changes()).toBe(2);
    await fails(['page', 'publish', '--id', 'pg_nope'], /page pg_nope not found/);
    await fails(['page', 'list', '--workspace', 'ws_nope'], /workspace ws_nope not found/);
    await fails(['page', 'publish'], /--id is required/);
  });
});

// Mistakes in the command line itself: found before anything is written, whatever the engine,
// so they run once (concurrently) against SQLite.
describe('shortlink command-line mistakes', () => {
  let database: TestDatabase;
  let db: Database;
  let dataDir: string;
  let files: string;
  let env: Record<string, string>;
  let wsId: string;
  let userId: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    db = openDatabase(database.url);
    await migrateLatest(db);
    wsId = await createWorkspace(db.knex, 'Mistakes', 'growth');
    userId = await addMember(db.knex, wsId, 'someone@example.com', 'OWNER');
    dataDir = tmpDir('shortlink-cli-data-');
    files = tmpDir('shortlink-cli-files-');
    fs.writeFileSync(path.join(files, 'notes.txt'), 'hello');
    fs.writeFileSync(path.join(files, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    fs.writeFileSync(path.join(files, 'fake.png'), '<html>not an image</html>');
    env = { DATABASE_URL: database.url, DATA_DIR: dataDir, PUBLIC_URL, LOG_LEVEL: 'silent' };
  });
  afterAll(async () => {
    // Nothing any of these commands did may have left a row or a file behind.
    const counts = await Promise.all(
      ['workspaces', 'memberships', 'api_keys', 'tags', 'domains', 'assets'].map(async (t) => [
        t,
        Number((await db.knex(t).count({ n: '*' }))[0].n),
      ]),
    );
    expect(Object.fromEntries(counts)).toEqual({
      workspaces: 1,
      memberships: 1,
      api_keys: 0,
      tags: 0,
      domains: 0,
      assets: 0,
    });
    expect(fs.existsSync(path.join(dataDir, 'assets')) ? fs.readdirSync(path.join(dataDir, 'assets')) : []).toEqual([]);
    await db?.knex.destroy();
    await database?.drop();
    for (const dir of [dataDir, files]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** `key create` for workspace W and user U, expiring at `when`. */
  const keyExpiringAt = (when: string) => [
    'key',
    'create',
    '--workspace',
    'W',
    '--user',
    'U',
    '--scopes',
    'links:read',
    '--expires-at',
    when,
  ];
  // [arguments, expected message]; W, U and F stand for the workspace, the user and the files directory.
  const cases: [string, string[], RegExp][] = [
    ['an unknown command', ['frobnicate'], /unknown command: frobnicate/],
    ['no command at all', [], /unknown command/],
    ['a group without its command', ['workspace', 'frob'], /unknown command: workspace frob/],
    ['a missing required flag', ['workspace', 'create'], /--name is required/],
    ['a flag without its value', ['workspace', 'create', '--name'], /--name/],
    ['a blank required flag', ['tag', 'create', '--workspace', 'W', '--name', '   '], /--name is required/],
    ['an unknown flag', ['workspace', 'create', '--name', 'X', '--bogus', '1'], /Unknown option '--bogus'/],
    ['an unknown flag on migrate', ['migrate', '--force'], /Unknown option '--force'/],
    ['a stray positional argument', ['domain', 'verify', '--id', 'dom_x', 'extra'], /Unexpected argument 'extra'/],
    [
      'a bad --plan on create',
      ['workspace', 'create', '--name', 'X', '--plan', 'enterprise'],
      /--plan must be one of free, pro, growth, business/,
    ],
    [
      'a bad --plan on set-plan',
      ['workspace', 'set-plan', '--workspace', 'W', '--plan', 'gold'],
      /--plan must be one of/,
    ],
    [
      'a bad --role on add',
      ['member', 'add', '--workspace', 'W', '--email', 'new@example.com', '--role', 'boss'],
      /--role must be one of OWNER, ADMIN, MEMBER, ANALYST/,
    ],
    [
      'a bad --role on set-role',
      ['member', 'set-role', '--workspace', 'W', '--user', 'U', '--role', 'root'],
      /--role must be one of/,
    ],
    [
      'a bad --email',
      ['member', 'add', '--workspace', 'W', '--email', 'not-an-address', '--role', 'MEMBER'],
      /--email must be an e-mail address/,
    ],
    [
      'an unknown scope',
      ['key', 'create', '--workspace', 'W', '--user', 'U', '--scopes', 'links:read,links:delete'],
      /unknown scopes: links:delete/,
    ],
    [
      'no scope at all',
      ['key', 'create', '--workspace', 'W', '--user', 'U', '--scopes', ','],
      /--scopes needs at least one/,
    ],
    ...[
      ['a word as --expires-at', 'tomorrow'],
      ['a day that does not exist', '2030-02-30'],
      ['a bare number as --expires-at', '1'],
      ['a US date as --expires-at', '12/31/2030'],
      ['a time without a zone', '2030-01-01T10:00'],
    ].map(([name, when]): [string, string[], RegExp] => [
      name,
      keyExpiringAt(when),
      /--expires-at must be an ISO 8601/,
    ]),
    ['an --expires-at in the past', keyExpiringAt('2020-01-01T00:00:00Z'), /--expires-at must be in the future/],
    [
      'a host with a port',
      ['domain', 'add', '--workspace', 'W', '--host', 'go.example.com:8443'],
      /--host must be a host name/,
    ],
    [
      'a URL as host',
      ['domain', 'add', '--workspace', 'W', '--host', 'https://go.example.com/'],
      /--host must be a host name/,
    ],
    [
      "the service's own short domain as host",
      ['domain', 'add', '--workspace', 'W', '--host', 'sho.rt'],
      /own short domain/,
    ],
    [
      'a tag colour longer than its column',
      ['tag', 'create', '--workspace', 'W', '--name', 'x', '--color', 'c'.repeat(40)],
      /--color must be at most 32 characters/,
    ],
    [
      'a workspace name longer than its column',
      ['workspace', 'create', '--name', 'n'.repeat(201)],
      /--name must be at most 200 characters/,
    ],
    [
      'a non-image asset',
      ['asset', 'add', '--workspace', 'W', '--file', 'F/notes.txt'],
      /--file must be a \.png, \.jpg, \.jpeg, \.gif or \.webp image/,
    ],
    ['an SVG asset', ['asset', 'add', '--workspace', 'W', '--file', 'F/logo.svg'], /--file must be a \.png/],
    [
      'a missing asset file',
      ['asset', 'add', '--workspace', 'W', '--file', 'F/missing.png'],
      /missing\.png does not exist/,
    ],
    ['a text file named .png', ['asset', 'add', '--workspace', 'W', '--file', 'F/fake.png'], /is not a png image/],
    [
      'goal create with an unknown type',
      ['goal', 'create', '--workspace', 'W', '--name', 'G', '--type', 'CLICKS'],
      /--type must be one of signup, lead, purchase, booking, download, custom/,
    ],
    [
      'goal set-status of an unknown goal',
      ['goal', 'set-status', '--id', 'g', '--status', 'PAUSED'],
      /goal g not found/,
    ],
    [
      'webhook deliveries with an unknown --status',
      ['webhook', 'deliveries', '--status', 'LOST'],
      /--status must be one of PENDING, SENDING, DELIVERED, FAILED, UNKNOWN/,
    ],
    [
      'webhook deliveries with a --limit of 0',
      ['webhook', 'deliveries', '--limit', '0'],
      /--limit must be a whole number from 1 to 1000/,
    ],
    [
      'webhook deliveries of an unknown workspace',
      ['webhook', 'deliveries', '--workspace', 'ws_nope'],
      /workspace ws_nope not found/,
    ],
    ['webhook replay without --delivery', ['webhook', 'replay'], /--delivery is required/],
    [
      'webhook replay of an unknown delivery',
      ['webhook', 'replay', '--delivery', 'dlv_nope'],
      /delivery dlv_nope not found/,
    ],
    ['webhook resolve without --outcome', ['webhook', 'resolve', '--delivery', 'dlv_nope'], /--outcome is required/],
    [
      'webhook resolve with an --outcome that is not a judgement',
      ['webhook', 'resolve', '--delivery', 'dlv_nope', '--outcome', 'UNKNOWN'],
      /--outcome must be one of DELIVERED, FAILED/,
    ],
    [
      'webhook resolve of an unknown delivery',
      ['webhook', 'resolve', '--delivery', 'dlv_nope', '--outcome', 'FAILED'],
      /delivery dlv_nope not found/,
    ],
  ];

  it.concurrent.each(cases)('%s fails with a one-line message', async (_title, raw, message) => {
    const args = raw.map((a) => a.replace(/^W$/, wsId).replace(/^U$/, userId).replace(/^F\//, `${files}/`));
    const result = await runCli(args, { ...env, SHORT_DOMAIN: 'sho.rt' });
    expectFailure(args, result, message);
  });

  it.concurrent('a DATABASE_URL of an unknown kind fails with a one-line message', async () => {
    const args = ['migrate'];
    expectFailure(
      args,
      await runCli(args, { ...env, DATABASE_URL: 'mysql://localhost/x' }),
      /DATABASE_URL must start with sqlite: or postgres:\/\//,
    );
  });

  it.concurrent('an unreachable database fails with a one-line message', async () => {
    const args = ['workspace', 'create', '--name', 'X'];
    expectFailure(
      args,
      await runCli(args, { ...env, DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:1/nothing' }),
      /ECONNREFUSED/,
    );
  });
});
