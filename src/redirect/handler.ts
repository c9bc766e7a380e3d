// The short-link hot path: `GET /{slug}` on the short domain and on custom domains, answered
// from an in-process cache without Express, without waiting for analytics writes. It is plain
// node:http code on purpose: every layer here costs throughput on the path the service exists for.
// This file dispatches and answers; what it reads is in lookup-tiers.ts (which RedirectService
// extends, so a visit reads one object), and the rarer routes beside it: qr-route.ts,
// page-route.ts, password-form.ts. Those are plain functions given the service: no closure or
// object is made per request to reach them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decideVisit, hasPreview, PAGE_STATUS, type ResolvedLink, type Visit } from '../domain/resolve.ts';
import { clientAddress } from '../domain/client-address.ts';
import { RESERVED_SLUGS } from '../domain/slugs.ts';
import { RedirectCache } from './cache.ts';
import { isPromise, LookupTiers, NOT_FOUND, type Cached, type RedirectDeps } from './lookup-tiers.ts';
import { handlePage, type PageVia } from './page-route.ts';
import { showPasswordForm, submitPassword, type PageKind } from './password-form.ts';
import { previewPage, sendPage, statusPage, unavailablePage } from './pages.ts';
import { routeQr } from './qr-route.ts';
import { routeRobots } from './robots-route.ts';
import { linkFromResident } from '../db/redirect-rows.ts';
import { hostnameOf, isBot, isPrefetch, safeDecode, visitHeaders, type VisitHeaders } from './visitor.ts';
import { forwardedLocation } from '../domain/forwarding.ts';
import { routeVisit, type Click } from './routed.ts';

export type { RedirectDeps } from './lookup-tiers.ts';

const SLUG = /^[a-z0-9_-]{1,64}$/;
/** Stands for /robots.txt where a slug goes (no slug has a `.`). */
const ROBOTS = 'robots.txt';
export const REDIRECT_CACHE_CONTROL = 'private, no-store, no-cache, max-age=0, must-revalidate';
type Fallback = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The redirect path of one process. Its methods other than handle() and those of LookupTiers
 * are public only for the routes beside it (qr-route.ts, page-route.ts, password-form.ts).
 */
export class RedirectService extends LookupTiers {
  /**
   * What this process answered on the redirect path, for /metrics: answers by status code (the
   * link cache's hits and misses are LookupTiers'). Plain counters, read when scraped: a labelled
   * metric's update on every redirect would cost more than the rest of the redirect's bookkeeping.
   */
  readonly responses = new Float64Array(600);
  private readonly fixedPaths: ReadonlySet<string>;

  constructor(deps: RedirectDeps) {
    super(deps);
    this.fixedPaths = deps.fixedPaths ?? new Set();
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
    if (path.charCodeAt(1) === 64 /* @ */) return handlePage(this, req, res, fallback, path);
    const slash = path.indexOf('/', 1);
    let slug: string;
    let qrCode: string | null = null;
    let qrFormat: 'svg' | 'png' | null = null;
    if (path === '/robots.txt') {
      if (method === 'POST') return fallback(req, res);
      slug = ROBOTS;
    } else if (slash === -1) {
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
    if (slug === ROBOTS) return void routeRobots(this, req, res, domainKey);
    if (qrCode !== null) return void routeQr(this, req, res, h, qrCode, qrFormat);
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

  answer(
    req: IncomingMessage,
    res: ServerResponse,
    h: VisitHeaders,
    cached: Cached,
    qrCodeId: string | null,
    via?: PageVia,
  ): void {
    const link = cached === NOT_FOUND ? null : cached;
    if (req.method === 'POST') {
      void submitPassword(this, req, res, h, link, qrCodeId, via).catch((err) => this.fail(res, err));
      return;
    }
    const now = Date.now();
    const visit = decideVisit(link, now);
    if (visit.kind === 'page') return this.page(req, res, visit.page, link, undefined, via);
    const get = req.method === 'GET';
    const bot = isBot(h.userAgent);
    const person = get && !bot && !isPrefetch(h.purpose);
    if (bot && get && link && visit.countsAsClick && hasPreview(link)) {
      return this.sendPage(
        res,
        200,
        previewPage({
          url: link.url,
          shortUrl: `https://${h.host}/${link.slug}`,
          title: link.previewTitle,
          description: link.previewDescription,
          image: link.previewImage,
        }),
      );
    }
    if (!person || !visit.countsAsClick) return this.forward(req, res, h, link!, visit, now, null);
    this.countAndRedirect(req, res, h, link!, visit, qrCodeId, now, via);
  }

  /** A person's click: take a clickLimit slot when the link has a limit, record it, redirect. */
  countAndRedirect(
    req: IncomingMessage,
    res: ServerResponse,
    h: VisitHeaders,
    link: ResolvedLink,
    visit: Extract<Visit, { kind: 'redirect' }>,
    qrCodeId: string | null,
    now: number,
    via?: PageVia,
  ) {
    const click: Click = { qrCodeId, via };
    if (link.clickLimit === null) return this.forward(req, res, h, link, visit, now, click);
    const settle = (ok: boolean) => {
      if (!ok) {
        link.served = link.clickLimit!;
        return this.page(req, res, 'limit_reached', link);
      }
      link.served++;
      // The slot was taken now, which may be a database round trip after the request arrived.
      this.forward(req, res, h, link, visit, Date.now(), click);
    };
    const reserved = this.deps.store.reserveClick(link.id);
    if (isPromise(reserved)) reserved.then(settle, (err) => this.fail(res, err));
    else settle(reserved);
  }

  /**
   * Sends a visit admitted to `link` on its way, recording it as a click when `click` is given:
   * through the link's routing (routed.ts) when it goes to the link's own url (the expired
   * fallback never does). A link with the default routing only forwards the visit's query.
   */
  forward(
    req: IncomingMessage,
    res: ServerResponse,
    h: VisitHeaders,
    link: ResolvedLink,
    visit: Extract<Visit, { kind: 'redirect' }>,
    now: number,
    click: Click | null,
  ): void {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const rawQuery = q === -1 ? null : url.slice(q + 1);
    if (link.routing !== null && visit.countsAsClick)
      return routeVisit(this, req, res, h, link, visit, now, click, rawQuery);
    if (click) this.record(req, h, link, click, now, null);
    const location =
      rawQuery !== null && visit.countsAsClick
        ? forwardedLocation(visit.location, rawQuery, true, null, null)
        : visit.location;
    this.send(res, visit.status, location, false, undefined);
  }

  /**
   * Hands a click to the click buffer; `route` is the rule or variant that served it, `address`
   * the client address when the visit's rules read it already.
   */
  record(
    req: IncomingMessage,
    h: VisitHeaders,
    link: ResolvedLink,
    click: Click,
    at: number,
    route: string | null,
    address = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.deps.config.trustProxy),
  ) {
    const { qrCodeId, via } = click;
    // Country headers only from a proxy we trust. The address goes to the click writer, which
    // locates it off this thread and keeps only its country and city (src/platform/geo.ts).
    const trustProxy = this.deps.config.trustProxy;
    const country = trustProxy > 0 ? h.country : undefined;
    this.deps.clicks.record({
      linkId: link.id,
      workspaceId: link.workspaceId,
      qrCodeId,
      at,
      referer: h.referer,
      country,
      userAgent: h.userAgent,
      address,
      route,
    });
    if (via)
      this.deps.clicks.recordPageVisit({
        pageId: via.pageId,
        blockId: via.blockId,
        workspaceId: via.workspaceId,
        at,
        referer: h.referer,
        country,
        userAgent: h.userAgent,
        address,
      });
  }

  /** A status page, or the password form (password-form.ts) with `error` when shown again. */
  page(
    req: IncomingMessage,
    res: ServerResponse,
    page: PageKind,
    link: ResolvedLink | null,
    error?: string,
    via?: PageVia,
  ) {
    if (page !== 'password') return this.sendPage(res, PAGE_STATUS[page], statusPage(page));
    showPasswordForm(this, req, res, link!, error, via);
  }

  /**
   * A redirect. Unless the link is indexable it carries `X-Robots-Tag: noindex`; `cookie` is a
   * split's variant cookie (routed.ts).
   */
  send(res: ServerResponse, status: 301 | 302, location: string, indexable: boolean, cookie: string | undefined): void {
    this.responses[status]++;
    // One object literal per case: setHeader before writeHead would take Node's slower path that
    // merges the two.
    const headers: Record<string, string | number> = indexable
      ? { Location: location, 'Cache-Control': REDIRECT_CACHE_CONTROL, 'Content-Length': 0 }
      : { Location: location, 'Cache-Control': REDIRECT_CACHE_CONTROL, 'Content-Length': 0, 'X-Robots-Tag': 'noindex' };
    if (cookie !== undefined) headers['Set-Cookie'] = cookie;
    res.writeHead(status, headers);
    res.end();
  }

  sendPage(res: ServerResponse, status: number, html: string, extra?: Record<string, string | number>): void {
    this.responses[status]++;
    sendPage(res, status, html, extra);
  }

  fail(res: ServerResponse, err: unknown) {
    this.deps.log.error({ err }, 'short link could not be resolved');
    if (res.headersSent) return res.destroy();
    this.sendPage(res, 503, unavailablePage(), { 'Retry-After': 5 });
  }
}
