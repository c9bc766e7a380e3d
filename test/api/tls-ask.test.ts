// GET /tls/ask (openapi/paths/tls_ask.yaml): the question a TLS front end issuing certificates on
// demand (Caddy's on_demand_tls ask) puts before it requests one. Yes for the shared short
// domain, the dashboard's host and verified custom domains not disabled; no for any other name,
// so nobody makes the front end request certificates for names of their choosing. Only a
// loopback client may ask, or one holding TLS_ASK_TOKEN. Through HTTP on every engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { testEngines } from '../support/databases';
import { seedWorkspace } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

describe.each(testEngines())('GET /tls/ask on %s', (engine) => {
  let server: TestServer;
  let tokened: TestServer;
  const ask = (s: TestServer, query: string, headers: Record<string, string> = {}) =>
    s.request('GET', `/tls/ask?${query}`, { headers });

  beforeAll(async () => {
    server = await startTestServer(engine, {
      env: { TRUST_PROXY: '1', SHORT_DOMAIN: 'sho.rt', PUBLIC_URL: 'https://links.example.org' },
    });
    tokened = await startTestServer(engine, { env: { TLS_ASK_TOKEN: 'caddy-asks-this', TRUST_PROXY: '1' } });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await tokened?.stop();
  });

  it('yes for the short domain, the dashboard host and verified custom domains; no for the rest', async () => {
    const knex = server.services.db.knex;
    const { workspaceId } = await seedWorkspace(knex);
    const verified = `go-${engine}.acme.test`;
    const pending = `pending-${engine}.acme.test`;
    await setDomainStatus(knex, await addDomain(knex, workspaceId, verified), 'ACTIVE');
    await addDomain(knex, workspaceId, pending);

    expect((await ask(server, 'domain=sho.rt')).body).toEqual({ domain: 'sho.rt', kind: 'short' });
    expect((await ask(server, 'domain=links.example.org')).body).toEqual({
      domain: 'links.example.org',
      kind: 'dashboard',
    });
    const yes = await ask(server, `domain=${verified.toUpperCase()}.`);
    expect(yes.status).toBe(200);
    expect(yes.body).toEqual({ domain: verified, kind: 'custom' });
    for (const name of [pending, 'unknown.example.net', 'sho.rt.evil.test', `x.${verified}`, 'ü.test']) {
      const no = await ask(server, `domain=${encodeURIComponent(name)}`);
      expect(no.status, name).toBe(404);
      expect(no.body.error).toBe(`${name} is not a domain this service answers for`);
    }
    // A control character is no name: refused before any lookup.
    expect((await ask(server, 'domain=nul%00.test')).status).toBe(400);
    const missing = await ask(server, 'name=sho.rt');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/domain/);
  });

  it('a domain disabled in the dashboard stops getting certificates from the next question', async () => {
    const knex = server.services.db.knex;
    const { workspaceId } = await seedWorkspace(knex);
    const host = `off-${engine}.acme.test`;
    const id = await addDomain(knex, workspaceId, host);
    await setDomainStatus(knex, id, 'ACTIVE');
    expect((await ask(server, `domain=${host}`)).status).toBe(200);
    await setDomainStatus(knex, id, 'DISABLED');
    expect((await ask(server, `domain=${host}`)).status).toBe(404);
  });

  it('answers loopback clients only, as the trusted proxy saw them, or the holder of TLS_ASK_TOKEN', async () => {
    const outside = await ask(server, 'domain=sho.rt', { 'x-forwarded-for': '203.0.113.7' });
    expect(outside.status).toBe(403);
    expect(outside.body.error).toMatch(/loopback/);
    const host = new URL(`https://${tokened.services.config.shortDomain}`).hostname;
    expect((await ask(tokened, `domain=${host}`)).status).toBe(401);
    expect((await ask(tokened, `domain=${host}&token=wrong`)).status).toBe(401);
    const held = await ask(tokened, `domain=${host}&token=caddy-asks-this`, { 'x-forwarded-for': '203.0.113.7' });
    expect(held.status).toBe(200);
    // One host serving both, as by default: it is the short domain.
    expect(held.body.kind).toBe('short');
  });
});
