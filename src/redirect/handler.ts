// The short-link hot path: `GET /{slug}` on the short domain and on custom domains, answered
// from an in-process cache without Express, without waiting for analytics writes. It is plain
// node:http code on purpose: every layer here costs throughput on the path the service exists for.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import { clientAddress } from '../domain/client-address.ts';
import { decideVisit, hasPreview, PAGE_STATUS, type ResolvedLink, type Visit } from '../domain/resolve.ts';
import { verifyPassword } from '../domain/passwords.ts';
import { RESERVED_SLUGS } from '../domain/slugs.ts';
import { RedirectCache, type CacheKey, type LinkCacheInvalidator } from './cache.ts';
import type { ChangeListener } from './changes.ts';
import type { ClickRecorder } from '../clicks/buffer.ts';
import {
  formTooLargePage, methodNotAllowedPage, PASSWORD_PAGE_CSP, pageNotFound, passwordPage, previewPage, sendPage, statusPage, throttledPage,
  unavailablePage,
} from './pages.ts';
import { CSRF_COOKIE, parseCookies, refundAttempt, takeAttempt, type CsrfTokens } from './password.ts';
import { qrImage } from './qr.ts';
import { linkFromResident, type LivePage, type QrTarget, type RedirectStore } from '../db/redirect-store.ts';
import { ResidentTable } from '../platform/resident-table.ts';
import { parseContent } from '../domain/bio-pages.ts';
import { bioPageHeaders, renderBioPage } from './bio-page.ts';
import { isBot, isPrefetch, visitHeaders, type VisitHeaders } from './visitor.ts';

const SLUG = /^[a-z0-9_-]{1,64}$/;
const QR_CODE = /^[a-z0-9]{1,32}$/;
const MAX_FORM_BYTES = 4096;
export const REDIRECT_CACHE_CONTROL = 'private, no-store, no-cache, max-age=0, must-revalidate';
const HANDLE = /^[a-z0-9_-]{1,64}$/;
const NOT_FOUND: unique symbol = Symbol('not found');
type Cached = ResolvedLink | typeof NOT_FOUND;
type Fallback = (req: IncomingMessage, res: ServerResponse) => void;
/** Bounds the pages cache; past it the cache starts again (pages are few next to links). */
const MAX_CACHED_PAGES = 10_000;

/** A published page as the redirect path serves it: rendered once, when it is first asked for. */
interface CachedPage {
  id: string;
  workspaceId: string;
  handle: string;
  /** https://{host}/@{handle}: the referrer of its blocks' clicks. */
  address: string;
  html: Buffer;
  headers: Record<string, string | number>;
  /** Link block id → the link it leads to. */
  blocks: Map<string, string>;
}
type CachedPageEntry = CachedPage | typeof NOT_FOUND;

/** A visit that came through a bio page's link block (/@{handle}/{blockId}). */
interface PageVia {
  pageId: string;
  workspaceId: string;
  blockId: string;
  /** The address the block is followed at: where the password form posts back to. */
  action: string;
}

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as any)?.then === 'function';

export interface RedirectDeps {
  config: Config;
  store: RedirectStore;
  clicks: ClickRecorder;
  csrf: CsrfTokens;
  passwordThrottle: RateLimiterAbstract;
  log: Logger;
  /** REDIRECT_CACHE_LINKS: how many links the resident tier holds (the preload fills it up to this). */
  residentLinks?: number;
  /** The hot tier's size (links as objects, the visits' own reads). */
  maxCachedLinks?: number;
  /**
   * The paths of the API's contract that hold no template (/healthz, /metrics). The API answers
   * them for every method (405 for one they lack): a fixed path is never a short link's address,
   * whether or not its name is a reserved slug.
   */
  fixedPaths?: ReadonlySet<string>;
}

/** Links per page of the preload: a page's rows cost the event loop a few ms to take in. */
const PRELOAD_PAGE = 2_000;

export class RedirectService implements LinkCacheInvalidator, ChangeListener {
  private readonly links: RedirectCache<Cached>;
  private readonly hosts = new Map<string, string | null>();
  private readonly qrCodes = new Map<string, QrTarget | null>();
  // handle → domain key → the page as that domain shows it ('' the short domain).
  private readonly pages = new Map<string, Map<string, CachedPageEntry>>();
  /**
   * What this process answered on the redirect path, for /metrics: answers by status code, and
   * the link cache's hits and misses. Plain counters, read when scraped: a labelled metric's
   * update on every redirect would cost more than the rest of the redirect's bookkeeping.
   */
  readonly responses = new Float64Array(600);
  cacheHits = 0;
  cacheMisses = 0;
  private readonly shortHost: string;
  private readonly fixedPaths: ReadonlySet<string>;
  // Bumped by every invalidation. An answer read before an invalidation and arriving after it
  // (an asynchronous read: the lookup thread on SQLite, Postgres) still answers its own request,
  // which came first, but is not cached: the entry just dropped would otherwise come back stale
  // and serve the next clicks the old link.
  private generation = 0;

  /** The preload's figures, for the log and tests: links added, and when it ended. */
  readonly preloaded = { links: 0, ms: 0, done: false };
  private preloading: Promise<void> | undefined;
  private preloadWanted = false;
  /** While a page of the preload is read: the addresses visits read from the database meanwhile. */
  private readWhilePaging: Set<string> | undefined;
  private preloadAgain = false;
  private stopped = false;

  /**
   * The resident tier: every live link, filled at start (preload), off the V8 heap
   * (platform/resident-table.ts), each as residentRecord makes it. A visit reads it first: a
   * hash and a byte comparison, and a parse the first time (the parsed link is then kept with
   * the entry, up to maxCachedLinks of them), where a database read costs Postgres a statement
   * and this process a round trip. The hot tier (this.links) holds what the visits read from the
   * database: links created or changed since the preload, and unknown addresses.
   */
  private readonly resident: ResidentTable<ResolvedLink>;
  /** Of cacheHits, those parsed from the resident tier (not yet kept parsed). */
  residentHits = 0;

  constructor(private readonly deps: RedirectDeps) {
    this.links = new RedirectCache<Cached>(deps.maxCachedLinks ?? 100_000);
    this.resident = new ResidentTable(deps.residentLinks ?? 1_000_000, deps.maxCachedLinks ?? 100_000);
    this.shortHost = hostnameOf(deps.config.shortDomain);
    this.fixedPaths = deps.fixedPaths ?? new Set();
  }

  /** Links kept parsed: the hot tier's entries and the resident links' memos. */
  get cachedLinks(): number {
    return this.links.size + this.resident.memoized;
  }

  /** Links in the resident tier, and the bytes it holds outside the heap. */
  get residentLinks(): number {
    return this.resident.size;
  }
  get residentBytes(): number {
    return this.resident.bytes;
  }

  // LinkCacheInvalidator: the API calls this right after a change commits.
  // A page's address is a key whose slug is `@{handle}` (`@` cannot begin a slug).
  async invalidate(keys: CacheKey[]): Promise<void> {
    for (const k of keys) {
      if (k.slug.charCodeAt(0) === 64 /* @ */) this.pageChanged(k.slug.slice(1));
      else this.linkChanged(k.domainKey, k.slug);
    }
  }

  // ChangeListener: the change feed calls these for changes made by any process.
  linkChanged(domainKey: string, slug: string): void {
    this.generation++;
    const key = RedirectCache.keyOf({ domainKey, slug });
    this.links.delete(key);
    this.resident.delete(key);
    this.qrCodes.clear();
    this.deps.store.refresh();
  }

  domainChanged(): void {
    this.generation++;
    this.deps.store.refresh();
    this.hosts.clear();
    this.links.clear();
    this.resident.clear();
    this.qrCodes.clear();
    this.pages.clear();
    // The cache was preloaded: it is filled again (a domain's change is rare).
    if (this.preloadWanted) void this.preload();
  }

  /**
   * Fills the resident tier with the live links, a page at a time in id order, read and encoded
   * on the link lookup thread, up to REDIRECT_CACHE_LINKS, so that a visit to any link finds it
   * in memory: on Postgres a miss costs the database a statement and this process a round trip,
   * and with many links visited at random, most visits miss (issue 26, bench/README.md). The
   * event loop copies each page's bytes into the table (a page is transferred, not cloned). A
   * page read across an invalidation is read again: it may hold the link just changed, as it
   * was. A table smaller than the links holds the first ones by id; the rest are read on their
   * misses as before. Resolves when done; a failed read ends it (logged), and visits still read
   * the database.
   */
  preload(): Promise<void> {
    const scan = this.deps.store.scanLinks?.bind(this.deps.store);
    if (!scan || this.stopped) return Promise.resolve();
    this.preloadWanted = true;
    if (this.preloading) {
      this.preloadAgain = true;
      return this.preloading;
    }
    this.preloading = this.runPreload(scan).finally(() => {
      this.preloading = undefined;
      if (this.preloadAgain && !this.stopped) {
        this.preloadAgain = false;
        void this.preload();
      }
    });
    return this.preloading;
  }

  private async runPreload(scan: NonNullable<RedirectStore['scanLinks']>): Promise<void> {
    const started = performance.now();
    let after = '';
    let added = 0;
    this.preloaded.done = false;
    while (!this.stopped && this.resident.size < this.resident.maxEntries) {
      const generation = this.generation;
      let page: Awaited<ReturnType<typeof scan>>;
      const readMeanwhile = (this.readWhilePaging = new Set());
      try {
        page = await scan(after, PRELOAD_PAGE);
      } catch (err) {
        if (!this.stopped) this.deps.log.warn({ err, links: added }, 'preloading the redirect cache failed; links are read on their misses');
        return;
      } finally {
        this.readWhilePaging = undefined;
      }
      if (this.stopped) return;
      if (generation !== this.generation) continue;
      added += this.resident.addPage(page.page);
      // A visit's own read that ended while the page was read is as new as the page's row or newer
      // (a change in between would have sent the page back): it stays in the hot tier, and the
      // page's row, which visits would find first, goes.
      for (const key of readMeanwhile) this.resident.delete(key);
      if (page.rows < PRELOAD_PAGE || page.lastId === null) break;
      after = page.lastId;
      // Visitors waiting in this turn are served before the next page is taken in.
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.preloaded.links = added;
    this.preloaded.ms = Math.round(performance.now() - started);
    this.preloaded.done = true;
    this.deps.log.info({ links: added, ms: this.preloaded.ms, resident: this.resident.size, bytes: this.resident.bytes, capacity: this.resident.maxEntries }, 'redirect cache preloaded');
  }

  /** Ends a preload in progress (a shutdown, before the store closes). */
  stop(): void {
    this.stopped = true;
  }

  pageChanged(handle: string): void {
    this.generation++;
    this.pages.delete(handle);
    this.deps.store.refresh();
  }

  /**
   * Answers the request when it is a short link, a QR scan or a QR image; otherwise hands it to
   * `fallback` (the Express app).
   */
  handle(req: IncomingMessage, res: ServerResponse, fallback: Fallback): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const method = req.method;
    if (path.length < 2 || (method !== 'GET' && method !== 'HEAD' && method !== 'POST')) return fallback(req, res);
    // A fixed path of the contract (/healthz) is the API's for every method, never a slug.
    if (this.fixedPaths.has(path)) return fallback(req, res);
    if (path.charCodeAt(1) === 64 /* @ */) return this.handlePage(req, res, fallback, path);
    const slash = path.indexOf('/', 1);
    let slug: string;
    let qrCode: string | null = null;
    let qrFormat: 'svg' | 'png' | null = null;
    if (slash === -1) {
      slug = path.slice(1);
      if (slug.charCodeAt(0) === 37 /* % */ || slug.includes('%')) slug = safeDecode(slug);
      slug = slug.toLowerCase();
      if (RESERVED_SLUGS.has(slug)) return fallback(req, res);
    } else if (path.startsWith('/qr/') && path.indexOf('/', 4) === -1 && method !== 'POST') {
      qrCode = path.slice(4).toLowerCase();
      if (qrCode.endsWith('.svg') || qrCode.endsWith('.png')) {
        qrFormat = qrCode.endsWith('.svg') ? 'svg' : 'png';
        qrCode = qrCode.slice(0, -4);
      }
      slug = '';
    } else {
      return fallback(req, res);
    }

    const h = visitHeaders(req.headers);
    const domainKey = this.domainOf(hostnameOf(h.host));
    if (isPromise(domainKey)) {
      domainKey.then(
        (id) => this.route(req, res, fallback, h, id, slug, qrCode, qrFormat),
        (err) => this.fail(res, err),
      );
      return;
    }
    this.route(req, res, fallback, h, domainKey, slug, qrCode, qrFormat);
  }

  /** The domain key of a host: '' for the short domain, a custom domain's id, null for neither. */
  private domainOf(host: string): string | null | Promise<string | null> {
    if (host === this.shortHost) return '';
    const known = this.hosts.get(host);
    if (known !== undefined) return known;
    const found = this.deps.store.findDomainByHost(host);
    if (!isPromise(found)) {
      this.rememberHost(host, found);
      return found;
    }
    const generation = this.generation;
    return found.then((id) => {
      if (generation === this.generation) this.rememberHost(host, id);
      return id;
    });
  }

  private rememberHost(host: string, id: string | null) {
    if (this.hosts.size > 10_000) this.hosts.clear();
    this.hosts.set(host, id);
  }

  /**
   * A bio page: `/@{handle}` (GET, HEAD) shows it and counts a person's view; `/@{handle}/{block}`
   * follows one of its link blocks as a visit of the block's short link (its rules, its click
   * limit, its password form posting back here), counted as that link's click with the page as
   * its referrer, and as the block's click.
   */
  private handlePage(req: IncomingMessage, res: ServerResponse, fallback: Fallback, path: string): void {
    const rest = path.slice(2);
    const slash = rest.indexOf('/');
    const handle = safeDecode(slash === -1 ? rest : rest.slice(0, slash)).toLowerCase();
    const blockId = slash === -1 || slash === rest.length - 1 ? null : rest.slice(slash + 1);
    if (blockId === null && req.method === 'POST') return this.sendPage(res, 405, methodNotAllowedPage('page'), { Allow: 'GET, HEAD' });
    const h = visitHeaders(req.headers);
    const host = hostnameOf(h.host);
    const domainKey = this.domainOf(host);
    if (isPromise(domainKey)) {
      domainKey.then(
        (id) => this.routePage(req, res, fallback, h, host, id, handle, blockId),
        (err) => this.fail(res, err),
      );
      return;
    }
    this.routePage(req, res, fallback, h, host, domainKey, handle, blockId);
  }

  private routePage(
    req: IncomingMessage,
    res: ServerResponse,
    fallback: Fallback,
    h: VisitHeaders,
    host: string,
    domainKey: string | null,
    handle: string,
    blockId: string | null,
  ): void {
    if (domainKey === null) return fallback(req, res);
    if (!HANDLE.test(handle)) return this.answerPage(req, res, h, NOT_FOUND, blockId);
    const cached = this.pages.get(handle)?.get(domainKey);
    if (cached !== undefined) return this.answerPage(req, res, h, cached, blockId);
    const generation = this.generation;
    const settle = (live: LivePage | null) => {
      // The short domain's canonical host keeps its port, as its short URLs do.
      const entry = live ? cachedPage(live, domainKey === '' ? this.deps.config.shortDomain : host) : NOT_FOUND;
      if (generation === this.generation) {
        if (this.pages.size >= MAX_CACHED_PAGES && !this.pages.has(handle)) this.pages.clear();
        let byDomain = this.pages.get(handle);
        if (!byDomain) this.pages.set(handle, (byDomain = new Map()));
        byDomain.set(domainKey, entry);
      }
      this.answerPage(req, res, h, entry, blockId);
    };
    try {
      const loaded = this.deps.store.findPage(handle, domainKey);
      if (isPromise(loaded)) loaded.then(settle, (err) => this.fail(res, err));
      else settle(loaded);
    } catch (err) {
      this.fail(res, err);
    }
  }

  private answerPage(req: IncomingMessage, res: ServerResponse, h: VisitHeaders, page: CachedPageEntry, blockId: string | null): void {
    if (page === NOT_FOUND) return this.sendPage(res, 404, pageNotFound());
    const get = req.method === 'GET';
    if (blockId === null) {
      this.responses[200]++;
      res.writeHead(200, page.headers);
      res.end(get ? page.html : undefined);
      // Views by people only, as clicks are: no bots, no HEAD, no prefetch.
      if (get && !isBot(h.userAgent) && !isPrefetch(h.purpose)) {
        this.deps.clicks.recordPageVisit({
          pageId: page.id, blockId: null, workspaceId: page.workspaceId, at: Date.now(), referer: h.referer,
          country: this.deps.config.trustProxy > 0 ? h.country : undefined, userAgent: h.userAgent,
        });
      }
      return;
    }
    const linkId = page.blocks.get(blockId);
    if (linkId === undefined) return this.sendPage(res, 404, statusPage('not_found'));
    const via: PageVia = { pageId: page.id, workspaceId: page.workspaceId, blockId, action: `/@${page.handle}/${blockId}` };
    // The page is the click's referrer, whatever the browser sent.
    const visit: VisitHeaders = { ...h, referer: page.address };
    try {
      const loaded = this.deps.store.findLinkById(linkId);
      if (isPromise(loaded)) loaded.then((link) => this.answer(req, res, visit, link ?? NOT_FOUND, null, via), (err) => this.fail(res, err));
      else this.answer(req, res, visit, loaded ?? NOT_FOUND, null, via);
    } catch (err) {
      this.fail(res, err);
    }
  }

  private route(
    req: IncomingMessage,
    res: ServerResponse,
    fallback: Fallback,
    h: VisitHeaders,
    domainKey: string | null,
    slug: string,
    qrCode: string | null,
    qrFormat: 'svg' | 'png' | null,
  ): void {
    // A host that is neither the short domain nor an active custom domain is not ours to resolve.
    if (domainKey === null) return fallback(req, res);
    if (qrCode !== null) return void this.routeQr(req, res, h, qrCode, qrFormat);
    if (!SLUG.test(slug)) return this.answer(req, res, h, NOT_FOUND, null);
    const key = RedirectCache.keyOf({ domainKey, slug });
    // A resident link first: one lookup finds its entry and the link parsed from it by an earlier
    // visit (its memo). Searching the hot tier first cost each of a million links visited at
    // random a second lookup, in a Map too large for the CPU's caches, that nearly always missed.
    const slot = this.resident.size === 0 ? -1 : this.resident.find(key);
    if (slot >= 0) {
      this.cacheHits++;
      let link = this.resident.memoAt(slot);
      if (link === undefined) {
        this.residentHits++;
        link = linkFromResident(this.resident.valueAt(slot, key.length), domainKey, slug);
        this.resident.memoize(slot, link);
      }
      return this.answer(req, res, h, link, null);
    }
    const cached = this.links.get(key);
    if (cached !== undefined) {
      this.cacheHits++;
      return this.answer(req, res, h, cached, null);
    }
    this.cacheMisses++;
    const loaded = this.deps.store.findLink(domainKey, slug);
    if (isPromise(loaded)) {
      const generation = this.generation;
      loaded.then(
        (link) => {
          if (generation === this.generation) this.cacheRead(key, link ?? NOT_FOUND);
          this.answer(req, res, h, link ?? NOT_FOUND, null);
        },
        (err) => this.fail(res, err),
      );
      return;
    }
    this.cacheRead(key, loaded ?? NOT_FOUND);
    this.answer(req, res, h, loaded ?? NOT_FOUND, null);
  }

  /** Keeps what a visit read from the database in the hot tier (see runPreload for readWhilePaging). */
  private cacheRead(key: string, value: Cached): void {
    this.links.set(key, value);
    this.readWhilePaging?.add(key);
  }

  private async routeQr(req: IncomingMessage, res: ServerResponse, h: VisitHeaders, code: string, format: 'svg' | 'png' | null): Promise<void> {
    try {
      let target = QR_CODE.test(code) ? this.qrCodes.get(code) : null;
      if (target === undefined) {
        const generation = this.generation;
        target = await this.deps.store.findQr(code);
        if (generation === this.generation) this.qrCodes.set(code, target);
      }
      if (!target) return this.answer(req, res, h, NOT_FOUND, null);
      if (format) {
        const image = await qrImage(`https://${this.deps.config.shortDomain}/qr/${code}`, format);
        this.responses[200]++;
        res.writeHead(200, {
          'Content-Type': format === 'svg' ? 'image/svg+xml' : 'image/png',
          'Content-Length': Buffer.byteLength(image),
          'Cache-Control': 'public, max-age=86400',
          'X-Content-Type-Options': 'nosniff',
        });
        res.end(req.method === 'HEAD' ? undefined : image);
        return;
      }
      const link = await this.deps.store.findLinkById(target.linkId);
      this.answer(req, res, h, link ?? NOT_FOUND, target.id);
    } catch (err) {
      this.fail(res, err);
    }
  }

  private answer(req: IncomingMessage, res: ServerResponse, h: VisitHeaders, cached: Cached, qrCodeId: string | null, via?: PageVia): void {
    const link = cached === NOT_FOUND ? null : cached;
    if (req.method === 'POST') {
      void this.submitPassword(req, res, h, link, qrCodeId, via).catch((err) => this.fail(res, err));
      return;
    }
    const now = Date.now();
    const visit = decideVisit(link, now);
    if (visit.kind === 'page') return this.page(req, res, visit.page, link, undefined, via);
    const get = req.method === 'GET';
    const bot = isBot(h.userAgent);
    const person = get && !bot && !isPrefetch(h.purpose);
    if (bot && get && link && visit.countsAsClick && hasPreview(link)) {
      return this.sendPage(res, 200, previewPage({
        url: link.url,
        shortUrl: `https://${h.host}/${link.slug}`,
        title: link.previewTitle,
        description: link.previewDescription,
        image: link.previewImage,
      }));
    }
    if (!person || !visit.countsAsClick) return this.redirect(res, visit);
    this.countAndRedirect(req, res, h, link!, visit, qrCodeId, now, via);
  }

  /** A person's click: take a clickLimit slot when the link has a limit, record it, redirect. */
  private countAndRedirect(
    req: IncomingMessage,
    res: ServerResponse,
    h: VisitHeaders,
    link: ResolvedLink,
    visit: Extract<Visit, { kind: 'redirect' }>,
    qrCodeId: string | null,
    now: number,
    via?: PageVia,
  ) {
    if (link.clickLimit === null) {
      this.record(h, link, qrCodeId, now, via);
      return this.redirect(res, visit);
    }
    const settle = (ok: boolean) => {
      if (!ok) {
        link.served = link.clickLimit!;
        return this.page(req, res, 'limit_reached', link);
      }
      link.served++;
      // The slot was taken now, which may be a database round trip after the request arrived.
      this.record(h, link, qrCodeId, Date.now(), via);
      this.redirect(res, visit);
    };
    const reserved = this.deps.store.reserveClick(link.id);
    if (isPromise(reserved)) reserved.then(settle, (err) => this.fail(res, err));
    else settle(reserved);
  }

  private record(h: VisitHeaders, link: ResolvedLink, qrCodeId: string | null, at: number, via?: PageVia) {
    // Country only from a proxy we trust; the IP address itself is never kept.
    const country = this.deps.config.trustProxy > 0 ? h.country : undefined;
    this.deps.clicks.record({ linkId: link.id, workspaceId: link.workspaceId, qrCodeId, at, referer: h.referer, country, userAgent: h.userAgent });
    if (via) this.deps.clicks.recordPageVisit({ pageId: via.pageId, blockId: via.blockId, workspaceId: via.workspaceId, at, referer: h.referer, country, userAgent: h.userAgent });
  }

  private page(req: IncomingMessage, res: ServerResponse, page: Exclude<Visit, { kind: 'redirect' }>['page'], link: ResolvedLink | null, error?: string, via?: PageVia) {
    if (page !== 'password') return this.sendPage(res, PAGE_STATUS[page], statusPage(page));
    const csrf = this.deps.csrf.issue(link!.id);
    const secure = isSecure(req, this.deps.config.trustProxy);
    // Through a bio page's block the form posts back to the block's address, on the page's host.
    const action = via?.action ?? `/${link!.slug}`;
    this.sendPage(res, error ? 401 : PAGE_STATUS.password, passwordPage({ action, csrf, error }), {
      'Set-Cookie': `${CSRF_COOKIE}=${csrf}; Path=${action}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}; Max-Age=3600`,
      // A 401 names its scheme; browsers show no dialog for this one.
      'WWW-Authenticate': 'Form realm="Shortlink link password"',
      // The form posts to this page, whose answer redirects to the destination: CSP checks
      // form-action on every hop, so the password page must allow the onward redirect.
      'Content-Security-Policy': PASSWORD_PAGE_CSP,
    });
  }

  private async submitPassword(req: IncomingMessage, res: ServerResponse, h: VisitHeaders, link: ResolvedLink | null, qrCodeId: string | null, via?: PageVia) {
    const visit = decideVisit(link, Date.now());
    if (visit.kind === 'redirect' || visit.page !== 'password') {
      // Nothing to unlock: answer as a GET would, without following the POST anywhere.
      if (visit.kind === 'page') return this.page(req, res, visit.page, link);
      return this.sendPage(res, 405, methodNotAllowedPage('link'), { Allow: 'GET, HEAD' });
    }
    const form = await readForm(req);
    if (!form) return this.sendPage(res, 413, formTooLargePage(MAX_FORM_BYTES), { Connection: 'close' });
    const cookies = parseCookies(req.headers.cookie);
    if (!this.deps.csrf.verify(link!.id, form.get('csrf') ?? undefined, cookies[CSRF_COOKIE])) {
      return this.page(req, res, 'password', link, 'Your session expired. Please enter the password again.', via);
    }
    // The address the trusted proxy saw, never one the client wrote (domain/client-address).
    const throttleKey = `${link!.id}:${clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.deps.config.trustProxy)}`;
    const wait = await takeAttempt(this.deps.passwordThrottle, throttleKey);
    if (wait > 0) return this.sendPage(res, 429, throttledPage(wait), { 'Retry-After': wait });
    const password = form.get('password') ?? '';
    if (!password || password.length > 256 || !(await verifyPassword(password, link!.passwordHash!))) {
      return this.page(req, res, 'password', link, 'That password is not correct.', via);
    }
    await refundAttempt(this.deps.passwordThrottle, throttleKey);
    const now = Date.now();
    const unlocked = decideVisit(link, now, true);
    if (unlocked.kind === 'page') return this.page(req, res, unlocked.page, link);
    if (isBot(h.userAgent) || !unlocked.countsAsClick) return this.redirect(res, unlocked);
    this.countAndRedirect(req, res, h, link!, unlocked, qrCodeId, now, via);
  }

  private redirect(res: ServerResponse, visit: Extract<Visit, { kind: 'redirect' }>): void {
    this.responses[visit.status]++;
    redirect(res, visit);
  }

  private sendPage(res: ServerResponse, status: number, html: string, extra?: Record<string, string | number>): void {
    this.responses[status]++;
    sendPage(res, status, html, extra);
  }

  private fail(res: ServerResponse, err: unknown) {
    this.deps.log.error({ err }, 'short link could not be resolved');
    if (res.headersSent) return res.destroy();
    this.sendPage(res, 503, unavailablePage(), { 'Retry-After': 5 });
  }
}

/** A published page, rendered for the host that shows it. */
function cachedPage(live: LivePage, host: string): CachedPage {
  const content = parseContent(live.published);
  const html = Buffer.from(renderBioPage(content, { host, handle: live.handle }));
  const blocks = new Map<string, string>();
  for (const b of content.blocks) if (b.type === 'link') blocks.set(b.id, b.linkId);
  return {
    id: live.id,
    workspaceId: live.workspaceId,
    handle: live.handle,
    address: `https://${host}/@${live.handle}`,
    html,
    headers: { ...bioPageHeaders(content.theme), 'Content-Length': html.length },
    blocks,
  };
}

function redirect(res: ServerResponse, visit: Extract<Visit, { kind: 'redirect' }>): void {
  res.writeHead(visit.status, {
    Location: visit.location,
    'Cache-Control': REDIRECT_CACHE_CONTROL,
    'Content-Length': 0,
  });
  res.end();
}

function hostnameOf(host: string): string {
  const h = host.toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isSecure(req: IncomingMessage, trustedHops: number): boolean {
  if ((req.socket as any).encrypted) return true;
  return trustedHops > 0 && header(req, 'x-forwarded-proto')?.split(',')[0].trim() === 'https';
}

function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_FORM_BYTES) {
        // Answer 413 and let the rest of the body drain (destroying the request would reset
        // the connection before the page is written).
        resolve(null);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}
