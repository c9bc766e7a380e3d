// A RedirectService over a stand-in store whose misses answer when the test says so, and a visit
// that returns the Location it was sent (or 'fallback'): for the unit tests of the redirect
// cache's races (an asynchronous miss, the preload) without a server or a database.
import pino from 'pino';
import { vi } from 'vitest';
import type { ResolvedLink } from '../../src/domain/resolve';
import { RedirectService, type RedirectDeps } from '../../src/redirect/handler';
import type { RedirectStore } from '../../src/db/redirect-store';

const CRAWLER = 'facebookexternalhit/1.1';

/** An active link on the short domain (sho.rt), redirecting to `url`. */
export function testLink(url: string, id = 'lnk_1', slug = 'abc'): ResolvedLink {
  return {
    id,
    workspaceId: 'ws_1',
    domainKey: '',
    slug,
    url,
    location: url,
    expiredLocation: null,
    redirectType: 'TEMPORARY',
    status: 'ACTIVE',
    startAt: null,
    endAt: null,
    expiresAt: null,
    expiredUrl: null,
    clickLimit: null,
    served: 0,
    passwordHash: null,
    previewTitle: null,
    previewDescription: null,
    previewImage: null,
    routing: null,
  };
}

export function standInRedirectService<S extends Partial<RedirectStore>>(
  extra: S = {} as S,
  residentLinks?: number,
  deps: Partial<RedirectDeps> = {},
) {
  /** The misses asked for, in order: call one to answer it. */
  const misses: Array<(l: ResolvedLink | null) => void> = [];
  const store = {
    findLink: vi.fn(() => new Promise<ResolvedLink | null>((resolve) => misses.push(resolve))),
    findLinkById: async () => null,
    findDomainByHost: () => null,
    findQr: async () => null,
    findPage: async () => null,
    reserveClick: () => true,
    refresh() {},
    async close() {},
    ...extra,
  };
  const redirects = new RedirectService({
    config: { shortDomain: 'sho.rt', trustProxy: 0 } as never,
    store: store as RedirectStore,
    clicks: { record() {} } as never,
    csrf: {} as never,
    passwordThrottle: {} as never,
    log: pino({ level: 'silent' }),
    residentLinks,
    ...deps,
  });
  const visit = (path: string, method = 'GET') =>
    new Promise<unknown>((resolve) => {
      let location: unknown;
      const req = { url: path, method, headers: { host: 'sho.rt', 'user-agent': CRAWLER }, socket: {} };
      const res = {
        req,
        writeHead: (_s: number, h: Record<string, unknown>) => void (location = h.Location),
        end: () => resolve(location),
        headersSent: false,
      };
      redirects.handle(req as never, res as never, () => resolve('fallback'));
    });
  return { redirects, store, misses, visit };
}
