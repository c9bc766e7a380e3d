// RedirectService (src/redirect/handler.ts) over a stand-in store, without I/O: the preload, and
// cache misses crossed by a change (below).
//
// The redirect cache's preload (RedirectService.preload) reads pages of live links while visitors
// are served and links change. What a visitor depends on: a page read across a change is read
// again, never cached as it was (the next click would get the old link); the preload never
// replaces what a visit read meanwhile, never evicts, and stops at the cache's size.
import { describe, expect, it, vi } from 'vitest';
import type { ResolvedLink } from '../../src/domain/resolve';
import { encodeLinkPage } from '../../src/db/redirect-rows';
import { standInRedirectService, testLink } from '../support/redirect-service';

const link = (id: string, slug: string, url: string): ResolvedLink => testLink(url, id, slug);

/** The row the database gives for a link (LINK_COLUMNS order). */
const rowOf = (l: ResolvedLink): unknown[] => [
  l.id,
  l.workspaceId,
  l.domainKey,
  l.slug,
  l.url,
  l.redirectType,
  l.status,
  l.startAt,
  l.endAt,
  l.expiresAt,
  l.expiredUrl,
  l.clickLimit,
  l.served,
  l.passwordHash,
  l.previewTitle,
  l.previewDescription,
  l.previewImage,
];

/** A service over a store whose pages answer when the test says so. */
function service(residentLinks?: number) {
  const pages: Array<{ after: string; limit: number; resolve(links: ResolvedLink[]): void }> = [];
  const { redirects, store, misses, visit } = standInRedirectService(
    {
      scanLinks: vi.fn(
        (after: string, limit: number) =>
          new Promise<ReturnType<typeof encodeLinkPage>>((resolve) =>
            pages.push({ after, limit, resolve: (links) => resolve(encodeLinkPage(links.map(rowOf))) }),
          ),
      ),
    },
    residentLinks,
  );
  const nextPage = async () => {
    await vi.waitFor(() => expect(pages.length).toBeGreaterThan(0));
    return pages.shift()!;
  };
  return { redirects, store, pages, misses, visit, nextPage };
}

describe('the redirect cache preload', () => {
  it('reads pages in id order until a short page, and visits to what it read need no database', async () => {
    const { redirects, store, visit, nextPage } = service();
    const done = redirects.preload();
    const first = await nextPage();
    expect(first.after).toBe('');
    const full = Array.from({ length: first.limit }, (_, i) =>
      link(`lnk_${String(i).padStart(5, '0')}`, `s${i}`, `https://example.com/${i}`),
    );
    first.resolve(full);
    const second = await nextPage();
    expect(second.after).toBe(full[full.length - 1].id);
    second.resolve([link('lnk_zzzzz', 'last', 'https://example.com/last')]);
    await done;
    expect(redirects.preloaded).toMatchObject({ links: first.limit + 1, done: true });
    expect(redirects.residentLinks).toBe(first.limit + 1);
    expect(await visit('/s7')).toBe('https://example.com/7');
    expect(await visit('/last')).toBe('https://example.com/last');
    expect(await visit('/s1999')).toBe('https://example.com/1999');
    expect(store.findLink).not.toHaveBeenCalled();
    expect(redirects.cacheMisses).toBe(0);
    expect(redirects.residentHits).toBe(3);
    // An address the table does not hold is read from the database.
    const unknown = visit('/nope');
    await vi.waitFor(() => expect(store.findLink).toHaveBeenCalledTimes(1));
    void unknown;
  });

  it('reads a page again when a link changed while it was read, and caches only the second answer', async () => {
    const { redirects, store, visit, nextPage } = service();
    const done = redirects.preload();
    const stale = await nextPage();
    // The change commits and is announced while the page is on its way.
    redirects.linkChanged('', 'abc');
    stale.resolve([link('lnk_1', 'abc', 'https://example.com/old')]);
    const again = await nextPage();
    expect(again.after).toBe('');
    again.resolve([link('lnk_1', 'abc', 'https://example.com/new')]);
    await done;
    expect(store.scanLinks).toHaveBeenCalledTimes(2);
    expect(await visit('/abc')).toBe('https://example.com/new');
  });

  it("a visit's own read comes first, and the table stops at its size", async () => {
    const { redirects, misses, visit, nextPage } = service(2);
    const done = redirects.preload();
    const page = await nextPage();
    // A visit misses and reads the link as it is now, before the page arrives.
    const visited = visit('/b');
    await vi.waitFor(() => expect(misses.length).toBe(1));
    misses[0](link('lnk_b', 'b', 'https://example.com/b-now'));
    expect(await visited).toBe('https://example.com/b-now');
    page.resolve([
      link('lnk_a', 'a', 'https://example.com/a'),
      link('lnk_b', 'b', 'https://example.com/b-page'),
      link('lnk_c', 'c', 'https://example.com/c'),
    ]);
    await done;
    // The table took two (a, b) and stopped; b then gave way to the visit's own read, which the
    // resident tier (searched first) would otherwise shadow.
    expect(redirects.preloaded.links).toBe(2);
    expect(redirects.residentLinks).toBe(1);
    expect(await visit('/b')).toBe('https://example.com/b-now');
    expect(await visit('/b')).toBe('https://example.com/b-now');
    expect(await visit('/a')).toBe('https://example.com/a');
    const beyond = visit('/c');
    await vi.waitFor(() => expect(misses.length).toBe(2));
    misses[1](link('lnk_c', 'c', 'https://example.com/c'));
    expect(await beyond).toBe('https://example.com/c');
  });

  it('fills the cache again after a domain change empties it, and a failed read ends it with misses still served', async () => {
    const { redirects, visit, nextPage } = service();
    const first = redirects.preload();
    (await nextPage()).resolve([link('lnk_a', 'a', 'https://example.com/a')]);
    await first;
    redirects.domainChanged();
    expect(redirects.residentLinks).toBe(0);
    const refill = await nextPage();
    expect(refill.after).toBe('');
    refill.resolve([link('lnk_a', 'a', 'https://example.com/a2')]);
    await vi.waitFor(() => expect(redirects.residentLinks).toBe(1));
    expect(await visit('/a')).toBe('https://example.com/a2');

    const { redirects: failing, store } = service();
    store.scanLinks.mockImplementationOnce(() => Promise.reject(new Error('connection refused')));
    await failing.preload();
    expect(failing.preloaded.done).toBe(false);
    expect(failing.residentLinks).toBe(0);
  });

  it('a stopped service (shutting down) asks for no further page', async () => {
    const { redirects, store, nextPage } = service();
    const done = redirects.preload();
    const page = await nextPage();
    redirects.stop();
    page.resolve(Array.from({ length: page.limit }, (_, i) => link(`lnk_${i}`, `s${i}`, `https://example.com/${i}`)));
    await done;
    expect(store.scanLinks).toHaveBeenCalledTimes(1);
    expect(redirects.residentLinks).toBe(0);
  });
});

// A cache miss read asynchronously (the lookup thread on SQLite, a query on Postgres) can be in
// flight when the link changes. Its answer still serves its own request, which came first, but
// must not be cached: the next click would then get the old link until some later change.
describe('an asynchronous cache miss and a change that crosses it', () => {
  it('serves the request that came first the old link, and the next click the new one', async () => {
    const { redirects, store, misses: answers, visit } = standInRedirectService();
    const first = visit('/abc');
    expect(store.findLink).toHaveBeenCalledTimes(1);
    // The change commits and is invalidated while the read is in flight.
    redirects.linkChanged('', 'abc');
    answers[0](testLink('https://example.com/old'));
    expect(await first).toBe('https://example.com/old');
    const second = visit('/abc');
    expect(store.findLink).toHaveBeenCalledTimes(2);
    answers[1](testLink('https://example.com/new'));
    expect(await second).toBe('https://example.com/new');
    // With no change in between, an answer is cached as before.
    expect(await visit('/abc')).toBe('https://example.com/new');
    expect(store.findLink).toHaveBeenCalledTimes(2);
  });

  it('does the same for a change of domains (which drops every entry)', async () => {
    const { redirects, store, misses: answers, visit } = standInRedirectService();
    const first = visit('/abc');
    redirects.domainChanged();
    answers[0](null);
    expect(await first).toBeUndefined(); // the not-found page has no Location
    const second = visit('/abc');
    expect(store.findLink).toHaveBeenCalledTimes(2);
    answers[1](testLink('https://example.com/now-there'));
    expect(await second).toBe('https://example.com/now-there');
  });
});
