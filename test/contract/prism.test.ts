// The running server held to the OpenAPI document by Stoplight Prism.
//
// Approach: per database engine, one real HTTPS server (test/support/server.ts) and one
// `prism proxy generated/openapi.json https://127.0.0.1:<port> --errors` child process in front of
// it (test/support/prism.ts; the child alone trusts the test certificate via NODE_EXTRA_CA_CERTS).
// Every request below goes through the proxy, and for each one we assert
//   1. Prism reported no violation: no `sl-violations` header (errors AND warnings, e.g. an
//      undeclared 4xx status, which --errors lets through with only the header), no Prism-made
//      problem+json (with --errors a response error becomes Prism's 500 #VIOLATIONS), and the
//      server's own X-Service-Request-Id is present (so the server, not Prism, answered); and
//   2. the status is the one the interface gives for that case.
//
// Requests that themselves violate the document (page=0, limit=abc, PATCH with an unknown field,
// a wrong type or enum value, a missing body or key, malformed JSON, ...) are never forwarded by
// `prism proxy --errors`: Prism answers 422 #UNPROCESSABLE_ENTITY (401 #UNAUTHORIZED without a
// Bearer header; 400 invalid_json for malformed JSON) itself. Running a second proxy with
// --validate-request=false would not help for the missing key (security is always checked), so
// for those cases the test (a) asserts that Prism refuses the request without reaching the
// server, which documents that the document itself forbids it, then (b) sends the same request
// straight to the server and validates the server's answer with Prism's own router and
// response validator in-process (directViolations), so both paths use the same validator.
//
// Known server/spec mismatches, if any, are `it.fails` tests named "KNOWN MISMATCH" holding the single
// assertion the interface demands; once the server (or the document) is fixed they start
// failing and must become plain `it`.
//
// 207 (updateLink, deleteLink) is covered by test/api/links.test.ts with a failing cache.
// Not covered here: the 400 of getLink/deleteLink (only a plain-HTTP request can cause it and
// the test server speaks HTTPS only), 500, and getReadiness 503 (needs an unreachable database).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as ws from '../../src/db/repos/workspaces';
import { setPolicyDisabled } from '../../src/db/repos/links';
import type { Scope } from '../../src/domain/access';
import { testEngines } from '../support/databases';
import { directViolations, PRISM_ERROR, prismViolations, SPEC_PATH, startPrismProxy, type PrismProxy } from '../support/prism';
import { seedMemberKey, seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type RequestOptions, type TestResponse, type TestServer } from '../support/server';

const LINK_OPS = ['listLinks', 'createLink', 'getLink', 'updateLink', 'deleteLink'] as const;
type LinkOp = (typeof LINK_OPS)[number];

interface Call {
  method: string;
  path: string;
  opts?: RequestOptions;
}

// A valid request for each links operation, on a link of the caller's workspace.
const validCall: Record<LinkOp, (linkId: string) => Call> = {
  listLinks: () => ({ method: 'GET', path: '/api/v1/links?limit=1' }),
  createLink: () => ({ method: 'POST', path: '/api/v1/links', opts: { body: { url: 'https://example.com/auth' } } }),
  getLink: (id) => ({ method: 'GET', path: `/api/v1/links/${id}` }),
  updateLink: (id) => ({ method: 'PATCH', path: `/api/v1/links/${id}`, opts: { body: { title: 'auth' } } }),
  deleteLink: (id) => ({ method: 'DELETE', path: `/api/v1/links/${id}` }),
};
const scopeOf: Record<LinkOp, Scope> = {
  listLinks: 'links:read',
  getLink: 'links:read',
  createLink: 'links:write',
  updateLink: 'links:write',
  deleteLink: 'links:write',
};
const otherScope = (s: Scope): Scope => (s === 'links:read' ? 'links:write' : 'links:read');

const BIG = 'x'.repeat(70_000); // > 64 KiB once in a JSON body
const textPlain = (method: string, path: string, rawBody: string): Call => ({
  method, path, opts: { rawBody, headers: { 'content-type': 'text/plain' } },
});

describe.each(testEngines())('OpenAPI contract checked by a Prism proxy on %s', (engine) => {
  let server: TestServer;
  let prism: PrismProxy;
  let owner: Seeded;
  const knex = () => server.services.db.knex;
  // operationId -> statuses seen, through the proxy or (spec-violating requests) directly.
  const covered = new Map<string, Set<number>>();
  const record = (op: string, status: number) => {
    if (!covered.has(op)) covered.set(op, new Set());
    covered.get(op)!.add(status);
  };

  /** Through the proxy: no Prism violation, then the interface's status. */
  async function viaPrism(op: string, call: Call, status: number, key: string | null = owner.key): Promise<TestResponse> {
    const opts = { ...call.opts, ...(key ? { key } : {}) };
    const res = await prism.request(call.method, call.path, opts);
    const violations = prismViolations(res);
    if (violations.length) {
      const tail = prism.logs().split('\n').slice(-15).join('\n');
      throw new Error(`${op}: ${call.method} ${call.path} through Prism (status ${res.status}):\n  ${violations.join('\n  ')}\nPrism log tail:\n${tail}`);
    }
    expect(res.status, `${op}: ${call.method} ${call.path} -> ${res.text.slice(0, 300)}`).toBe(status);
    record(op, status);
    return res;
  }

  /**
   * A request the document itself forbids: Prism must refuse it without forwarding it
   * (`prismStatus`), and the server's own answer to it, sent directly, must be `status` and
   * valid against the document by Prism's validator.
   */
  async function refusedByPrism(
    op: string,
    call: Call,
    prismStatus: number,
    status: number | null,
    key: string | null = owner.key,
  ): Promise<{ proxied: TestResponse; direct: TestResponse }> {
    const opts = { ...call.opts, ...(key ? { key } : {}) };
    const proxied = await prism.request(call.method, call.path, opts);
    expect(proxied.status, `Prism should refuse ${call.method} ${call.path} itself: ${proxied.text}`).toBe(prismStatus);
    expect(proxied.headers['x-service-request-id'], 'Prism forwarded a request the document forbids').toBeUndefined();
    if (prismStatus !== 400) expect(proxied.body.type).toMatch(PRISM_ERROR);
    const direct = await server.request(call.method, call.path, opts);
    expect(await directViolations(call.method, call.path, direct), `${op}: server's direct answer ${direct.status} ${direct.text}`).toEqual([]);
    if (status !== null) {
      expect(direct.status, `${op}: ${call.method} ${call.path} directly -> ${direct.text.slice(0, 300)}`).toBe(status);
      record(op, status);
    }
    return { proxied, direct };
  }

  const makeLink = async (body: object = { url: 'https://example.com/made' }, key = owner.key) => {
    const res = await server.request('POST', '/api/v1/links', { key, body });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  };
  const freshKey = async (scopes: Scope[] = ['links:read', 'links:write']) =>
    (await ws.createKey(knex(), owner.workspaceId, owner.userId, scopes, null)).key;

  beforeAll(async () => {
    server = await startTestServer(engine);
    prism = await startPrismProxy(`https://127.0.0.1:${server.port}`, { ca: server.ca });
    owner = await seedWorkspace(knex());
  });
  // A fresh key per test: each key has its own 60-requests-a-minute budget.
  beforeEach(async () => {
    if (server) owner = { ...owner, key: await freshKey() };
  });
  afterAll(async () => {
    await prism?.stop();
    await server?.stop();
  });

  describe('probes', () => {
    it('getHealth: 200 { status: ok }', async () => {
      const res = await viaPrism('getHealth', { method: 'GET', path: '/healthz' }, 200, null);
      expect(res.body).toEqual({ status: 'ok' });
    });

    it('getReadiness: 200 { status: ready }', async () => {
      const res = await viaPrism('getReadiness', { method: 'GET', path: '/readyz' }, 200, null);
      expect(res.body).toEqual({ status: 'ready' });
    });
  });

  describe('keys, plans, scopes and the rate limit, on every links operation', () => {
    let linkId: string;
    beforeEach(async () => {
      linkId = (await makeLink()).id;
    });

    it.each(LINK_OPS)('%s: 401 for an unknown, a malformed, a revoked and a free-plan key', async (op) => {
      await viaPrism(op, validCall[op](linkId), 401, `mk_${'0'.repeat(64)}`);
      await viaPrism(op, validCall[op](linkId), 401, 'not-a-key');
      const revoked = await ws.createKey(knex(), owner.workspaceId, owner.userId, ['links:read', 'links:write'], null);
      await ws.revokeKey(knex(), revoked.id);
      await viaPrism(op, validCall[op](linkId), 401, revoked.key);
      const free = await seedWorkspace(knex(), { plan: 'free' });
      await viaPrism(op, validCall[op](linkId), 401, free.key);
    });

    it.each(LINK_OPS)('%s: 401 without Authorization (Prism refuses it itself; the server answer is checked directly)', async (op) => {
      const { proxied } = await refusedByPrism(op, validCall[op](linkId), 401, 401, null);
      expect(proxied.body.type).toBe(`${PRISM_ERROR}UNAUTHORIZED`);
    });

    it.each(LINK_OPS)('%s: 403 for a key without the scope and for a pro-plan workspace', async (op) => {
      const res = await viaPrism(op, validCall[op](linkId), 403, await freshKey([otherScope(scopeOf[op])]));
      expect(res.body.error).toContain(scopeOf[op]);
      const pro = await seedWorkspace(knex(), { plan: 'pro' });
      const proRes = await viaPrism(op, validCall[op](linkId), 403, pro.key);
      expect(proRes.body.error).toMatch(/pro/);
    });

    it.each(LINK_OPS)('%s: 429 with X-RateLimit-* and Retry-After once the key has spent 60 requests', async (op) => {
      const key = await freshKey();
      for (let batch = 0; batch < 3; batch++) {
        await Promise.all(Array.from({ length: 20 }, () => server.request('GET', '/api/v1/links?limit=1', { key })));
      }
      const res = await viaPrism(op, validCall[op](linkId), 429, key);
      expect(res.headers['x-ratelimit-limit']).toBe('60');
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
      expect(res.headers['retry-after']).toBe(String(reset));
    });
  });

  describe('listLinks', () => {
    it('200: a page, the default page and a page past the end; no rate-limit headers on success', async () => {
      const mine = await seedWorkspace(knex());
      const a = await makeLink({ url: 'https://example.com/1' }, mine.key);
      const b = await makeLink({ url: 'https://example.com/2', title: 'second', tagIds: [] }, mine.key);
      const page = await viaPrism('listLinks', { method: 'GET', path: '/api/v1/links?page=1&limit=1' }, 200, mine.key);
      expect(page.body.meta).toEqual({ page: 1, limit: 1, total: 2 });
      expect(page.body.data.map((l: any) => l.id)).toEqual([b.id]);
      expect(page.headers['x-ratelimit-limit']).toBeUndefined();
      const dflt = await viaPrism('listLinks', { method: 'GET', path: '/api/v1/links' }, 200, mine.key);
      expect(dflt.body.meta).toEqual({ page: 1, limit: 20, total: 2 });
      expect(dflt.body.data.map((l: any) => l.id)).toEqual([b.id, a.id]);
      const past = await viaPrism('listLinks', { method: 'GET', path: '/api/v1/links?page=9&limit=100' }, 200, mine.key);
      expect(past.body).toEqual({ data: [], meta: { page: 9, limit: 100, total: 2 } });
    });

    // Every out-of-range or non-integer page/limit violates the Page/Limit parameter schemas.
    it.each(['page=0', 'page=-1', 'page=1.5', 'page=abc', 'limit=0', 'limit=101', 'limit=abc'])(
      '400 for %s (Prism refuses it with 422; the server answer is checked directly)',
      async (q) => {
        const { direct } = await refusedByPrism('listLinks', { method: 'GET', path: `/api/v1/links?${q}` }, 422, 400);
        expect(direct.body.field).toBe(q.split('=')[0]);
      },
    );
  });

  describe('createLink', () => {
    const create = (body: unknown): Call => ({ method: 'POST', path: '/api/v1/links', opts: { body } });

    it('201 with only url: no meta', async () => {
      const res = await viaPrism('createLink', create({ url: 'https://example.com/min' }), 201);
      expect(res.body.data).toMatchObject({ originalUrl: 'https://example.com/min', status: 'ACTIVE', neverExpires: true, clicks: 0 });
      expect(res.body.meta).toBeUndefined();
    });

    it('201 with every recognised field set', async () => {
      const tag = await ws.createTag(knex(), owner.workspaceId, `t${Date.now()}`, '#22c55e');
      const body = {
        url: 'https://example.com/full', slug: `Full-${Date.now()}`, title: '  Full  ', redirectType: 'PERMANENT',
        expiresAt: '2031-03-01T00:00:00+02:00', expiredUrl: 'https://example.com/over', clickLimit: 10,
        startAt: '2030-01-01T00:00:00Z', endAt: '2030-02-01T00:00:00Z', password: 'open sesame', tagIds: [tag],
      };
      const res = await viaPrism('createLink', create(body), 201);
      expect(res.body.data).toMatchObject({
        title: 'Full', redirectType: 'PERMANENT', expiresAt: '2031-02-28T22:00:00.000Z', neverExpires: false, clickLimit: 10,
        hasPassword: true, tags: [{ id: tag, name: expect.any(String), color: '#22c55e' }],
      });
      expect(res.body.meta).toBeUndefined();
    });

    it('201 with meta.ignoredFields naming the unrecognised keys in body order', async () => {
      const res = await viaPrism('createLink', create({ url: 'https://example.com/ign', colour: 'red', previewTitle: 'x', status: 'DISABLED' }), 201);
      expect(res.body.meta).toEqual({ ignoredFields: ['colour', 'previewTitle', 'status'] });
      expect(res.body.data).toMatchObject({ status: 'ACTIVE', previewTitle: null });
    });

    // Allowed by LinkCreate's schema, refused by the operation's rules: forwarded by Prism.
    it.each([
      [{ url: 'javascript:alert(1)' }, 'url'],
      [{ url: 'ftp://example.com/x' }, 'url'],
      [{ url: '/relative' }, 'url'],
      [{ url: 'https://example.com', slug: 'has space' }, 'slug'],
      [{ url: 'https://example.com', slug: 'dot.dot' }, 'slug'],
      [{ url: 'https://example.com', startAt: '2030-02-01T00:00:00Z', endAt: '2030-01-01T00:00:00Z' }, 'endAt'],
      [{ url: 'https://example.com', expiredUrl: 'javascript:alert(1)' }, 'expiredUrl'],
      [{ url: 'https://example.com', tagIds: ['tag_nope'] }, undefined],
      [{ url: 'https://example.com', domainId: 'dom_nope' }, undefined],
    ])('400 for %j (through Prism)', async (body, field) => {
      const res = await viaPrism('createLink', create(body), 400);
      if (field) expect(res.body.field).toBe(field);
    });

    // Forbidden by LinkCreate's schema (or not JSON at all): Prism refuses, the server is checked directly.
    it.each([
      ['no url', { slug: 'no-url' }, 'url'],
      ['url over 2048 characters', { url: `https://e.com/${'a'.repeat(2040)}` }, 'url'],
      ['empty slug', { url: 'https://example.com', slug: '' }, 'slug'],
      ['slug over 64 characters', { url: 'https://example.com', slug: 'x'.repeat(65) }, 'slug'],
      ['unknown redirectType', { url: 'https://example.com', redirectType: 'SOMETIMES' }, 'redirectType'],
      ['clickLimit 0', { url: 'https://example.com', clickLimit: 0 }, 'clickLimit'],
      ['fractional clickLimit', { url: 'https://example.com', clickLimit: 1.5 }, 'clickLimit'],
      ['expiresAt not a date-time', { url: 'https://example.com', expiresAt: 'tomorrow' }, 'expiresAt'],
      ['more than 25 tagIds', { url: 'https://example.com', tagIds: Array.from({ length: 26 }, (_, i) => `tag_${i}`) }, 'tagIds'],
      ['a body that is an array', [{ url: 'https://example.com' }], undefined],
    ])('400 for %s (Prism refuses it with 422; the server answer is checked directly)', async (_what, body, field) => {
      const { direct } = await refusedByPrism('createLink', create(body), 422, 400);
      if (field) expect(direct.body.field).toBe(field);
    });

    it('400 for a body that is not JSON with Content-Type: text/plain (Prism refuses it with 422)', async () => {
      await refusedByPrism('createLink', textPlain('POST', '/api/v1/links', 'url=https://example.com'), 422, 400);
    });

    // The interface (Transport) says a body sent with another Content-Type gives 400.
    it('a JSON body sent as text/plain: Prism refuses it (422); the server answers 400', async () => {
      await refusedByPrism('createLink', textPlain('POST', '/api/v1/links', '{"url":"https://example.com/tp"}'), 422, 400);
    });
    it('a JSON body sent as text/plain gives 400 and creates nothing', async () => {
      const res = await server.request('POST', '/api/v1/links', { ...textPlain('POST', '', '{"url":"https://example.com/tp"}').opts, key: owner.key });
      expect(res.status).toBe(400);
    });

    it('400 for malformed JSON (Prism\'s own body parser refuses it with 400 invalid_json)', async () => {
      const { proxied } = await refusedByPrism(
        'createLink',
        { method: 'POST', path: '/api/v1/links', opts: { rawBody: '{"url": ', headers: { 'content-type': 'application/json' } } },
        400,
        400,
      );
      expect(proxied.body.error.code).toBe('invalid_json');
    });

    it('409 for a taken slug and for a reserved one', async () => {
      const slug = `taken-${Date.now()}`;
      await makeLink({ url: 'https://example.com', slug });
      const taken = await viaPrism('createLink', create({ url: 'https://example.com', slug: slug.toUpperCase() }), 409);
      expect(taken.body.error).toMatch(/taken/);
      for (const reserved of ['admin', 'API', 'favicon.ico']) {
        const res = await viaPrism('createLink', create({ url: 'https://example.com', slug: reserved }), 409);
        expect(res.body.error).toMatch(/reserved/);
      }
    });

    it('413 for a body over 64 KiB', async () => {
      await viaPrism('createLink', create({ url: 'https://example.com', title: BIG }), 413);
    });
  });

  describe('getLink', () => {
    it('200 with the link', async () => {
      const made = await makeLink({ url: 'https://example.com/get', expiredUrl: 'https://example.com/gone', clickLimit: 3 });
      const res = await viaPrism('getLink', { method: 'GET', path: `/api/v1/links/${made.id}` }, 200);
      expect(res.body).toEqual({ data: made });
    });

    it('404 for an unknown id, another workspace\'s link and a deleted link', async () => {
      await viaPrism('getLink', { method: 'GET', path: '/api/v1/links/lnk_missing' }, 404);
      const other = await seedWorkspace(knex());
      const theirs = await makeLink({ url: 'https://example.com/theirs' }, other.key);
      await viaPrism('getLink', { method: 'GET', path: `/api/v1/links/${theirs.id}` }, 404);
      const gone = await makeLink();
      expect((await server.request('DELETE', `/api/v1/links/${gone.id}`, { key: owner.key })).status).toBe(200);
      await viaPrism('getLink', { method: 'GET', path: `/api/v1/links/${gone.id}` }, 404);
    });
  });

  describe('updateLink', () => {
    const patch = (id: string, body: unknown): Call => ({ method: 'PATCH', path: `/api/v1/links/${id}`, opts: { body } });

    it('200 setting fields, clearing nullable ones, and for an empty body', async () => {
      const tag = await ws.createTag(knex(), owner.workspaceId, `u${Date.now()}`, '#123456');
      const made = await makeLink({ url: 'https://example.com/u', expiresAt: '2031-01-01T00:00:00Z', password: 'pw', clickLimit: 5 });
      const set = await viaPrism('updateLink', patch(made.id, {
        url: 'https://example.org/new', redirectType: 'PERMANENT', status: 'DISABLED', tagIds: [tag], startAt: '2030-01-01T00:00:00Z',
        previewTitle: 'Card', previewDescription: 'Desc', previewImage: 'https://localhost:8443/assets/ast_1.png', expiredUrl: 'https://example.com/x',
      }), 200);
      expect(set.body.data).toMatchObject({ originalUrl: 'https://example.org/new', status: 'DISABLED', previewImage: 'https://localhost:8443/assets/ast_1.png' });
      const cleared = await viaPrism('updateLink', patch(made.id, {
        neverExpires: true, title: null, expiredUrl: null, clickLimit: null, startAt: null, endAt: null, password: null, tagIds: [],
        previewTitle: null, previewDescription: null, previewImage: null, status: 'ACTIVE',
      }), 200);
      expect(cleared.body.data).toMatchObject({ neverExpires: true, expiresAt: null, hasPassword: false, tags: [], clickLimit: null });
      const same = await viaPrism('updateLink', patch(made.id, {}), 200);
      expect(same.body.data).toEqual(cleared.body.data);
    });

    // Allowed by LinkUpdate's schema, refused by the operation's rules: forwarded by Prism.
    it.each([
      [{ url: 'javascript:alert(1)' }, 'url'],
      [{ neverExpires: true, expiresAt: '2032-01-01T00:00:00Z' }, undefined],
      [{ previewImage: 'https://evil.example/x.png' }, 'previewImage'],
      [{ previewImage: 'https://localhost:8443/assets/x.svg' }, 'previewImage'],
      [{ slug: 'has space' }, 'slug'],
      [{ expiredUrl: 'ftp://x.example' }, 'expiredUrl'],
      [{ startAt: '2030-02-01T00:00:00Z', endAt: '2030-01-01T00:00:00Z' }, 'endAt'],
      [{ tagIds: ['tag_nope'] }, undefined],
    ])('400 for %j (through Prism)', async (body, field) => {
      const made = await makeLink();
      const res = await viaPrism('updateLink', patch(made.id, body), 400);
      if (field) expect(res.body.field).toBe(field);
    });

    // Forbidden by LinkUpdate's schema (additionalProperties: false, types, enums, required body).
    it.each([
      ['an unknown field (domainId)', { title: 'x', domainId: 'dom_x' }, 'domainId'],
      ['an unknown field (colour)', { colour: 'red' }, 'colour'],
      ['an unknown status', { status: 'PAUSED' }, 'status'],
      ['clickLimit 0', { clickLimit: 0 }, 'clickLimit'],
      ['an empty url', { url: '' }, 'url'],
      ['neverExpires not a boolean', { neverExpires: 'yes' }, 'neverExpires'],
      ['a body that is a string', 'title', undefined],
    ])('400 for %s (Prism refuses it with 422; the server answer is checked directly)', async (_what, body, field) => {
      const made = await makeLink();
      const { direct } = await refusedByPrism('updateLink', patch(made.id, body), 422, 400);
      if (field) expect(direct.body.field).toBe(field);
      if (field === 'domainId') expect(direct.body.error).toContain('previewImage'); // lists the accepted fields
      expect((await server.request('GET', `/api/v1/links/${made.id}`, { key: owner.key })).body.data).toEqual(made);
    });

    // The requestBody is `required: true`: a PATCH without a body is a 400.
    it('without a body: Prism refuses it (422); the server answers 400', async () => {
      const made = await makeLink();
      await refusedByPrism('updateLink', { method: 'PATCH', path: `/api/v1/links/${made.id}` }, 422, 400);
    });
    it('a PATCH without a body gives 400', async () => {
      const made = await makeLink();
      expect((await server.request('PATCH', `/api/v1/links/${made.id}`, { key: owner.key })).status).toBe(400);
    });

    it('400 for a text/plain body that is not JSON (Prism refuses it with 422)', async () => {
      const made = await makeLink();
      await refusedByPrism('updateLink', textPlain('PATCH', `/api/v1/links/${made.id}`, 'title=x'), 422, 400);
    });

    it('403 for an ANALYST and for a member who left', async () => {
      const made = await makeLink();
      const analyst = await seedMemberKey(knex(), owner.workspaceId, 'ANALYST');
      await viaPrism('updateLink', patch(made.id, { title: 'by analyst' }), 403, analyst.key);
      const leaver = await seedMemberKey(knex(), owner.workspaceId, 'MEMBER');
      await ws.removeMember(knex(), owner.workspaceId, leaver.userId);
      await viaPrism('updateLink', patch(made.id, { title: 'by leaver' }), 403, leaver.key);
    });

    it('404 for an unknown id and another workspace\'s link', async () => {
      await viaPrism('updateLink', patch('lnk_missing', { title: 'x' }), 404);
      const other = await seedWorkspace(knex());
      const theirs = await makeLink({ url: 'https://example.com/theirs' }, other.key);
      await viaPrism('updateLink', patch(theirs.id, { title: 'x' }), 404);
    });

    it('409 for a taken slug, a reserved slug and re-enabling a policy-disabled link', async () => {
      const slug = `upd-taken-${Date.now()}`;
      await makeLink({ url: 'https://example.com', slug });
      const made = await makeLink();
      await viaPrism('updateLink', patch(made.id, { slug }), 409);
      await viaPrism('updateLink', patch(made.id, { slug: 'login' }), 409);
      await setPolicyDisabled(knex(), made.id);
      const res = await viaPrism('updateLink', patch(made.id, { status: 'ACTIVE' }), 409);
      expect(res.body.error).toMatch(/policy/);
    });

    it('413 for a body over 64 KiB', async () => {
      const made = await makeLink();
      await viaPrism('updateLink', patch(made.id, { title: BIG }), 413);
    });
  });

  describe('deleteLink', () => {
    const del = (id: string): Call => ({ method: 'DELETE', path: `/api/v1/links/${id}` });

    it('200 with the steps; a second DELETE is 404', async () => {
      const made = await makeLink();
      const res = await viaPrism('deleteLink', del(made.id), 200);
      expect(res.body).toMatchObject({ data: { id: made.id, deleted: true }, result: { outcome: 'success' } });
      expect(res.body.result.steps.map((s: any) => [s.key, s.status])).toEqual([['link', 'ok'], ['redirect_cache', 'ok']]);
      await viaPrism('deleteLink', del(made.id), 404);
    });

    it('403 for a MEMBER or ANALYST', async () => {
      const made = await makeLink();
      for (const role of ['MEMBER', 'ANALYST'] as const) {
        const member = await seedMemberKey(knex(), owner.workspaceId, role);
        await viaPrism('deleteLink', del(made.id), 403, member.key);
      }
    });

    it('404 for an unknown id and another workspace\'s link', async () => {
      await viaPrism('deleteLink', del('lnk_missing'), 404);
      const other = await seedWorkspace(knex());
      const theirs = await makeLink({ url: 'https://example.com/theirs' }, other.key);
      await viaPrism('deleteLink', del(theirs.id), 404);
    });
  });

  it('exercised every declared status of the links operations and probes (207, 500 and the noted exceptions aside)', () => {
    const doc = JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8'));
    const elsewhere: Record<string, number[]> = {
      updateLink: [207], // test/api/links.test.ts
      deleteLink: [207, 400], // 207: test/api/links.test.ts; 400 only for a plain-HTTP request
      getLink: [400], // only for a plain-HTTP request
      getReadiness: [503], // needs an unreachable database
    };
    const missing: string[] = [];
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        if (!op?.operationId || ![...LINK_OPS, 'getHealth', 'getReadiness'].includes(op.operationId)) continue;
        for (const code of Object.keys(op.responses).map(Number)) {
          if (code === 500 || elsewhere[op.operationId]?.includes(code)) continue;
          if (!covered.get(op.operationId)?.has(code)) missing.push(`${op.operationId} ${code}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

// The checks above are only as good as the detection: this holds the detection itself to
// Prism's actual behaviour, with an upstream that answers off-contract on purpose.
describe('Prism violation detection', () => {
  let upstream: http.Server;
  let prism: PrismProxy;
  const requestId = '0b7c9a52-5c1e-4f0e-9a53-1f1d2b9c0e11';

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      const json = (status: number, body: unknown, headers: Record<string, string> = { 'x-service-request-id': requestId }) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/healthz') return json(200, { status: 'ok' });
      if (req.url === '/readyz') return json(200, { status: 'ok' }); // const is "ready"
      if (req.url === '/api/v1/links') return json(418, { error: 'teapot' }); // undeclared 4xx
      if (req.url === '/api/v1/links/lnk_nohdr') return json(404, { error: 'gone' }, {}); // no request id
      if (req.url === '/api/v1/links/lnk_501') return json(501, { error: 'not implemented' });
      return json(404, { error: 'nope' });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    prism = await startPrismProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await prism?.stop();
    await new Promise((resolve) => upstream?.close(resolve));
  });
  const auth = { headers: { authorization: `Bearer mk_${'0'.repeat(64)}` } };

  it('passes a contract-valid answer untouched', async () => {
    const res = await prism.request('GET', '/healthz');
    expect(prismViolations(res)).toEqual([]);
    expect(res.status).toBe(200);
  });

  it('turns a body violation into its 500 #VIOLATIONS and the sl-violations header', async () => {
    const res = await prism.request('GET', '/readyz');
    expect(res.status).toBe(500);
    expect(res.body.type).toBe(`${PRISM_ERROR}VIOLATIONS`);
    expect(prismViolations(res).join('\n')).toMatch(/Error at response\.body.*constant/s);
  });

  it('lets an undeclared 4xx through with only a Warning in sl-violations', async () => {
    const res = await prism.request('GET', '/api/v1/links', auth);
    expect(res.status).toBe(418);
    expect(prismViolations(res)).toEqual([expect.stringMatching(/^Warning at response: Unable to match the returned status code/)]);
  });

  it('reports a missing X-Service-Request-Id', async () => {
    const res = await prism.request('GET', '/api/v1/links/lnk_nohdr', auth);
    expect(prismViolations(res).join('\n')).toMatch(/x-service-request-id/i);
  });

  it('notices that Prism re-mocked an upstream 501', async () => {
    const res = await prism.request('GET', '/api/v1/links/lnk_501', auth);
    expect(prismViolations(res)).not.toEqual([]);
  });

  it('refuses a request the document forbids without forwarding it', async () => {
    const res = await prism.request('GET', '/api/v1/links?page=0', auth);
    expect(res.status).toBe(422);
    expect(prismViolations(res)).not.toEqual([]);
  });

  it('validates a direct answer with the same validator', async () => {
    const answer = (status: number, body: unknown, headers: Record<string, string> = { 'x-service-request-id': requestId }) => ({
      status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, text: JSON.stringify(body), body,
    });
    expect(await directViolations('GET', '/healthz', answer(200, { status: 'ok' }))).toEqual([]);
    expect((await directViolations('GET', '/healthz', answer(200, { status: 'ok', extra: 1 }))).join('\n')).toMatch(/extra/);
    expect((await directViolations('GET', '/api/v1/links?page=0', answer(400, { error: 'x', field: 'page', detail: [] }))).join('\n')).toMatch(/detail/);
    expect((await directViolations('GET', '/api/v1/links', answer(400, { error: 'x' }, {}))).join('\n')).toMatch(/x-service-request-id/i);
    expect((await directViolations('GET', '/api/v1/links', answer(418, { error: 'x' }))).join('\n')).toMatch(/Unable to match/);
  });
});
