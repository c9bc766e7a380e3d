// Bio pages through HTTPS on every engine: made and changed in the dashboard API with their rules
// (handle, blocks, avatar; a URL block made into a short link under POST /api/v1/links's rules),
// drafts not shown until published, /@{handle} served by the redirect path (headers, Open Graph,
// no script) on the short domain and the workspace's custom domains, views by people counted and
// placed, link blocks followed as clicks of their short links with the page as referrer, a change
// shown from the next view on this process and on another one, roles, other workspaces, analytics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { testEngines } from '../support/databases';
import { startWithTeams, type Team } from '../support/dashboard';
import { startTestServer, type TestServer } from '../support/server';

const PERSON =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const CRAWLER = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe.each(testEngines())('bio pages on %s', (engine) => {
  let server: TestServer, team: Team, other: Team, base: string;
  let linkId: string;
  let otherLinkId: string;
  let seq = 0;
  const knex = () => server.services.db.knex;
  const handle = (prefix = 'page') => `${prefix}-${engine}-${++seq}`;
  const visit = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    server.request(method, path, { headers: { 'user-agent': PERSON, ...headers } });
  const make = (body: Record<string, unknown>, who = team.member) =>
    who.request('POST', `${base}/pages`, { body: { title: 'Acme', ...body } });
  const publish = (id: string, who = team.member) => who.request('POST', `${base}/pages/${id}/publish`);
  const analytics = async (id: string, query = '') =>
    (await team.analyst.request('GET', `${base}/pages/${id}/analytics${query}`)).body;

  beforeAll(async () => {
    ({ server, team, other, base } = await startWithTeams(engine, {
      env: { CLICK_FLUSH_MS: '60000', TRUST_PROXY: '1' },
    }));
    linkId = (
      await team.member.request('POST', `${base}/links`, {
        body: { url: 'https://shop.example.com/spring', slug: `spring-${engine}` },
      })
    ).body.data.id;
    otherLinkId = (
      await other.member.request('POST', `/workspaces/${other.workspaceId}/links`, {
        body: { url: 'https://example.com/x' },
      })
    ).body.data.id;
  });
  afterAll(async () => server?.stop());

  it("makes a draft that nothing shows until it is published, then serves it as plain HTML with Open Graph tags and the visitor pages' headers", async () => {
    const h = handle();
    const made = await make({
      handle: `  ${h.toUpperCase()} `,
      title: 'Acme on the web',
      bio: 'Shoes & <b>socks</b>',
      theme: 'midnight',
      blocks: [
        { type: 'heading', text: 'Shop' },
        { type: 'link', text: 'Spring sale', linkId },
        { type: 'paragraph', text: 'New every week.' },
      ],
    });
    expect(made.status, made.text).toBe(201);
    const page = made.body.data;
    expect(page).toMatchObject({
      handle: h,
      url: `https://localhost:8443/@${h}`,
      status: 'ACTIVE',
      published: false,
      publishedAt: null,
      hasUnpublishedChanges: true,
      title: 'Acme on the web',
      bio: 'Shoes & <b>socks</b>',
      theme: 'midnight',
      avatarUrl: null,
    });
    expect(page.id).toMatch(/^pg_/);
    expect(page.blocks.map((b: any) => b.type)).toEqual(['heading', 'link', 'paragraph']);
    expect(page.blocks[1]).toMatchObject({
      text: 'Spring sale',
      linkId,
      shortUrl: `https://localhost:8443/spring-${engine}`,
      destination: 'https://shop.example.com/spring',
    });
    expect(page.blocks[1].id).toMatch(/^blk_[a-z0-9]{10}$/);

    expect((await visit(`/@${h}`)).status).toBe(404);
    const published = await publish(page.id);
    expect(published.status).toBe(200);
    expect(published.body.data).toMatchObject({ published: true, hasUnpublishedChanges: false });
    expect(published.body.data.publishedAt).not.toBeNull();

    const res = await visit(`/@${h.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'; style-src 'sha256-[^']+';/);
    expect(res.headers['content-security-policy']).not.toMatch(/script-src|unsafe-inline/);
    expect(res.text).not.toMatch(/<script/i);
    expect(res.text).not.toMatch(/ style=/);
    expect(res.text).toContain('<h1>Acme on the web</h1>');
    expect(res.text).toContain('Shoes &amp; &lt;b&gt;socks&lt;/b&gt;');
    expect(res.text).toContain(`<a href="/@${h}/${page.blocks[1].id}">Spring sale</a>`);
    expect(res.text).toContain(`<meta property="og:title" content="Acme on the web">`);
    expect(res.text).toContain(`<meta property="og:url" content="https://localhost:8443/@${h}">`);
    expect(res.text).toContain(`<link rel="canonical" href="https://localhost:8443/@${h}">`);
    // Crawlers get the same page: its tags are what they read.
    expect((await visit(`/@${h}`, { 'user-agent': CRAWLER })).text).toBe(res.text);
    const head = await visit(`/@${h}`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    // A page answers GET and HEAD only; a trailing slash is the page.
    const post = await visit(`/@${h}`, {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    // The page exists: the answer says the method is refused, not that nothing is here.
    expect(post.text).toContain('<h1>Method not allowed</h1>');
    expect(post.text).not.toMatch(/not found/i);
    expect((await visit(`/@${h}/`)).status).toBe(200);
  });

  it('refuses what the rules refuse, naming the field, and makes nothing', async () => {
    const taken = handle();
    expect((await make({ handle: taken })).status).toBe(201);
    const before = (await team.owner.request('GET', `${base}/pages`)).body.data.length;
    const linksBefore = (await knex()('links').where({ workspace_id: team.workspaceId }).count({ n: '*' }).first())!.n;
    const cases: Array<[Record<string, unknown>, number, string | undefined, RegExp]> = [
      [{ handle: 'bad handle' }, 400, 'handle', /handle must be 1 to 64 characters/],
      [{ handle: 'x'.repeat(65) }, 400, 'handle', /handle/],
      [{ handle: taken.toUpperCase() }, 409, 'handle', /already taken/],
      [{ handle: handle(), title: '   ' }, 400, 'title', /title must not be empty/],
      [{ handle: handle(), title: 'x'.repeat(101) }, 400, 'title', /at most 100/],
      [{ handle: handle(), bio: 'b'.repeat(301) }, 400, 'bio', /at most 300/],
      [
        { handle: handle(), avatarUrl: 'https://elsewhere.example.com/a.png' },
        400,
        'avatarUrl',
        /hosted by the service/,
      ],
      [{ handle: handle(), blocks: [{ type: 'heading', text: 'h'.repeat(101) }] }, 400, 'blocks.0.text', /at most 100/],
      [
        { handle: handle(), blocks: [{ type: 'link', text: 'Other', linkId: otherLinkId }] },
        400,
        'blocks.0.linkId',
        /not a link of this workspace/,
      ],
      [
        { handle: handle(), blocks: [{ type: 'link', text: 'Both', linkId, url: 'https://a.example' }] },
        400,
        'blocks.0.url',
        /either linkId/,
      ],
      [
        { handle: handle(), blocks: [{ type: 'heading', text: 'H', url: 'https://a.example' }] },
        400,
        'blocks.0',
        /only link blocks/,
      ],
      // A URL block goes through POST /api/v1/links's rules; a refused one makes no link, nor
      // does a good one before it.
      [
        {
          handle: handle(),
          blocks: [
            { type: 'link', text: 'Fine', url: 'https://a.example' },
            { type: 'link', text: 'FTP', url: 'ftp://a.example/file' },
          ],
        },
        400,
        'blocks.1.url',
        /http or https/,
      ],
      [
        { handle: handle(), blocks: Array.from({ length: 51 }, () => ({ type: 'heading', text: 'H' })) },
        400,
        undefined,
        /blocks/,
      ],
    ];
    for (const [body, status, field, message] of cases) {
      const res = await make(body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(status);
      if (field) expect(res.body.field, JSON.stringify(body).slice(0, 200)).toBe(field);
      expect(res.body.error).toMatch(message);
    }
    // Another workspace cannot take the handle either: the short domain is shared.
    expect(
      (
        await other.member.request('POST', `/workspaces/${other.workspaceId}/pages`, {
          body: { handle: taken, title: 'Mine' },
        })
      ).status,
    ).toBe(409);
    expect((await team.owner.request('GET', `${base}/pages`)).body.data.length).toBe(before);
    expect((await knex()('links').where({ workspace_id: team.workspaceId }).count({ n: '*' }).first())!.n).toEqual(
      linksBefore,
    );
  });

  it('makes a short link for a URL block, keeps block ids across edits, and takes a hosted avatar', async () => {
    const image = await team.member.request('POST', `${base}/assets`, {
      rawBody: PNG,
      headers: { 'content-type': 'image/png' },
    });
    expect(image.status).toBe(201);
    const made = await make({
      handle: handle(),
      avatarUrl: image.body.url,
      blocks: [{ type: 'link', text: 'Our podcast', url: 'https://podcast.example.com/episodes' }],
    });
    expect(made.status, made.text).toBe(201);
    const block = made.body.data.blocks[0];
    expect(made.body.data.avatarUrl).toBe(image.body.url);
    const link = await knex()('links').where({ id: block.linkId }).first();
    expect(link).toMatchObject({
      workspace_id: team.workspaceId,
      original_url: 'https://podcast.example.com/episodes',
      title: 'Our podcast',
      deleted_at: null,
    });
    expect(block.shortUrl).toBe(`https://localhost:8443/${link.slug}`);
    // Edits send the blocks back with their ids: the block stays itself.
    const edited = await team.member.request('PATCH', `${base}/pages/${made.body.data.id}`, {
      body: {
        blocks: [
          { type: 'heading', text: 'Listen' },
          { id: block.id, type: 'link', text: 'The podcast', linkId: block.linkId },
        ],
        avatarUrl: null,
      },
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data.blocks[1]).toMatchObject({ id: block.id, text: 'The podcast', linkId: block.linkId });
    expect(edited.body.data.blocks[0].id).not.toBe(block.id);
    expect(edited.body.data.avatarUrl).toBeNull();
    expect((await team.member.request('PATCH', `${base}/pages/${made.body.data.id}`, { body: {} })).status).toBe(400);
  });

  it('counts views by people only, and a followed block as a click of its short link with the page as referrer', async () => {
    const h = handle('views');
    const page = (await make({ handle: h, blocks: [{ type: 'link', text: 'Sale', linkId }] })).body.data;
    await publish(page.id);
    const blockId = page.blocks[0].id;
    const clicksBefore = await knex()('clicks').where({ link_id: linkId }).count({ n: '*' }).first();

    await visit(`/@${h}`, { referer: 'https://l.instagram.com/?u=x', 'x-country-code': 'FR' });
    // Placed by its address, as the trusted proxy saw it (docs/geo.md).
    await visit(`/@${h}`, { 'x-forwarded-for': '81.2.69.142' });
    await visit(`/@${h}`, { 'user-agent': CRAWLER });
    await visit(`/@${h}`, {}, 'HEAD');
    await visit(`/@${h}`, { 'sec-purpose': 'prefetch' });
    const follow = await visit(`/@${h}/${blockId}`, { referer: 'https://elsewhere.example.org/' });
    expect(follow.status).toBe(302);
    expect(follow.headers.location).toBe('https://shop.example.com/spring');
    expect(follow.headers['cache-control']).toMatch(/no-store/);
    // A crawler following the block is redirected but not counted.
    expect((await visit(`/@${h}/${blockId}`, { 'user-agent': CRAWLER })).status).toBe(302);
    expect((await visit(`/@${h}/blk_nosuchblock`)).status).toBe(404);
    await server.clicks.flush();

    const views = await knex()('page_views').where({ page_id: page.id }).orderBy('id');
    expect(views).toHaveLength(2);
    expect(views[0]).toMatchObject({
      workspace_id: team.workspaceId,
      referrer_host: 'l.instagram.com',
      country: 'FR',
      device: 'mobile',
      browser: 'Mobile Safari',
    });
    expect(views[1]).toMatchObject({ country: 'GB', city: expect.any(String) });
    const clicks = await knex()('clicks').where({ link_id: linkId }).orderBy('id');
    expect(clicks.length - Number(clicksBefore!.n)).toBe(1);
    // The page is the referrer, whatever the browser said.
    expect(clicks[clicks.length - 1]).toMatchObject({ referrer_host: 'localhost', workspace_id: team.workspaceId });
    const stats = await analytics(page.id);
    expect(stats.totals).toEqual({ views: 2, clicks: 1 });
    expect(stats.series).toHaveLength(30);
    expect(stats.series[29]).toMatchObject({ views: 2, clicks: 1 });
    expect(stats.blocks).toEqual([{ blockId, text: 'Sale', linkId, clicks: 1 }]);
    expect(stats.breakdowns.countries).toEqual(
      expect.arrayContaining([
        { value: 'FR', views: 1 },
        { value: 'GB', views: 1 },
      ]),
    );
    expect(stats.breakdowns.devices).toEqual([{ value: 'mobile', views: 2 }]);
    expect(stats.breakdowns.referrers).toEqual(expect.arrayContaining([{ value: 'l.instagram.com', views: 1 }]));
    // The window's rules are the link analytics'.
    expect(
      (await team.analyst.request('GET', `${base}/pages/${page.id}/analytics?from=2025-01-01&to=2026-12-31`)).status,
    ).toBe(400);
    expect(
      (await team.analyst.request('GET', `${base}/pages/${page.id}/analytics?from=2026-02-02&to=2026-02-01`)).body
        .field,
    ).toBe('from');
    expect((await analytics(page.id, '?from=2026-01-01&to=2026-01-10')).series).toHaveLength(10);
  });

  it('lists a block removed from the draft but still published, with its clicks', async () => {
    const h = handle('removed');
    const page = (await make({ handle: h, blocks: [{ type: 'link', text: 'Old', linkId }] })).body.data;
    await publish(page.id);
    await visit(`/@${h}/${page.blocks[0].id}`);
    await team.member.request('PATCH', `${base}/pages/${page.id}`, {
      body: { blocks: [{ type: 'heading', text: 'New' }] },
    });
    await server.clicks.flush();
    expect((await analytics(page.id)).blocks).toEqual([{ blockId: page.blocks[0].id, text: 'Old', linkId, clicks: 1 }]);
  });

  it("gives the dashboard a policy that allows the themes' stylesheets by hash and images from the hosted assets' origin", async () => {
    const policy = (await server.request('GET', '/app/')).headers['content-security-policy'] as string;
    expect(policy).toMatch(/style-src 'self'( 'sha256-[A-Za-z0-9+/=]+'){4};/);
    expect(policy).toContain("img-src 'self' data: blob: https://localhost:8443;");
    expect(policy).not.toContain('unsafe-inline');
    const elsewhere = await startTestServer(engine, {
      database: server.database,
      env: { ASSET_BASE_URL: 'https://cdn.example.com/sl-assets/' },
    });
    try {
      expect((await elsewhere.request('GET', '/app/')).headers['content-security-policy']).toContain(
        "img-src 'self' data: blob: https://cdn.example.com;",
      );
    } finally {
      await elsewhere.stop();
    }
  });

  it('writes every view of a flush, through many-row inserts and the remainder alike', async () => {
    const h = handle('many');
    const page = (await make({ handle: h })).body.data;
    await publish(page.id);
    // 2 × 64 + 3: the writer's many-row statements and its single-row ones.
    for (let i = 0; i < 131; i += 8)
      await Promise.all(Array.from({ length: Math.min(8, 131 - i) }, () => visit(`/@${h}`)));
    await server.clicks.flush();
    expect(Number((await knex()('page_views').where({ page_id: page.id }).count({ n: '*' }).first())!.n)).toBe(131);
    expect((await analytics(page.id)).totals).toEqual({ views: 131, clicks: 0 });
  });

  it('follows a block to a password-protected link through its form, which posts back to the block', async () => {
    const locked = (
      await team.member.request('POST', `${base}/links`, {
        body: { url: 'https://secret.example.com/', password: 'open sesame' },
      })
    ).body.data.id;
    const h = handle('locked');
    const page = (await make({ handle: h, blocks: [{ type: 'link', text: 'Members only', linkId: locked }] })).body
      .data;
    await publish(page.id);
    const at = `/@${h}/${page.blocks[0].id}`;
    const form = await visit(at);
    expect(form.status).toBe(401);
    expect(form.text).toContain(`action="${at}"`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)![1];
    const cookie = String(form.headers['set-cookie']).split(';')[0];
    expect(String(form.headers['set-cookie'])).toContain(`Path=${at}`);
    const post = (password: string) =>
      server.request('POST', at, {
        rawBody: new URLSearchParams({ csrf, password }).toString(),
        headers: { 'user-agent': PERSON, 'content-type': 'application/x-www-form-urlencoded', cookie },
      });
    expect((await post('wrong')).status).toBe(401);
    const ok = await post('open sesame');
    expect(ok.status).toBe(302);
    expect(ok.headers.location).toBe('https://secret.example.com/');
    await server.clicks.flush();
    expect((await analytics(page.id)).blocks[0].clicks).toBe(1);
  });

  it('shows a change from the next view: publishing a new draft, a new handle, disabling, unpublishing, deleting', async () => {
    const h = handle('change');
    const page = (await make({ handle: h, title: 'First' })).body.data;
    await publish(page.id);
    expect((await visit(`/@${h}`)).text).toContain('<h1>First</h1>');
    // A draft change is not shown until it is published.
    const drafted = await team.member.request('PATCH', `${base}/pages/${page.id}`, { body: { title: 'Second' } });
    expect(drafted.body.data).toMatchObject({ title: 'Second', hasUnpublishedChanges: true });
    expect((await visit(`/@${h}`)).text).toContain('<h1>First</h1>');
    await publish(page.id);
    expect((await visit(`/@${h}`)).text).toContain('<h1>Second</h1>');
    // A new handle moves the live page at once.
    const moved = handle('moved');
    expect(
      (await team.member.request('PATCH', `${base}/pages/${page.id}`, { body: { handle: moved } })).body.data.url,
    ).toBe(`https://localhost:8443/@${moved}`);
    expect((await visit(`/@${h}`)).status).toBe(404);
    expect((await visit(`/@${moved}`)).status).toBe(200);
    // Disabled: 404 without unpublishing; enabled again: back.
    expect(
      (await team.member.request('PATCH', `${base}/pages/${page.id}`, { body: { status: 'DISABLED' } })).body.data,
    ).toMatchObject({ status: 'DISABLED', published: true });
    expect((await visit(`/@${moved}`)).status).toBe(404);
    await team.member.request('PATCH', `${base}/pages/${page.id}`, { body: { status: 'ACTIVE' } });
    expect((await visit(`/@${moved}`)).status).toBe(200);
    const unpublished = await team.member.request('POST', `${base}/pages/${page.id}/unpublish`);
    expect(unpublished.body.data).toMatchObject({ published: false, publishedAt: null, title: 'Second' });
    expect((await visit(`/@${moved}`)).status).toBe(404);
    await publish(page.id);
    expect((await team.member.request('DELETE', `${base}/pages/${page.id}`)).status).toBe(403);
    expect((await team.admin.request('DELETE', `${base}/pages/${page.id}`)).status).toBe(204);
    expect((await visit(`/@${moved}`)).status).toBe(404);
    expect((await team.admin.request('GET', `${base}/pages/${page.id}`)).status).toBe(404);
    // The handle is free again.
    expect((await make({ handle: moved })).status).toBe(201);
  });

  it('refuses to publish a page whose link block lost its link, naming the block', async () => {
    const doomed = (
      await team.member.request('POST', `${base}/links`, { body: { url: 'https://example.com/soon-gone' } })
    ).body.data.id;
    const page = (
      await make({
        handle: handle(),
        blocks: [
          { type: 'heading', text: 'Hi' },
          { type: 'link', text: 'Gone', linkId: doomed },
        ],
      })
    ).body.data;
    expect((await team.owner.request('DELETE', `${base}/links/${doomed}`)).status).toBe(204);
    expect((await team.member.request('GET', `${base}/pages/${page.id}`)).body.data.blocks[1]).toMatchObject({
      linkId: doomed,
      shortUrl: null,
      destination: null,
    });
    const res = await publish(page.id);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ field: 'blocks.1.linkId' });
  });

  it("serves a page on the workspace's active custom domains only", async () => {
    const host = `go${Date.now()}.${engine}.example.com`;
    const domainId = await addDomain(knex(), team.workspaceId, host);
    await setDomainStatus(knex(), domainId, 'ACTIVE');
    const theirHost = `them${Date.now()}.${engine}.example.com`;
    const theirDomain = await addDomain(knex(), other.workspaceId, theirHost);
    await setDomainStatus(knex(), theirDomain, 'ACTIVE');
    await server.changes.poll();
    const h = handle('domain');
    const page = (await make({ handle: h, blocks: [{ type: 'link', text: 'Sale', linkId }] })).body.data;
    await publish(page.id);
    const res = await visit(`/@${h}`, { host });
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<meta property="og:url" content="https://${host}/@${h}">`);
    expect((await visit(`/@${h}/${page.blocks[0].id}`, { host })).headers.location).toBe(
      'https://shop.example.com/spring',
    );
    expect((await visit(`/@${h}`, { host: theirHost })).status).toBe(404);
    await setDomainStatus(knex(), domainId, 'DISABLED');
    await server.changes.poll();
    expect((await visit(`/@${h}`, { host })).status).toBe(404);
    expect((await visit(`/@${h}`)).status).toBe(200);
  });

  it("shows a change made through another process from that process's next view after its change feed", async () => {
    const second = await startTestServer(engine, { database: server.database, env: { CLICK_FLUSH_MS: '60000' } });
    try {
      const h = handle('shared');
      const page = (await make({ handle: h, title: 'Before' })).body.data;
      await publish(page.id);
      const there = (p: string) => second.request('GET', p, { headers: { 'user-agent': PERSON } });
      expect((await there(`/@${h}`)).text).toContain('<h1>Before</h1>');
      await team.member.request('PATCH', `${base}/pages/${page.id}`, { body: { title: 'After' } });
      await publish(page.id);
      await second.changes.poll();
      expect((await there(`/@${h}`)).text).toContain('<h1>After</h1>');
      await team.member.request('POST', `${base}/pages/${page.id}/unpublish`);
      await second.changes.poll();
      expect((await there(`/@${h}`)).status).toBe(404);
    } finally {
      await second.stop();
    }
  });

  it('renders a preview of an unsaved draft with links that lead nowhere, saving nothing', async () => {
    const before = (await team.analyst.request('GET', `${base}/pages`)).body.data.length;
    const res = await team.analyst.request('POST', `/workspaces/${team.workspaceId}/page-preview`, {
      body: {
        handle: 'Not Saved!',
        title: 'Preview <me>',
        theme: 'forest',
        blocks: [{ type: 'link', text: 'Soon', url: 'https://later.example.com' }],
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.html).toContain('<h1>Preview &lt;me&gt;</h1>');
    expect(res.body.html).toContain('<a href="#">Soon</a>');
    expect(res.body.html).toContain('<meta name="robots" content="noindex">');
    expect(res.body.html).toContain('@notsaved');
    expect((await team.analyst.request('GET', `${base}/pages`)).body.data.length).toBe(before);
  });

  it('lets an ANALYST read and nothing more, a MEMBER not delete, and another workspace nothing at all', async () => {
    const page = (await make({ handle: handle() })).body.data;
    const id = page.id;
    for (const [method, path, body] of [
      ['POST', `${base}/pages`, { handle: handle(), title: 'No' }],
      ['PATCH', `${base}/pages/${id}`, { title: 'No' }],
      ['POST', `${base}/pages/${id}/publish`, undefined],
      ['POST', `${base}/pages/${id}/unpublish`, undefined],
      ['DELETE', `${base}/pages/${id}`, undefined],
    ] as const) {
      const res = await team.analyst.request(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await team.analyst.request('GET', `${base}/pages/${id}`)).status).toBe(200);
    expect((await team.member.request('DELETE', `${base}/pages/${id}`)).status).toBe(403);
    const theirs = `/workspaces/${other.workspaceId}`;
    for (const [method, path] of [
      ['GET', `${theirs}/pages/${id}`],
      ['PATCH', `${theirs}/pages/${id}`],
      ['POST', `${theirs}/pages/${id}/publish`],
      ['POST', `${theirs}/pages/${id}/unpublish`],
      ['GET', `${theirs}/pages/${id}/analytics`],
      ['DELETE', `${theirs}/pages/${id}`],
    ] as const) {
      const res = await other.owner.request(method, path, method === 'PATCH' ? { body: { title: 'Taken' } } : {});
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await other.owner.request('GET', `${theirs}/pages`)).body.data.map((p: any) => p.id)).not.toContain(id);
    expect((await other.owner.request('GET', `${base}/pages`)).status).toBe(404);
    expect((await team.member.request('GET', `${base}/pages/${id}`)).body.data.title).toBe('Acme');
  });
});
