// "New link" reads a destination's title, description and image when the operator allows it
// (DESTINATION_FETCH=on), through the deliveries' network rules: through HTTPS on every engine,
// against a real HTTPS page server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { seedTeam, type Team } from '../support/dashboard';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';

const PAGE = `<!doctype html><html><head>
  <title>  Spring   sale
  </title>
  <meta name="description" content="Plain description">
  <meta property="og:description" content="Everything 20% off &amp; free shipping">
  <meta property="og:image" content="/img/cover.png">
</head><body><meta property="og:title" content="not read: in the body"></body></html>`;

describe.each(testEngines())('the destination preview on %s', (engine) => {
  let pages: Receiver;
  let server: TestServer;
  let strict: TestServer;
  let team: Team;
  let strictTeam: Team;
  const preview = (t: Team, url: string) =>
    t.member.request('GET', `/workspaces/${t.workspaceId}/destination-preview?url=${encodeURIComponent(url)}`);

  beforeAll(async () => {
    pages = await startReceiver();
    pages.reply('/spring', [{ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE }]);
    pages.reply('/moved', [{ status: 302, headers: { location: '/spring' } }]);
    pages.reply('/gone', [{ status: 404 }]);
    pages.reply('/data', [{ status: 200, headers: { 'content-type': 'application/json' }, body: '{}' }]);
    // The tests' page server is on loopback: only a deployment that allows private networks
    // (tests only) reaches it; the other is the default, which refuses it.
    server = await startTestServer(engine, {
      env: { DESTINATION_FETCH: 'on', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' },
      webhookCa: [pages.ca],
    });
    strict = await startTestServer(engine, { env: { DESTINATION_FETCH: 'on' }, webhookCa: [pages.ca] });
    team = await seedTeam(server);
    strictTeam = await seedTeam(strict);
  });
  afterAll(async () => {
    await server?.stop();
    await strict?.stop();
    await pages?.close();
  });

  it('reads the title, Open Graph description and image of the head, the image made absolute', async () => {
    const res = await preview(team, pages.url('/spring'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({
      title: 'Spring sale',
      description: 'Everything 20% off & free shipping',
      image: pages.url('/img/cover.png'),
      problem: null,
    });
  });

  it('follows a redirect; says why a page could not be read; reads nothing from a page that is no HTML', async () => {
    expect((await preview(team, pages.url('/moved'))).body.data.title).toBe('Spring sale');
    const gone = (await preview(team, pages.url('/gone'))).body.data;
    expect(gone).toMatchObject({ title: null, description: null, image: null });
    expect(gone.problem).toMatch(/404/);
    expect((await preview(team, pages.url('/data'))).body.data).toEqual({
      title: null,
      description: null,
      image: null,
      problem: null,
    });
  });

  it('never reaches a loopback address by default, nor the cloud metadata address: nothing is sent', async () => {
    const before = pages.requests.length;
    const res = await preview(strictTeam, pages.url('/spring'));
    expect(res.status).toBe(200);
    expect(res.body.data.title).toBeNull();
    expect(res.body.data.problem).toMatch(/loopback/);
    const metadata = await preview(team, 'http://169.254.169.254/latest/meta-data/');
    expect(metadata.body.data.problem).toMatch(/metadata/);
    expect(pages.requests.length).toBe(before);
  });

  it('refuses a URL that is not http(s) with a 400 naming url, and an ANALYST with a 403', async () => {
    for (const bad of ['javascript:alert(1)', 'not a url', 'ftp://example.com/']) {
      const res = await preview(team, bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.field).toBe('url');
    }
    const analyst = await team.analyst.request(
      'GET',
      `/workspaces/${team.workspaceId}/destination-preview?url=${encodeURIComponent(pages.url('/spring'))}`,
    );
    expect(analyst.status).toBe(403);
  });

  it('answers 503 destination_fetch_off where the operator has not allowed fetching', async () => {
    const off = await startTestServer(engine, { webhookCa: [pages.ca] });
    try {
      const offTeam = await seedTeam(off);
      const before = pages.requests.length;
      const res = await preview(offTeam, pages.url('/spring'));
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('destination_fetch_off');
      expect(pages.requests.length).toBe(before);
    } finally {
      await off.stop();
    }
  });
});
