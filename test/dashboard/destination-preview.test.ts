// "New link" reads a destination's title, description and image, and the links list shows its
// site's icon, when the operator allows it (DESTINATION_FETCH=on), through the deliveries'
// network rules: through HTTPS on every engine, against real HTTPS page servers.
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

  it("serves a site's named icon, raster only, kept a day; no icon is a 404 and nothing is fetched where refused", async () => {
    // An ICO's first bytes: a raster image, recognised by them.
    const ico = '\u0000\u0000\u0001\u0000icon-bytes';
    const site = await startReceiver();
    const svgSite = await startReceiver();
    try {
      site.reply('/', [
        {
          status: 200,
          headers: { 'content-type': 'text/html' },
          body: '<head><link rel="shortcut icon" href="/i/site.ico"></head>',
        },
      ]);
      site.reply('/i/site.ico', [{ status: 200, headers: { 'content-type': 'image/vnd.microsoft.icon' }, body: ico }]);
      // An SVG could run script on the dashboard's origin; HTML is no icon either.
      svgSite.reply('/', [
        { status: 200, headers: { 'content-type': 'text/html' }, body: '<link rel=icon href="/x.svg">' },
      ]);
      svgSite.reply('/x.svg', [
        {
          status: 200,
          headers: { 'content-type': 'image/svg+xml' },
          body: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        },
      ]);
      svgSite.reply('/favicon.ico', [
        { status: 200, headers: { 'content-type': 'text/html' }, body: '<p>not an icon</p>' },
      ]);
      const icon = (t: Team, host: string) =>
        t.member.request('GET', `/workspaces/${t.workspaceId}/favicons/${encodeURIComponent(host)}`);

      const res = await icon(team, `127.0.0.1:${site.port}`);
      expect(res.status, res.text).toBe(200);
      expect(res.headers['content-type']).toBe('image/x-icon');
      expect(res.text).toBe(ico);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toContain('sandbox');
      expect(res.headers['cache-control']).toBe('private, max-age=86400');
      // Kept: the site is not asked again.
      const asked = site.requests.length;
      expect((await icon(team, `127.0.0.1:${site.port}`)).status).toBe(200);
      expect(site.requests.length).toBe(asked);
      // An ANALYST reads the list too.
      expect(
        (await team.analyst.request('GET', `/workspaces/${team.workspaceId}/favicons/127.0.0.1:${site.port}`)).status,
      ).toBe(200);

      const svg = await icon(team, `127.0.0.1:${svgSite.port}`);
      expect(svg.status).toBe(404);
      expect(svg.body.error).toMatch(/no icon/);

      const before = site.requests.length;
      const refused = await icon(strictTeam, `127.0.0.1:${site.port}`);
      expect(refused.status).toBe(404);
      expect(site.requests.length).toBe(before);

      for (const bad of ['not a host', 'exa_mple.com', 'localhost', '[::1]:443']) {
        const r = await icon(team, bad);
        expect(r.status, bad).toBe(400);
        expect(r.body.field, bad).toBe('host');
      }
    } finally {
      await site.close();
      await svgSite.close();
    }
  });

  it("answers 404 when a site's connection breaks while its icon is asked for, and serves on", async () => {
    const ico = Buffer.from('\u0000\u0000\u0001\u0000icon-bytes', 'latin1');
    // One site drops the connection in the middle of its icon's bytes, the other as soon as
    // either icon is asked for: either way no icon, never a 500.
    const cut = await startReceiver();
    const reset = await startReceiver();
    const healthy = await startReceiver();
    try {
      cut.reply('/', [{ status: 404 }]);
      cut.reply('/favicon.ico', [{ status: 200, headers: { 'content-type': 'image/x-icon' }, body: ico, cut: true }]);
      reset.reply('/', [
        { status: 200, headers: { 'content-type': 'text/html' }, body: '<link rel=icon href="/i.png">' },
      ]);
      reset.reply('/i.png', [{ reset: true }]);
      reset.reply('/favicon.ico', [{ reset: true }]);
      healthy.reply('/favicon.ico', [{ status: 200, headers: { 'content-type': 'image/x-icon' }, body: ico }]);
      const icon = (r: Receiver) =>
        team.member.request('GET', `/workspaces/${team.workspaceId}/favicons/127.0.0.1:${r.port}`);

      for (const [name, broken] of Object.entries({ cut, reset })) {
        const res = await icon(broken);
        expect(res.status, `${name}: ${res.text}`).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body.error).toMatch(/no icon/);
        expect(broken.to('/favicon.ico')).toHaveLength(1);
      }
      expect(reset.to('/i.png')).toHaveLength(1);

      const served = await icon(healthy);
      expect(served.status, served.text).toBe(200);
      expect(served.text).toBe(ico.toString('latin1'));
      expect((await preview(team, pages.url('/spring'))).body.data.title).toBe('Spring sale');
    } finally {
      await cut.close();
      await reset.close();
      await healthy.close();
    }
  });

  it('answers 503 destination_fetch_off where the operator has not allowed fetching', async () => {
    const off = await startTestServer(engine, { webhookCa: [pages.ca] });
    try {
      const offTeam = await seedTeam(off);
      const before = pages.requests.length;
      const res = await preview(offTeam, pages.url('/spring'));
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('destination_fetch_off');
      const icon = await offTeam.member.request(
        'GET',
        `/workspaces/${offTeam.workspaceId}/favicons/127.0.0.1:${pages.port}`,
      );
      expect(icon.status).toBe(503);
      expect(icon.body.code).toBe('destination_fetch_off');
      // The dashboard knows not to ask.
      expect(
        (await offTeam.member.request('GET', `/workspaces/${offTeam.workspaceId}`)).body.data.destinationFetch,
      ).toBe(false);
      expect((await team.member.request('GET', `/workspaces/${team.workspaceId}`)).body.data.destinationFetch).toBe(
        true,
      );
      expect(pages.requests.length).toBe(before);
    } finally {
      await off.stop();
    }
  });
});
