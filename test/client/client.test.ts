// The typed client (`shortlink/client`): against the service on every engine (typed answers,
// errors as values, every page of the links, a conversion's retry answered once through its
// Idempotency-Key), and against a stand-in server for what the service will not do on demand
// (429 with Retry-After, 5xx, a dropped connection): which requests are repeated, how long it
// waits, and what it gives back when it stops.
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, type components, type ShortlinkError } from '../../src/client/index';
import { createKey } from '../../src/db/repos/api-keys';
import type { Scope } from '../../src/domain/access';
import { testEngines } from '../support/databases';
import { apiClient, httpsFetch } from '../support/client';
import { seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe.each(testEngines())('the typed client against the service on %s', (engine) => {
  let server: TestServer;
  let owner: Seeded;
  const knex = () => server.services.db.knex;
  const freshKey = async (scopes: Scope[] = ['links:read', 'links:write', 'conversions:read', 'conversions:write']) =>
    (await createKey(knex(), owner.workspaceId, owner.userId, scopes, null)).key;

  beforeAll(async () => {
    server = await startTestServer(engine);
    owner = await seedWorkspace(knex());
  });
  afterAll(async () => server?.stop());

  it('answers typed data, and errors as values with status, error and field', async () => {
    const client = apiClient(server, await freshKey());
    const made = await client.POST('/api/v1/links', {
      body: { url: 'https://example.com/typed', slug: `typed-${engine}` },
    });
    expect(made.error).toBeUndefined();
    if (made.error) return;
    expectTypeOf(made.data.data).toEqualTypeOf<components['schemas']['Link']>();
    expect(made.data.data).toMatchObject({
      slug: `typed-${engine}`,
      originalUrl: 'https://example.com/typed',
      clicks: 0,
    });
    const got = await client.GET('/api/v1/links/{id}', { params: { path: { id: made.data.data.id } } });
    expect(got.data?.data.id).toBe(made.data.data.id);

    const missing = await client.GET('/api/v1/links/{id}', { params: { path: { id: 'lnk_nope' } } });
    expectTypeOf(missing.error).toEqualTypeOf<ShortlinkError | undefined>();
    expect(missing.error).toMatchObject({ status: 404, error: expect.any(String) });
    const refused = await client.POST('/api/v1/links', { body: { url: 'ftp://example.com/x' } });
    expect(refused.error).toMatchObject({ status: 400, field: 'url' });
    const taken = await client.POST('/api/v1/links', { body: { url: 'https://example.com', slug: `typed-${engine}` } });
    expect(taken.error).toMatchObject({ status: 409, error: expect.stringMatching(/taken/) });
    const window = await client.GET('/api/v1/conversions', {
      params: { query: { from: '2024-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } },
    });
    expect(window.error).toMatchObject({ status: 400, field: expect.any(String) });
    const stranger = createClient({ baseUrl: server.url, key: `mk_${'0'.repeat(64)}`, fetch: httpsFetch(server.ca) });
    expect((await stranger.GET('/api/v1/links')).error).toMatchObject({ status: 401 });
  });

  it("reads and replaces a link's routing, typed", async () => {
    const client = apiClient(server, await freshKey());
    const made = await client.POST('/api/v1/links', { body: { url: 'https://example.com/routed' } });
    const id = made.data!.data.id;
    const set = await client.PUT('/api/v1/links/{id}/routing', {
      params: { path: { id } },
      body: { rules: [{ conditions: [{ type: 'os', value: 'android' }], url: 'https://play.google.com/x' }] },
    });
    expectTypeOf(set.data!.data).toEqualTypeOf<components['schemas']['Routing']>();
    expect(set.data?.data.rules[0]).toMatchObject({
      id: expect.stringMatching(/^rul_/),
      url: 'https://play.google.com/x',
    });
    const trial = await client.POST('/api/v1/links/{id}/routing/trial', {
      params: { path: { id } },
      body: {
        userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/124.0 Mobile Safari/537.36',
      },
    });
    expect(trial.data?.data).toMatchObject({ url: 'https://play.google.com/x', served: { kind: 'rule' } });
    const bad = await client.PUT('/api/v1/links/{id}/routing', {
      params: { path: { id } },
      body: { clickIdParam: 'a b' },
    });
    expect(bad.error).toMatchObject({ status: 400, field: 'clickIdParam' });
  });

  it('has a typed method for each tag, QR code and domain operation, answering as the service does', async () => {
    const mine = await seedWorkspace(knex());
    const key = (await createKey(knex(), mine.workspaceId, mine.userId, ['links:read', 'links:write'], null)).key;
    const client = apiClient(server, key);
    const tag = await client.createTag({ name: `client ${engine}`, color: '#22c55e' });
    expectTypeOf(tag.data!.data).toEqualTypeOf<components['schemas']['Tag']>();
    expect(tag.data?.data).toMatchObject({ name: `client ${engine}`, color: '#22c55e' });
    const id = tag.data!.data.id;
    expect((await client.createTag({ name: `client ${engine}` })).error).toMatchObject({ status: 409 });
    expect((await client.updateTag(id, { name: 'renamed' })).data?.data).toEqual({
      id,
      name: 'renamed',
      color: '#22c55e',
    });
    expect((await client.updateTag(id, { color: 'red' })).error).toMatchObject({ status: 400, field: 'color' });
    expect((await client.listTags()).data?.data).toEqual([{ id, name: 'renamed', color: '#22c55e' }]);
    const deleted = await client.deleteTag(id);
    expect([deleted.error, deleted.response?.status]).toEqual([undefined, 204]);
    expect((await client.deleteTag(id)).error).toMatchObject({ status: 404 });

    const link = (await client.POST('/api/v1/links', { body: { url: 'https://example.com/client-qr' } })).data!.data;
    const qr = await client.createQrCode(link.id);
    expectTypeOf(qr.data!.data).toEqualTypeOf<components['schemas']['QrCode']>();
    expect(qr.data?.data).toMatchObject({ linkId: link.id, svgUrl: `${qr.data?.data.url}.svg` });
    const qrId = qr.data!.data.id;
    expect((await client.getQrCode(qrId)).data?.data).toEqual(qr.data?.data);
    const page = await client.listQrCodes({ linkId: link.id, limit: 10 });
    expect(page.data).toEqual({ data: [qr.data?.data], meta: { page: 1, limit: 10, total: 1 } });
    expect((await client.listQrCodes({ limit: 101 })).error).toMatchObject({ status: 400, field: 'limit' });
    expect((await client.createQrCode('lnk_unknown')).error).toMatchObject({ status: 404 });
    expect((await client.deleteQrCode(qrId)).response?.status).toBe(204);
    expect((await client.getQrCode(qrId)).error).toMatchObject({ status: 404 });

    const domains = await client.listDomains();
    expectTypeOf(domains.data!.data).toEqualTypeOf<Array<components['schemas']['Domain']>>();
    expect(domains.data?.data).toEqual([]);
  });

  it('iterates over every link of the workspace, page after page, each once even when one is made while paging', async () => {
    const mine = await seedWorkspace(knex());
    const key = (await createKey(knex(), mine.workspaceId, mine.userId, ['links:read', 'links:write'], null)).key;
    const now = Date.now();
    const rows = Array.from({ length: 230 }, (_, i) => ({
      id: `lnk_it${engine}${String(i).padStart(4, '0')}`,
      workspace_id: mine.workspaceId,
      created_by: mine.userId,
      domain_id: null,
      domain_key: '',
      slug: `it-${engine}-${i}`,
      original_url: `https://example.com/${i}`,
      status: 'ACTIVE',
      policy_locked: false,
      redirect_type: 'TEMPORARY',
      created_at: now - i * 1000,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += 100) await knex()('links').insert(rows.slice(i, i + 100));
    const client = apiClient(server, key);
    const seen: string[] = [];
    for await (const link of client.allLinks({ limit: 100 })) {
      seen.push(link.id);
      // A link made after the first page: every row after it moves one place back.
      if (seen.length === 1)
        expect(
          (await client.POST('/api/v1/links', { body: { url: 'https://example.com/late' } })).error,
        ).toBeUndefined();
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => id.startsWith('lnk_it'))).toEqual(rows.map((r) => r.id));
  });

  it('lists only the links matching the filters given to allLinks, paging over them', async () => {
    const client = apiClient(server, await freshKey());
    const made: string[] = [];
    for (const [slug, status] of [
      ['filtered-a', 'ACTIVE'],
      ['filtered-b', 'DISABLED'],
      ['filtered-c', 'ACTIVE'],
      ['other-d', 'ACTIVE'],
    ] as const) {
      const res = await client.POST('/api/v1/links', { body: { url: `https://example.com/${slug}`, slug } });
      made.push(res.data!.data.id);
      if (status === 'DISABLED')
        await client.PATCH('/api/v1/links/{id}', { params: { path: { id: res.data!.data.id } }, body: { status } });
    }
    const slugs = async (filters: Parameters<typeof client.allLinks>[0]) => {
      const out: string[] = [];
      for await (const link of client.allLinks(filters)) out.push(link.slug);
      return out;
    };
    expect(await slugs({ search: 'FILTERED-', limit: 1 })).toEqual(['filtered-c', 'filtered-b', 'filtered-a']);
    expect(await slugs({ search: 'filtered', status: 'ACTIVE', domainId: 'short', sort: 'createdAt' })).toEqual([
      'filtered-c',
      'filtered-a',
    ]);
    // A value the contract refuses throws the service's answer, naming the parameter.
    await expect(slugs({ status: 'GONE' as never })).rejects.toMatchObject({ status: 400, field: 'status' });
  });

  /**
   * A client whose first POST reaches the service but whose answer is lost on the way back (a
   * dropped connection), and the Idempotency-Key each POST attempt carried.
   */
  function losingFirstPostAnswer(key: string) {
    const sent: string[] = [];
    let dropped = false;
    const base = httpsFetch(server.ca);
    const client = createClient({
      baseUrl: server.url,
      key,
      sleep: async () => undefined,
      fetch: async (request) => {
        if (request.method === 'POST') sent.push(request.headers.get('Idempotency-Key') ?? '');
        const response = await base(request);
        if (request.method === 'POST' && !dropped) {
          dropped = true;
          throw new TypeError('fetch failed: socket hang up');
        }
        return response;
      },
    });
    return { client, sent };
  }

  it('gives a conversion an Idempotency-Key, so a retry after a lost answer records it once and answers the first response', async () => {
    const key = await freshKey();
    // The first answer to a conversion is lost on the way back: the service has recorded it.
    const { client, sent } = losingFirstPostAnswer(key);
    const before = Number(
      (await knex()('conversions').where({ workspace_id: owner.workspaceId }).count({ n: '*' }).first())!.n,
    );
    const recorded = await client.POST('/api/v1/conversions', { body: { eventType: 'signup' } });
    expect(recorded.error).toBeUndefined();
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]).toBe(sent[0]);
    const after = Number(
      (await knex()('conversions').where({ workspace_id: owner.workspaceId }).count({ n: '*' }).first())!.n,
    );
    expect(after).toBe(before + 1);
    const stored = await knex()('conversions')
      .where({ workspace_id: owner.workspaceId })
      .orderBy('created_at', 'desc')
      .first();
    expect(recorded.data?.data.id).toBe(stored.id);
    // A key the caller gives is kept.
    const own = await client.POST('/api/v1/conversions', {
      body: { eventType: 'lead' },
      headers: { 'Idempotency-Key': 'my-order-42' },
    });
    expect(own.error).toBeUndefined();
    expect(sent[2]).toBe('my-order-42');
  });

  it('creates, changes and deletes links in bulk, typed, a lost answer to a create retried once', async () => {
    const key = await freshKey(['links:read', 'links:write']);
    const ws = await seedWorkspace(knex());
    const bulkKey = (await createKey(knex(), ws.workspaceId, ws.userId, ['links:read', 'links:write'], null)).key;
    const base = httpsFetch(server.ca);
    // The first answer to the bulk create is lost on the way back: the service has made the links.
    const { client, sent } = losingFirstPostAnswer(bulkKey);
    const slug = `client-bulk-${engine}`;
    const made = await client.createLinks([
      { url: 'https://example.com/c1', slug },
      { url: 'https://example.com/c2' },
      { url: 'ftp://nope' },
    ]);
    expect(made.error).toBeUndefined();
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    const results = made.data!.data;
    expect(results.map((r) => r.status)).toEqual([201, 201, 400]);
    const rows = await knex()('links').where({ workspace_id: ws.workspaceId }).whereNull('deleted_at');
    expect(rows).toHaveLength(2);
    const ids = results.flatMap((r) => ('data' in r ? [r.data.id] : []));
    expectTypeOf(results[0]).toMatchTypeOf<{ status: number }>();

    const changed = await client.updateLinks([...ids, 'lnk_missing'], { title: 'Bulk' });
    expect(changed.data?.data.map((r) => r.status)).toEqual([200, 200, 404]);
    const refused = await client.updateLinks(ids, { slug: 'x' } as never);
    expect(refused.error).toMatchObject({ status: 400, field: 'changes.slug' });

    const gone = await client.deleteLinks(ids);
    expect(gone.data?.data.map((r) => r.status)).toEqual([200, 200]);
    // Another workspace's key sees none of them.
    const other = createClient({ baseUrl: server.url, key, fetch: base });
    expect((await other.deleteLinks(ids)).data?.data.map((r) => r.status)).toEqual([404, 404]);
  });
});

describe('the typed client against a stand-in server', () => {
  let server: http.Server;
  let base: string;
  let answers: Array<(req: http.IncomingMessage, res: http.ServerResponse) => void>;
  let requests: Array<{ method: string; url: string; key: string | undefined; idempotencyKey: string | undefined }>;
  let waits: number[];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push({
        method: req.method!,
        url: req.url!,
        key: req.headers.authorization,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      });
      req.resume();
      const answer = answers.shift() ?? ((_q, r) => json(r, 500, { error: 'no answer scripted' }));
      answer(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(() => {
    answers = [];
  });

  function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }
  const ok = (_q: http.IncomingMessage, r: http.ServerResponse) =>
    json(r, 200, { data: [], meta: { page: 1, limit: 20, total: 0 } });
  const created = (_q: http.IncomingMessage, r: http.ServerResponse) => json(r, 201, { data: { id: 'cnv_1' } });
  const status =
    (code: number, headers: Record<string, string> = {}) =>
    (_q: http.IncomingMessage, r: http.ServerResponse) =>
      json(r, code, { error: `status ${code}`, ...(code === 503 ? { code: 'conversions_unavailable' } : {}) }, headers);
  const hangUp = (q: http.IncomingMessage) => q.socket.destroy();
  const client = (o: { retries?: number; maxRetryAfterMs?: number } = {}) => {
    requests = [];
    waits = [];
    return createClient({
      baseUrl: `${base}/`,
      key: 'mk_test',
      sleep: async (ms) => void waits.push(ms),
      baseDelayMs: 100,
      maxDelayMs: 1_000,
      ...o,
    });
  };

  it('waits what Retry-After says after a 429, for any request, and sends the key each time', async () => {
    const c = client();
    answers = [status(429, { 'Retry-After': '3' }), created];
    const res = await c.POST('/api/v1/links', { body: { url: 'https://example.com' } });
    expect(res.error).toBeUndefined();
    expect(waits).toEqual([3_000]);
    expect(requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(requests.every((r) => r.key === 'Bearer mk_test')).toBe(true);
  });

  it('walks past a capped total until a page comes back short', async () => {
    const c = client();
    const link = (i: number) => ({ id: `lnk_${i}`, slug: `s${i}` });
    const page = (ids: number[], meta: Record<string, unknown>) => (_q: http.IncomingMessage, r: http.ServerResponse) =>
      json(r, 200, { data: ids.map(link), meta: { limit: 2, ...meta } });
    // The service counts matches up to 10,000: a total of 2 that is capped says "2 or more".
    answers = [
      page([1, 2], { page: 1, total: 2, totalCapped: true }),
      page([3, 4], { page: 2, total: 2, totalCapped: true }),
      page([5], { page: 3, total: 2, totalCapped: true }),
    ];
    const ids: string[] = [];
    for await (const l of c.allLinks({ limit: 2, status: 'ACTIVE' })) ids.push(l.id);
    expect(ids).toEqual(['lnk_1', 'lnk_2', 'lnk_3', 'lnk_4', 'lnk_5']);
    expect(requests.map((r) => new URL(r.url, base).searchParams.get('page'))).toEqual(['1', '2', '3']);
  });

  it('gives back a 429 whose wait is longer than it may wait, with the wait', async () => {
    const c = client({ maxRetryAfterMs: 10_000 });
    answers = [status(429, { 'Retry-After': '30' })];
    const res = await c.GET('/api/v1/links');
    expect(res.error).toEqual({ status: 429, error: 'status 429', retryAfterSeconds: 30 });
    expect(waits).toEqual([]);
  });

  it('repeats a GET after 5xx and a dropped connection with growing waits, and gives back the last failure when the retries run out', async () => {
    const c = client({ retries: 3 });
    answers = [status(502), hangUp, status(503), ok];
    const res = await c.GET('/api/v1/links');
    expect(res.error).toBeUndefined();
    expect(requests).toHaveLength(4);
    expect(waits).toHaveLength(3);
    // Backoff with jitter: each wait in [ceiling / 2, ceiling], the ceiling doubling to its cap.
    expect(waits[0]).toBeGreaterThanOrEqual(50);
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[2]).toBeGreaterThanOrEqual(200);
    expect(waits[2]).toBeLessThanOrEqual(400);

    const d = client({ retries: 2 });
    answers = [status(503), status(503), status(503)];
    expect((await d.GET('/api/v1/links')).error).toEqual({
      status: 503,
      error: 'status 503',
      code: 'conversions_unavailable',
    });
    expect(requests).toHaveLength(3);
  });

  it('repeats a PUT after 5xx: it replaces a whole document, so twice leaves what once does', async () => {
    const c = client({ retries: 2 });
    answers = [status(503), ok];
    const res = await c.PUT('/api/v1/links/{id}/routing', {
      params: { path: { id: 'lnk_1' } },
      body: { indexable: true },
    });
    expect(res.error).toBeUndefined();
    expect(requests).toHaveLength(2);
  });

  it('does not repeat a create or a change after 5xx or a dropped connection: the service may have made it', async () => {
    const c = client();
    answers = [status(500)];
    expect((await c.POST('/api/v1/links', { body: { url: 'https://example.com' } })).error).toMatchObject({
      status: 500,
    });
    expect(requests).toHaveLength(1);
    answers = [hangUp];
    requests = [];
    const dropped = await c.PATCH('/api/v1/links/{id}', { params: { path: { id: 'lnk_1' } }, body: { title: 'x' } });
    expect(dropped.error).toMatchObject({ status: 0, code: 'network_error' });
    expect(requests).toHaveLength(1);
  });

  it('repeats a conversion after 5xx, with the same Idempotency-Key each time', async () => {
    const c = client();
    answers = [status(500), hangUp, created];
    const res = await c.POST('/api/v1/conversions', { body: { eventType: 'purchase' } });
    expect(res.data).toEqual({ data: { id: 'cnv_1' } });
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.idempotencyKey)).size).toBe(1);
    expect(requests[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('is importable as shortlink/client under plain node, from the compiled package', async () => {
    const script = `
      import { createClient } from 'shortlink/client';
      const c = createClient({ baseUrl: '${base}', key: 'mk_test', retries: 0 });
      const res = await c.GET('/api/v1/links');
      console.log(JSON.stringify(res.data ?? res.error));
    `;
    answers = [ok];
    requests = [];
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(JSON.parse(stdout)).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0 } });
    expect(requests[0]).toMatchObject({ method: 'GET', url: '/api/v1/links', key: 'Bearer mk_test' });
  });
});
