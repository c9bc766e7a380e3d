// With REDIRECT_CACHE_PRELOAD=on the redirect cache's resident tier is filled with the live links
// when the service starts (REDIRECT_CACHE_LINKS; RedirectService.preload), through real HTTPS on every engine. What a
// visitor and an operator depend on: every live link answers from memory once it is done, a
// deleted link is not among them, a change after it applies from the next click, and a cache
// smaller than the links holds that many while the others are still served from the database.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { migrateLatest, openDatabase } from '../../src/db/knex';
import { loadConfig } from '../../src/config';
import { createTestDatabase, testEngines, type TestDatabase } from '../support/databases';
import { seedWorkspace, type Seeded } from '../support/seed';
import { linkRow } from '../support/stored-rows';
import { startTestServer, type TestServer } from '../support/server';

const LINKS = 4_503; // more than two pages of the preload (2,000 each)
const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const id = (i: number) => `lnk_pre${String(i).padStart(5, '0')}`;

describe.each(testEngines())('the redirect cache preload on %s', (engine) => {
  let database: TestDatabase;
  let owner: Seeded;
  let server: TestServer | undefined;
  const visit = (s: TestServer, slug: string) => s.request('GET', `/${slug}`, { headers: { 'user-agent': PERSON } });
  const preloaded = async (s: TestServer) => {
    await vi.waitFor(() => expect(s.redirects.preloaded.done).toBe(true), { timeout: 30_000, interval: 50 });
    return s.redirects.preloaded;
  };

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    const db = openDatabase(database.url);
    try {
      await migrateLatest(db);
      owner = await seedWorkspace(db.knex);
      const now = Date.now();
      const rows = Array.from({ length: LINKS + 1 }, (_, i) =>
        linkRow({
          id: id(i),
          workspace_id: owner.workspaceId,
          created_by: owner.userId,
          slug: `pre-${i}`,
          original_url: `https://example.com/${i}`,
          created_at: now,
          updated_at: now,
          deleted_at: i === LINKS ? now : null,
        }),
      );
      for (let i = 0; i < rows.length; i += 500) await db.knex('links').insert(rows.slice(i, i + 500));
    } finally {
      await db.knex.destroy();
    }
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('by default holds every live link once started, so visits read no database, and a change applies from the next click', async () => {
    server = await startTestServer(engine, { database });
    const done = await preloaded(server);
    expect(done.links).toBe(LINKS);
    expect(server.redirects.residentLinks).toBe(LINKS);
    const misses = server.redirects.cacheMisses;
    for (const i of [0, 1, 1999, 2000, 2001, 4000, LINKS - 1]) {
      const res = await visit(server, `pre-${i}`);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`https://example.com/${i}`);
    }
    expect(server.redirects.cacheMisses).toBe(misses);
    // The deleted link was not loaded: its address misses and is not found.
    expect((await visit(server, `pre-${LINKS}`)).status).toBe(404);
    expect(server.redirects.cacheMisses).toBe(misses + 1);

    // Visited before their change, so each is kept parsed with its resident entry (a memo): the
    // change must drop that too. Links beyond the first 1,000: the next server's change feed reads
    // the last seconds' changes again, and must find none among the links its smaller cache holds.
    for (const slug of ['pre-2042', 'pre-2042', 'pre-2043']) expect((await visit(server, slug)).status).toBe(302);
    expect(server.redirects.cachedLinks).toBeGreaterThanOrEqual(2);
    const changed = await server.request('PATCH', `/api/v1/links/${id(2042)}`, {
      key: owner.key,
      body: { url: 'https://example.org/changed' },
    });
    expect(changed.status, changed.text).toBe(200);
    expect((await visit(server, 'pre-2042')).headers.location).toBe('https://example.org/changed');
    const deleted = await server.request('DELETE', `/api/v1/links/${id(2043)}`, { key: owner.key });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await visit(server, 'pre-2043')).status).toBe(404);
    await server.stop();
    server = undefined;
  });

  it('fills no more than REDIRECT_CACHE_LINKS, and serves the links beyond it from the database', async () => {
    server = await startTestServer(engine, {
      database,
      env: { REDIRECT_CACHE_PRELOAD: 'on', REDIRECT_CACHE_LINKS: '1000' },
    });
    const done = await preloaded(server);
    expect(done.links).toBe(1000);
    expect(server.redirects.residentLinks).toBe(1000);
    const misses = server.redirects.cacheMisses;
    expect((await visit(server, 'pre-10')).headers.location).toBe('https://example.com/10');
    expect(server.redirects.cacheMisses).toBe(misses);
    const beyond = await visit(server, 'pre-3000');
    expect(beyond.status).toBe(302);
    expect(beyond.headers.location).toBe('https://example.com/3000');
    expect(server.redirects.cacheMisses).toBe(misses + 1);
    await server.stop();
    server = undefined;
  });

  it('with REDIRECT_CACHE_PRELOAD=off the cache fills from visits only', async () => {
    server = await startTestServer(engine, { database, env: { REDIRECT_CACHE_PRELOAD: 'off' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.redirects.residentLinks).toBe(0);
    expect(server.redirects.preloaded.done).toBe(false);
    expect((await visit(server, 'pre-7')).headers.location).toBe('https://example.com/7');
    expect(server.redirects.cacheMisses).toBe(1);
    await server.stop();
    server = undefined;
  });

  it('refuses a cache size that is not a positive whole number', () => {
    for (const bad of ['0', '-5', '1.5', 'lots'])
      expect(() => loadConfig({ REDIRECT_CACHE_LINKS: bad })).toThrow(
        /REDIRECT_CACHE_LINKS must be a positive whole number/,
      );
    expect(loadConfig({ REDIRECT_CACHE_LINKS: '250_000' }).redirectCacheLinks).toBe(250_000);
    expect(loadConfig({}).redirectCacheLinks).toBe(1_000_000);
    expect(loadConfig({}).redirectCachePreload).toBe(true);
    expect(loadConfig({ REDIRECT_CACHE_PRELOAD: 'off' }).redirectCachePreload).toBe(false);
    expect(loadConfig({ REDIRECT_CACHE_PRELOAD: 'on' }).redirectCachePreload).toBe(true);
  });
});
