// The links API through HTTPS on every database engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeMember, setRole } from '../../src/db/repos/workspaces';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { createTag } from '../../src/db/repos/workspace-objects';
import { setPolicyDisabled } from '../../src/db/repos/links';
import { policyDisabled } from '../../src/webhooks/link-events';
import { testEngines } from '../support/databases';
import { hostImage, seedMemberKey, seedWorkspace, serverWithOwner, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';
import { apiClient, asResponse } from '../support/client';

describe.each(testEngines())('links API on %s', (engine) => {
  const suite = serverWithOwner(engine, undefined, ['links:read', 'links:write']);
  const knex = () => suite.server.services.db.knex;
  // Through the package's client (shortlink/client), as a partner calls the API; bodies the
  // contract refuses are sent as they are (the suite tests the refusals). No retries: an answer
  // is the service's own.
  const client = (key: string) => apiClient(suite.server, key, { retries: 0 });
  const create = (body: object, key = suite.owner.key) =>
    asResponse(client(key).POST('/api/v1/links', { body: body as never }));
  const patch = (id: string, body: object, key = suite.owner.key) =>
    asResponse(client(key).PATCH('/api/v1/links/{id}', { params: { path: { id } }, body: body as never }));

  describe('create', () => {
    it('needs only url: generated 7-character slug, never expires, 302, ACTIVE, no clicks', async () => {
      const res = await create({ url: 'https://example.com/a' });
      expect(res.status).toBe(201);
      const link = res.body.data;
      expect(link.slug).toMatch(/^[a-z0-9]{7}$/);
      expect(link).toMatchObject({
        originalUrl: 'https://example.com/a',
        status: 'ACTIVE',
        redirectType: 'TEMPORARY',
        neverExpires: true,
        expiresAt: null,
        clicks: 0,
        hasPassword: false,
        tags: [],
        domainId: null,
        title: null,
        clickLimit: null,
      });
      expect(res.body.meta).toBeUndefined();
      expect(res.headers['x-service-request-id']).toMatch(/[0-9a-f-]{36}/);
    });

    it('lowercases a custom slug and refuses a taken one with 409', async () => {
      const res = await create({ url: 'https://example.com', slug: 'My-Launch_1' });
      expect(res.status).toBe(201);
      expect(res.body.data.slug).toBe('my-launch_1');
      const again = await create({ url: 'https://example.com', slug: 'MY-LAUNCH_1' });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatch(/taken/);
    });

    it.each(['api', 'Admin', 'docs', 'healthz', 'qr', 'favicon.ico', 'robots.txt'])(
      'refuses the reserved slug %s with 409',
      async (slug) => {
        const res = await create({ url: 'https://example.com', slug });
        expect(res.status).toBe(409);
        expect(res.body.error).toMatch(/reserved/);
      },
    );

    it.each(['has space', 'dot.dot', 'x'.repeat(65), '', 'ünï'])(
      'refuses the malformed slug %j with 400',
      async (slug) => {
        const res = await create({ url: 'https://example.com', slug });
        expect(res.status).toBe(400);
        expect(res.body.field).toBe('slug');
      },
    );

    it('gives exactly one of two racing requests the slug', async () => {
      const results = await Promise.all(
        Array.from({ length: 6 }, () => create({ url: 'https://example.com/race', slug: 'race-slug' })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      const rows = await knex()('links').where({ slug: 'race-slug' }).whereNull('deleted_at');
      expect(rows).toHaveLength(1);
    });

    it.each([
      'javascript:alert(1)',
      'ftp://example.com/x',
      'data:text/html,hi',
      '/relative',
      'https://',
      `https://e.com/${'a'.repeat(2040)}`,
    ])('refuses the destination %s with 400', async (url) => {
      const res = await create({ url });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('url');
    });

    // A destination is stored and redirected to as the URL parser read it when it was checked:
    // sent as written, `https:evil.example` in a Location header resolves against the short link.
    it.each([
      ['https:evil.example', 'https://evil.example/'],
      ['https:/evil.example', 'https://evil.example/'],
      ['https://evil.example\\@good.example', 'https://evil.example/@good.example'],
      ['HTTPS://Example.COM:443/a/../b', 'https://example.com/b'],
    ])('stores and redirects to %s as %s, for url and expiredUrl', async (sent, normalised) => {
      const live = await create({ url: sent });
      expect(live.status).toBe(201);
      expect(live.body.data.originalUrl).toBe(normalised);
      const visit = (slug: string) => suite.server.request('GET', `/${slug}`, { headers: { host: 'localhost' } });
      expect((await visit(live.body.data.slug)).headers.location).toBe(normalised);
      const expired = await create({
        url: 'https://example.com/over',
        expiresAt: '2020-01-01T00:00:00Z',
        expiredUrl: sent,
      });
      expect(expired.body.data.expiredUrl).toBe(normalised);
      expect((await visit(expired.body.data.slug)).headers.location).toBe(normalised);
      const patched = await patch(live.body.data.id, { url: 'https://example.com/x', expiredUrl: sent });
      expect(patched.body.data).toMatchObject({ originalUrl: 'https://example.com/x', expiredUrl: normalised });
    });

    it('requires url', async () => {
      const res = await create({ slug: 'no-url' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ field: 'url' });
    });

    it('trims the title and truncates it at 200 characters', async () => {
      const res = await create({ url: 'https://example.com', title: `   ${'t'.repeat(250)}  ` });
      expect(res.body.data.title).toBe('t'.repeat(200));
      const short = await create({ url: 'https://example.com', title: '  Launch  ' });
      expect(short.body.data.title).toBe('Launch');
    });

    it('ignores unrecognised keys and names them in meta.ignoredFields', async () => {
      const res = await create({ url: 'https://example.com', colour: 'red', previewTitle: 'x', status: 'DISABLED' });
      expect(res.status).toBe(201);
      expect(res.body.meta.ignoredFields.sort()).toEqual(['colour', 'previewTitle', 'status']);
      expect(res.body.data.status).toBe('ACTIVE');
      expect(res.body.data.previewTitle).toBeNull();
    });

    it('stores redirect type, schedule, expiry, click limit and expiredUrl', async () => {
      const body = {
        url: 'https://example.com',
        redirectType: 'PERMANENT',
        startAt: '2030-01-01T00:00:00Z',
        endAt: '2030-02-01T00:00:00.000Z',
        expiresAt: '2030-03-01T00:00:00Z',
        clickLimit: 10,
        expiredUrl: 'https://example.com/over',
      };
      const res = await create(body);
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        redirectType: 'PERMANENT',
        startAt: '2030-01-01T00:00:00.000Z',
        endAt: '2030-02-01T00:00:00.000Z',
        expiresAt: '2030-03-01T00:00:00.000Z',
        neverExpires: false,
        clickLimit: 10,
        expiredUrl: 'https://example.com/over',
      });
    });

    it.each([
      [{ clickLimit: 0 }, 'clickLimit'],
      [{ clickLimit: 1.5 }, 'clickLimit'],
      [{ redirectType: 'SOMETIMES' }, 'redirectType'],
      [{ expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ startAt: '2030-02-01T00:00:00Z', endAt: '2030-01-01T00:00:00Z' }, 'endAt'],
      [{ expiredUrl: 'javascript:alert(1)' }, 'expiredUrl'],
    ])('refuses %j with 400 naming %s', async (extra, field) => {
      const res = await create({ url: 'https://example.com', ...extra });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe(field);
    });

    it('refuses an expiredUrl that points at the link itself', async () => {
      const res = await create({
        url: 'https://example.com',
        slug: 'selfish',
        expiredUrl: 'https://localhost:8443/selfish',
      });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('expiredUrl');
    });

    it('refuses an expiredUrl chain of short links that returns to the link', async () => {
      // ring-b sends its visitors to ring-a; ring-a may not fall back to ring-b.
      const b = await create({ url: 'https://localhost:8443/ring-a', slug: 'ring-b' });
      expect(b.status).toBe(201);
      const a = await create({
        url: 'https://example.com',
        slug: 'ring-a',
        expiredUrl: 'https://localhost:8443/ring-b',
      });
      expect(a.status).toBe(400);
      expect(a.body.error).toMatch(/chain/);
      const fine = await create({
        url: 'https://example.com',
        slug: 'ring-c',
        expiredUrl: 'https://localhost:8443/ring-b',
      });
      expect(fine.status).toBe(201);
    });

    it('hashes the password and never returns it', async () => {
      const res = await create({ url: 'https://example.com', password: 'open sesame' });
      expect(res.body.data.hasPassword).toBe(true);
      expect(res.text).not.toContain('open sesame');
      expect(res.text).not.toMatch(/password"/);
      const row = await knex()('links').where({ id: res.body.data.id }).first();
      expect(row.password_hash).toMatch(/^scrypt\$/);
      expect(row.password_hash).not.toContain('open sesame');
    });

    it('attaches existing tags, refuses unknown ones and more than 25', async () => {
      const t1 = await createTag(knex(), suite.owner.workspaceId, 'launch', '#ff0000');
      const t2 = await createTag(knex(), suite.owner.workspaceId, 'blog', '#00ff00');
      const res = await create({ url: 'https://example.com', tagIds: [t1, t2] });
      expect(res.body.data.tags).toEqual([
        { id: t2, name: 'blog', color: '#00ff00' },
        { id: t1, name: 'launch', color: '#ff0000' },
      ]);
      const unknown = await create({ url: 'https://example.com', tagIds: [t1, 'tag_nope'] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toContain('tag_nope');
      const other = await seedWorkspace(knex());
      const foreignTag = await createTag(knex(), other.workspaceId, 'theirs', '#000');
      expect((await create({ url: 'https://example.com', tagIds: [foreignTag] })).status).toBe(400);
      const many = await create({
        url: 'https://example.com',
        tagIds: Array.from({ length: 26 }, (_, i) => `tag_${i}`),
      });
      expect(many.status).toBe(400);
      expect(many.body.field).toBe('tagIds');
    });

    it('places a link on an active custom domain of the workspace, slugs unique per domain', async () => {
      const domainId = await addDomain(knex(), suite.owner.workspaceId, `go${Date.now()}.example.com`);
      const pending = await create({ url: 'https://example.com', domainId });
      expect(pending.status).toBe(400);
      await setDomainStatus(knex(), domainId, 'ACTIVE');
      const onDomain = await create({ url: 'https://example.com', domainId, slug: 'shared-name' });
      expect(onDomain.status).toBe(201);
      expect(onDomain.body.data.domainId).toBe(domainId);
      const onShared = await create({ url: 'https://example.com', slug: 'shared-name' });
      expect(onShared.status).toBe(201);
      expect((await create({ url: 'https://example.com', domainId, slug: 'shared-name' })).status).toBe(409);
      const other = await seedWorkspace(knex());
      const theirs = await addDomain(knex(), other.workspaceId, `theirs${Date.now()}.example.com`);
      await setDomainStatus(knex(), theirs, 'ACTIVE');
      expect((await create({ url: 'https://example.com', domainId: theirs })).status).toBe(400);
    });

    it('says what is wrong with a domainId or tag id, quoting the value: never a gap for an empty one', async () => {
      const empty = await create({ url: 'https://example.com', domainId: '' });
      expect(empty.status).toBe(400);
      expect(empty.body).toEqual({ error: 'domainId must not be empty', field: 'domainId' });
      const unknown = await create({ url: 'https://example.com', domainId: 'dom_nowhere' });
      expect(unknown.body).toEqual({
        error: 'domainId "dom_nowhere" is not an active custom domain of this workspace',
        field: 'domainId',
      });
      const blank = await create({ url: 'https://example.com', domainId: ' ' });
      expect(blank.body.error).toBe('domainId " " is not an active custom domain of this workspace');
      const tags = await create({ url: 'https://example.com', tagIds: ['tag_nowhere', ' '] });
      expect(tags.body).toEqual({
        error: 'tagIds names tags that do not exist in this workspace: "tag_nowhere", " "',
        field: 'tagIds',
      });
    });
  });

  describe('read and list', () => {
    it('names the query parameter that holds a NUL character, quoted (an empty name reads as one)', async () => {
      const named = await suite.server.request('GET', '/api/v1/links?page=%00', { key: suite.owner.key });
      expect(named.body).toEqual({
        error: 'The URL contains a NUL character in query parameter "page"',
        field: 'page',
      });
      const unnamed = await suite.server.request('GET', '/api/v1/links?=%00', { key: suite.owner.key });
      expect(unnamed.status).toBe(400);
      expect(unnamed.body).toEqual({ error: 'The URL contains a NUL character in query parameter ""' });
    });

    it('gets a link by id; another workspace gets 404', async () => {
      const made = (await create({ url: 'https://example.com/get' })).body.data;
      const res = await suite.server.request('GET', `/api/v1/links/${made.id}`, { key: suite.owner.key });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(made);
      const other = await seedWorkspace(knex());
      const theirs = await suite.server.request('GET', `/api/v1/links/${made.id}`, { key: other.key });
      expect(theirs.status).toBe(404);
      expect((await suite.server.request('GET', '/api/v1/links/lnk_missing', { key: suite.owner.key })).status).toBe(
        404,
      );
    });

    it('pages newest first, total excludes deleted links, a page past the end is empty', async () => {
      const mine = await seedWorkspace(knex());
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await create({ url: `https://example.com/${i}` }, mine.key)).body.data.id);
      await suite.server.request('DELETE', `/api/v1/links/${ids[1]}`, { key: mine.key });
      const page1 = await suite.server.request('GET', '/api/v1/links?limit=2', { key: mine.key });
      expect(page1.status).toBe(200);
      expect(page1.body.meta).toEqual({ page: 1, limit: 2, total: 4 });
      expect(page1.body.data.map((l: any) => l.id)).toEqual([ids[4], ids[3]]);
      const page2 = await suite.server.request('GET', '/api/v1/links?limit=2&page=2', { key: mine.key });
      expect(page2.body.data.map((l: any) => l.id)).toEqual([ids[2], ids[0]]);
      const page9 = await suite.server.request('GET', '/api/v1/links?limit=2&page=9', { key: mine.key });
      expect(page9.body.data).toEqual([]);
      const dflt = await suite.server.request('GET', '/api/v1/links', { key: mine.key });
      expect(dflt.body.meta).toEqual({ page: 1, limit: 20, total: 4 });
    });

    it.each(['page=0', 'limit=0', 'limit=101', 'page=1.5', 'limit=abc', 'page=-1'])(
      'refuses %s with 400',
      async (q) => {
        const res = await suite.server.request('GET', `/api/v1/links?${q}`, { key: suite.owner.key });
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual(expect.any(String));
        expect(res.body.field).toBe(q.split('=')[0]);
      },
    );

    it('accepts limit=100', async () => {
      expect((await suite.server.request('GET', '/api/v1/links?limit=100', { key: suite.owner.key })).status).toBe(200);
    });
  });

  describe('update', () => {
    it('changes only the fields sent', async () => {
      const made = (await create({ url: 'https://example.com/u', title: 'Keep', clickLimit: 5 })).body.data;
      const res = await patch(made.id, { url: 'https://example.org/new', redirectType: 'PERMANENT' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        originalUrl: 'https://example.org/new',
        redirectType: 'PERMANENT',
        title: 'Keep',
        clickLimit: 5,
        slug: made.slug,
      });
      expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThan(Date.parse(made.updatedAt));
    });

    it('refuses an unknown field with 400 naming it and listing the accepted ones', async () => {
      const made = (await create({ url: 'https://example.com' })).body.data;
      const res = await patch(made.id, { title: 'x', domainId: 'dom_x' });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('domainId');
      for (const f of [
        'url',
        'title',
        'slug',
        'redirectType',
        'expiresAt',
        'neverExpires',
        'expiredUrl',
        'clickLimit',
        'startAt',
        'endAt',
        'status',
        'password',
        'tagIds',
        'previewTitle',
        'previewDescription',
        'previewImage',
      ]) {
        expect(res.body.error).toContain(f);
      }
      const after = await suite.server.request('GET', `/api/v1/links/${made.id}`, { key: suite.owner.key });
      expect(after.body.data.title).toBeNull();
    });

    it('renames the slug, refusing taken and reserved ones', async () => {
      const a = (await create({ url: 'https://example.com', slug: 'rename-a' })).body.data;
      await create({ url: 'https://example.com', slug: 'rename-b' });
      expect((await patch(a.id, { slug: 'rename-b' })).status).toBe(409);
      expect((await patch(a.id, { slug: 'login' })).status).toBe(409);
      const res = await patch(a.id, { slug: 'Rename-C' });
      expect(res.status).toBe(200);
      expect(res.body.data.slug).toBe('rename-c');
      // The old slug is free again.
      expect((await create({ url: 'https://example.com', slug: 'rename-a' })).status).toBe(201);
    });

    it('neverExpires true clears the expiry; with an expiresAt date it is a 400', async () => {
      const made = (await create({ url: 'https://example.com', expiresAt: '2031-01-01T00:00:00Z' })).body.data;
      expect((await patch(made.id, { neverExpires: true, expiresAt: '2032-01-01T00:00:00Z' })).status).toBe(400);
      const res = await patch(made.id, { neverExpires: true });
      expect(res.body.data).toMatchObject({ neverExpires: true, expiresAt: null });
      const back = await patch(made.id, { expiresAt: '2033-01-01T00:00:00Z' });
      expect(back.body.data).toMatchObject({ neverExpires: false, expiresAt: '2033-01-01T00:00:00.000Z' });
    });

    it('expiredUrl null or empty string removes the fallback', async () => {
      const made = (await create({ url: 'https://example.com', expiredUrl: 'https://example.com/gone' })).body.data;
      expect((await patch(made.id, { expiredUrl: '' })).body.data.expiredUrl).toBeNull();
      await patch(made.id, { expiredUrl: 'https://example.com/gone2' });
      expect((await patch(made.id, { expiredUrl: null })).body.data.expiredUrl).toBeNull();
      expect((await patch(made.id, { expiredUrl: 'ftp://x.example' })).status).toBe(400);
    });

    it('refuses an expiredUrl that would close a loop after a rename', async () => {
      const x = (await create({ url: 'https://localhost:8443/loop-y', slug: 'loop-x' })).body.data;
      const y = (await create({ url: 'https://example.com', slug: 'loop-y-old' })).body.data;
      await patch(y.id, { expiredUrl: 'https://localhost:8443/loop-x' }); // fine: loop-x leads to loop-y, which does not exist yet
      const rename = await patch(y.id, { slug: 'loop-y' });
      expect(rename.status).toBe(400);
      expect(rename.body.field).toBe('expiredUrl');
      expect(x.slug).toBe('loop-x');
    });

    it('sets and removes the password', async () => {
      const made = (await create({ url: 'https://example.com' })).body.data;
      const on = await patch(made.id, { password: 'hunter22' });
      expect(on.body.data.hasPassword).toBe(true);
      expect(on.text).not.toContain('hunter22');
      expect((await patch(made.id, { password: null })).body.data.hasPassword).toBe(false);
    });

    it('replaces the tag set; [] clears it', async () => {
      const t1 = await createTag(knex(), suite.owner.workspaceId, `a${Date.now()}`, '#111');
      const t2 = await createTag(knex(), suite.owner.workspaceId, `b${Date.now()}`, '#222');
      const made = (await create({ url: 'https://example.com', tagIds: [t1] })).body.data;
      expect((await patch(made.id, { tagIds: [t2] })).body.data.tags.map((t: any) => t.id)).toEqual([t2]);
      expect((await patch(made.id, { tagIds: [] })).body.data.tags).toEqual([]);
    });

    it('sets the social preview with an image this workspace hosts under ASSET_BASE_URL, stored normalised', async () => {
      const made = (await create({ url: 'https://example.com' })).body.data;
      const image = await hostImage(knex(), suite.owner.workspaceId, 'https://localhost:8443/assets/');
      const res = await patch(made.id, {
        previewTitle: 'Title',
        previewDescription: 'Desc',
        previewImage: image.replace('https://localhost', 'https://LOCALHOST'),
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ previewTitle: 'Title', previewDescription: 'Desc', previewImage: image });
      const other = await seedWorkspace(knex());
      const othersImage = await hostImage(knex(), other.workspaceId, 'https://localhost:8443/assets/');
      for (const bad of [
        'https://evil.example/x.png',
        'http://localhost:8443/assets/x.png',
        'https://localhost:8443/assets/x.svg',
        'https://localhost:8443/elsewhere/x.png',
        // Dot segments are refused, not resolved (the probe's path traversal).
        'https://localhost:8443/assets/../../etc/passwd.png',
        'https://localhost:8443/assets/%2e%2e/assets/x.png',
        // Well formed, but no image the service holds for this workspace.
        'https://localhost:8443/assets/ast_nothere.png',
        othersImage,
      ]) {
        const r = await patch(made.id, { previewImage: bad });
        expect(r.status, bad).toBe(400);
        expect(r.body.field).toBe('previewImage');
      }
      expect((await patch(made.id, { previewImage: null })).body.data.previewImage).toBeNull();
    });

    it('disables and re-enables, but not a link disabled for a policy review', async () => {
      const made = (await create({ url: 'https://example.com' })).body.data;
      expect((await patch(made.id, { status: 'DISABLED' })).body.data.status).toBe('DISABLED');
      expect((await patch(made.id, { status: 'ACTIVE' })).body.data.status).toBe('ACTIVE');
      await setPolicyDisabled(knex(), made.id, policyDisabled({ shortDomain: 'localhost' }));
      const res = await patch(made.id, { status: 'ACTIVE', title: 'sneaky' });
      expect(res.status).toBe(409);
      const after = (await suite.server.request('GET', `/api/v1/links/${made.id}`, { key: suite.owner.key })).body.data;
      expect(after).toMatchObject({ status: 'DISABLED', title: null });
      expect((await patch(made.id, { title: 'allowed' })).body.data).toMatchObject({
        status: 'DISABLED',
        title: 'allowed',
      });
    });

    it('needs a member with any role but ANALYST; 403 once the role changes or the person leaves', async () => {
      const made = (await create({ url: 'https://example.com' })).body.data;
      const member = await seedMemberKey(knex(), suite.owner.workspaceId, 'MEMBER');
      expect((await patch(made.id, { title: 'by member' }, member.key)).status).toBe(200);
      await setRole(knex(), suite.owner.workspaceId, member.userId, 'ANALYST');
      expect((await patch(made.id, { title: 'by analyst' }, member.key)).status).toBe(403);
      // The key keeps working for everything else.
      expect((await suite.server.request('GET', `/api/v1/links/${made.id}`, { key: member.key })).status).toBe(200);
      await removeMember(knex(), suite.owner.workspaceId, member.userId);
      expect((await patch(made.id, { title: 'by leaver' }, member.key)).status).toBe(403);
      expect((await create({ url: 'https://example.com' }, member.key)).status).toBe(201);
    });

    it('another workspace gets 404', async () => {
      const made = (await create({ url: 'https://example.com' })).body.data;
      const other = await seedWorkspace(knex());
      expect((await patch(made.id, { title: 'x' }, other.key)).status).toBe(404);
    });
  });

  describe('delete', () => {
    it('deletes with result steps, keeps clicks history, and a second DELETE is 404', async () => {
      const made = (await create({ url: 'https://example.com', slug: 'to-delete' })).body.data;
      const res = await suite.server.request('DELETE', `/api/v1/links/${made.id}`, { key: suite.owner.key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: { id: made.id, deleted: true },
        result: {
          outcome: 'success',
          steps: [
            expect.objectContaining({ key: 'link', status: 'ok' }),
            expect.objectContaining({ key: 'redirect_cache', status: 'ok' }),
          ],
        },
      });
      expect((await suite.server.request('DELETE', `/api/v1/links/${made.id}`, { key: suite.owner.key })).status).toBe(
        404,
      );
      expect((await suite.server.request('GET', `/api/v1/links/${made.id}`, { key: suite.owner.key })).status).toBe(
        404,
      );
      expect(await knex()('links').where({ id: made.id }).first()).toBeTruthy();
      expect((await create({ url: 'https://example.com', slug: 'to-delete' })).status).toBe(201);
    });

    it('needs OWNER or ADMIN', async () => {
      const made = (await create({ url: 'https://example.com' })).body.data;
      const member = await seedMemberKey(knex(), suite.owner.workspaceId, 'MEMBER');
      expect((await suite.server.request('DELETE', `/api/v1/links/${made.id}`, { key: member.key })).status).toBe(403);
      const admin = await seedMemberKey(knex(), suite.owner.workspaceId, 'ADMIN');
      expect((await suite.server.request('DELETE', `/api/v1/links/${made.id}`, { key: admin.key })).status).toBe(200);
    });

    it('another workspace gets 404 and the link survives', async () => {
      const made = (await create({ url: 'https://example.com' })).body.data;
      const other = await seedWorkspace(knex());
      expect((await suite.server.request('DELETE', `/api/v1/links/${made.id}`, { key: other.key })).status).toBe(404);
      expect((await suite.server.request('GET', `/api/v1/links/${made.id}`, { key: suite.owner.key })).status).toBe(
        200,
      );
    });
  });
});

describe.each(testEngines())('links API follow-up steps on %s', (engine) => {
  let server: TestServer;
  let owner: Seeded;
  beforeAll(async () => {
    // A redirect cache whose invalidation cannot finish (as when other processes are unreachable).
    server = await startTestServer(engine, {
      linkCache: {
        invalidate: async () => {
          throw new Error('unreachable');
        },
      },
    });
    owner = await seedWorkspace(server.services.db.knex);
  });
  afterAll(async () => server?.stop());

  it('answers 207 with the failed step when a change applied but the cache step did not finish', async () => {
    const made = (
      await server.request('POST', '/api/v1/links', { key: owner.key, body: { url: 'https://example.com' } })
    ).body.data;
    const upd = await server.request('PATCH', `/api/v1/links/${made.id}`, {
      key: owner.key,
      body: { slug: 'moved-207' },
    });
    expect(upd.status).toBe(207);
    expect(upd.body.data.slug).toBe('moved-207');
    expect(upd.body.result).toEqual({
      outcome: 'partial',
      steps: [
        expect.objectContaining({ key: 'link', status: 'ok' }),
        expect.objectContaining({ key: 'redirect_cache', status: 'failed' }),
      ],
    });
    const del = await server.request('DELETE', `/api/v1/links/${made.id}`, { key: owner.key });
    expect(del.status).toBe(207);
    expect(del.body.result.outcome).toBe('partial');
    expect((await server.request('GET', `/api/v1/links/${made.id}`, { key: owner.key })).status).toBe(404);
  });
});
