// Webhook subscriptions of both variants and the public event catalogue, through HTTPS on
// every database engine.
import fs from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Scope } from '../../src/domain/access';
import { removeMember, setRole } from '../../src/db/repos/workspaces';
import { createKey } from '../../src/db/repos/api-keys';
import { openSecret } from '../../src/webhooks/secrets';
import { testEngines } from '../support/databases';
import { seedMemberKey, seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';
import { SECRET_B, subscriptionBodyA, subscriptionBodyB } from '../support/subscriptions';

const WEBHOOK_SCOPES: Scope[] = ['webhooks:read', 'webhooks:write'];
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

/** The AsyncAPI document read here on its own, to hold the service's catalogue to it. */
function asyncapi(variant: 'a' | 'b') {
  const doc = JSON.parse(fs.readFileSync(new URL(`../../generated/asyncapi-${variant}.json`, import.meta.url), 'utf8'));
  return {
    names: Object.values<any>(doc.components.messages).map((m) => m.name as string),
    retired: (doc['x-retired-events'] as Array<{ name: string }>).map((r) => r.name),
  };
}

describe.each(testEngines())('webhook subscriptions on %s', (engine) => {
  let server: TestServer;
  let owner: Seeded;
  let other: Seeded;
  const knex = () => server.services.db.knex;
  const freshKey = async (who: Seeded, scopes: Scope[] = WEBHOOK_SCOPES) =>
    (await createKey(knex(), who.workspaceId, who.userId, scopes, null)).key;
  const createA = (body: object, key = owner.key) => server.request('POST', '/api/webhooks', { key, body });
  const createB = (body: object, key = owner.key) => server.request('POST', '/api/v1/webhooks', { key, body });
  const bodyA = (extra: object = {}) => subscriptionBodyA(owner.workspaceId, extra);
  const bodyB = subscriptionBodyB;

  beforeAll(async () => {
    server = await startTestServer(engine);
    owner = await seedWorkspace(knex(), { scopes: WEBHOOK_SCOPES });
    other = await seedWorkspace(knex(), { scopes: WEBHOOK_SCOPES });
  });
  // A fresh key per test: each key has its own 60-requests-a-minute budget.
  beforeEach(async () => {
    owner = { ...owner, key: await freshKey(owner) };
    other = { ...other, key: await freshKey(other) };
  });
  afterAll(async () => server?.stop());

  describe('Variant A', () => {
    it('creates a subscription: 201 with the generated secret shown once, enabled, duplicates counted once', async () => {
      const res = await createA(bodyA({ events: ['link.created', 'link.updated', 'link.created'] }));
      expect(res.status).toBe(201);
      expect(res.headers['x-service-request-id']).toBeTruthy();
      expect(res.body.success).toBe(true);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(['createdAt', 'enabled', 'events', 'id', 'secret', 'url']);
      expect(data).toMatchObject({
        url: 'https://hooks.example.com/a',
        events: ['link.created', 'link.updated'],
        enabled: true,
      });
      expect(data.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
      expect(Date.parse(data.createdAt)).not.toBeNaN();

      const second = await createA(bodyA());
      expect(second.body.data.secret).not.toBe(data.secret);
    });

    it('stores the secret only sealed under MASTER_KEY, never in clear', async () => {
      const res = await createA(bodyA());
      const secret = res.body.data.secret as string;
      const row = await knex()('webhook_subscriptions').where({ id: res.body.data.id }).first();
      expect(row.variant).toBe('A');
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(JSON.stringify(row)).not.toContain(secret.slice(6));
      expect(row.secret_encrypted).toMatch(/^v1\./);
      expect(openSecret(server.services.masterKey, row.secret_encrypted)).toBe(secret);
    });

    it('lists the workspace’s subscriptions newest first without secrets, and not Variant B ones', async () => {
      const first = await createA(bodyA({ url: 'https://hooks.example.com/first' }));
      await new Promise((r) => setTimeout(r, 5));
      const second = await createA(bodyA({ url: 'https://hooks.example.com/second' }));
      const b = await createB(bodyB());
      const theirs = await createA({ ...bodyA(), workspaceId: other.workspaceId }, other.key);
      const res = await server.request('GET', '/api/webhooks', { key: owner.key });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const ids = res.body.data.map((s: any) => s.id);
      expect(ids.indexOf(second.body.data.id)).toBeLessThan(ids.indexOf(first.body.data.id));
      expect(ids.indexOf(first.body.data.id)).toBeGreaterThanOrEqual(0);
      expect(ids).not.toContain(b.body.id);
      expect(ids).not.toContain(theirs.body.data.id);
      for (const s of res.body.data) {
        expect(Object.keys(s).sort()).toEqual(['createdAt', 'enabled', 'events', 'id', 'url']);
        expect(JSON.stringify(s)).not.toContain('whsec_');
      }
      const times = res.body.data.map((s: any) => Date.parse(s.createdAt));
      expect([...times].sort((x, y) => y - x)).toEqual(times);
    });

    it.each(['http://hooks.example.com/a', 'HTTP://hooks.example.com/a'])(
      'refuses the plain-http URL %s with 400',
      async (url) => {
        const res = await createA(bodyA({ url }));
        expect(res.status).toBe(400);
        expect(res.body.field).toBe('url');
        expect(res.body.error).toMatch(/https/);
      },
    );

    it.each(['ftp://hooks.example.com/a', 'not a url', '/relative'])('refuses the URL %j with 400', async (url) => {
      const res = await createA(bodyA({ url }));
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('url');
    });

    it('refuses unknown event names with 400 naming them', async () => {
      const res = await createA(bodyA({ events: ['link.created', 'link.exploded', 'link.clicked'] }));
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('events');
      expect(res.body.error).toContain('link.exploded');
      expect(res.body.error).toContain('link.clicked');
      expect(res.body.error).toMatch(/unknown/);
    });

    it('quotes each refused name, so that an empty one reads as one', async () => {
      const res = await createA(bodyA({ events: ['link.created', '', 'link.exploded'] }));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^events names unknown event names: "", "link\.exploded"\. Variant A offers: /);
      const b = await server.request('POST', '/api/v1/webhooks', { key: owner.key, body: bodyB({ events: [''] }) });
      expect(b.body.error).toMatch(/^events names unknown event names: ""\. Variant B offers: /);
    });

    it.each(['click.recorded', 'subscription.updated'])(
      'refuses the retired name %s with 400 naming it as retired',
      async (name) => {
        const res = await createA(bodyA({ events: ['link.created', name] }));
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(new RegExp(`retired[^.]*${name.replace('.', '\\.')}`));
      },
    );

    it('accepts every catalogue name, including the ones this build never emits', async () => {
      const res = await createA(bodyA({ events: asyncapi('a').names }));
      expect(res.status).toBe(201);
      expect(res.body.data.events).toEqual(asyncapi('a').names);
    });

    it('refuses an empty event list and unknown body keys with 400', async () => {
      expect((await createA(bodyA({ events: [] }))).status).toBe(400);
      const res = await createA(bodyA({ secret: 'mine-mine-mine-mine' }));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/secret/);
    });

    it("answers 404 when workspaceId is not the key's workspace, and creates nothing", async () => {
      const before = await knex()('webhook_subscriptions').count({ n: '*' });
      for (const workspaceId of [other.workspaceId, 'ws_doesnotexist']) {
        const res = await createA(bodyA({ workspaceId }));
        expect(res.status).toBe(404);
        expect(res.body.error).toBe(`Workspace "${workspaceId}" not found`);
      }
      // An empty id is named as one, not left as a gap.
      expect((await createA(bodyA({ workspaceId: '' }))).body).toEqual({ error: 'Workspace "" not found' });
      expect(await knex()('webhook_subscriptions').count({ n: '*' })).toEqual(before);
    });

    it('updates url, events and enabled; omitted fields stay; the secret is not returned', async () => {
      const made = (await createA(bodyA({ events: ['link.created', 'link.deleted'] }))).body.data;
      const paused = await server.request('PATCH', `/api/webhooks/${made.id}`, {
        key: owner.key,
        body: { enabled: false },
      });
      expect(paused.status).toBe(200);
      expect(paused.body).toEqual({
        success: true,
        data: { id: made.id, url: made.url, events: made.events, enabled: false, createdAt: made.createdAt },
      });
      const changed = await server.request('PATCH', `/api/webhooks/${made.id}`, {
        key: owner.key,
        body: { url: 'https://other.example.com/in', events: ['conversion.created', 'domain.verified'], enabled: true },
      });
      expect(changed.status).toBe(200);
      expect(changed.body.data).toMatchObject({
        url: 'https://other.example.com/in',
        events: ['conversion.created', 'domain.verified'],
        enabled: true,
      });
      const row = await knex()('webhook_subscriptions').where({ id: made.id }).first();
      expect(openSecret(server.services.masterKey, row.secret_encrypted)).toBe(made.secret);
    });

    it('refuses bad updates with 400: plain http, unknown and retired names, unknown keys, the secret', async () => {
      const made = (await createA(bodyA())).body.data;
      const patch = (body: object) => server.request('PATCH', `/api/webhooks/${made.id}`, { key: owner.key, body });
      expect((await patch({ url: 'http://hooks.example.com/x' })).status).toBe(400);
      const unknown = await patch({ events: ['nope.never'] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toContain('nope.never');
      const retired = await patch({ events: ['click.recorded'] });
      expect(retired.status).toBe(400);
      expect(retired.body.error).toMatch(/retired[^.]*click\.recorded/);
      expect((await patch({ secret: 'x'.repeat(20) })).status).toBe(400);
      expect((await patch({ active: false })).status).toBe(400);
      const row = await knex()('webhook_subscriptions').where({ id: made.id }).first();
      expect(JSON.parse(row.events)).toEqual(['link.created']);
      expect(row.url).toBe(made.url);
    });

    it('deletes: { success: true }, then 404; no longer listed', async () => {
      const made = (await createA(bodyA())).body.data;
      const res = await server.request('DELETE', `/api/webhooks/${made.id}`, { key: owner.key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true });
      expect((await server.request('DELETE', `/api/webhooks/${made.id}`, { key: owner.key })).status).toBe(404);
      expect(
        (await server.request('PATCH', `/api/webhooks/${made.id}`, { key: owner.key, body: { enabled: true } })).status,
      ).toBe(404);
      const list = await server.request('GET', '/api/webhooks', { key: owner.key });
      expect(list.body.data.map((s: any) => s.id)).not.toContain(made.id);
    });

    it("answers 404 for another workspace's subscription, a Variant B one and an unknown id", async () => {
      const theirs = (await createA({ ...bodyA(), workspaceId: other.workspaceId }, other.key)).body.data.id;
      const b = (await createB(bodyB())).body.id;
      for (const id of [theirs, b, 'whk_unknown']) {
        expect(
          (await server.request('PATCH', `/api/webhooks/${id}`, { key: owner.key, body: { enabled: false } })).status,
        ).toBe(404);
        expect((await server.request('DELETE', `/api/webhooks/${id}`, { key: owner.key })).status).toBe(404);
      }
      const row = await knex()('webhook_subscriptions').where({ id: theirs }).first();
      expect(row.deleted_at).toBeNull();
      expect(!!row.enabled).toBe(true);
    });
  });

  describe('Variant B', () => {
    it('creates a subscription: 201 without envelope and without the secret', async () => {
      const res = await createB(bodyB({ events: ['link.clicked', 'qr.scanned', 'link.clicked'] }));
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['active', 'created_at', 'events', 'id', 'url']);
      expect(res.body).toMatchObject({
        url: 'https://hooks.example.com/b',
        events: ['link.clicked', 'qr.scanned'],
        active: true,
      });
      expect(res.text).not.toContain(SECRET_B);
    });

    it("stores the caller's secret only sealed, decryptable with MASTER_KEY", async () => {
      const res = await createB(bodyB({ secret: 'sixteen-chars-ok' }));
      const row = await knex()('webhook_subscriptions').where({ id: res.body.id }).first();
      expect(row.variant).toBe('B');
      expect(JSON.stringify(row)).not.toContain('sixteen-chars-ok');
      expect(openSecret(server.services.masterKey, row.secret_encrypted)).toBe('sixteen-chars-ok');
    });

    it('refuses a secret shorter than 16 characters, a missing one, and plain http', async () => {
      const short = await createB(bodyB({ secret: 'fifteen-chars-x' }));
      expect(short.status).toBe(400);
      expect(short.body.error).toMatch(/secret/);
      const { secret: _omit, ...noSecret } = bodyB();
      expect((await createB(noSecret)).status).toBe(400);
      const http = await createB(bodyB({ url: 'http://hooks.example.com/b' }));
      expect(http.status).toBe(400);
      expect(http.body.field).toBe('url');
    });

    it('refuses names Variant B does not have with 400 naming them', async () => {
      const res = await createB(bodyB({ events: ['link.created', 'analytics.spike', 'click.recorded', 'bogus'] }));
      expect(res.status).toBe(400);
      for (const name of ['analytics.spike', 'click.recorded', 'bogus']) expect(res.body.error).toContain(name);
      const all = await createB(bodyB({ events: asyncapi('b').names }));
      expect(all.status).toBe(201);
    });

    it('lists { data } newest first, without secrets and without Variant A subscriptions', async () => {
      const first = await createB(bodyB({ url: 'https://hooks.example.com/b1' }));
      await new Promise((r) => setTimeout(r, 5));
      const second = await createB(bodyB({ url: 'https://hooks.example.com/b2' }));
      const a = await createA(bodyA());
      const res = await server.request('GET', '/api/v1/webhooks', { key: owner.key });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['data']);
      const ids = res.body.data.map((s: any) => s.id);
      expect(ids.indexOf(second.body.id)).toBeLessThan(ids.indexOf(first.body.id));
      expect(ids.indexOf(first.body.id)).toBeGreaterThanOrEqual(0);
      expect(ids).not.toContain(a.body.data.id);
      expect(res.text).not.toContain(SECRET_B);
      for (const s of res.body.data)
        expect(Object.keys(s).sort()).toEqual(['active', 'created_at', 'events', 'id', 'url']);
    });

    it("deletes with 204; then, and for another workspace's, a Variant A or an unknown id, 404", async () => {
      const made = (await createB(bodyB())).body.id;
      const res = await server.request('DELETE', `/api/v1/webhooks/${made}`, { key: owner.key });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const theirs = (await createB(bodyB(), other.key)).body.id;
      const a = (await createA(bodyA())).body.data.id;
      for (const id of [made, theirs, a, 'whk_unknown']) {
        expect((await server.request('DELETE', `/api/v1/webhooks/${id}`, { key: owner.key })).status).toBe(404);
      }
      const rows = await knex()('webhook_subscriptions').whereIn('id', [theirs, a]).whereNull('deleted_at');
      expect(rows).toHaveLength(2);
    });
  });

  describe('keys, scopes and plans', () => {
    it('needs webhooks:write to create, update and delete, and webhooks:read to list (403 otherwise)', async () => {
      const readOnly = await freshKey(owner, ['webhooks:read']);
      const writeOnly = await freshKey(owner, ['webhooks:write']);
      const links = await freshKey(owner, ['links:read', 'links:write']);
      const a = (await createA(bodyA())).body.data.id;
      const b = (await createB(bodyB())).body.id;
      for (const key of [readOnly, links]) {
        expect((await createA(bodyA(), key)).status).toBe(403);
        expect((await createB(bodyB(), key)).status).toBe(403);
        expect((await server.request('PATCH', `/api/webhooks/${a}`, { key, body: { enabled: false } })).status).toBe(
          403,
        );
        expect((await server.request('DELETE', `/api/webhooks/${a}`, { key })).status).toBe(403);
        expect((await server.request('DELETE', `/api/v1/webhooks/${b}`, { key })).status).toBe(403);
      }
      for (const key of [writeOnly, links]) {
        const res = await server.request('GET', '/api/webhooks', { key });
        expect(res.status).toBe(403);
        expect(res.body.error).toContain('webhooks:read');
        expect((await server.request('GET', '/api/v1/webhooks', { key })).status).toBe(403);
      }
      expect((await server.request('GET', '/api/webhooks', { key: readOnly })).status).toBe(200);
      expect((await createA(bodyA(), writeOnly)).status).toBe(201);
    });

    it("checks the key's person's current role: demoted or gone, no webhook changes in either variant", async () => {
      const admin = await seedMemberKey(knex(), owner.workspaceId, 'ADMIN', WEBHOOK_SCOPES);
      const key = admin.key;
      const mineA = await createA(bodyA(), key);
      const mineB = await createB(bodyB(), key);
      expect([mineA.status, mineB.status]).toEqual([201, 201]);
      const ownersA = (await createA(bodyA())).body.data.id;
      const ownersB = (await createB(bodyB())).body.id;
      const expectRefused = async (words: RegExp) => {
        const answers = [
          await createA(bodyA({ url: 'https://evil.example.com/a', events: ['link.created'] }), key),
          await createB(bodyB({ url: 'https://evil.example.com/b', events: ['link.clicked', 'link.created'] }), key),
          await server.request('PATCH', `/api/webhooks/${ownersA}`, { key, body: { enabled: false } }),
          await server.request('DELETE', `/api/webhooks/${ownersA}`, { key }),
          await server.request('DELETE', `/api/v1/webhooks/${ownersB}`, { key }),
          await server.request('DELETE', `/api/webhooks/${mineA.body.data.id}`, { key }),
          await server.request('DELETE', `/api/v1/webhooks/${mineB.body.id}`, { key }),
        ];
        for (const res of answers) {
          expect(res.status).toBe(403);
          expect(res.body.error).toMatch(words);
        }
        // Reading is not a change: the key keeps listing.
        expect((await server.request('GET', '/api/webhooks', { key })).status).toBe(200);
        expect((await server.request('GET', '/api/v1/webhooks', { key })).status).toBe(200);
        const rows = await knex()('webhook_subscriptions')
          .where({ workspace_id: owner.workspaceId })
          .whereNull('deleted_at');
        expect(rows.some((r: any) => String(r.url).startsWith('https://evil.example.com'))).toBe(false);
        expect(rows.filter((r: any) => !r.enabled).map((r: any) => r.id)).not.toContain(ownersA);
        const kept = [ownersA, ownersB, mineA.body.data.id, mineB.body.id];
        expect(rows.map((r: any) => r.id)).toEqual(expect.arrayContaining(kept));
      };
      await setRole(knex(), owner.workspaceId, admin.userId, 'MEMBER');
      await expectRefused(/role MEMBER, which may not (create|change|delete) webhook subscriptions: that needs OWNER/);
      await removeMember(knex(), owner.workspaceId, admin.userId);
      await expectRefused(/no longer a member of this workspace/);
    });

    it('needs a key (401) and a plan with webhooks: pro gives 403, free 401', async () => {
      expect((await server.request('GET', '/api/webhooks')).status).toBe(401);
      expect((await server.request('POST', '/api/v1/webhooks', { body: bodyB() })).status).toBe(401);
      const pro = await seedWorkspace(knex(), { plan: 'pro', scopes: WEBHOOK_SCOPES });
      const res = await server.request('POST', '/api/webhooks', {
        key: pro.key,
        body: { ...bodyA(), workspaceId: pro.workspaceId },
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatch(/pro/);
      expect((await server.request('GET', '/api/v1/webhooks', { key: pro.key })).status).toBe(403);
      const free = await seedWorkspace(knex(), { plan: 'free', scopes: WEBHOOK_SCOPES });
      expect((await server.request('GET', '/api/webhooks', { key: free.key })).status).toBe(401);
      const business = await seedWorkspace(knex(), { plan: 'business', scopes: WEBHOOK_SCOPES });
      expect(
        (
          await server.request('POST', '/api/webhooks', {
            key: business.key,
            body: { ...bodyA(), workspaceId: business.workspaceId },
          })
        ).status,
      ).toBe(201);
    });
  });

  describe('GET /api/public/events/schema', () => {
    it('needs no key and lists exactly the AsyncAPI names, the retired names and closed payload schemas', async () => {
      const res = await server.request('GET', '/api/public/events/schema');
      expect(res.status).toBe(200);
      const { names, retired } = asyncapi('a');
      expect(res.body.events.map((e: any) => e.name)).toEqual(names);
      expect(res.body.retired).toEqual(retired.map((name) => ({ name })));
      expect(retired.sort()).toEqual(['click.recorded', 'subscription.updated']);
      const ajv = addFormats(new Ajv2020({ strict: true }));
      for (const event of res.body.events) {
        expect(event.description, event.name).toBeTruthy();
        expect(event.payload.type, event.name).toBe('object');
        expect(event.payload.additionalProperties, event.name).toBe(false);
        expect(JSON.stringify(event.payload), event.name).not.toContain('$ref');
        expect(() => ajv.compile(event.payload), event.name).not.toThrow();
      }
      const linkCreated = res.body.events.find((e: any) => e.name === 'link.created');
      expect([...linkCreated.payload.required].sort()).toEqual([
        'destinationUrl',
        'domain',
        'id',
        'slug',
        'title',
        'workspaceId',
      ]);
    });

    it('ignores a key that is sent, even an invalid one', async () => {
      expect((await server.request('GET', '/api/public/events/schema', { key: 'mk_nope' })).status).toBe(200);
      expect((await server.request('GET', '/api/public/events/schema', { key: owner.key })).status).toBe(200);
    });
  });
});

describe.each(testEngines())('WEBHOOK_VARIANTS on %s', (engine) => {
  it('A only: the Variant B endpoints answer 404, Variant A works', async () => {
    const server = await startTestServer(engine, { env: { WEBHOOK_VARIANTS: 'A' } });
    try {
      const owner = await seedWorkspace(server.services.db.knex, { scopes: WEBHOOK_SCOPES });
      const b = await server.request('POST', '/api/v1/webhooks', {
        key: owner.key,
        body: { url: 'https://hooks.example.com/b', events: ['link.clicked'], secret: 'x'.repeat(16) },
      });
      expect(b.status).toBe(404);
      expect(b.body.error).toBeTruthy();
      expect((await server.request('GET', '/api/v1/webhooks', { key: owner.key })).status).toBe(404);
      expect((await server.request('DELETE', '/api/v1/webhooks/whk_x', { key: owner.key })).status).toBe(404);
      // Switched off means no endpoint at all: 404 even before a key is looked at.
      expect((await server.request('GET', '/api/v1/webhooks')).status).toBe(404);
      expect(await server.services.db.knex('webhook_subscriptions').count({ n: '*' })).toEqual([{ n: 0 }]);
      const a = await server.request('POST', '/api/webhooks', {
        key: owner.key,
        body: { workspaceId: owner.workspaceId, url: 'https://hooks.example.com/a', events: ['link.created'] },
      });
      expect(a.status).toBe(201);
      expect((await server.request('GET', '/api/public/events/schema')).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('B only: the Variant A endpoints and the catalogue answer 404, Variant B works', async () => {
    const server = await startTestServer(engine, { env: { WEBHOOK_VARIANTS: 'B' } });
    try {
      const owner = await seedWorkspace(server.services.db.knex, { scopes: WEBHOOK_SCOPES });
      expect((await server.request('GET', '/api/public/events/schema')).status).toBe(404);
      expect((await server.request('GET', '/api/webhooks', { key: owner.key })).status).toBe(404);
      expect(
        (
          await server.request('POST', '/api/webhooks', {
            key: owner.key,
            body: { workspaceId: owner.workspaceId, url: 'https://hooks.example.com/a', events: ['link.created'] },
          })
        ).status,
      ).toBe(404);
      expect(
        (await server.request('PATCH', '/api/webhooks/whk_x', { key: owner.key, body: { enabled: false } })).status,
      ).toBe(404);
      expect((await server.request('DELETE', '/api/webhooks/whk_x', { key: owner.key })).status).toBe(404);
      const b = await server.request('POST', '/api/v1/webhooks', {
        key: owner.key,
        body: { url: 'https://hooks.example.com/b', events: ['link.clicked'], secret: 'x'.repeat(16) },
      });
      expect(b.status).toBe(201);
    } finally {
      await server.stop();
    }
  });
});
