// Strict-Transport-Security when the service serves TLS itself: on every answer, those of the
// redirect path (src/redirect/handler.ts, before Express) as much as the API's, the dashboard's
// and the docs'. Behind a TLS proxy (TLS=off) the proxy sends it (deploy/nginx), not the service.
import { describe, expect, it } from 'vitest';
import { createQrCode } from '../../src/db/repos/workspace-objects';
import { testEngines } from '../support/databases';
import { serverWithOwner, type Seeded } from '../support/seed';
import type { TestResponse, TestServer } from '../support/server';

const HSTS = 'max-age=31536000';

/** One of each kind of answer: redirect path (link, QR image, visitor page), API, dashboard, docs. */
async function answers(server: TestServer, owner: Seeded, headers: Record<string, string> = {}) {
  const knex = server.services.db.knex;
  const body = { url: 'https://example.com/x' };
  const made = await server.request('POST', '/api/v1/links', { key: owner.key, headers, body });
  expect(made.status, made.text).toBe(201);
  await server.changes.poll();
  const qr = await createQrCode(knex, owner.workspaceId, made.body.data.id);
  const get = (path: string) => server.request('GET', path, { headers });
  const named: Array<[string, TestResponse]> = [
    ['short link', await get(`/${made.body.data.slug}`)],
    ['unknown short link', await get('/no-such-link')],
    ['QR image', await get(`/qr/${qr.code}.svg`)],
    ['QR scan', await get(`/qr/${qr.code}`)],
    ['API', await server.request('GET', '/api/v1/links', { key: owner.key, headers })],
    ['API refusal', await get('/api/v1/links')],
    ['dashboard page', await get('/app/login')],
    ['dashboard API', await get('/app/api/session')],
    ['docs', await get('/docs')],
    ['OpenAPI document', await get('/openapi.json')],
    ['health', await get('/healthz')],
  ];
  expect(named.find(([, r]) => r.status === 302 && r.headers.location === 'https://example.com/x')).toBeTruthy();
  return named;
}

describe.each(testEngines())('Strict-Transport-Security on %s', (engine) => {
  const suite = serverWithOwner(engine);

  it('is on every HTTPS answer the service serves itself', async () => {
    for (const [name, res] of await answers(suite.server, suite.owner)) {
      expect(res.headers['strict-transport-security'], name).toBe(HSTS);
    }
  });
});

describe('behind a TLS-terminating proxy (TLS=off)', () => {
  const suite = serverWithOwner('sqlite', { env: { TLS: 'off', TRUST_PROXY: '1' } });

  it('leaves it to the proxy', async () => {
    for (const [name, res] of await answers(suite.server, suite.owner, { 'x-forwarded-proto': 'https' })) {
      expect(res.headers['strict-transport-security'], name).toBeUndefined();
    }
  });
});
