// A cache miss read asynchronously (the lookup thread on SQLite, a query on Postgres) can be in
// flight when the link changes. Its answer still serves its own request, which came first, but
// must not be cached: the next click would then get the old link until some later change.
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { ResolvedLink } from '../../src/domain/resolve';
import { RedirectService } from '../../src/redirect/handler';
import type { RedirectStore } from '../../src/db/redirect-store';

const CRAWLER = 'facebookexternalhit/1.1';

function link(url: string): ResolvedLink {
  return {
    id: 'lnk_1', workspaceId: 'ws_1', domainKey: '', slug: 'abc', url, location: url, expiredLocation: null,
    redirectType: 'TEMPORARY', status: 'ACTIVE', startAt: null, endAt: null, expiresAt: null, expiredUrl: null,
    clickLimit: null, served: 0, passwordHash: null, previewTitle: null, previewDescription: null, previewImage: null,
  };
}

function service() {
  const answers: Array<(l: ResolvedLink | null) => void> = [];
  const store = {
    findLink: vi.fn(() => new Promise<ResolvedLink | null>((resolve) => answers.push(resolve))),
    findLinkById: async () => null,
    findDomainByHost: () => null,
    findQr: async () => null,
    findPage: async () => null,
    reserveClick: () => true,
    refresh() {},
    async close() {},
  } satisfies RedirectStore;
  const redirects = new RedirectService({
    config: { shortDomain: 'sho.rt', trustProxy: 0 } as never,
    store,
    clicks: { record() {} } as never,
    csrf: {} as never,
    passwordThrottle: {} as never,
    log: pino({ level: 'silent' }),
  });
  const visit = (path: string) =>
    new Promise<unknown>((resolve) => {
      let location: unknown;
      const req = { url: path, method: 'GET', headers: { host: 'sho.rt', 'user-agent': CRAWLER }, socket: {} };
      const res = { req, writeHead: (_s: number, h: Record<string, unknown>) => void (location = h.Location), end: () => resolve(location), headersSent: false };
      redirects.handle(req as never, res as never, () => resolve('fallback'));
    });
  return { redirects, store, answers, visit };
}

describe('an asynchronous cache miss and a change that crosses it', () => {
  it('serves the request that came first the old link, and the next click the new one', async () => {
    const { redirects, store, answers, visit } = service();
    const first = visit('/abc');
    expect(store.findLink).toHaveBeenCalledTimes(1);
    // The change commits and is invalidated while the read is in flight.
    redirects.linkChanged('', 'abc');
    answers[0](link('https://example.com/old'));
    expect(await first).toBe('https://example.com/old');
    const second = visit('/abc');
    expect(store.findLink).toHaveBeenCalledTimes(2);
    answers[1](link('https://example.com/new'));
    expect(await second).toBe('https://example.com/new');
    // With no change in between, an answer is cached as before.
    expect(await visit('/abc')).toBe('https://example.com/new');
    expect(store.findLink).toHaveBeenCalledTimes(2);
  });

  it('does the same for a change of domains (which drops every entry)', async () => {
    const { redirects, store, answers, visit } = service();
    const first = visit('/abc');
    redirects.domainChanged();
    answers[0](null);
    expect(await first).toBeUndefined(); // the not-found page has no Location
    const second = visit('/abc');
    expect(store.findLink).toHaveBeenCalledTimes(2);
    answers[1](link('https://example.com/now-there'));
    expect(await second).toBe('https://example.com/now-there');
  });
});
