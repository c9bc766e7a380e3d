// GET /api/v1/links with its filters and order (search, tagId, domainId, status, sort) through
// HTTPS on every engine: each alone and combined, paging over the matches with their total,
// the order by clicks made by visiting the links, ids of another workspace matching nothing, and
// each value the contract refuses answered 400 naming its parameter.
import { beforeAll, describe, expect, it } from 'vitest';
import { FOLD_LAG_MS, FOLD_STEP_MS } from '../../src/db/repos/click-folds';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { createTag } from '../../src/db/repos/workspace-objects';
import { testEngines } from '../support/databases';
import { seedWorkspace, serverWithOwner, type Seeded } from '../support/seed';

const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

describe.each(testEngines())('GET /api/v1/links with filters on %s', (engine) => {
  const suite = serverWithOwner(engine, { env: { CLICK_FLUSH_MS: '60000' } });
  const knex = () => suite.server.services.db.knex;
  let tagId: string;
  let domainId: string;
  let other: Seeded;
  let theirTag: string;
  let theirDomain: string;

  const get = (query: string, key = suite.owner.key) =>
    suite.server.request('GET', `/api/v1/links${query ? `?${query}` : ''}`, { key });
  const list = async (query: string) => {
    const res = await get(query);
    expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body as { data: Array<{ slug: string; clicks: number }>; meta: { page: number; total: number } };
  };
  const slugs = async (query: string) => (await list(query)).data.map((l) => l.slug);
  const visit = (slug: string, host?: string) =>
    suite.server.request('GET', `/${slug}`, { headers: { 'user-agent': PERSON, ...(host ? { host } : {}) } });

  beforeAll(async () => {
    const ws = suite.owner.workspaceId;
    tagId = await createTag(knex(), ws, 'promo', '#ff0000');
    const host = `go${Date.now()}.filters.test`;
    domainId = await addDomain(knex(), ws, host);
    await setDomainStatus(knex(), domainId, 'ACTIVE');
    other = await seedWorkspace(knex());
    theirTag = await createTag(knex(), other.workspaceId, 'promo', '#ff0000');
    theirDomain = await addDomain(knex(), other.workspaceId, `theirs${Date.now()}.filters.test`);
    await setDomainStatus(knex(), theirDomain, 'ACTIVE');
    const make = async (body: Record<string, unknown>, key = suite.owner.key) => {
      const res = await suite.server.request('POST', '/api/v1/links', { key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data as { id: string };
    };
    // Oldest first: the list's default order is the reverse. Made a millisecond apart or more,
    // and ties broken by creation anyway.
    await make({ url: 'https://example.com/spring', slug: 'f-alpha', title: 'Spring Sale', tagIds: [tagId] });
    await make({ url: 'https://blog.example.com/post', slug: 'f-beta', title: 'Blog post' });
    const gamma = await make({ url: 'https://example.org/gamma', slug: 'f-gamma', domainId, tagIds: [tagId] });
    await make({ url: 'https://example.com/delta', slug: 'f-delta', title: 'Spring teaser' });
    const epsilon = await make({ url: 'https://example.com/epsilon', slug: 'f-epsilon' });
    const deleted = await make({ url: 'https://example.com/spring-gone', slug: 'f-gone', tagIds: [tagId] });
    for (const id of [gamma.id, epsilon.id]) {
      const res = await suite.server.request('PATCH', `/api/v1/links/${id}`, {
        key: suite.owner.key,
        body: { status: 'DISABLED' },
      });
      expect(res.status).toBe(200);
    }
    expect((await suite.server.request('DELETE', `/api/v1/links/${deleted.id}`, { key: suite.owner.key })).status).toBe(
      200,
    );
    // Another workspace's links match the same text and never show.
    await make({ url: 'https://example.com/spring', slug: 'f-theirs', title: 'Spring', tagIds: [theirTag] }, other.key);
    // Clicks: beta 3, delta 1, alpha 1 (alpha ties with delta, older); written by the click writer.
    for (const slug of ['f-beta', 'f-beta', 'f-beta', 'f-delta', 'f-alpha'])
      expect((await visit(slug)).status).toBe(302);
    await suite.server.clicks.flush();
  });

  it('lists every live link newest first without a filter, as before', async () => {
    const body = await list('');
    expect(body.data.map((l) => l.slug).filter((s) => s.startsWith('f-'))).toEqual([
      'f-epsilon',
      'f-delta',
      'f-gamma',
      'f-beta',
      'f-alpha',
    ]);
    expect(body.meta).toEqual({ page: 1, limit: 20, total: 5 });
    expect(await slugs('sort=createdAt')).toEqual(body.data.map((l) => l.slug));
  });

  it('searches slug, title and destination, any case', async () => {
    expect(await slugs('search=SPRING')).toEqual(['f-delta', 'f-alpha']);
    expect(await slugs('search=blog.example')).toEqual(['f-beta']);
    expect(await slugs('search=f-gam')).toEqual(['f-gamma']);
    expect(await slugs(`search=${encodeURIComponent('  teaser ')}`)).toEqual(['f-delta']);
    expect((await list('search=nothing-like-this')).meta.total).toBe(0);
  });

  it('filters by tag; another workspace’s tag or an unknown one matches nothing', async () => {
    expect(await slugs(`tagId=${tagId}`)).toEqual(['f-gamma', 'f-alpha']);
    expect(await list(`tagId=${theirTag}`)).toMatchObject({ data: [], meta: { total: 0 } });
    expect(await list('tagId=tag_nope')).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it('filters by domain: a custom domain by id, the shared short domain as short', async () => {
    expect(await slugs(`domainId=${domainId}`)).toEqual(['f-gamma']);
    expect(await slugs('domainId=short')).toEqual(['f-epsilon', 'f-delta', 'f-beta', 'f-alpha']);
    expect(await list(`domainId=${theirDomain}`)).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it('filters by status', async () => {
    expect(await slugs('status=DISABLED')).toEqual(['f-epsilon', 'f-gamma']);
    expect(await slugs('status=ACTIVE')).toEqual(['f-delta', 'f-beta', 'f-alpha']);
  });

  it('combines the filters: a link must match every one', async () => {
    expect(await slugs(`search=spring&tagId=${tagId}`)).toEqual(['f-alpha']);
    expect(await slugs('search=example.com&status=ACTIVE&domainId=short')).toEqual(['f-delta', 'f-beta', 'f-alpha']);
    expect(await slugs(`tagId=${tagId}&domainId=short&status=ACTIVE&search=alpha`)).toEqual(['f-alpha']);
    expect(await slugs(`tagId=${tagId}&status=DISABLED&domainId=short`)).toEqual([]);
  });

  it('pages over the matches with their total, counted up to the cap', async () => {
    const first = await list('domainId=short&limit=3');
    expect(first.data.map((l) => l.slug)).toEqual(['f-epsilon', 'f-delta', 'f-beta']);
    // A filtered total below the cap is exact and says so; the interface's page has no totalCapped.
    expect(first.meta).toEqual({ page: 1, limit: 3, total: 4, totalCapped: false });
    const second = await list('domainId=short&limit=3&page=2');
    expect(second.data.map((l) => l.slug)).toEqual(['f-alpha']);
    expect(second.meta).toEqual({ page: 2, limit: 3, total: 4, totalCapped: false });
    expect(await list('domainId=short&limit=3&page=9')).toMatchObject({ data: [], meta: { page: 9, total: 4 } });
  });

  it('sorts by clicks, most first, equal clicks newest first, as of the click fold', async () => {
    // Before a fold every link orders as never clicked: by creation.
    expect(await slugs('sort=clicks&domainId=short')).toEqual(['f-epsilon', 'f-delta', 'f-beta', 'f-alpha']);
    await suite.server.services.queries.clickFold(Date.now() + FOLD_LAG_MS + FOLD_STEP_MS);
    const body = await list('sort=clicks&domainId=short');
    expect(body.data.map((l) => [l.slug, l.clicks])).toEqual([
      ['f-beta', 3],
      ['f-delta', 1],
      ['f-alpha', 1],
      ['f-epsilon', 0],
    ]);
    expect(await slugs('sort=clicks&status=ACTIVE&limit=2&page=2')).toEqual(['f-alpha']);
    expect(await slugs('sort=clicks&search=spring')).toEqual(['f-delta', 'f-alpha']);
  });

  it.each([
    ['status=PAUSED', 'status'],
    ['status=active', 'status'],
    ['sort=created', 'sort'],
    ['sort=clicks-desc', 'sort'],
    ['search=', 'search'],
    [`search=${'x'.repeat(201)}`, 'search'],
    ['tagId=', 'tagId'],
    ['domainId=', 'domainId'],
    ['page=0&status=ACTIVE', 'page'],
    ['limit=101&search=spring', 'limit'],
  ])('refuses %s with 400 naming %s', async (query, field) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: expect.stringContaining(field), field });
  });
});
