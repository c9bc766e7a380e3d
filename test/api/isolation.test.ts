// Workspace isolation and key checks for EVERY operation of generated/openapi.json, on every
// database engine. The operations are read from the document, so a new operation without a
// case here fails the suite. For each key-protected operation:
//   - a key of another workspace gets 404 for the first workspace's ids in the path, is refused
//     the first workspace's objects named in a body, and sees nothing of the first workspace in
//     lists and summaries (and the first workspace sees nothing it created);
//   - a key without the operation's scope (read from the operation's security) gets 403;
//   - an expired and a revoked key get 401, a free-plan key 401, a pro-plan key 403;
//   - none of those refused requests changes the object it named;
//   - and the same request with a good key of the workspace succeeds (so the refusals above are
//     about the key, not the request).
// Public operations (`security: []`) are exempt from the key checks: they answer without a key.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { SCOPES, type Scope } from '../../src/domain/access';
import { addMember, createWorkspace } from '../../src/db/repos/workspaces';
import { createKey, revokeKey } from '../../src/db/repos/api-keys';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { createCampaign, createQrCode, createTag } from '../../src/db/repos/workspace-objects';
import * as goalsRepo from '../../src/db/repos/goals';
import { testEngines } from '../support/databases';
import { checkResponse, operations, type Operation } from '../support/fuzz-openapi';
import { startTestServer, type TestResponse, type TestServer } from '../support/server';
import { goalDefinition } from '../support/stored-rows';

const ALL_SCOPES = [...SCOPES] as Scope[];
const OPS = operations();

interface Tenant {
  ws: string;
  user: string;
  link: { id: string; slug: string };
  protectedLink: { id: string; slug: string };
  tag: string;
  domain: string;
  campaign: string;
  qr: { id: string; code: string };
  goal: string;
  hookA: string;
  hookB: string;
  conversions: number;
  /** Every id of this workspace's objects, to find them in another workspace's answers. */
  ids: Set<string>;
}

interface Req {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

type Kind =
  /** The path names an object of the workspace. */
  | { kind: 'id'; table: string; id: (t: Tenant) => Promise<string> | string; request: (id: string, t: Tenant) => Req }
  /** A list or summary of the workspace. */
  | { kind: 'list'; request: (t: Tenant) => Req; count?: (body: any) => number }
  /** Creates an object in the key's workspace; `foreign` names the first workspace's objects in the body. */
  | {
      kind: 'create';
      request: (t: Tenant) => Req;
      foreign: Array<{ name: string; request: (a: Tenant) => Req; status: number }>;
      createdId: (body: any) => string;
      listedIn: string;
    }
  /**
   * A bulk operation (no id in the path; 200 with a result per item): the other workspace's key
   * naming this workspace's object in an item gets that item refused with `foreignItem`.
   */
  | {
      kind: 'bulk';
      table: string;
      id: (t: Tenant) => Promise<string> | string;
      request: (id: string, t: Tenant) => Req;
      foreignItem: number;
    }
  /** Public: answers without any key. */
  | { kind: 'public'; check: (t: Tenant, send: (r: Req, key?: string) => Promise<TestResponse>) => Promise<void> };

describe.each(testEngines())('workspace isolation and key checks for every operation on %s', (engine) => {
  let server: TestServer;
  let A: Tenant;
  let B: Tenant;
  let freeWs: { ws: string; user: string };
  let proWs: { ws: string; user: string };
  const knex = (): Knex => server.services.db.knex;
  const problems: string[] = [];

  const key = async (t: { ws: string; user: string }, scopes: Scope[] = ALL_SCOPES, expiresAt: number | null = null) =>
    (await createKey(knex(), t.ws, t.user, scopes, expiresAt)).key;

  /** Sends a request and holds its answer to the document (status, shape, schema). */
  async function send(op: Operation | undefined, r: Req, k?: string): Promise<TestResponse> {
    const res = await server.request(r.method, r.path, { key: k, body: r.body, headers: r.headers });
    if (op) {
      const found = checkResponse(op, res);
      if (found.length) problems.push(`${op.operationId} ${r.method} ${r.path} -> ${res.status}: ${found.join('; ')}`);
    }
    return res;
  }
  const opById = (id: string) => OPS.find((o) => o.operationId === id)!;

  async function api(method: string, path: string, k: string, body?: unknown) {
    const res = await server.request(method, path, { key: k, body });
    if (res.status >= 300) throw new Error(`setup ${method} ${path} answered ${res.status}: ${res.text}`);
    return res.body;
  }

  async function tenant(name: string): Promise<Tenant> {
    const wsId = await createWorkspace(knex(), `Isolation ${name}`, 'growth');
    const user = await addMember(knex(), wsId, `iso-${name}-${Date.now()}@example.com`, 'OWNER');
    const k = await key({ ws: wsId, user });
    const tag = await createTag(knex(), wsId, `tag ${name}`, '#22c55e');
    const host = `${name.toLowerCase()}-${Date.now()}.iso.test`;
    const domain = await addDomain(knex(), wsId, host);
    await setDomainStatus(knex(), domain, 'ACTIVE');
    const campaign = await createCampaign(knex(), wsId, `campaign ${name}`);
    const link = (await api('POST', '/api/v1/links', k, { url: `https://example.com/${name}`, tagIds: [tag] })).data;
    const protectedLink = (
      await api('POST', '/api/v1/links', k, {
        url: `https://example.com/${name}/protected`,
        password: `secret-${name}`,
      })
    ).data;
    const qr = await createQrCode(knex(), wsId, link.id);
    const goal = await goalsRepo.createGoal(
      knex(),
      wsId,
      goalDefinition({ name: `goal ${name}`, type: 'purchase', link_id: link.id, target_count: 5 }),
    );
    const conv = (
      await api('POST', '/api/v1/conversions', k, {
        eventType: 'purchase',
        linkId: link.id,
        campaignId: campaign,
        value: { amountMinor: 100, currency: 'EUR' },
      })
    ).data;
    const hookA = (
      await api('POST', '/api/webhooks', k, {
        workspaceId: wsId,
        url: `https://hooks.example.com/${name}`,
        events: ['link.deleted'],
      })
    ).data.id;
    const hookB = (
      await api('POST', '/api/v1/webhooks', k, {
        url: `https://hooks.example.com/${name}/b`,
        events: ['link.deleted'],
        secret: 'sixteen-characters-at-least',
      })
    ).id;
    return {
      ws: wsId,
      user,
      link,
      protectedLink,
      tag,
      domain,
      campaign,
      qr,
      goal: goal.id,
      hookA,
      hookB,
      conversions: 1,
      ids: new Set([
        wsId,
        user,
        link.id,
        protectedLink.id,
        tag,
        domain,
        campaign,
        qr.id,
        goal.id,
        conv.id,
        hookA,
        hookB,
      ]),
    };
  }

  /** Fresh objects for the delete cases (each refusal must leave it, the good key then deletes it). */
  async function freshLink(t: Tenant) {
    return (await api('POST', '/api/v1/links', await key(t), { url: 'https://example.com/to-delete' })).data
      .id as string;
  }
  async function freshHook(t: Tenant, variant: 'A' | 'B') {
    const k = await key(t);
    return variant === 'A'
      ? ((
          await api('POST', '/api/webhooks', k, {
            workspaceId: t.ws,
            url: 'https://hooks.example.com/del',
            events: ['link.created'],
          })
        ).data.id as string)
      : ((
          await api('POST', '/api/v1/webhooks', k, {
            url: 'https://hooks.example.com/del-b',
            events: ['link.created'],
            secret: 'sixteen-characters-at-least',
          })
        ).id as string);
  }

  const CASES: Record<string, Kind> = {
    listLinks: {
      kind: 'list',
      request: () => ({ method: 'GET', path: '/api/v1/links?limit=100' }),
      count: (b) => b.meta.total,
    },
    createLink: {
      kind: 'create',
      request: () => ({ method: 'POST', path: '/api/v1/links', body: { url: 'https://example.com/isolation' } }),
      foreign: [
        {
          name: 'tagIds of the other workspace',
          request: (a) => ({
            method: 'POST',
            path: '/api/v1/links',
            body: { url: 'https://example.com/x', tagIds: [a.tag] },
          }),
          status: 400,
        },
        {
          name: 'domainId of the other workspace',
          request: (a) => ({
            method: 'POST',
            path: '/api/v1/links',
            body: { url: 'https://example.com/x', domainId: a.domain },
          }),
          status: 400,
        },
      ],
      createdId: (b) => b.data.id,
      listedIn: 'listLinks',
    },
    getLink: {
      kind: 'id',
      table: 'links',
      id: (t) => t.link.id,
      request: (id) => ({ method: 'GET', path: `/api/v1/links/${id}` }),
    },
    updateLink: {
      kind: 'id',
      table: 'links',
      id: (t) => t.link.id,
      request: (id) => ({ method: 'PATCH', path: `/api/v1/links/${id}`, body: { title: 'changed by isolation test' } }),
    },
    createLinksBulk: {
      kind: 'bulk',
      table: 'tags',
      id: (t) => t.tag,
      request: (tag) => ({
        method: 'POST',
        path: '/api/v1/links/bulk',
        body: { links: [{ url: 'https://example.com/isolation-bulk', tagIds: [tag] }] },
      }),
      foreignItem: 400,
    },
    updateLinksBulk: {
      kind: 'bulk',
      table: 'links',
      id: (t) => t.link.id,
      request: (id) => ({
        method: 'PATCH',
        path: '/api/v1/links/bulk',
        body: { ids: [id], changes: { title: 'changed by isolation test' } },
      }),
      foreignItem: 404,
    },
    deleteLinksBulk: {
      kind: 'bulk',
      table: 'links',
      id: (t) => freshLink(t),
      request: (id) => ({ method: 'DELETE', path: `/api/v1/links/bulk?ids=${id}` }),
      foreignItem: 404,
    },
    getLinkRouting: {
      kind: 'id',
      table: 'links',
      id: (t) => t.link.id,
      request: (id) => ({ method: 'GET', path: `/api/v1/links/${id}/routing` }),
    },
    setLinkRouting: {
      kind: 'id',
      table: 'links',
      id: (t) => t.link.id,
      request: (id) => ({ method: 'PUT', path: `/api/v1/links/${id}/routing`, body: { indexable: true } }),
    },
    tryLinkRouting: {
      kind: 'id',
      table: 'links',
      id: (t) => t.link.id,
      request: (id) => ({ method: 'POST', path: `/api/v1/links/${id}/routing/trial`, body: { query: 'a=1' } }),
    },
    getLinkRoutingReport: {
      kind: 'id',
      table: 'links',
      id: (t) => t.link.id,
      request: (id) => ({ method: 'GET', path: `/api/v1/links/${id}/routing/report` }),
    },
    deleteLink: {
      kind: 'id',
      table: 'links',
      id: (t) => freshLink(t),
      request: (id) => ({ method: 'DELETE', path: `/api/v1/links/${id}` }),
    },
    getConversionSummary: {
      kind: 'list',
      // Another workspace's key filtering by this workspace's link, campaign and QR code still counts nothing.
      request: (t) => ({
        method: 'GET',
        path:
          t === B
            ? `/api/v1/conversions?linkId=${A.link.id}&campaignId=${A.campaign}&qrCodeId=${A.qr.id}`
            : '/api/v1/conversions',
      }),
      count: (b) => b.data.total,
    },
    recordConversion: {
      kind: 'create',
      request: () => ({ method: 'POST', path: '/api/v1/conversions', body: { eventType: 'signup' } }),
      foreign: [
        {
          name: 'linkId of the other workspace',
          request: (a) => ({
            method: 'POST',
            path: '/api/v1/conversions',
            body: { eventType: 'purchase', linkId: a.link.id },
          }),
          status: 400,
        },
        {
          name: 'campaignId of the other workspace',
          request: (a) => ({
            method: 'POST',
            path: '/api/v1/conversions',
            body: { eventType: 'purchase', campaignId: a.campaign },
          }),
          status: 400,
        },
        {
          name: 'qrCodeId of the other workspace',
          request: (a) => ({
            method: 'POST',
            path: '/api/v1/conversions',
            body: { eventType: 'purchase', qrCodeId: a.qr.id },
          }),
          status: 400,
        },
      ],
      createdId: (b) => b.data.id,
      listedIn: 'getConversionSummary',
    },
    listGoals: { kind: 'list', request: () => ({ method: 'GET', path: '/api/v1/goals' }), count: (b) => b.data.length },
    getGoalReport: {
      kind: 'id',
      table: 'goals',
      id: (t) => t.goal,
      request: (id) => ({ method: 'GET', path: `/api/v1/goals/${id}/report` }),
    },
    createWebhook: {
      kind: 'create',
      request: (t) => ({
        method: 'POST',
        path: '/api/webhooks',
        body: { workspaceId: t.ws, url: 'https://hooks.example.com/iso', events: ['link.created'] },
      }),
      foreign: [
        {
          name: 'workspaceId of the other workspace',
          request: (a) => ({
            method: 'POST',
            path: '/api/webhooks',
            body: { workspaceId: a.ws, url: 'https://hooks.example.com/iso', events: ['link.created'] },
          }),
          status: 404,
        },
      ],
      createdId: (b) => b.data.id,
      listedIn: 'listWebhooks',
    },
    listWebhooks: {
      kind: 'list',
      request: () => ({ method: 'GET', path: '/api/webhooks' }),
      count: (b) => b.data.length,
    },
    updateWebhook: {
      kind: 'id',
      table: 'webhook_subscriptions',
      id: (t) => t.hookA,
      request: (id) => ({ method: 'PATCH', path: `/api/webhooks/${id}`, body: { enabled: false } }),
    },
    deleteWebhook: {
      kind: 'id',
      table: 'webhook_subscriptions',
      id: (t) => freshHook(t, 'A'),
      request: (id) => ({ method: 'DELETE', path: `/api/webhooks/${id}` }),
    },
    createWebhookV1: {
      kind: 'create',
      request: () => ({
        method: 'POST',
        path: '/api/v1/webhooks',
        body: {
          url: 'https://hooks.example.com/iso-b',
          events: ['link.clicked'],
          secret: 'sixteen-characters-at-least',
        },
      }),
      foreign: [],
      createdId: (b) => b.id,
      listedIn: 'listWebhooksV1',
    },
    listWebhooksV1: {
      kind: 'list',
      request: () => ({ method: 'GET', path: '/api/v1/webhooks' }),
      count: (b) => b.data.length,
    },
    deleteWebhookV1: {
      kind: 'id',
      table: 'webhook_subscriptions',
      id: (t) => freshHook(t, 'B'),
      request: (id) => ({ method: 'DELETE', path: `/api/v1/webhooks/${id}` }),
    },
    // Tags, QR codes and domains (test/api/tags-qr-domains.test.ts has their rules).
    listTags: { kind: 'list', request: () => ({ method: 'GET', path: '/api/v1/tags' }), count: (b) => b.data.length },
    createTag: {
      kind: 'create',
      request: () => ({ method: 'POST', path: '/api/v1/tags', body: { name: 'isolation tag' } }),
      foreign: [],
      createdId: (b) => b.data.id,
      listedIn: 'listTags',
    },
    updateTag: {
      kind: 'id',
      table: 'tags',
      id: (t) => t.tag,
      request: (id) => ({ method: 'PATCH', path: `/api/v1/tags/${id}`, body: { color: '#123456' } }),
    },
    deleteTag: {
      kind: 'id',
      table: 'tags',
      id: async (t) => createTag(knex(), t.ws, `to delete ${Date.now()} ${Math.random()}`, '#123456'),
      request: (id) => ({ method: 'DELETE', path: `/api/v1/tags/${id}` }),
    },
    listQrCodes: {
      kind: 'list',
      // Another workspace's key filtering by this workspace's link still lists nothing.
      request: (t) => ({ method: 'GET', path: t === B ? `/api/v1/qr-codes?linkId=${A.link.id}` : '/api/v1/qr-codes' }),
      count: (b) => b.meta.total,
    },
    createQrCode: {
      kind: 'create',
      request: (t) => ({ method: 'POST', path: '/api/v1/qr-codes', body: { linkId: t.link.id } }),
      foreign: [
        {
          name: 'linkId of the other workspace',
          request: (a) => ({ method: 'POST', path: '/api/v1/qr-codes', body: { linkId: a.link.id } }),
          status: 404,
        },
      ],
      createdId: (b) => b.data.id,
      listedIn: 'listQrCodes',
    },
    getQrCode: {
      kind: 'id',
      table: 'qr_codes',
      id: (t) => t.qr.id,
      request: (id) => ({ method: 'GET', path: `/api/v1/qr-codes/${id}` }),
    },
    deleteQrCode: {
      kind: 'id',
      table: 'qr_codes',
      id: async (t) => (await createQrCode(knex(), t.ws, t.link.id)).id,
      request: (id) => ({ method: 'DELETE', path: `/api/v1/qr-codes/${id}` }),
    },
    listDomains: {
      kind: 'list',
      request: () => ({ method: 'GET', path: '/api/v1/domains' }),
      count: (b) => b.data.length,
    },
    getEventSchema: {
      kind: 'public',
      check: async (_t, s) => {
        expect((await s({ method: 'GET', path: '/api/public/events/schema' })).status).toBe(200);
      },
    },
    followShortLink: {
      kind: 'public',
      check: async (t, s) => {
        const res = await s({ method: 'GET', path: `/${t.link.slug}`, headers: { 'user-agent': 'curl/8' } });
        expect(res.status).toBe(302);
        expect(res.headers.location).toBe('https://example.com/A');
      },
    },
    submitLinkPassword: {
      kind: 'public',
      check: async (t, s) => {
        const form = await s({ method: 'GET', path: `/${t.protectedLink.slug}`, headers: { 'user-agent': 'curl/8' } });
        expect(form.status).toBe(401);
        const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)![1];
        const cookie = /sl_csrf=([^;]+)/.exec(String(form.headers['set-cookie']))![1];
        const res = await s({
          method: 'POST',
          path: `/${t.protectedLink.slug}`,
          headers: {
            'user-agent': 'curl/8',
            cookie: `sl_csrf=${cookie}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: undefined,
          rawBody: new URLSearchParams({ csrf, password: 'secret-A' }).toString(),
        } as Req & { rawBody: string });
        expect(res.status).toBe(302);
        expect(res.headers.location).toBe('https://example.com/A/protected');
      },
    },
    scanQrCode: {
      kind: 'public',
      check: async (t, s) => {
        const res = await s({ method: 'GET', path: `/qr/${t.qr.code}`, headers: { 'user-agent': 'curl/8' } });
        expect(res.status).toBe(302);
        expect((await s({ method: 'GET', path: `/qr/${t.qr.code}.svg` })).status).toBe(200);
      },
    },
    // The same for every workspace: no workspace's data, only where a browser goes.
    getRoot: {
      kind: 'public',
      check: async (_t, s) => {
        const res = await s({ method: 'GET', path: '/', headers: { host: 'localhost:8443' } });
        expect(res.status).toBe(302);
        expect(res.headers.location).toBe('/app/');
      },
    },
    getHealth: {
      kind: 'public',
      check: async (_t, s) => expect((await s({ method: 'GET', path: '/healthz' })).status).toBe(200),
    },
    getReadiness: {
      kind: 'public',
      check: async (_t, s) => expect((await s({ method: 'GET', path: '/readyz' })).status).toBe(200),
    },
    // Loopback without METRICS_TOKEN: answered, with counts of the process and no workspace's data.
    getMetrics: {
      kind: 'public',
      check: async (t, s) => {
        const res = await s({ method: 'GET', path: '/metrics' });
        expect(res.status).toBe(200);
        expect(res.text).toMatch(/^shortlink_redirect_responses_total/m);
        expect(res.text).not.toContain(t.ws);
      },
    },
    // Loopback without TLS_ASK_TOKEN: yes for the short domain, and nothing of any workspace.
    askCertificate: {
      kind: 'public',
      check: async (t, s) => {
        const res = await s({ method: 'GET', path: '/tls/ask?domain=localhost' });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ domain: 'localhost', kind: 'short' });
        expect(res.text).not.toContain(t.ws);
      },
    },
  };

  beforeAll(async () => {
    server = await startTestServer(engine);
    A = await tenant('A');
    B = await tenant('B');
    for (const [name, plan] of [
      ['free', 'free'],
      ['pro', 'pro'],
    ] as const) {
      const wsId = await createWorkspace(knex(), `Isolation ${name}`, plan);
      const user = await addMember(knex(), wsId, `iso-${name}-${Date.now()}@example.com`, 'OWNER');
      if (name === 'free') freeWs = { ws: wsId, user };
      else proWs = { ws: wsId, user };
    }
  }, 60_000);
  beforeEach(() => {
    problems.length = 0;
  });
  afterAll(async () => server?.stop());

  it('has a case for every operation of the document', () => {
    expect(OPS.length).toBeGreaterThan(0);
    expect(OPS.map((o) => o.operationId).filter((id) => !CASES[id])).toEqual([]);
    for (const op of OPS) {
      const c = CASES[op.operationId];
      // The case must agree with the document: public cases for `security: []`, key cases otherwise,
      // and an id case exactly when the path names an object.
      expect(c.kind === 'public', `${op.operationId}: public case iff security is []`).toBe(op.scopes === null);
      if (op.scopes !== null)
        expect(c.kind === 'id', `${op.operationId}: id case iff the path has a parameter`).toBe(
          /\{[^}]+\}/.test(op.path),
        );
    }
  });

  /** A request (with a raw form body when given) as the helper sends it. */
  const sendRaw = (op: Operation | undefined) => async (r: Req & { rawBody?: string }, k?: string) => {
    const res = await server.request(r.method, r.path, {
      key: k,
      body: r.body,
      headers: r.headers,
      rawBody: r.rawBody,
    });
    if (op) {
      const found = checkResponse(op, res);
      if (found.length) problems.push(`${op.operationId} ${r.method} ${r.path} -> ${res.status}: ${found.join('; ')}`);
    }
    return res;
  };

  async function rowOf(table: string, id: string) {
    const row = await knex()(table).where({ id }).first();
    return JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
  }

  it.each(OPS.map((o) => [o.operationId, o] as const))('%s', async (_id, op) => {
    const c = CASES[op.operationId];
    expect(c, `no isolation case for ${op.operationId}`).toBeDefined();
    if (c.kind === 'public') {
      await c.check(A, sendRaw(op));
      // A key sent to a public operation is ignored: a broken one does not turn it into a 401.
      await c.check(A, (r, k) =>
        sendRaw(op)({ ...r, headers: { ...r.headers, authorization: 'Bearer mk_not-a-key' } }, k),
      );
      expect(problems).toEqual([]);
      return;
    }

    const scopes = op.scopes!;
    expect(scopes.length, `${op.operationId} names its scope`).toBeGreaterThan(0);
    const refusals: Array<[string, () => Promise<string>, number]> = [
      [
        'a key without the scope',
        () =>
          key(
            A,
            ALL_SCOPES.filter((s) => !scopes.includes(s)),
          ),
        403,
      ],
      ['an expired key', () => key(A, ALL_SCOPES, Date.now() - 1000), 401],
      [
        'a revoked key',
        async () => {
          const k = await createKey(knex(), A.ws, A.user, ALL_SCOPES, null);
          await revokeKey(knex(), k.id);
          return k.key;
        },
        401,
      ],
      ['a free-plan key', () => key(freeWs), 401],
      ['a pro-plan key', () => key(proWs), 403],
    ];
    const seen: string[] = [];
    const expectStatus = (what: string, res: TestResponse, status: number) => {
      if (res.status !== status) seen.push(`${what}: expected ${status}, got ${res.status} ${res.text.slice(0, 200)}`);
    };

    if (c.kind === 'id') {
      const id = await c.id(A);
      const before = await rowOf(c.table, id);
      const req = c.request(id, A);
      expectStatus('a key of another workspace', await send(op, req, await key(B)), 404);
      for (const [what, mint, status] of refusals) expectStatus(what, await send(op, req, await mint()), status);
      // A key of the other workspace naming its own id of the same kind works (the refusal above was about ownership).
      expect(await rowOf(c.table, id), 'refused requests left the object as it was').toBe(before);
      const own = await send(op, req, await key(A));
      expect(own.status, `the workspace's own key: ${own.text}`).toBeLessThan(300);
    } else if (c.kind === 'bulk') {
      const id = await c.id(A);
      const before = await rowOf(c.table, id);
      const req = c.request(id, A);
      const foreign = await send(op, req, await key(B));
      expectStatus('a key of another workspace', foreign, 200);
      expect(foreign.body?.data?.[0]?.status, `the item naming A's object: ${foreign.text}`).toBe(c.foreignItem);
      // An error may quote the id the caller sent (as the single create does), nothing else of A.
      const secrets = [A.link.id, A.link.slug, A.tag].filter((x) => x !== id);
      expect(
        secrets.filter((x) => foreign.text.includes(x)),
        'the answer reveals nothing of the other workspace',
      ).toEqual([]);
      if (c.foreignItem === 404) expect(foreign.text.includes(id), 'a 404 does not quote the id').toBe(false);
      for (const [what, mint, status] of refusals) expectStatus(what, await send(op, req, await mint()), status);
      expect(await rowOf(c.table, id), 'refused requests left the object as it was').toBe(before);
      const own = await send(op, req, await key(A));
      expect(own.status, own.text).toBe(200);
      expect(own.body.data[0].status, `the workspace's own key: ${own.text}`).toBeLessThan(300);
    } else if (c.kind === 'list') {
      const req = c.request(B);
      const res = await send(op, req, await key(B));
      expect(res.status).toBe(200);
      const leaked = [...A.ids].filter((id) => res.text.includes(id));
      expect(leaked, `ids of workspace A in workspace B's ${op.operationId}`).toEqual([]);
      if (op.operationId === 'getConversionSummary')
        expect(c.count!(res.body), 'conversions of A counted for B').toBe(0);
      for (const [what, mint, status] of refusals)
        expectStatus(what, await send(op, c.request(A), await mint()), status);
      const own = await send(op, c.request(A), await key(A));
      expect(own.status).toBe(200);
      if (c.count) expect(c.count(own.body), `A's own ${op.operationId} shows A's objects`).toBeGreaterThan(0);
    } else {
      // Create: the other workspace cannot name this workspace's objects...
      for (const f of c.foreign) {
        const res = await send(op, f.request(A), await key(B));
        expectStatus(`a key of another workspace with ${f.name}`, res, f.status);
        if (res.status < 300)
          expect(
            res.text.includes(A.link.id) || res.text.includes(A.link.slug),
            'the answer reveals nothing of the other workspace',
          ).toBe(false);
      }
      // ...what it creates stays its own, invisible to this workspace...
      const theirs = await send(op, c.request(B), await key(B));
      expect(theirs.status, theirs.text).toBe(201);
      const createdId = c.createdId(theirs.body);
      const list = opById(c.listedIn);
      const listReq = (CASES[c.listedIn] as Extract<Kind, { kind: 'list' }>).request(A);
      const mine = await send(list, listReq, await key(A));
      expect(mine.text.includes(createdId), `A's ${c.listedIn} shows B's new ${createdId}`).toBe(false);
      // ...and the key checks apply, with nothing created by the refused requests.
      const countBefore = await knex()(tableOf(op)).where({ workspace_id: A.ws }).count({ n: '*' });
      for (const [what, mint, status] of refusals)
        expectStatus(what, await send(op, c.request(A), await mint()), status);
      const countAfter = await knex()(tableOf(op)).where({ workspace_id: A.ws }).count({ n: '*' });
      expect(Number(countAfter[0].n), 'refused creates created nothing').toBe(Number(countBefore[0].n));
      const own = await send(op, c.request(A), await key(A));
      expect(own.status, own.text).toBe(201);
    }
    expect(seen).toEqual([]);
    expect(problems).toEqual([]);
  });

  function tableOf(op: Operation) {
    const made: Record<string, string> = { createTag: 'tags', createQrCode: 'qr_codes' };
    if (made[op.operationId]) return made[op.operationId];
    return op.operationId === 'createLink'
      ? 'links'
      : op.operationId === 'recordConversion'
        ? 'conversions'
        : 'webhook_subscriptions';
  }
});
