// What the redirect path keeps in memory, and how it stays true: the resident tier (every live
// link, filled at start by the preload), the hot tier (what visits read from the database), the
// hosts of custom domains, QR codes and bio pages; each dropped when a change names it. The
// dispatcher (handler.ts) extends LookupTiers, so a visit reads these fields on one object.
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { ResolvedLink } from '../domain/resolve.ts';
import type { ClickIds } from '../domain/forwarding.ts';
import type { PlaceLookup } from '../domain/routing.ts';
import { RedirectCache, type CacheKey, type LinkCacheInvalidator } from './cache.ts';
import type { ChangeListener } from './changes.ts';
import type { ClickRecorder } from '../clicks/buffer.ts';
import type { CsrfTokens } from './password.ts';
import type { QrTarget, RedirectStore } from '../db/redirect-store.ts';
import { ResidentTable } from '../platform/resident-table.ts';
import { hostnameOf } from './visitor.ts';

export const NOT_FOUND: unique symbol = Symbol('not found');
export type Cached = ResolvedLink | typeof NOT_FOUND;

/** A published page as the redirect path serves it: rendered once, when it is first asked for. */
export interface CachedPage {
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
export type CachedPageEntry = CachedPage | typeof NOT_FOUND;

export const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as any)?.then === 'function';

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
  /** IP-location data for `country`, `city` rules; without it only a trusted proxy's country. */
  geo?: PlaceLookup;
  /** Makes the click ids of links with a clickIdParam (domain/forwarding.ts). */
  clickIds?: ClickIds;
  /** Settles an ended split's winner once for every process (db/repos/link-routing.ts). */
  settleSplit?: (link: ResolvedLink) => Promise<string | null>;
  /** The slugs of a domain's indexable links, for its /robots.txt (robots-route.ts). */
  indexableSlugs?: (domainKey: string, limit: number) => Promise<string[]>;
}

/** Links per page of the preload: a page is taken in by the event loop in one turn, so it stays small. */
const PRELOAD_PAGE = 2_000;

export class LookupTiers implements LinkCacheInvalidator, ChangeListener {
  /** The hot tier. */
  protected readonly links: RedirectCache<Cached>;
  private readonly hosts = new Map<string, string | null>();
  readonly qrCodes = new Map<string, QrTarget | null>();
  // handle → domain key → the page as that domain shows it ('' the short domain).
  readonly pages = new Map<string, Map<string, CachedPageEntry>>();
  cacheHits = 0;
  cacheMisses = 0;
  protected readonly shortHost: string;
  // Bumped by every invalidation. An answer read before an invalidation and arriving after it
  // (an asynchronous read: the lookup thread on SQLite, Postgres) still answers its own request,
  // which came first, but is not cached: the entry just dropped would otherwise come back stale
  // and serve the next clicks the old link. Written only here.
  generation = 0;

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
  protected readonly resident: ResidentTable<ResolvedLink>;
  /** Of cacheHits, those parsed from the resident tier (not yet kept parsed). */
  residentHits = 0;

  constructor(readonly deps: RedirectDeps) {
    this.links = new RedirectCache<Cached>(deps.maxCachedLinks ?? 100_000);
    this.resident = new ResidentTable(deps.residentLinks ?? 1_000_000, deps.maxCachedLinks ?? 100_000);
    this.shortHost = hostnameOf(deps.config.shortDomain);
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

  pageChanged(handle: string): void {
    this.generation++;
    this.pages.delete(handle);
    this.deps.store.refresh();
  }

  /**
   * Fills the resident tier with the live links, a page at a time in id order, read and encoded
   * on the link lookup thread, up to REDIRECT_CACHE_LINKS, so that a visit to any link finds it
   * in memory: on Postgres a miss costs the database a statement and this process a round trip,
   * and with many links visited at random, most visits miss (bench/README.md). The event loop
   * copies each page's bytes into the table (a page is transferred, not cloned). A page read
   * across an invalidation is read again: it may hold the link just changed, as it was. A table
   * smaller than the links holds the first ones by id; the rest are read on their misses as
   * before. Resolves when done; a failed read ends it (logged), and visits still read the
   * database.
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
        if (!this.stopped)
          this.deps.log.warn(
            { err, links: added },
            'preloading the redirect cache failed; links are read on their misses',
          );
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
    this.deps.log.info(
      {
        links: added,
        ms: this.preloaded.ms,
        resident: this.resident.size,
        bytes: this.resident.bytes,
        capacity: this.resident.maxEntries,
      },
      'redirect cache preloaded',
    );
  }

  /** Ends a preload in progress (a shutdown, before the store closes). */
  stop(): void {
    this.stopped = true;
  }

  /** Keeps what a visit read from the database in the hot tier (see runPreload for readWhilePaging). */
  protected cacheRead(key: string, value: Cached): void {
    this.links.set(key, value);
    this.readWhilePaging?.add(key);
  }

  /** The domain key of a host: '' for the short domain, a custom domain's id, null for neither. */
  domainOf(host: string): string | null | Promise<string | null> {
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
}
