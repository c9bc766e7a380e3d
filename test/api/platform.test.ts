// Keys, plans, scopes, rate limit, HTTPS, body limits, request ids and logs, on every engine.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPlan } from '../../src/db/repos/workspaces';
import { createKey, revokeKey } from '../../src/db/repos/api-keys';
import { testEngines } from '../support/databases';
import { document } from '../support/fuzz-openapi';
import { shadowedPaths } from '../support/routes';
import { seedWorkspace, serverWithOwner, type Seeded } from '../support/seed';
import { httpsRequest, startTestServer, type TestServer } from '../support/server';

describe.each(testEngines())('platform on %s', (engine) => {
  let server: TestServer;
  let owner: Seeded;
  const logs: string[] = [];
  const knex = () => server.services.db.knex;
  const list = (key?: string, headers?: Record<string, string>) =>
    server.request('GET', '/api/v1/links', { key, headers });

  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (c) => logs.push(String(c)));
    server = await startTestServer(engine, { logStream: stream });
    owner = await seedWorkspace(knex());
  });
  afterAll(async () => server?.stop());

  describe('API keys (401)', () => {
    it('refuses a missing, malformed or unknown key', async () => {
      for (const res of [
        await list(),
        await list(undefined, { authorization: 'Basic abc' }),
        await list('mk_123'),
        await list(`sk_${'a'.repeat(64)}`),
        await list(`mk_${'A'.repeat(64)}`),
        await list(`mk_${'0'.repeat(64)}`),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
    });

    it('refuses a revoked key', async () => {
      const s = await seedWorkspace(knex());
      expect((await list(s.key)).status).toBe(200);
      await revokeKey(knex(), s.keyId);
      const res = await list(s.key);
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/revoked/);
    });

    it('refuses an expired key', async () => {
      const s = await seedWorkspace(knex(), { expiresAt: Date.now() - 1000 });
      const res = await list(s.key);
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/expired/);
      const later = await seedWorkspace(knex(), { expiresAt: Date.now() + 60_000 });
      expect((await list(later.key)).status).toBe(200);
    });

    it('refuses keys of an unpaid workspace, including one minted while it was paid', async () => {
      const s = await seedWorkspace(knex(), { plan: 'business' });
      expect((await list(s.key)).status).toBe(200);
      await setPlan(knex(), s.workspaceId, 'free');
      expect((await list(s.key)).status).toBe(401);
      const born = await seedWorkspace(knex(), { plan: 'free' });
      expect((await list(born.key)).status).toBe(401);
    });

    it('stores only a hash of the key', async () => {
      const rows = await knex()('api_keys').where({ id: owner.keyId });
      expect(JSON.stringify(rows)).not.toContain(owner.key);
      expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    });
  });

  describe('plans and scopes (403)', () => {
    it('refuses the pro plan with 403 naming the plan', async () => {
      const s = await seedWorkspace(knex(), { plan: 'pro' });
      const res = await list(s.key);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatch(/pro/);
    });

    it('refuses an operation whose scope the key lacks', async () => {
      const reader = await seedWorkspace(knex(), { scopes: ['links:read'] });
      expect((await list(reader.key)).status).toBe(200);
      const res = await server.request('POST', '/api/v1/links', {
        key: reader.key,
        body: { url: 'https://example.com' },
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toContain('links:write');
      expect(await knex()('links').where({ workspace_id: reader.workspaceId })).toHaveLength(0);
      const writer = await seedWorkspace(knex(), { scopes: ['links:write'] });
      expect((await list(writer.key)).status).toBe(403);
      const analytics = await seedWorkspace(knex(), { scopes: ['analytics:read'] });
      expect((await list(analytics.key)).status).toBe(403);
    });
  });

  describe('rate limit', () => {
    it('allows 60 requests a minute per key across endpoints, then 429 with its headers', async () => {
      const s = await seedWorkspace(knex());
      const made = await server.request('POST', '/api/v1/links', { key: s.key, body: { url: 'https://example.com' } });
      expect(made.headers['x-ratelimit-limit']).toBeUndefined();
      expect(made.headers['retry-after']).toBeUndefined();
      for (let i = 0; i < 29; i++) expect((await list(s.key)).status).toBe(200);
      for (let i = 0; i < 30; i++) {
        expect((await server.request('GET', `/api/v1/links/${made.body.data.id}`, { key: s.key })).status).toBe(200);
      }
      const limited = await list(s.key);
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ error: expect.any(String) });
      expect(limited.headers['x-ratelimit-limit']).toBe('60');
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      const reset = Number(limited.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(60);
      expect(Number(limited.headers['retry-after'])).toBe(reset);
      // Another key of the same workspace has its own budget.
      const other = await createKey(knex(), s.workspaceId, s.userId, ['links:read'], null);
      expect((await list(other.key)).status).toBe(200);
    });
  });

  describe('requests', () => {
    it('answers 413 for a body over 64 KiB and creates nothing', async () => {
      const before = await knex()('links').count({ n: '*' });
      const res = await server.request('POST', '/api/v1/links', {
        key: owner.key,
        body: { url: 'https://example.com', title: 'x'.repeat(70 * 1024) },
      });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ error: 'Request body exceeds 64 KiB' });
      expect(await knex()('links').count({ n: '*' })).toEqual(before);
    });

    it('answers 400 for malformed JSON', async () => {
      const res = await server.request('POST', '/api/v1/links', {
        key: owner.key,
        rawBody: '{"url": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/JSON/);
      const noBody = await server.request('POST', '/api/v1/links', { key: owner.key });
      expect(noBody.status).toBe(400);
    });

    it('answers an unknown API route with 404 { error }', async () => {
      const res = await server.request('GET', '/api/v1/nothing-here', { key: owner.key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: expect.any(String) });
    });

    // /, /healthz, /readyz and /metrics also fit /{slug}, whose POST is the password form, and
    // /api/v1/links/bulk fits /api/v1/links/{id}, whose GET reads a link: a method a fixed path
    // lacks is its 405, never the templated sibling's operation.
    const shadowed = shadowedPaths(document);
    it('has fixed paths that a template also fits (the test below covers each)', () => {
      expect(shadowed.map((s) => `${s.path} ${s.methods.join(',')}`).sort()).toEqual([
        '/ POST',
        '/api/v1/links/bulk GET',
        '/healthz POST',
        '/metrics POST',
        '/readyz POST',
      ]);
    });
    it.each(shadowed.flatMap((s) => s.methods.map((method) => [method, s.path, s.allow] as const)))(
      'answers %s %s 405 with Allow naming its own methods, a fixed path winning over a template',
      async (method, path, allow) => {
        const res = await server.request(method, path, { key: owner.key, body: {} });
        expect(res.status, res.text).toBe(405);
        expect(res.headers.allow).toBe(allow.join(', '));
        expect(res.body).toEqual({ error: `Method ${method} is not allowed on ${path}` });
      },
    );

    it('forbids caching and content sniffing of every API answer, errors included', async () => {
      const answers = [
        await list(owner.key),
        await list(),
        await server.request('GET', '/api/v1/nothing-here', { key: owner.key }),
        await server.request('POST', '/api/v1/links', {
          key: owner.key,
          rawBody: '{"url":',
          headers: { 'content-type': 'application/json' },
        }),
      ];
      expect(answers.map((r) => r.status)).toEqual([200, 401, 404, 400]);
      for (const res of answers) {
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
    });

    it('gives every response its own request id', async () => {
      const a = await list(owner.key);
      const b = await list();
      expect(a.headers['x-service-request-id']).toBeTruthy();
      expect(b.headers['x-service-request-id']).toBeTruthy();
      expect(a.headers['x-service-request-id']).not.toBe(b.headers['x-service-request-id']);
    });

    it('never writes keys or passwords to the log', async () => {
      await server.request('POST', '/api/v1/links', {
        key: owner.key,
        body: { url: 'https://example.com', password: 'log-me-not-123' },
      });
      await new Promise((r) => setTimeout(r, 50));
      const text = logs.join('');
      expect(text).toMatch(/POST \/api\/v1\/links 201 \d+ms/);
      expect(text).not.toContain(owner.key);
      expect(text).not.toContain('log-me-not-123');
    });

    it('serves health and readiness without a key', async () => {
      expect((await server.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
      expect((await server.request('GET', '/readyz')).body).toEqual({ status: 'ready' });
    });
  });
});

describe('HTTPS only behind a TLS-terminating proxy', () => {
  const suite = serverWithOwner('sqlite', { env: { TLS: 'off', TRUST_PROXY: '1' } });

  it('refuses an API request that arrived over plain HTTP and changes nothing', async () => {
    const res = await suite.server.request('POST', '/api/v1/links', {
      key: suite.owner.key,
      body: { url: 'https://example.com' },
      headers: { 'x-forwarded-proto': 'http' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/HTTPS/);
    const none = await suite.server.request('POST', '/api/v1/links', {
      key: suite.owner.key,
      body: { url: 'https://example.com' },
    });
    expect(none.status).toBe(400);
    expect(await suite.server.services.db.knex('links').count({ n: '*' })).toEqual([{ n: 0 }]);
    const ok = await suite.server.request('POST', '/api/v1/links', {
      key: suite.owner.key,
      body: { url: 'https://example.com' },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(ok.status).toBe(201);
  });

  it('ignores X-Forwarded-Proto when the proxy is not trusted', async () => {
    const untrusted = await startTestServer('sqlite', { env: { TLS: 'off' } });
    try {
      const s = await seedWorkspace(untrusted.services.db.knex);
      const res = await httpsRequest(untrusted.url, untrusted.ca, 'GET', '/api/v1/links', {
        key: s.key,
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(res.status).toBe(400);
    } finally {
      await untrusted.stop();
    }
  });
});

describe('the docs', () => {
  let server: TestServer;
  let _owner: Seeded;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
    _owner = await seedWorkspace(server.services.db.knex, { scopes: ['conversions:read', 'webhooks:read'] });
  });
  afterAll(async () => server?.stop());

  // npm's prepare step builds the docs after every install (npm run docs).
  it('serves the self-contained API docs at /docs', async () => {
    const res = await server.request('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('Shortlink API');
    expect(res.text).toContain('createLink');
    // Works offline: no script or stylesheet is loaded from another host.
    expect(res.text).not.toMatch(/<(script|link)[^>]+(src|href)="https?:/);
  });

  // The published documents, on the host that is also the short domain: no key,
  // their own media type, and a cache may keep a copy only if it asks again before using it.
  it.each([
    ['/docs', 'text/html; charset=utf-8', 'generated/docs/index.html'],
    ['/docs/webhooks', 'text/html; charset=utf-8', 'generated/docs/webhooks.html'],
    ['/openapi.json', 'application/json; charset=utf-8', 'generated/openapi.json'],
    ['/asyncapi/variant-a.json', 'application/json; charset=utf-8', 'generated/asyncapi-a.json'],
    ['/asyncapi/variant-b.json', 'application/json; charset=utf-8', 'generated/asyncapi-b.json'],
  ])('publishes %s as %s, the bytes of %s, not to be reused unchecked', async (path, type, file) => {
    const fs = await import('node:fs');
    const res = await server.request('GET', path, { key: 'not-a-key' });
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.text).toBe(fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
    if (type.startsWith('text/html')) {
      // The pages load nothing from another host, and their policy says so to the browser.
      expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
      expect(res.headers['content-security-policy']).not.toMatch(/https?:/);
      expect(res.text).not.toContain('https://cdn.redoc.ly');
    } else {
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
    const head = await server.request('HEAD', path);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe(type);
    expect(head.text).toBe('');
  });

  it("/docs links to the webhook reference; /docs/webhooks holds both variants' events and their rules", async () => {
    expect((await server.request('GET', '/docs')).text).toContain('href="/docs/webhooks"');
    const page = (await server.request('GET', '/docs/webhooks')).text;
    const { eventCatalog } = await import('../../src/webhooks/catalog');
    for (const variant of ['A', 'B'] as const) {
      for (const event of eventCatalog(variant).events) expect(page, `${variant} ${event.name}`).toContain(event.name);
    }
    for (const words of [
      'X-Webhook-Signature',
      'X-Service-Signature',
      'X-Service-Delivery-Id',
      'Deduplication key',
      '10, 20, 40, 80 and 160 seconds',
      '10 minutes',
      'UNKNOWN',
    ]) {
      expect(page, words).toContain(words);
    }
  });

  it('/openapi.json is the contract the server runs on, and openapi.json can be no slug', async () => {
    const res = await server.request('GET', '/openapi.json');
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toContain('/api/v1/links');
    const writer = await seedWorkspace(server.services.db.knex);
    const taken = await server.request('POST', '/api/v1/links', {
      key: writer.key,
      body: { url: 'https://example.com', slug: 'openapi.json' },
    });
    expect(taken.status).toBe(409);
  });
});

describe('the docs on a service with its own PUBLIC_URL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { PUBLIC_URL: 'https://links.example.org' } });
  });
  afterAll(async () => server?.stop());

  it('names the service by its PUBLIC_URL in the API reference and the contract', async () => {
    const page = await server.request('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('https://links.example.org');
    expect(page.text).not.toContain('localhost:8443');
    const contract = await server.request('GET', '/openapi.json');
    expect(contract.body.servers.map((s: { url: string }) => s.url)).toEqual(['https://links.example.org']);
    const head = await server.request('HEAD', '/openapi.json');
    expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(contract.text));
  });
});

describe('hosted assets', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => server?.stop());

  it('serves a file added under DATA_DIR/assets at /assets/, and 404 { error } for an unknown one', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    fs.mkdirSync(path.join(server.dataDir, 'assets'), { recursive: true });
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    fs.writeFileSync(path.join(server.dataDir, 'assets', 'ast_test.png'), png);
    const res = await server.request('GET', '/assets/ast_test.png');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    // A script inside an uploaded SVG must not run on the service's origin.
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'.*sandbox/);
    const missing = await server.request('GET', '/assets/nope.png');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: expect.any(String) });
  });
});
