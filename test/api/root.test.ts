// The service's root (`/`, getRoot), which no short link can be: a browser on the dashboard's host
// is sent to the dashboard; on a short domain, to ROOT_REDIRECT when the operator set one, else a
// 404 with { error }; a ROOT_REDIRECT that is not an absolute http(s) URL stops the start. No
// database is read, so one engine covers it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { startTestServer, type TestServer } from '../support/server';

const DASHBOARD = 'localhost:8443';
const SHORT = 'sho.rt';

describe('the root of each host', () => {
  const servers: TestServer[] = [];
  const start = async (env: Record<string, string>) => {
    const server = await startTestServer('sqlite', { env });
    servers.push(server);
    return server;
  };
  let apart: TestServer;
  let apartWithRedirect: TestServer;
  let oneHostWithRedirect: TestServer;

  beforeAll(async () => {
    apart = await start({ SHORT_DOMAIN: SHORT });
    apartWithRedirect = await start({ SHORT_DOMAIN: SHORT, ROOT_REDIRECT: 'https://www.example.com/welcome' });
    oneHostWithRedirect = await start({ ROOT_REDIRECT: 'https://www.example.com/' });
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  const root = (server: TestServer, host: string, method = 'GET') => server.request(method, '/', { headers: { host } });

  it("sends a browser on the dashboard's host to the dashboard", async () => {
    for (const server of [apart, apartWithRedirect]) {
      for (const method of ['GET']) {
        const res = await root(server, DASHBOARD, method);
        expect(res.status, method).toBe(302);
        expect(res.headers.location).toBe('/app/');
        expect(res.headers['cache-control']).toBe('no-store');
      }
    }
    // The dashboard's address answers what it sent the browser to.
    const login = await apart.request('GET', '/app/', { headers: { host: DASHBOARD } });
    expect(login.status).toBe(200);
    expect(login.headers['content-type']).toMatch(/^text\/html/);
  });

  it('sends a short domain to ROOT_REDIRECT, normalised, and nowhere without it', async () => {
    const sent = await root(apartWithRedirect, SHORT);
    expect(sent.status).toBe(302);
    expect(sent.headers.location).toBe('https://www.example.com/welcome');
    // A custom domain, or any host that is not the dashboard's, is a short domain's root too.
    expect((await root(apartWithRedirect, 'go.customer.example')).headers.location).toBe(
      'https://www.example.com/welcome',
    );
    const none = await root(apart, SHORT);
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ error: expect.any(String) });
  });

  it('on one host serving both, ROOT_REDIRECT wins and the dashboard stays at /app/', async () => {
    const res = await root(oneHostWithRedirect, DASHBOARD);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://www.example.com/');
    expect((await oneHostWithRedirect.request('GET', '/app/', { headers: { host: DASHBOARD } })).status).toBe(200);
  });

  it('answers another method at the root 405, and a slug is still a slug', async () => {
    const post = await apartWithRedirect.request('POST', '/', { headers: { host: SHORT } });
    expect(post.status).toBe(405);
    expect(post.body).toEqual({ error: expect.any(String) });
    expect((await apartWithRedirect.request('GET', '/no-such-link', { headers: { host: SHORT } })).status).toBe(404);
  });

  it.each(['javascript:alert(1)', '/relative', 'www.example.com', 'ftp://example.com/'])(
    'refuses to start with ROOT_REDIRECT=%s',
    (value) => {
      expect(() => loadConfig({ ROOT_REDIRECT: value, DATA_DIR: '/tmp' })).toThrow(
        /ROOT_REDIRECT must be an absolute http or https URL/,
      );
    },
  );
});
