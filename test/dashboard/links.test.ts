// Links in the dashboard API, through HTTPS on every engine: the rules and messages of the public
// API, the list with search, filters, sort and pages, bulk actions, analytics, QR codes, the CSV
// import and export, image uploads; roles and plans; every other workspace's objects are 404.
import https from 'node:https';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/db/repos/workspaces';
import { createKey } from '../../src/db/repos/api-keys';
import { EXPORT_PAGE } from '../../src/db/repos/link-export';
import { IMPORT_MAX_ROWS } from '../../src/http/dashboard/link-import';
import { linkOperations } from '../../src/operations/links';
import { FOLD_LAG_MS, FOLD_STEP_MS } from '../../src/db/repos/click-folds';
import { geoLocator } from '../../src/platform/geo';
import { testEngines } from '../support/databases';
import { seedPerson, seedTeam, signIn, startWithTeams, type DashboardClient, type Team } from '../support/dashboard';
import { readResponse, type TestResponse, type TestServer } from '../support/server';
import { linkRow } from '../support/stored-rows';
import { CLI_ACTOR } from '../../src/domain/audit';

const PERSON =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
/** A public address the packaged IP-location data places in London. */
const LONDON = '81.2.69.142';
const today = () => new Date().toISOString().slice(0, 10);

describe.each(testEngines())('dashboard links on %s', (engine) => {
  let server: TestServer, team: Team, other: Team, base: string, otherBase: string;
  const knex = () => server.services.db.knex;
  const create = async (body: object, who: DashboardClient = team.owner, at = base) => {
    const res = await who.request('POST', `${at}/links`, { body });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  };
  const visit = (path: string, headers: Record<string, string> = {}) =>
    server.request('GET', path, { headers: { 'user-agent': PERSON, ...headers } });

  beforeAll(async () => {
    ({ server, team, other, base, otherBase } = await startWithTeams(engine, {
      env: { CLICK_FLUSH_MS: '60000', TRUST_PROXY: '1' },
    }));
  });
  afterAll(async () => server?.stop());

  describe('the same rules and messages as POST /api/v1/links', () => {
    const bad: Array<[string, object]> = [
      ['a javascript: destination', { url: 'javascript:alert(1)' }],
      ['a relative destination', { url: '/relative' }],
      ['a reserved slug', { url: 'https://example.com', slug: 'app' }],
      ['a slug with a space', { url: 'https://example.com', slug: 'two words' }],
      ['an expiry that is not a date-time', { url: 'https://example.com', expiresAt: 'tomorrow' }],
      ['a destination over 2048 characters', { url: `https://example.com/${'a'.repeat(2048)}` }],
      ['a click limit of 0', { url: 'https://example.com', clickLimit: 0 }],
      [
        'an end before the start',
        { url: 'https://example.com', startAt: '2031-02-01T00:00:00Z', endAt: '2031-01-01T00:00:00Z' },
      ],
      ['an unknown tag', { url: 'https://example.com', tagIds: ['tag_nope'] }],
      ['an empty domainId', { url: 'https://example.com', domainId: '' }],
      ['a domainId that is no domain', { url: 'https://example.com', domainId: 'dom_nope' }],
    ];
    it.each(bad)('%s: the same status and { error, field } from both', async (_name, body) => {
      const key = (
        await createKey(knex(), team.workspaceId, team.people.owner.userId, ['links:read', 'links:write'], null)
      ).key;
      const viaApi = await server.request('POST', '/api/v1/links', { key, body });
      const viaDashboard = await team.owner.request('POST', `${base}/links`, { body });
      expect(viaApi.status).toBeGreaterThanOrEqual(400);
      expect(viaDashboard.status).toBe(viaApi.status);
      expect(viaDashboard.body).toEqual(viaApi.body);
    });

    it('says what is wrong with a domainId, quoting the value: never a gap for an empty one', async () => {
      const empty = await team.owner.request('POST', `${base}/links`, {
        body: { url: 'https://example.com', domainId: '' },
      });
      expect(empty.body).toEqual({ error: 'domainId must not be empty', field: 'domainId' });
      const unknown = await team.owner.request('POST', `${base}/links`, {
        body: { url: 'https://example.com', domainId: 'dom_nope' },
      });
      expect(unknown.body).toEqual({
        error: 'domainId "dom_nope" is not an active custom domain of this workspace',
        field: 'domainId',
      });
    });

    it('preview fields are checked as PATCH /api/v1/links/{id} checks them; unknown fields are 400 (a form sends none)', async () => {
      const key = (
        await createKey(knex(), team.workspaceId, team.people.owner.userId, ['links:read', 'links:write'], null)
      ).key;
      const apiLink = (await server.request('POST', '/api/v1/links', { key, body: { url: 'https://example.com' } }))
        .body.data;
      for (const preview of [
        { previewImage: 'https://elsewhere.example/a.png' },
        { previewImage: 'javascript:alert(1)' },
        { previewImage: `https://x.example/${'a'.repeat(2048)}` },
      ]) {
        const viaApi = await server.request('PATCH', `/api/v1/links/${apiLink.id}`, { key, body: preview });
        const viaDashboard = await team.owner.request('POST', `${base}/links`, {
          body: { url: 'https://example.com', ...preview },
        });
        expect(viaApi.status, JSON.stringify(preview)).toBe(400);
        expect(viaDashboard.body, JSON.stringify(preview)).toEqual(viaApi.body);
      }
      const unknown = await team.owner.request('POST', `${base}/links`, {
        body: { url: 'https://example.com', colour: 'red' },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ field: 'colour', error: expect.stringMatching(/^Unknown field 'colour'/) });
    });

    it('a taken slug is 409 from both, with the same message', async () => {
      await create({ url: 'https://example.com/taken', slug: 'dash-taken' });
      const key = (
        await createKey(knex(), team.workspaceId, team.people.owner.userId, ['links:read', 'links:write'], null)
      ).key;
      const viaApi = await server.request('POST', '/api/v1/links', {
        key,
        body: { url: 'https://example.com', slug: 'dash-taken' },
      });
      const viaDashboard = await team.owner.request('POST', `${base}/links`, {
        body: { url: 'https://example.com', slug: 'DASH-taken' },
      });
      expect(viaApi.status).toBe(409);
      expect(viaDashboard.status).toBe(409);
      expect(viaDashboard.body).toEqual(viaApi.body);
    });

    it('two people racing for one slug: one link', async () => {
      const answers = await Promise.all(
        [team.owner, team.admin, team.member].map((who) =>
          who.request('POST', `${base}/links`, { body: { url: 'https://example.com/race', slug: 'dash-race' } }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    });
  });

  it('makes a link with every field, which redirects visitors and asks for its password', async () => {
    const tag = (await team.member.request('POST', `${base}/tags`, { body: { name: 'spring', color: '#16a34a' } })).body
      .data;
    const image = await team.member.request('POST', `${base}/assets`, {
      rawBody: PNG,
      headers: { 'content-type': 'image/png' },
    });
    expect(image.status).toBe(201);
    const made = await create(
      {
        url: 'https://example.com/full',
        slug: 'dash-full',
        title: 'Full',
        tagIds: [tag.id],
        redirectType: 'PERMANENT',
        startAt: '2020-01-01T00:00:00Z',
        endAt: '2040-01-01T00:00:00Z',
        expiresAt: '2039-01-01T00:00:00Z',
        expiredUrl: 'https://example.com/over',
        clickLimit: 1000,
        previewTitle: 'Spring sale',
        previewDescription: 'Everything must go',
        previewImage: image.body.url,
      },
      team.member,
    );
    expect(made).toMatchObject({
      slug: 'dash-full',
      title: 'Full',
      redirectType: 'PERMANENT',
      clickLimit: 1000,
      tags: [{ id: tag.id, name: 'spring', color: '#16a34a' }],
      shortUrl: `https://${server.services.config.shortDomain}/dash-full`,
      previewImage: image.body.url,
    });
    const followed = await visit('/dash-full');
    expect(followed.status).toBe(301);
    expect(followed.headers.location).toBe('https://example.com/full');
    // The uploaded image is served from the hosted assets.
    const served = await server.request('GET', new URL(image.body.url).pathname);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');

    const locked = await create({ url: 'https://example.com/locked', slug: 'dash-locked', password: 'open sesame' });
    expect(locked.hasPassword).toBe(true);
    const form = await visit('/dash-locked');
    expect(form.status).toBe(401);
    expect(form.text).toContain('type="password"');
  });

  it('edits and renames: the old slug stops, the new one redirects', async () => {
    const link = await create({ url: 'https://example.com/v1', slug: 'dash-old' });
    const renamed = await team.member.request('PATCH', `${base}/links/${link.id}`, {
      body: { slug: 'dash-new', url: 'https://example.com/v2' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ slug: 'dash-new', originalUrl: 'https://example.com/v2' });
    expect((await visit('/dash-old')).status).toBe(404);
    expect((await visit('/dash-new')).headers.location).toBe('https://example.com/v2');
    const bad = await team.member.request('PATCH', `${base}/links/${link.id}`, { body: { url: 'ftp://example.com' } });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('url');
    expect((await team.member.request('GET', `${base}/links/${link.id}`)).body.data.originalUrl).toBe(
      'https://example.com/v2',
    );
  });

  describe('roles', () => {
    it('an ANALYST reads everything and changes nothing (403 naming the role)', async () => {
      const link = await create({ url: 'https://example.com/ro', slug: 'dash-ro' });
      const a = team.analyst;
      expect((await a.request('GET', `${base}/links`)).status).toBe(200);
      expect((await a.request('GET', `${base}/links/${link.id}`)).status).toBe(200);
      expect((await a.request('GET', `${base}/links/${link.id}/analytics`)).status).toBe(200);
      expect((await a.request('GET', `${base}/links/export`)).status).toBe(200);
      const refused = [
        await a.request('POST', `${base}/links`, { body: { url: 'https://example.com' } }),
        await a.request('PATCH', `${base}/links/${link.id}`, { body: { title: 'x' } }),
        await a.request('DELETE', `${base}/links/${link.id}`),
        await a.request('POST', `${base}/links/bulk`, { body: { linkIds: [link.id], action: 'disable' } }),
        await a.request('POST', `${base}/links/import`, {
          rawBody: 'url\nhttps://example.com\n',
          headers: { 'content-type': 'text/csv' },
        }),
        await a.request('POST', `${base}/links/${link.id}/qr`),
        await a.request('POST', `${base}/assets`, { rawBody: PNG, headers: { 'content-type': 'image/png' } }),
        await a.request('POST', `${base}/tags`, { body: { name: 'nope' } }),
      ];
      // The role is checked before the body: a bad body is refused for the role, not the body.
      refused.push(await a.request('POST', `${base}/links`, { body: { url: 42 } }));
      for (const r of refused) {
        expect(r.status).toBe(403);
        expect(r.body.error).toMatch(/^Your role in this workspace \(ANALYST\) may not do this: /);
      }
      const after = (await a.request('GET', `${base}/links/${link.id}`)).body.data;
      expect(after).toMatchObject({ title: null, status: 'ACTIVE' });
    });

    it('a MEMBER may not delete links (as in the API); OWNER and ADMIN may', async () => {
      const link = await create({ url: 'https://example.com/del', slug: 'dash-del' });
      expect((await team.member.request('DELETE', `${base}/links/${link.id}`)).status).toBe(403);
      expect((await team.admin.request('DELETE', `${base}/links/${link.id}`)).status).toBe(204);
      expect((await team.admin.request('GET', `${base}/links/${link.id}`)).status).toBe(404);
      expect((await visit('/dash-del')).status).toBe(404);
    });

    it('the free plan may use the dashboard for links, though its keys open nothing', async () => {
      const free = await seedTeam(server, 'free');
      const res = await free.member.request('POST', `/workspaces/${free.workspaceId}/links`, {
        body: { url: 'https://example.com/free', slug: 'dash-free' },
      });
      expect(res.status).toBe(201);
      expect((await visit('/dash-free')).headers.location).toBe('https://example.com/free');
      // A paid feature the plan lacks is refused with the API's message.
      const expired = await free.member.request('POST', `/workspaces/${free.workspaceId}/links`, {
        body: { url: 'https://example.com', expiresAt: '2035-01-01T00:00:00Z', expiredUrl: 'https://example.com/x' },
      });
      expect(expired.status).toBe(403);
      expect(expired.body.error).toMatch(/plan/i);
    });
  });

  describe('other workspaces', () => {
    it("another workspace's links, and another workspace's path, are 404 for every operation", async () => {
      const theirs = await create({ url: 'https://example.com/theirs', slug: 'dash-theirs' }, other.owner, otherBase);
      expect((await other.owner.request('POST', `${otherBase}/links/${theirs.id}/qr`)).status).toBe(200);
      const me = team.owner;
      const inMine = [
        await me.request('GET', `${base}/links/${theirs.id}`),
        await me.request('PATCH', `${base}/links/${theirs.id}`, { body: { title: 'mine now' } }),
        await me.request('DELETE', `${base}/links/${theirs.id}`),
        await me.request('GET', `${base}/links/${theirs.id}/analytics`),
        await me.request('POST', `${base}/links/${theirs.id}/qr`),
        await me.request('GET', `${base}/links/${theirs.id}/qr`),
      ];
      const theirQr = (await other.owner.request('GET', `${otherBase}/links/${theirs.id}/qr`)).body.data;
      inMine.push(await me.request('GET', `${base}/qr-codes/${theirQr.id}`));
      for (const r of inMine) expect(r.status).toBe(404);
      expect(inMine[0].body).toEqual({ error: 'Link not found' });
      const inTheirs = [
        await me.request('GET', `${otherBase}/links`),
        await me.request('GET', `${otherBase}/links/${theirs.id}`),
        await me.request('POST', `${otherBase}/links`, { body: { url: 'https://example.com' } }),
        await me.request('GET', `${otherBase}/links/export`),
        await me.request('GET', otherBase),
      ];
      for (const r of inTheirs) expect(r.status).toBe(404);
      expect(inTheirs[0].body).toEqual({ error: 'Workspace not found' });
      const bulk = await me.request('POST', `${base}/links/bulk`, { body: { linkIds: [theirs.id], action: 'delete' } });
      expect(bulk.body.data).toEqual([{ id: theirs.id, ok: false, error: 'Link not found' }]);
      const untouched = (await other.owner.request('GET', `${otherBase}/links/${theirs.id}`)).body.data;
      expect(untouched).toMatchObject({ title: null, status: 'ACTIVE' });
      // My list shows none of theirs.
      const mine = await me.request('GET', `${base}/links?limit=100&q=dash-theirs`);
      expect(mine.body.data).toEqual([]);
      // A tag of theirs cannot be put on my links.
      const theirTag = (await other.owner.request('POST', `${otherBase}/tags`, { body: { name: `t${Date.now()}` } }))
        .body.data;
      expect(
        (await me.request('POST', `${base}/links`, { body: { url: 'https://example.com', tagIds: [theirTag.id] } }))
          .status,
      ).toBe(400);
    });
  });

  describe('the list', () => {
    let listTeam: Awaited<ReturnType<typeof seedTeam>>;
    let lb: string;
    const list = async (query: string) => {
      const res = await listTeam.analyst.request('GET', `${lb}/links?${query}`);
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const slugs = (body: any) => body.data.map((l: any) => l.slug);
    let ids: Record<string, string>;
    let tagId: string;

    beforeAll(async () => {
      listTeam = await seedTeam(server);
      lb = `/workspaces/${listTeam.workspaceId}`;
      tagId = (await listTeam.owner.request('POST', `${lb}/tags`, { body: { name: 'promo' } })).body.data.id;
      ids = {};
      const defs: Array<[string, object]> = [
        ['l-alpha', { url: 'https://shop.example.com/Spring-Sale', title: 'Spring campaign', tagIds: [tagId] }],
        ['l-beta', { url: 'https://blog.example.com/post', title: '100% organic_cotton' }],
        ['l-gamma', { url: 'https://example.org/GAMMA' }],
        ['l-delta', { url: 'https://example.net/d', title: 'Ünïcödé title', tagIds: [tagId] }],
      ];
      for (const [slug, body] of defs) {
        ids[slug] = (await listTeam.owner.request('POST', `${lb}/links`, { body: { slug, ...body } })).body.data.id;
        await new Promise((r) => setTimeout(r, 5));
      }
      await listTeam.owner.request('POST', `${lb}/links/bulk`, {
        body: { linkIds: [ids['l-gamma']], action: 'disable' },
      });
      for (let i = 0; i < 3; i++) await visit('/l-beta');
      await visit('/l-delta');
      await server.clicks.flush();
    });

    it('newest first by default, with the page and the total', async () => {
      const body = await list('');
      expect(slugs(body)).toEqual(['l-delta', 'l-gamma', 'l-beta', 'l-alpha']);
      expect(body.meta).toEqual({ page: 1, limit: 25, total: 4, totalCapped: false });
      expect(body.data[0]).toMatchObject({
        shortUrl: `https://${server.services.config.shortDomain}/l-delta`,
        tags: [{ id: tagId, name: 'promo' }],
        clicks: 1,
      });
      expect(slugs(await list('order=asc'))).toEqual(['l-alpha', 'l-beta', 'l-gamma', 'l-delta']);
      const second = await list('limit=3&page=2');
      expect(slugs(second)).toEqual(['l-alpha']);
      expect(second.meta).toEqual({ page: 2, limit: 3, total: 4, totalCapped: false });
    });

    it('searches slug, title and destination without regard to case; % and _ are plain characters', async () => {
      expect(slugs(await list('q=SPRING'))).toEqual(['l-alpha']);
      expect(slugs(await list('q=gamma'))).toEqual(['l-gamma']);
      expect(slugs(await list('q=blog.example'))).toEqual(['l-beta']);
      expect(slugs(await list(`q=${encodeURIComponent('100%')}`))).toEqual(['l-beta']);
      expect(slugs(await list(`q=${encodeURIComponent('c_t')}`))).toEqual([]);
      expect(slugs(await list(`q=${encodeURIComponent('c_c')}`))).toEqual(['l-beta']);
      expect(slugs(await list(`q=${encodeURIComponent('ünïcödé')}`))).toEqual(['l-delta']);
      expect(slugs(await list('q=l-'))).toHaveLength(4);
      expect((await list('q=nothing-like-this')).meta.total).toBe(0);
    });

    it('filters by tag, status and domain, and sorts by clicks', async () => {
      expect(slugs(await list(`tagId=${tagId}`))).toEqual(['l-delta', 'l-alpha']);
      expect(slugs(await list('status=DISABLED'))).toEqual(['l-gamma']);
      expect(slugs(await list('status=ACTIVE&q=example.org'))).toEqual([]);
      expect(slugs(await list('domainId=short'))).toHaveLength(4);
      // The order by clicks is as of the click fold's last run (every few minutes): before it,
      // clicked links order as never clicked ones, by creation.
      expect(slugs(await list('sort=clicks'))).toEqual(['l-delta', 'l-gamma', 'l-beta', 'l-alpha']);
      await server.services.queries.clickFold(Date.now() + FOLD_LAG_MS + FOLD_STEP_MS);
      expect(slugs(await list('sort=clicks'))).toEqual(['l-beta', 'l-delta', 'l-gamma', 'l-alpha']);
      expect(slugs(await list('sort=clicks&order=asc')).slice(2)).toEqual(['l-delta', 'l-beta']);
    });

    it('refuses bad parameters with 400 naming them', async () => {
      for (const [q, field] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['page=0', 'page'],
        ['sort=name', 'sort'],
        ['status=GONE', 'status'],
        ['page=x', 'page'],
      ]) {
        const res = await listTeam.analyst.request('GET', `${lb}/links?${q}`);
        expect(res.status, q).toBe(400);
        expect(res.body.field, q).toBe(field);
      }
    });
  });

  describe('bulk actions', () => {
    it('adds a tag, disables and deletes several links, each on its own', async () => {
      const a = await create({ url: 'https://example.com/a', slug: 'bulk-a' });
      const b = await create({ url: 'https://example.com/b', slug: 'bulk-b' });
      const tag = (await team.owner.request('POST', `${base}/tags`, { body: { name: `bulk${Date.now()}` } })).body.data;
      const tagged = await team.member.request('POST', `${base}/links/bulk`, {
        body: { linkIds: [a.id, b.id, 'lnk_missing'], action: 'add_tag', tagId: tag.id },
      });
      expect(tagged.body.data).toEqual([
        { id: a.id, ok: true },
        { id: b.id, ok: true },
        { id: 'lnk_missing', ok: false, error: 'Link not found' },
      ]);
      // Twice is the same as once.
      await team.member.request('POST', `${base}/links/bulk`, {
        body: { linkIds: [a.id], action: 'add_tag', tagId: tag.id },
      });
      expect((await team.member.request('GET', `${base}/links/${a.id}`)).body.data.tags.map((t: any) => t.id)).toEqual([
        tag.id,
      ]);
      const noTag = await team.member.request('POST', `${base}/links/bulk`, {
        body: { linkIds: [a.id], action: 'add_tag' },
      });
      expect(noTag.status).toBe(400);
      expect(noTag.body.field).toBe('tagId');

      expect(
        (
          await team.member.request('POST', `${base}/links/bulk`, {
            body: { linkIds: [a.id, b.id], action: 'disable' },
          })
        ).body.data.every((r: any) => r.ok),
      ).toBe(true);
      expect((await visit('/bulk-a')).status).toBe(404);
      // A MEMBER's delete is refused per link, as the API refuses it.
      const memberDelete = await team.member.request('POST', `${base}/links/bulk`, {
        body: { linkIds: [a.id], action: 'delete' },
      });
      expect(memberDelete.body.data[0]).toMatchObject({ id: a.id, ok: false });
      const deleted = await team.admin.request('POST', `${base}/links/bulk`, {
        body: { linkIds: [a.id, b.id], action: 'delete' },
      });
      expect(deleted.body.data).toEqual([
        { id: a.id, ok: true },
        { id: b.id, ok: true },
      ]);
      expect((await team.admin.request('GET', `${base}/links/${b.id}`)).status).toBe(404);
    });
  });

  describe('analytics', () => {
    it('counts the top cities with their country, from the address the trusted proxy saw', async () => {
      const link = await create({ url: 'https://example.com/cities', slug: 'dash-cities' });
      const london = geoLocator({}).locate(LONDON)!;
      expect(london).toMatchObject({ country: 'GB', city: expect.any(String) });
      for (let i = 0; i < 3; i++) await visit('/dash-cities', { 'x-forwarded-for': LONDON });
      // The proxy's country wins, and a city of another country is not believed.
      await visit('/dash-cities', { 'x-forwarded-for': LONDON, 'cf-ipcountry': 'DE' });
      await visit('/dash-cities', { 'x-forwarded-for': '10.1.2.3' });
      await server.clicks.flush();
      const res = await team.analyst.request('GET', `${base}/links/${link.id}/analytics`);
      expect(res.status).toBe(200);
      expect(res.body.breakdowns.cities).toEqual([
        { value: london.city, country: 'GB', clicks: 3 },
        { value: '', country: null, clicks: 2 },
      ]);
      expect(res.body.breakdowns.other.cities).toBe(0);
    });

    it('shows the clicks just made by day, QR scans apart, and the breakdowns', async () => {
      const link = await create({ url: 'https://example.com/stats', slug: 'dash-stats' });
      const qr = (await team.member.request('POST', `${base}/links/${link.id}/qr`)).body.data;
      await visit('/dash-stats', { 'cf-ipcountry': 'DE', referer: 'https://news.example.org/a' });
      await visit('/dash-stats', { 'cf-ipcountry': 'DE' });
      await visit('/dash-stats', { 'cf-ipcountry': 'FR', 'user-agent': IPHONE });
      expect((await visit(new URL(qr.url).pathname, { 'cf-ipcountry': 'FR' })).status).toBe(302);
      await server.clicks.flush();
      const res = await team.analyst.request('GET', `${base}/links/${link.id}/analytics`);
      expect(res.status).toBe(200);
      const a = res.body;
      expect(a.window.to).toBe(today());
      expect(a.series).toHaveLength(30);
      expect(a.series.at(-1)).toEqual({ day: today(), clicks: 3, scans: 1 });
      expect(a.totals).toEqual({ clicks: 3, scans: 1 });
      expect(a.breakdowns.countries).toEqual([
        { value: 'DE', clicks: 2 },
        { value: 'FR', clicks: 2 },
      ]);
      expect(a.breakdowns.referrers).toEqual([
        { value: '', clicks: 3 },
        { value: 'news.example.org', clicks: 1 },
      ]);
      expect(a.breakdowns.devices.map((d: any) => d.clicks).reduce((x: number, y: number) => x + y, 0)).toBe(4);
      expect(a.breakdowns.os.map((d: any) => d.value)).toEqual(expect.arrayContaining(['iOS']));

      // Nothing here is located to a city: the country came from the proxy's header.
      expect(a.breakdowns.cities).toEqual([{ value: '', country: null, clicks: 4 }]);

      const window = await team.analyst.request(
        'GET',
        `${base}/links/${link.id}/analytics?from=2025-01-01&to=2025-01-31`,
      );
      expect(window.body.series).toHaveLength(31);
      expect(window.body.totals).toEqual({ clicks: 0, scans: 0 });
      const long = await team.analyst.request(
        'GET',
        `${base}/links/${link.id}/analytics?from=2024-01-01&to=2025-02-03`,
      );
      expect(long.body.series).toHaveLength(400);
      const tooLong = await team.analyst.request(
        'GET',
        `${base}/links/${link.id}/analytics?from=2024-01-01&to=2025-02-04`,
      );
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.error).toBe('The window may not exceed 400 days');
      const backwards = await team.analyst.request(
        'GET',
        `${base}/links/${link.id}/analytics?from=2025-02-01&to=2025-01-01`,
      );
      expect(backwards.status).toBe(400);
      expect((await team.analyst.request('GET', `${base}/links/${link.id}/analytics?from=2025-02-30`)).status).toBe(
        400,
      );
    });
  });

  describe('QR codes', () => {
    it('makes one QR code per link, with SVG and PNG images; reading it makes none', async () => {
      const link = await create({ url: 'https://example.com/qr', slug: 'dash-qr' });
      // Read before one is made: none, and reading made none (an ANALYST reads too).
      expect((await team.analyst.request('GET', `${base}/links/${link.id}/qr`)).status).toBe(404);
      expect((await team.member.request('GET', `${base}/links/${link.id}/qr`)).status).toBe(404);
      const first = await team.member.request('POST', `${base}/links/${link.id}/qr`);
      const second = await team.member.request('POST', `${base}/links/${link.id}/qr`);
      expect(first.status).toBe(200);
      expect(second.body.data).toEqual(first.body.data);
      const read = await team.analyst.request('GET', `${base}/links/${link.id}/qr`);
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual(first.body.data);
      const svg = await server.request('GET', new URL(first.body.data.svgUrl).pathname);
      expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(svg.text).toContain('<svg');
      const png = await server.request('GET', new URL(first.body.data.pngUrl).pathname);
      expect(png.headers['content-type']).toBe('image/png');
    });

    it('reads a QR code by its id with its link, for any role, until its link is deleted', async () => {
      const link = await create({ url: 'https://example.com/qr-by-id', slug: 'dash-qr-by-id' });
      const made = (await team.member.request('POST', `${base}/links/${link.id}/qr`)).body.data;
      expect(made.linkId).toBe(link.id);
      const read = await team.analyst.request('GET', `${base}/qr-codes/${made.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ data: made });
      const unknown = await team.analyst.request('GET', `${base}/qr-codes/qr_nosuchcode`);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'QR code qr_nosuchcode not found' });
      expect((await team.admin.request('DELETE', `${base}/links/${link.id}`)).status).toBe(204);
      expect((await team.analyst.request('GET', `${base}/qr-codes/${made.id}`)).status).toBe(404);
    });
  });

  describe('import and export', () => {
    const csv = (who: DashboardClient, text: string, at = base) =>
      who.request('POST', `${at}/links/import`, { rawBody: text, headers: { 'content-type': 'text/csv' } });

    it('imports good rows, refuses bad ones with the API message and their line, and makes missing tags', async () => {
      const text = [
        'url,slug,title,tags,expiresAt',
        'https://example.com/i1,imp-one,First,"news|imported",',
        'javascript:alert(1),imp-bad,,,',
        'https://example.com/i3,app,,,',
        '"https://example.com/i4",imp-four,"A ""quoted""',
        'multi-line title",imported,2039-01-01T00:00:00Z',
        ',imp-nourl,,,',
        'https://example.com/i6,imp-one,,,',
        'https://example.com/i7,,,,',
      ].join('\n');
      const res = await csv(team.member, text);
      expect(res.status).toBe(200);
      expect(res.body.created).toBe(3);
      expect(res.body.refused).toBe(4);
      const byLine = new Map<number, any>(res.body.rows.map((r: any) => [r.row, r]));
      expect(byLine.get(2)).toMatchObject({ ok: true, slug: 'imp-one' });
      expect(byLine.get(3)).toMatchObject({ ok: false, field: 'url' });
      expect(byLine.get(4)).toMatchObject({ ok: false });
      expect(byLine.get(4).error).toMatch(/reserved/);
      // A quoted field across lines: the row is numbered by the line it starts on.
      expect(byLine.get(5)).toMatchObject({ ok: true, slug: 'imp-four' });
      expect(byLine.get(7)).toMatchObject({ ok: false, error: 'url is required', field: 'url' });
      expect(byLine.get(8)).toMatchObject({ ok: false });
      expect(byLine.get(8).error).toMatch(/taken|already/);
      expect(byLine.get(9)).toMatchObject({ ok: true });
      const key = (
        await createKey(knex(), team.workspaceId, team.people.owner.userId, ['links:read', 'links:write'], null)
      ).key;
      const apiMessage = (await server.request('POST', '/api/v1/links', { key, body: { url: 'javascript:alert(1)' } }))
        .body.error;
      expect(byLine.get(3).error).toBe(apiMessage);
      const four = (await team.member.request('GET', `${base}/links/${byLine.get(5).linkId}`)).body.data;
      expect(four).toMatchObject({ title: 'A "quoted"\nmulti-line title', expiresAt: '2039-01-01T00:00:00.000Z' });
      expect(four.tags.map((t: any) => t.name)).toEqual(['imported']);
      expect((await visit('/imp-one')).headers.location).toBe('https://example.com/i1');
    });

    it("reads Bitly's and Shlink's export columns", async () => {
      const bitly =
        'title,long_url,link,created_at,tags\n"From Bitly",https://example.com/bitly,https://bit.ly/imp-bitly,2024-01-01T00:00:00+0000,"x, y"\n';
      const shlink =
        'createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits\n2024-01-01T00:00:00+00:00,s.test,imp-shlink,https://s.test/imp-shlink,https://example.com/shlink,From Shlink,a|b,3\n';
      const b = await csv(team.owner, bitly);
      const s = await csv(team.owner, shlink);
      expect(b.body.rows).toEqual([expect.objectContaining({ ok: true, slug: 'imp-bitly' })]);
      expect(s.body.rows).toEqual([expect.objectContaining({ ok: true, slug: 'imp-shlink' })]);
      expect(
        (await team.owner.request('GET', `${base}/links/${s.body.rows[0].linkId}`)).body.data.tags
          .map((t: any) => t.name)
          .sort(),
      ).toEqual(['a', 'b']);
      expect((await team.owner.request('GET', `${base}/links/${b.body.rows[0].linkId}`)).body.data).toMatchObject({
        title: 'From Bitly',
        originalUrl: 'https://example.com/bitly',
      });
      expect(
        (await team.owner.request('GET', `${base}/links/${b.body.rows[0].linkId}`)).body.data.tags
          .map((t: any) => t.name)
          .sort(),
      ).toEqual(['x', 'y']);
    });

    it('refuses a file it cannot read with 400, making nothing', async () => {
      expect((await csv(team.owner, 'slug,title\nx,y\n')).status).toBe(400);
      expect((await csv(team.owner, '')).status).toBe(400);
      expect((await csv(team.owner, 'url\n"unterminated\n')).status).toBe(400);
      const json = await team.owner.request('POST', `${base}/links/import`, { body: { url: 'https://example.com' } });
      expect(json.status).toBe(400);
      expect(json.body.error).toBe('A request body is required (Content-Type: text/csv)');
    });

    it('makes the tags a row names only if the row is made', async () => {
      const t = await seedTeam(server);
      const at = `/workspaces/${t.workspaceId}`;
      await create({ url: 'https://example.com/taken', slug: 'tg-taken' }, t.owner, at);
      const many = Array.from({ length: 26 }, (_, i) => `many-${i}`).join('|');
      // Refused by the reader, by the link rules before the slug, by the slug, and made.
      const file = [
        'url,slug,tags,expiresAt',
        ',tg-no-url,only-no-url,',
        `https://example.com/long,tg-long,only-long|${'x'.repeat(101)},`,
        'javascript:alert(1),tg-bad-url,only-bad-url|shared,',
        'https://example.com/reserved,app,only-reserved,',
        `https://example.com/many,tg-many,${many},`,
        'https://example.com/expiry,tg-expiry,only-expiry,someday',
        'https://example.com/taken,tg-taken,only-taken|shared,',
        'https://example.com/made,tg-made,shared|Made|MADE,',
      ].join('\n');
      const res = await csv(t.member, file, at);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ created: 1, refused: 7 });
      const tags = (await t.member.request('GET', `${at}/tags`)).body.data;
      expect(tags.map((x: any) => x.name).sort()).toEqual(['Made', 'shared']);
      // A row naming more tags than a link may have is refused for its tags column.
      expect(res.body.rows.map((r: any) => [r.slug ?? null, r.ok, r.field ?? null])).toEqual([
        [null, false, 'url'],
        [null, false, 'tags'],
        [null, false, 'url'],
        [null, false, null],
        [null, false, 'tags'],
        [null, false, 'expiresAt'],
        [null, false, null],
        ['tg-made', true, null],
      ]);
      const made = (await t.member.request('GET', `${at}/links/${res.body.rows[7].linkId}`)).body.data;
      expect(made.tags.map((x: any) => x.name).sort()).toEqual(['Made', 'shared']);
    });

    it('gives the event loop a turn at least every 100 rows while it checks and writes them', async () => {
      const t = await seedTeam(server);
      const actor = {
        workspaceId: t.workspaceId,
        userId: t.people.owner.userId,
        plan: 'growth' as const,
        requestId: null,
        via: 'session' as const,
        audit: CLI_ACTOR,
      };
      const bodies = Array.from({ length: 1_000 }, (_, i) => ({
        url: `https://example.com/turn/${i}`,
        tagNames: [`turn-${i % 5}`],
      }));
      let turns = 0;
      let writing = true;
      const count = () => {
        if (!writing) return;
        turns++;
        setImmediate(count);
      };
      setImmediate(count);
      const made = await linkOperations(server.services).createMany(actor, bodies);
      writing = false;
      expect(made.filter((m) => 'row' in m)).toHaveLength(1_000);
      // Each turn is one a redirect could have been answered in.
      expect(turns).toBeGreaterThanOrEqual(1_000 / 100);
    });

    describe('a file read as it arrives', () => {
      const count = async (table: string, workspaceId = team.workspaceId) =>
        Number((await knex()(table).where({ workspace_id: workspaceId }).count({ n: '*' }))[0].n);
      const rowsOf = (n: number, row: (i: number) => string) =>
        Array.from({ length: n }, (_, i) => `${row(i)}\n`).join('');
      const limit = IMPORT_MAX_ROWS;
      const TOO_MANY = `The file has more than ${limit} rows; at most ${limit} are imported at once`;
      /**
       * An import sent in pieces without a Content-Length, as a browser streams a file: `first` is
       * sent and the upload left open; `answer` settles when the service answers.
       */
      const openUpload = (who: DashboardClient, first: string, agent: https.Agent | false = false) => {
        let req!: ReturnType<typeof https.request>;
        const answer = new Promise<TestResponse>((resolve, reject) => {
          const headers = { cookie: who.cookie, 'x-csrf-token': who.csrfToken, 'content-type': 'text/csv' };
          const url = new URL(`/app/api${base}/links/import`, server.url);
          req = https.request(url, { method: 'POST', ca: server.ca, agent, headers }, (res) => {
            readResponse(res, resolve);
          });
          req.on('error', reject);
        });
        req.write(first);
        return { answer, req };
      };

      it('refuses a file of more rows than the limit once it has read one too many, writing nothing', async () => {
        const links = await count('links');
        const tags = await count('tags');
        // One row more than the limit, and the start of another (the parser hands out a row once
        // it has seen what follows it).
        const rows = rowsOf(IMPORT_MAX_ROWS + 2, (i) => `https://example.com/many/${i},many-${i},many-tag-${i % 3}`);
        const upload = openUpload(team.member, `url,slug,tags\n${rows}`);
        // The answer comes while the upload is still open: the service did not wait for the rest.
        const res = await upload.answer;
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: TOO_MANY });
        upload.req.destroy();
        expect(await count('links')).toBe(links);
        expect(await count('tags')).toBe(tags);
        expect((await team.member.request('GET', `${base}/links?q=many-1`)).body.meta.total).toBe(0);
      });

      it('takes the rest of a refused file off a kept-alive connection unparsed; it serves on', async () => {
        const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
        try {
          const rows = rowsOf(IMPORT_MAX_ROWS + 2, (i) => `https://example.com/kept/${i}`);
          const upload = openUpload(team.member, `url\n${rows}`, agent);
          expect((await upload.answer).status).toBe(400);
          const rest = rowsOf(100_000, (i) => `https://example.com/rest/${i}`);
          await new Promise<void>((resolve) => upload.req.end(rest, () => resolve()));
          const next = await new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
            const url = new URL(`/app/api${base}/links?limit=1`, server.url);
            const req = https.get(url, { ca: server.ca, agent, headers: { cookie: team.member.cookie } }, (res) => {
              res.resume();
              res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket }));
            });
            req.on('error', reject);
          });
          expect(next).toEqual({ status: 200, reused: true });
        } finally {
          agent.destroy();
        }
      });

      it('refuses a 150,000-row file under 10 MiB by its row count', async () => {
        const links = await count('links');
        const pad = 'p'.repeat(32);
        const rows = rowsOf(150_000, (i) => `https://example.com/${String(i).padStart(6, '0')}/${pad},r-${i}`);
        const file = `url,slug\n${rows}`;
        expect(Buffer.byteLength(file) / 2 ** 20).toBeGreaterThan(9.7);
        expect(Buffer.byteLength(file)).toBeLessThan(10 * 2 ** 20);
        const res = await csv(team.member, file);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: TOO_MANY });
        expect(await count('links')).toBe(links);
      });

      it('refuses a file over 10 MiB sent without a Content-Length as soon as it has read too much', async () => {
        const links = await count('links');
        // 18,000 rows of 600 bytes: over 10 MiB before the row limit.
        const rows = rowsOf(18_000, (i) => `https://example.com/over/${String(i).padStart(8, '0')}/${'p'.repeat(564)}`);
        const upload = openUpload(team.member, `url\n${rows}`);
        const res = await upload.answer;
        expect(res.status).toBe(413);
        expect(res.body).toEqual({ error: 'Request body exceeds 10 MiB' });
        upload.req.destroy();
        expect(await count('links')).toBe(links);
      });

      it('takes a file of exactly the row limit', async () => {
        const res = await csv(team.member, `url\n${rowsOf(IMPORT_MAX_ROWS, () => 'javascript:alert(1)')}`);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ created: 0, refused: IMPORT_MAX_ROWS });
        expect(res.body.rows.at(-1)).toMatchObject({ row: IMPORT_MAX_ROWS + 1, ok: false, field: 'url' });
      });

      it('imports a large file whole: 2,500 rows of 9.5 MiB, characters of several bytes across slices', async () => {
        const t = await seedTeam(server);
        // 'é' is two bytes, '✓' three and '日' three: some fall across the reader's slices. The
        // bulk is in a column the import ignores.
        const note = 'é✓日'.repeat(490);
        const title = (i: number | string) => `Überweisung ✓ 日本, ${i}`;
        const rows = rowsOf(2_500, (i) => `https://example.com/big/${i},big-${i},"${title(i)}",${note}`);
        const file = `url,slug,title,note\n${rows}`;
        expect(Buffer.byteLength(file) / 2 ** 20).toBeCloseTo(9.5, 1);
        const res = await csv(t.member, file, `/workspaces/${t.workspaceId}`);
        expect(res.status, res.text.slice(0, 300)).toBe(200);
        expect(res.body).toMatchObject({ created: 2_500, refused: 0 });
        const stored = await knex()('links')
          .where({ workspace_id: t.workspaceId })
          .select('slug', 'title', 'original_url');
        expect(stored).toHaveLength(2_500);
        for (const row of stored) {
          const i = row.slug.slice('big-'.length);
          expect(row).toEqual({ slug: `big-${i}`, title: title(i), original_url: `https://example.com/big/${i}` });
        }
      });

      it('reads a charset other than UTF-8 when the Content-Type names it', async () => {
        const send = (rawBody: string | Buffer, charset: string) =>
          team.member.request('POST', `${base}/links/import`, {
            rawBody,
            headers: { 'content-type': `text/csv; charset=${charset}` },
          });
        const latin1 = Buffer.from('url,slug,title\nhttps://example.com/latin,imp-latin,Café crème\n', 'latin1');
        const res = await send(latin1, 'iso-8859-1');
        expect(res.status).toBe(200);
        const made = (await team.member.request('GET', `${base}/links/${res.body.rows[0].linkId}`)).body.data;
        expect(made.title).toBe('Café crème');
        const unknown = await send('url\n', 'klingon');
        expect(unknown.status).toBe(400);
        expect(unknown.body).toEqual({ error: 'The charset klingon is not supported; send the file as UTF-8' });
      });

      it('refuses a line that is not CSV with 400 naming it, writing none of the good rows before it', async () => {
        const links = await count('links');
        const before = rowsOf(3_000, (i) => `https://example.com/before/${i},before-${i}`);
        const after = rowsOf(10, (i) => `https://example.com/after/${i},after-${i}`);
        const res = await csv(team.member, `url,slug\n${before}"https://example.com/bad"x,bad\n${after}`);
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(/^The file is not readable as CSV: .*line 3002/);
        expect(await count('links')).toBe(links);
      });
    });

    it('exports the workspace as CSV, whose rows import again as the same links', async () => {
      const exported = await team.analyst.request('GET', `${base}/links/export`);
      expect(exported.status).toBe(200);
      expect(exported.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(exported.headers['content-disposition']).toMatch(
        /^attachment; filename="links-ws_[a-z0-9]+-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      const lines = exported.text.trim().split('\n');
      expect(lines[0]).toBe('id,short_url,slug,url,title,tags,status,clicks,created_at,expires_at');
      expect(exported.text).toContain('imp-one');
      expect(exported.text).not.toContain('dash-theirs');
      const listed = await team.analyst.request('GET', `${base}/links?limit=1`);
      const total = listed.body.meta.total;
      // Deleted, then imported from the export: the same destination, title and tags again.
      const one = (await team.owner.request('GET', `${base}/links?q=imp-one`)).body.data[0];
      expect((await team.owner.request('DELETE', `${base}/links/${one.id}`)).status).toBe(204);
      const res = await csv(team.owner, exported.text);
      const made = res.body.rows.filter((r: any) => r.ok);
      expect(made).toEqual([expect.objectContaining({ slug: 'imp-one' })]);
      // Every other row names its slug as taken.
      expect(res.body.rows).toHaveLength(total);
      expect(res.body.refused).toBe(total - 1);
      const copied = (await team.owner.request('GET', `${base}/links/${made[0].linkId}`)).body.data;
      expect(copied).toMatchObject({ slug: 'imp-one', originalUrl: 'https://example.com/i1', title: 'First' });
      expect(copied.tags.map((t: any) => t.name).sort()).toEqual(['imported', 'news']);
    });
  });

  it('writes a text a spreadsheet would run as a formula as quoted text, which imports back as it was', async () => {
    const t = await seedTeam(server);
    const at = `/workspaces/${t.workspaceId}`;
    const tagged = async (link: object, tag: string) => {
      const made = await t.owner.request('POST', `${at}/tags`, { body: { name: tag } });
      expect(made.status, made.text).toBe(201);
      return create({ ...link, tagIds: [made.body.data.id] }, t.owner, at);
    };
    const links = [
      await tagged(
        { url: 'https://example.com/f1', title: '=HYPERLINK("http://evil.example","x")', slug: 'f-ln' },
        '=1',
      ),
      await tagged({ url: 'https://example.com/f2', title: '+SUM(1,2)', slug: 'f-plus' }, '+x'),
      await tagged({ url: 'https://example.com/f3', title: '-2+3', slug: '-minus' }, '-y'),
      await tagged({ url: 'https://example.com/f4', title: '@SUM(1)', slug: 'f-at' }, '@evil'),
      await tagged({ url: 'https://example.com/f5', title: "'=typed with its quote", slug: 'f-quote' }, 'plain'),
    ];
    // Titles are trimmed when set through the API; a tab or carriage return first can only be older data.
    await knex()('links').where({ id: links[4].id }).update({ title: '\t=1+2' });

    const exported = await t.analyst.request('GET', `${at}/links/export`);
    expect(exported.status).toBe(200);
    const cells = parse(exported.text, { relax_column_count: false }) as string[][];
    expect(cells).toHaveLength(1 + links.length);
    for (const cell of cells.flat()) expect(cell, cell).not.toMatch(/^[=+\-@\t\r]/);
    expect(exported.text).toContain(`,"'=HYPERLINK(""http://evil.example"",""x"")",`);
    expect(exported.text).toContain(`,"'-minus",`);
    expect(exported.text).toContain(`,"'=1",`);
    expect(exported.text).toContain(`,"'\t=1+2",`);
    const bySlug = new Map(cells.slice(1).map((r) => [r[2], r]));
    expect(bySlug.get("'-minus")).toEqual([
      links[2].id,
      'https://localhost:8443/-minus',
      "'-minus",
      'https://example.com/f3',
      "'-2+3",
      "'-y",
      'ACTIVE',
      '0',
      expect.any(String),
      '',
    ]);
    expect(bySlug.get('f-at')?.slice(4, 6)).toEqual(["'@SUM(1)", "'@evil"]);
    expect(bySlug.get('f-plus')?.slice(4, 6)).toEqual(["'+SUM(1,2)", "'+x"]);

    // Deleted, then imported from the export: every text as it was typed, the same tags again.
    await knex()('links').where({ id: links[4].id }).update({ title: "'=typed with its quote" });
    const again = await t.analyst.request('GET', `${at}/links/export`);
    for (const link of links) expect((await t.owner.request('DELETE', `${at}/links/${link.id}`)).status).toBe(204);
    const res = await t.owner.request('POST', `${at}/links/import`, {
      rawBody: again.text,
      headers: { 'content-type': 'text/csv' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: links.length, refused: 0 });
    const listed = (await t.owner.request('GET', `${at}/links?limit=100`)).body.data;
    const seen = (l: any) => [l.slug, l.title, l.tags.map((x: any) => x.name)];
    expect(listed.map(seen).sort()).toEqual(
      [
        ['f-ln', '=HYPERLINK("http://evil.example","x")', ['=1']],
        ['f-plus', '+SUM(1,2)', ['+x']],
        ['-minus', '-2+3', ['-y']],
        ['f-at', '@SUM(1)', ['@evil']],
        ['f-quote', "'=typed with its quote", ['plain']],
      ].sort(),
    );
  });

  it('streams an export of more links than a page holds, each once, oldest first', async () => {
    const big = await seedTeam(server);
    const count = EXPORT_PAGE + 150;
    const now = Date.now();
    const rows = Array.from({ length: count }, (_, i) =>
      linkRow({
        id: `lnk_export${String(i).padStart(6, '0')}`,
        workspace_id: big.workspaceId,
        created_by: big.people.owner.userId,
        slug: `exp-${engine}-${i}`,
        original_url: `https://example.com/e/${i}`,
        created_at: now + Math.floor(i / 3),
        updated_at: now,
      }),
    );
    for (let i = 0; i < rows.length; i += 200) await knex()('links').insert(rows.slice(i, i + 200));
    const res = await big.analyst.request('GET', `/workspaces/${big.workspaceId}/links/export`);
    expect(res.status).toBe(200);
    const lines = res.text.trim().split('\n').slice(1);
    expect(lines).toHaveLength(count);
    expect(lines.map((l) => l.split(',')[2])).toEqual(rows.map((r) => r.slug));
  });

  describe('body limits: 413 naming the limit that applied, nothing stored', () => {
    const count = async (table: string) =>
      Number((await knex()(table).where({ workspace_id: team.workspaceId }).count({ n: '*' }))[0].n);

    it('a JSON body over 64 KiB', async () => {
      const before = await count('links');
      const body = { url: 'https://example.com/big', title: 'x'.repeat(70 * 1024) };
      const res = await team.member.request('POST', `${base}/links`, { body });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ error: 'Request body exceeds 64 KiB' });
      expect(await count('links')).toBe(before);
    });

    it('an image over 2 MiB', async () => {
      const before = await count('assets');
      const image = {
        rawBody: Buffer.concat([PNG, Buffer.alloc(2 * 2 ** 20)]),
        headers: { 'content-type': 'image/png' },
      };
      const res = await team.member.request('POST', `${base}/assets`, image);
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ error: 'Request body exceeds 2 MiB' });
      expect(await count('assets')).toBe(before);
    });

    it('a CSV file over 10 MiB', async () => {
      const before = await count('links');
      const rows = 'https://example.com/over-the-limit\n'.repeat(Math.ceil((10 * 2 ** 20) / 35));
      const res = await team.member.request('POST', `${base}/links/import`, {
        rawBody: `url\n${rows}`,
        headers: { 'content-type': 'text/csv' },
      });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ error: 'Request body exceeds 10 MiB' });
      expect(await count('links')).toBe(before);
    });
  });

  describe('image uploads', () => {
    it('takes PNG, JPEG, GIF and WebP whose bytes match their type, up to 2 MiB', async () => {
      const ok = await team.member.request('POST', `${base}/assets`, {
        rawBody: PNG,
        headers: { 'content-type': 'image/png' },
      });
      expect(ok.status).toBe(201);
      expect(ok.body.url).toMatch(/\/assets\/[A-Za-z0-9_-]+\.png$/);
      const lying = await team.member.request('POST', `${base}/assets`, {
        rawBody: Buffer.from('<svg onload=alert(1)>'),
        headers: { 'content-type': 'image/png' },
      });
      expect(lying.status).toBe(400);
      const svg = await team.member.request('POST', `${base}/assets`, {
        rawBody: Buffer.from('<svg/>'),
        headers: { 'content-type': 'image/svg+xml' },
      });
      expect(svg.status).toBe(400);
      expect(svg.body.error).toBe(
        'A request body is required (Content-Type: image/png or image/jpeg or image/gif or image/webp)',
      );
      const big = await team.member.request('POST', `${base}/assets`, {
        rawBody: Buffer.concat([PNG, Buffer.alloc(2 * 2 ** 20)]),
        headers: { 'content-type': 'image/png' },
      });
      expect(big.status).toBe(413);
    });
  });

  it('a person added to a second workspace sees both, each with its own role', async () => {
    const person = await seedPerson(knex(), team.workspaceId, 'ANALYST');
    await addMember(knex(), other.workspaceId, person.email, 'ADMIN');
    const client = await signIn(server, person);
    expect(client.session.workspaces.map((w: any) => [w.id, w.role]).sort()).toEqual(
      [
        [team.workspaceId, 'ANALYST'],
        [other.workspaceId, 'ADMIN'],
      ].sort(),
    );
    expect((await client.request('POST', `${base}/links`, { body: { url: 'https://example.com' } })).status).toBe(403);
    expect((await client.request('POST', `${otherBase}/links`, { body: { url: 'https://example.com' } })).status).toBe(
      201,
    );
  });
});
