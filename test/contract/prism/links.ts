// The links operations (listLinks, createLink, getLink, updateLink, deleteLink) through the
// proxy: every success shape and every error status the interface gives them. Keys, plans,
// scopes and the rate limit are in ./access.ts; the plain-HTTP 400 in ./deployment.ts.
import { describe, expect, it } from 'vitest';
import { setPolicyDisabled } from '../../../src/db/repos/links';
import { policyDisabled } from '../../../src/webhooks/link-events';
import { removeMember } from '../../../src/db/repos/workspaces';
import { createTag } from '../../../src/db/repos/workspace-objects';
import { hostImage, seedMemberKey, seedWorkspace } from '../../support/seed';
import { BIG, textPlain, type Call, type ContractContext } from './context';

export function linkSuites(ctx: ContractContext) {
  describe('listLinks', () => {
    it('200: a page, the default page and a page past the end; no rate-limit headers on success', async () => {
      const mine = await seedWorkspace(ctx.knex());
      const a = await ctx.makeLink({ url: 'https://example.com/1' }, mine.key);
      const b = await ctx.makeLink({ url: 'https://example.com/2', title: 'second', tagIds: [] }, mine.key);
      const page = await ctx.viaPrism(
        'listLinks',
        { method: 'GET', path: '/api/v1/links?page=1&limit=1' },
        200,
        mine.key,
      );
      expect(page.body.meta).toEqual({ page: 1, limit: 1, total: 2 });
      expect(page.body.data.map((l: any) => l.id)).toEqual([b.id]);
      expect(page.headers['x-ratelimit-limit']).toBeUndefined();
      const dflt = await ctx.viaPrism('listLinks', { method: 'GET', path: '/api/v1/links' }, 200, mine.key);
      expect(dflt.body.meta).toEqual({ page: 1, limit: 20, total: 2 });
      expect(dflt.body.data.map((l: any) => l.id)).toEqual([b.id, a.id]);
      const past = await ctx.viaPrism(
        'listLinks',
        { method: 'GET', path: '/api/v1/links?page=9&limit=100' },
        200,
        mine.key,
      );
      expect(past.body).toEqual({ data: [], meta: { page: 9, limit: 100, total: 2 } });
    });

    // Every out-of-range or non-integer page/limit violates the Page/Limit parameter schemas;
    // values outside the filters' enums violate LinkStatusFilter and LinkSort.
    it.each([
      'page=0',
      'page=-1',
      'page=1.5',
      'page=abc',
      'limit=0',
      'limit=101',
      'limit=abc',
      'status=PAUSED',
      'sort=created',
    ])('400 for %s (Prism refuses it with 422; the server answer is checked directly)', async (q) => {
      const { direct } = await ctx.refusedByPrism('listLinks', { method: 'GET', path: `/api/v1/links?${q}` }, 422, 400);
      expect(direct.body.field).toBe(q.split('=')[0]);
    });

    it('200 with the filters and the order by clicks: the matches and their total', async () => {
      const mine = await seedWorkspace(ctx.knex());
      const tag = await createTag(ctx.knex(), mine.workspaceId, 'promo', '#22c55e');
      await ctx.makeLink({ url: 'https://example.com/spring', title: 'Spring', tagIds: [tag] }, mine.key);
      await ctx.makeLink({ url: 'https://example.com/autumn' }, mine.key);
      const query = `search=SPRING&tagId=${tag}&domainId=short&status=ACTIVE&sort=clicks&limit=1`;
      const res = await ctx.viaPrism('listLinks', { method: 'GET', path: `/api/v1/links?${query}` }, 200, mine.key);
      expect(res.body.meta).toEqual({ page: 1, limit: 1, total: 1, totalCapped: false });
      expect(res.body.data.map((l: any) => l.title)).toEqual(['Spring']);
    });

    // An empty filter breaks its minLength; Prism lets an empty query value through, the server refuses it.
    it.each(['search=', 'tagId=', 'domainId='])('400 for %s, naming the parameter', async (q) => {
      const res = await ctx.viaPrism('listLinks', { method: 'GET', path: `/api/v1/links?${q}` }, 400);
      expect(res.body.field).toBe(q.split('=')[0]);
    });
  });

  describe('createLink', () => {
    const create = (body: unknown): Call => ({ method: 'POST', path: '/api/v1/links', opts: { body } });

    it('201 with only url: no meta', async () => {
      const res = await ctx.viaPrism('createLink', create({ url: 'https://example.com/min' }), 201);
      expect(res.body.data).toMatchObject({
        originalUrl: 'https://example.com/min',
        status: 'ACTIVE',
        neverExpires: true,
        clicks: 0,
      });
      expect(res.body.meta).toBeUndefined();
    });

    it('201 with every recognised field set', async () => {
      const tag = await createTag(ctx.knex(), ctx.owner.workspaceId, `t${Date.now()}`, '#22c55e');
      const body = {
        url: 'https://example.com/full',
        slug: `Full-${Date.now()}`,
        title: '  Full  ',
        redirectType: 'PERMANENT',
        expiresAt: '2031-03-01T00:00:00+02:00',
        expiredUrl: 'https://example.com/over',
        clickLimit: 10,
        startAt: '2030-01-01T00:00:00Z',
        endAt: '2030-02-01T00:00:00Z',
        password: 'open sesame',
        tagIds: [tag],
      };
      const res = await ctx.viaPrism('createLink', create(body), 201);
      expect(res.body.data).toMatchObject({
        title: 'Full',
        redirectType: 'PERMANENT',
        expiresAt: '2031-02-28T22:00:00.000Z',
        neverExpires: false,
        clickLimit: 10,
        hasPassword: true,
        tags: [{ id: tag, name: expect.any(String), color: '#22c55e' }],
      });
      expect(res.body.meta).toBeUndefined();
    });

    it('201 with meta.ignoredFields naming the unrecognised keys in body order', async () => {
      const res = await ctx.viaPrism(
        'createLink',
        create({ url: 'https://example.com/ign', colour: 'red', previewTitle: 'x', status: 'DISABLED' }),
        201,
      );
      expect(res.body.meta).toEqual({ ignoredFields: ['colour', 'previewTitle', 'status'] });
      expect(res.body.data).toMatchObject({ status: 'ACTIVE', previewTitle: null });
    });

    // Allowed by LinkCreate's schema, refused by the operation's rules (a relation between
    // fields, objects of the workspace, the parsed URL): forwarded by Prism.
    it.each([
      [{ url: 'https:' }, 'url'],
      [{ url: 'https://example.com', startAt: '2030-02-01T00:00:00Z', endAt: '2030-01-01T00:00:00Z' }, 'endAt'],
      [{ url: 'https://example.com', expiredUrl: 'https://' }, 'expiredUrl'],
      [{ url: 'https://example.com', tagIds: ['tag_nope'] }, undefined],
      [{ url: 'https://example.com', domainId: 'dom_nope' }, undefined],
    ])('400 for %j (through Prism)', async (body, field) => {
      const res = await ctx.viaPrism('createLink', create(body), 400);
      if (field) expect(res.body.field).toBe(field);
    });

    // Forbidden by LinkCreate's schema (or not JSON at all): Prism refuses, the server is checked directly.
    it.each([
      ['no url', { slug: 'no-url' }, 'url'],
      ['url over 2048 characters', { url: `https://e.com/${'a'.repeat(2040)}` }, 'url'],
      ['empty slug', { url: 'https://example.com', slug: '' }, 'slug'],
      ['a javascript: destination', { url: 'javascript:alert(1)' }, 'url'],
      ['an ftp destination', { url: 'ftp://example.com/x' }, 'url'],
      ['a relative destination', { url: '/relative' }, 'url'],
      ['a slug with a space', { url: 'https://example.com', slug: 'has space' }, 'slug'],
      ['a slug with a dot', { url: 'https://example.com', slug: 'dot.dot' }, 'slug'],
      ['a javascript: expiredUrl', { url: 'https://example.com', expiredUrl: 'javascript:alert(1)' }, 'expiredUrl'],
      ['an empty tag id', { url: 'https://example.com', tagIds: [''] }, 'tagIds.0'],
      ['an empty domainId', { url: 'https://example.com', domainId: '' }, 'domainId'],
      ['slug over 64 characters', { url: 'https://example.com', slug: 'x'.repeat(65) }, 'slug'],
      ['unknown redirectType', { url: 'https://example.com', redirectType: 'SOMETIMES' }, 'redirectType'],
      ['clickLimit 0', { url: 'https://example.com', clickLimit: 0 }, 'clickLimit'],
      ['fractional clickLimit', { url: 'https://example.com', clickLimit: 1.5 }, 'clickLimit'],
      ['expiresAt not a date-time', { url: 'https://example.com', expiresAt: 'tomorrow' }, 'expiresAt'],
      [
        'more than 25 tagIds',
        { url: 'https://example.com', tagIds: Array.from({ length: 26 }, (_, i) => `tag_${i}`) },
        'tagIds',
      ],
      ['a body that is an array', [{ url: 'https://example.com' }], undefined],
    ])('400 for %s (Prism refuses it with 422; the server answer is checked directly)', async (_what, body, field) => {
      const { direct } = await ctx.refusedByPrism('createLink', create(body), 422, 400);
      if (field) expect(direct.body.field).toBe(field);
    });

    it('400 for a body that is not JSON with Content-Type: text/plain (Prism refuses it with 422)', async () => {
      await ctx.refusedByPrism('createLink', textPlain('POST', '/api/v1/links', 'url=https://example.com'), 422, 400);
    });

    // The interface (Transport) says a body sent with another Content-Type gives 400.
    it('a JSON body sent as text/plain: Prism refuses it (422); the server answers 400', async () => {
      await ctx.refusedByPrism(
        'createLink',
        textPlain('POST', '/api/v1/links', '{"url":"https://example.com/tp"}'),
        422,
        400,
      );
    });
    it('a JSON body sent as text/plain gives 400 and creates nothing', async () => {
      const res = await ctx.main.server.request('POST', '/api/v1/links', {
        ...textPlain('POST', '', '{"url":"https://example.com/tp"}').opts,
        key: ctx.owner.key,
      });
      expect(res.status).toBe(400);
    });

    it("400 for malformed JSON (Prism's own body parser refuses it with 400 invalid_json)", async () => {
      const { proxied } = await ctx.refusedByPrism(
        'createLink',
        {
          method: 'POST',
          path: '/api/v1/links',
          opts: { rawBody: '{"url": ', headers: { 'content-type': 'application/json' } },
        },
        400,
        400,
      );
      expect(proxied.body.error.code).toBe('invalid_json');
    });

    it('409 for a taken slug and for a reserved one', async () => {
      const slug = `taken-${Date.now()}`;
      await ctx.makeLink({ url: 'https://example.com', slug });
      const taken = await ctx.viaPrism(
        'createLink',
        create({ url: 'https://example.com', slug: slug.toUpperCase() }),
        409,
      );
      expect(taken.body.error).toMatch(/taken/);
      for (const reserved of ['admin', 'API', 'favicon.ico']) {
        const res = await ctx.viaPrism('createLink', create({ url: 'https://example.com', slug: reserved }), 409);
        expect(res.body.error).toMatch(/reserved/);
      }
    });

    it('413 for a body over 64 KiB', async () => {
      await ctx.viaPrism('createLink', create({ url: 'https://example.com', title: BIG }), 413);
    });
  });

  describe('getLink', () => {
    it('200 with the link', async () => {
      const made = await ctx.makeLink({
        url: 'https://example.com/get',
        expiredUrl: 'https://example.com/gone',
        clickLimit: 3,
      });
      const res = await ctx.viaPrism('getLink', { method: 'GET', path: `/api/v1/links/${made.id}` }, 200);
      expect(res.body).toEqual({ data: made });
    });

    it("404 for an unknown id, another workspace's link and a deleted link", async () => {
      await ctx.viaPrism('getLink', { method: 'GET', path: '/api/v1/links/lnk_missing' }, 404);
      const other = await seedWorkspace(ctx.knex());
      const theirs = await ctx.makeLink({ url: 'https://example.com/theirs' }, other.key);
      await ctx.viaPrism('getLink', { method: 'GET', path: `/api/v1/links/${theirs.id}` }, 404);
      const gone = await ctx.makeLink();
      expect((await ctx.main.server.request('DELETE', `/api/v1/links/${gone.id}`, { key: ctx.owner.key })).status).toBe(
        200,
      );
      await ctx.viaPrism('getLink', { method: 'GET', path: `/api/v1/links/${gone.id}` }, 404);
    });
  });

  describe('updateLink', () => {
    const patch = (id: string, body: unknown): Call => ({
      method: 'PATCH',
      path: `/api/v1/links/${id}`,
      opts: { body },
    });

    it('200 setting fields, clearing nullable ones, and for an empty body', async () => {
      const tag = await createTag(ctx.knex(), ctx.owner.workspaceId, `u${Date.now()}`, '#123456');
      const made = await ctx.makeLink({
        url: 'https://example.com/u',
        expiresAt: '2031-01-01T00:00:00Z',
        password: 'pw',
        clickLimit: 5,
      });
      const image = await hostImage(ctx.knex(), ctx.owner.workspaceId, 'https://localhost:8443/assets/');
      const set = await ctx.viaPrism(
        'updateLink',
        patch(made.id, {
          url: 'https://example.org/new',
          redirectType: 'PERMANENT',
          status: 'DISABLED',
          tagIds: [tag],
          startAt: '2030-01-01T00:00:00Z',
          previewTitle: 'Card',
          previewDescription: 'Desc',
          previewImage: image,
          expiredUrl: 'https://example.com/x',
        }),
        200,
      );
      expect(set.body.data).toMatchObject({
        originalUrl: 'https://example.org/new',
        status: 'DISABLED',
        previewImage: image,
      });
      const cleared = await ctx.viaPrism(
        'updateLink',
        patch(made.id, {
          neverExpires: true,
          title: null,
          expiredUrl: null,
          clickLimit: null,
          startAt: null,
          endAt: null,
          password: null,
          tagIds: [],
          previewTitle: null,
          previewDescription: null,
          previewImage: null,
          status: 'ACTIVE',
        }),
        200,
      );
      expect(cleared.body.data).toMatchObject({
        neverExpires: true,
        expiresAt: null,
        hasPassword: false,
        tags: [],
        clickLimit: null,
      });
      const same = await ctx.viaPrism('updateLink', patch(made.id, {}), 200);
      expect(same.body.data).toEqual(cleared.body.data);
    });

    // Allowed by LinkUpdate's schema, refused by the operation's rules: forwarded by Prism.
    it.each([
      [{ url: 'https:' }, 'url'],
      [{ previewImage: 'https://evil.example/x.png' }, 'previewImage'],
      [{ previewImage: 'https://localhost:8443/assets/x.svg' }, 'previewImage'],
      [{ startAt: '2030-02-01T00:00:00Z', endAt: '2030-01-01T00:00:00Z' }, 'endAt'],
      [{ tagIds: ['tag_nope'] }, undefined],
    ])('400 for %j (through Prism)', async (body, field) => {
      const made = await ctx.makeLink();
      const res = await ctx.viaPrism('updateLink', patch(made.id, body), 400);
      if (field) expect(res.body.field).toBe(field);
    });

    // Forbidden by LinkUpdate's schema (additionalProperties: false, types, enums, required body).
    it.each([
      ['an unknown field (domainId)', { title: 'x', domainId: 'dom_x' }, 'domainId'],
      ['an unknown field (colour)', { colour: 'red' }, 'colour'],
      ['an unknown status', { status: 'PAUSED' }, 'status'],
      ['clickLimit 0', { clickLimit: 0 }, 'clickLimit'],
      ['an empty url', { url: '' }, 'url'],
      ['a javascript: destination', { url: 'javascript:alert(1)' }, 'url'],
      ['neverExpires true with a date', { neverExpires: true, expiresAt: '2032-01-01T00:00:00Z' }, 'neverExpires'],
      ['a preview image over plain http', { previewImage: 'http://localhost:8443/assets/x.png' }, 'previewImage'],
      ['a slug with a space', { slug: 'has space' }, 'slug'],
      ['an ftp expiredUrl', { expiredUrl: 'ftp://x.example' }, 'expiredUrl'],
      ['neverExpires not a boolean', { neverExpires: 'yes' }, 'neverExpires'],
      ['a body that is a string', 'title', undefined],
    ])('400 for %s (Prism refuses it with 422; the server answer is checked directly)', async (_what, body, field) => {
      const made = await ctx.makeLink();
      const { direct } = await ctx.refusedByPrism('updateLink', patch(made.id, body), 422, 400);
      if (field) expect(direct.body.field).toBe(field);
      if (field === 'domainId') expect(direct.body.error).toContain('previewImage'); // lists the accepted fields
      expect(
        (await ctx.main.server.request('GET', `/api/v1/links/${made.id}`, { key: ctx.owner.key })).body.data,
      ).toEqual(made);
    });

    // The requestBody is `required: true`: a PATCH without a body is a 400.
    it('without a body: Prism refuses it (422); the server answers 400', async () => {
      const made = await ctx.makeLink();
      await ctx.refusedByPrism('updateLink', { method: 'PATCH', path: `/api/v1/links/${made.id}` }, 422, 400);
    });
    it('a PATCH without a body gives 400', async () => {
      const made = await ctx.makeLink();
      expect((await ctx.main.server.request('PATCH', `/api/v1/links/${made.id}`, { key: ctx.owner.key })).status).toBe(
        400,
      );
    });

    it('400 for a text/plain body that is not JSON (Prism refuses it with 422)', async () => {
      const made = await ctx.makeLink();
      await ctx.refusedByPrism('updateLink', textPlain('PATCH', `/api/v1/links/${made.id}`, 'title=x'), 422, 400);
    });

    it('403 for an ANALYST and for a member who left', async () => {
      const made = await ctx.makeLink();
      const analyst = await seedMemberKey(ctx.knex(), ctx.owner.workspaceId, 'ANALYST');
      await ctx.viaPrism('updateLink', patch(made.id, { title: 'by analyst' }), 403, analyst.key);
      const leaver = await seedMemberKey(ctx.knex(), ctx.owner.workspaceId, 'MEMBER');
      await removeMember(ctx.knex(), ctx.owner.workspaceId, leaver.userId);
      await ctx.viaPrism('updateLink', patch(made.id, { title: 'by leaver' }), 403, leaver.key);
    });

    it("404 for an unknown id and another workspace's link", async () => {
      await ctx.viaPrism('updateLink', patch('lnk_missing', { title: 'x' }), 404);
      const other = await seedWorkspace(ctx.knex());
      const theirs = await ctx.makeLink({ url: 'https://example.com/theirs' }, other.key);
      await ctx.viaPrism('updateLink', patch(theirs.id, { title: 'x' }), 404);
    });

    it('409 for a taken slug, a reserved slug and re-enabling a policy-disabled link', async () => {
      const slug = `upd-taken-${Date.now()}`;
      await ctx.makeLink({ url: 'https://example.com', slug });
      const made = await ctx.makeLink();
      await ctx.viaPrism('updateLink', patch(made.id, { slug }), 409);
      await ctx.viaPrism('updateLink', patch(made.id, { slug: 'login' }), 409);
      await setPolicyDisabled(ctx.knex(), made.id, policyDisabled({ shortDomain: 'localhost' }));
      const res = await ctx.viaPrism('updateLink', patch(made.id, { status: 'ACTIVE' }), 409);
      expect(res.body.error).toMatch(/policy/);
    });

    it('413 for a body over 64 KiB', async () => {
      const made = await ctx.makeLink();
      await ctx.viaPrism('updateLink', patch(made.id, { title: BIG }), 413);
    });
  });

  describe('deleteLink', () => {
    const del = (id: string): Call => ({ method: 'DELETE', path: `/api/v1/links/${id}` });

    it('200 with the steps; a second DELETE is 404', async () => {
      const made = await ctx.makeLink();
      const res = await ctx.viaPrism('deleteLink', del(made.id), 200);
      expect(res.body).toMatchObject({ data: { id: made.id, deleted: true }, result: { outcome: 'success' } });
      expect(res.body.result.steps.map((s: any) => [s.key, s.status])).toEqual([
        ['link', 'ok'],
        ['redirect_cache', 'ok'],
      ]);
      await ctx.viaPrism('deleteLink', del(made.id), 404);
    });

    it('403 for a MEMBER or ANALYST', async () => {
      const made = await ctx.makeLink();
      for (const role of ['MEMBER', 'ANALYST'] as const) {
        const member = await seedMemberKey(ctx.knex(), ctx.owner.workspaceId, role);
        await ctx.viaPrism('deleteLink', del(made.id), 403, member.key);
      }
    });

    it("404 for an unknown id and another workspace's link", async () => {
      await ctx.viaPrism('deleteLink', del('lnk_missing'), 404);
      const other = await seedWorkspace(ctx.knex());
      const theirs = await ctx.makeLink({ url: 'https://example.com/theirs' }, other.key);
      await ctx.viaPrism('deleteLink', del(theirs.id), 404);
    });
  });

  // 207: the change (or delete) applied, the redirect-cache step did not finish.
  describe('updateLink and deleteLink when the cache step fails', () => {
    it('207 with the failed step named, for an update and for a delete', async () => {
      const made = await ctx.makeLink();
      ctx.cacheFails = true;
      try {
        const upd = await ctx.viaPrism(
          'updateLink',
          { method: 'PATCH', path: `/api/v1/links/${made.id}`, opts: { body: { title: 'partial' } } },
          207,
        );
        expect(upd.body.data).toMatchObject({ id: made.id, title: 'partial' });
        expect(upd.body.result.outcome).toBe('partial');
        expect(upd.body.result.steps.map((s: any) => [s.key, s.status])).toEqual([
          ['link', 'ok'],
          ['redirect_cache', 'failed'],
        ]);
        const del = await ctx.viaPrism('deleteLink', { method: 'DELETE', path: `/api/v1/links/${made.id}` }, 207);
        expect(del.body).toMatchObject({ data: { id: made.id, deleted: true }, result: { outcome: 'partial' } });
      } finally {
        ctx.cacheFails = false;
      }
      // Applied either way: the link is gone.
      expect((await ctx.main.server.request('GET', `/api/v1/links/${made.id}`, { key: ctx.owner.key })).status).toBe(
        404,
      );
    });
  });
}
