// Who is asking comes before what was sent: every operation that needs a key answers a missing,
// invalid, revoked, expired or free-plan key with 401, and a spent key with 429, whatever its
// body holds (a NUL character, malformed JSON, too many bytes, a field the schema refuses); only
// a usable key gets the body's 400 or 413. The public operations answer as before, keys or not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../../src/db/repos/api-keys';
import { testEngines } from '../support/databases';
import { API_SCOPES, seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type RequestOptions, type TestServer } from '../support/server';

/** Bodies that fail before any handler runs, with what a usable key gets for them. */
const BAD_BODIES: Array<[string, RequestOptions, number]> = [
  [
    'a NUL character',
    { body: { url: 'https://example.com/\u0000', title: 'a\u0000b', eventType: 'sign\u0000up', events: ['\u0000'] } },
    400,
  ],
  [
    'malformed JSON',
    { rawBody: '{"url": "https://example.com",', headers: { 'content-type': 'application/json' } },
    400,
  ],
  ['a body over 64 KiB', { body: { title: 'x'.repeat(70_000) } }, 413],
  [
    'a body the schema refuses',
    { body: { url: 42, eventType: 42, events: 42, enabled: 'no', secret: 42, workspaceId: 42 } },
    400,
  ],
  ['a text/plain body', { rawBody: 'url=https://example.com', headers: { 'content-type': 'text/plain' } }, 400],
];

describe.each(testEngines())('the key is checked before the body on %s', (engine) => {
  let server: TestServer;
  let owner: Seeded;
  let ids: { link: string; webhookA: string };
  const knex = () => server.services.db.knex;

  /** Every operation that needs a key and takes a body. */
  const bodyOps = () =>
    [
      ['createLink', 'POST', '/api/v1/links'],
      ['updateLink', 'PATCH', `/api/v1/links/${ids.link}`],
      ['recordConversion', 'POST', '/api/v1/conversions'],
      ['createWebhook', 'POST', '/api/webhooks'],
      ['updateWebhook', 'PATCH', `/api/webhooks/${ids.webhookA}`],
      ['createWebhookV1', 'POST', '/api/v1/webhooks'],
    ] as const;

  beforeAll(async () => {
    server = await startTestServer(engine);
    owner = await seedWorkspace(knex(), { scopes: API_SCOPES });
    const link = await server.request('POST', '/api/v1/links', {
      key: owner.key,
      body: { url: 'https://example.com/a' },
    });
    const hook = await server.request('POST', '/api/webhooks', {
      key: owner.key,
      body: { workspaceId: owner.workspaceId, url: 'https://hooks.example.com/a', events: ['link.created'] },
    });
    expect([link.status, hook.status]).toEqual([201, 201]);
    ids = { link: link.body.data.id, webhookA: hook.body.data.id };
  });
  afterAll(async () => server?.stop());

  async function unusableKeys(): Promise<Array<[string, string | undefined, RegExp]>> {
    const revoked = await createKey(knex(), owner.workspaceId, owner.userId, API_SCOPES, null);
    await revokeKey(knex(), revoked.id);
    const expired = await createKey(knex(), owner.workspaceId, owner.userId, API_SCOPES, Date.now() - 1000);
    const free = await seedWorkspace(knex(), { plan: 'free', scopes: API_SCOPES });
    return [
      ['no key', undefined, /Authorization/],
      ['a malformed key', 'not-a-key', /Malformed API key/],
      ['an unknown key', `mk_${'0'.repeat(64)}`, /Unknown API key/],
      ['a revoked key', revoked.key, /revoked/],
      ['an expired key', expired.key, /expired/],
      ['a free-plan key', free.key, /paid plan/],
    ];
  }

  it.each(BAD_BODIES)(
    '%s: 401 for every operation that takes a body and a key that cannot be used',
    async (_what, body) => {
      for (const [who, key, message] of await unusableKeys()) {
        for (const [op, method, path] of bodyOps()) {
          const res = await server.request(method, path, { ...body, key });
          expect(res.status, `${op} with ${who}: ${res.text.slice(0, 200)}`).toBe(401);
          expect(res.body.error, `${op} with ${who}`).toMatch(message);
        }
      }
    },
  );

  it.each(BAD_BODIES)("%s: a usable key gets the body's own answer (%#)", async (_what, body, status) => {
    const key = (await createKey(knex(), owner.workspaceId, owner.userId, API_SCOPES, null)).key;
    for (const [op, method, path] of bodyOps()) {
      const res = await server.request(method, path, { ...body, key });
      expect(res.status, `${op}: ${res.text.slice(0, 200)}`).toBe(status);
    }
  });

  it('a key without the scope gets 403 before its body is looked at', async () => {
    const key = (await createKey(knex(), owner.workspaceId, owner.userId, ['links:read'], null)).key;
    for (const [op, method, path] of bodyOps()) {
      const res = await server.request(method, path, { ...BAD_BODIES[0][1], key });
      expect(res.status, `${op}: ${res.text.slice(0, 200)}`).toBe(403);
    }
  });

  it('a spent key gets 429 with its headers, whatever the body; its bad bodies counted once each', async () => {
    const key = (await createKey(knex(), owner.workspaceId, owner.userId, API_SCOPES, null)).key;
    // 60 requests a minute: each bad body costs one, as any request made with a valid key does.
    for (let i = 0; i < 60; i++) {
      const [op, method, path] = bodyOps()[i % bodyOps().length];
      const res = await server.request(method, path, { ...BAD_BODIES[i % BAD_BODIES.length][1], key });
      expect(res.status, `${op} request ${i + 1}`).not.toBe(429);
    }
    for (const [op, method, path] of bodyOps()) {
      for (const [, body] of BAD_BODIES) {
        const res = await server.request(method, path, { ...body, key });
        expect(res.status, `${op}: ${res.text.slice(0, 200)}`).toBe(429);
        expect(res.headers['x-ratelimit-limit']).toBe('60');
        expect(res.headers['retry-after']).toBeTruthy();
      }
    }
  });

  it('the public operations answer as before, with or without a key, and count against no key', async () => {
    const key = (await createKey(knex(), owner.workspaceId, owner.userId, API_SCOPES, null)).key;
    for (const k of [undefined, 'not-a-key', `mk_${'0'.repeat(64)}`, key]) {
      expect((await server.request('GET', '/healthz', { key: k })).status).toBe(200);
      expect((await server.request('GET', '/readyz', { key: k })).status).toBe(200);
      const schema = await server.request('GET', '/api/public/events/schema', { key: k });
      expect(schema.status).toBe(200);
      expect(schema.body.retired).toEqual([{ name: 'click.recorded' }, { name: 'subscription.updated' }]);
    }
    // A route no operation has is 404 whatever the key, as before.
    expect((await server.request('POST', '/api/v1/nothing', { body: {}, key: 'not-a-key' })).status).toBe(404);
    // The key was counted for none of the public requests: its 60 are all left.
    for (let i = 0; i < 60; i++)
      expect((await server.request('GET', '/api/v1/links?limit=1', { key })).status).toBe(200);
  });
});
