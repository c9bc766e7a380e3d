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
import { PASSWORD_PAGE_CSP, passwordPage, previewPage, sendPage, statusPage, throttledPage } from './pages.ts';
import { CSRF_COOKIE, parseCookies, refundAttempt, takeAttempt, type CsrfTokens } from './password.ts';
import { qrImage } from './qr.ts';
import type { QrTarget, RedirectStore } from '../db/redirect-store.ts';
import { isBot, isPrefetch, visitHeaders, type VisitHeaders } from './visitor.ts';

const SLUG = /^[a-z0-9_-]{1,64}$/;
const QR_CODE = /^[a-z0-9]{1,32}$/;
const MAX_FORM_BYTES = 4096;
export const REDIRECT_CACHE_CONTROL = 'private, no-store, no-cache, max-age=0, must-revalidate';
const NOT_FOUND: unique symbol = Symbol('not found');
type Cached = ResolvedLink | typeof NOT_FOUND;
type Fallback = (req: IncomingMessage, res: ServerResponse) => void;

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as any)?.then === 'function';

export interface RedirectDeps {
  config: Config;
  store: RedirectStore;
  clicks: ClickRecorder;
  csrf: CsrfTokens;
  passwordThrottle: RateLimiterAbstract;
  log: Logger;
  maxCachedLinks?: number;
}

export class RedirectService implements LinkCacheInvalidator, ChangeListener {
  private readonly links: RedirectCache<Cached>;
  private readonly hosts = new Map<string, string | null>();
  private readonly qrCodes = new Map<string, QrTarget | null>();
  private readonly shortHost: string;
  // Bumped by every invalidation. An answer read before an invalidation and arriving after it
  // (an asynchronous read: the lookup thread on SQLite, Postgres) still answers its own request,
  // which came first, but is not cached: the entry just dropped would otherwise come back stale
  // and serve the next clicks the old link.
  private generation = 0;

  constructor(private readonly deps: RedirectDeps) {
    this.links = new RedirectCache<Cached>(deps.maxCachedLinks ?? 100_000);
    this.shortHost = hostnameOf(deps.config.shortDomain);
  }

  get cachedLinks(): number {
    return this.links.size;
  }

  // LinkCacheInvalidator: the API calls this right after a change commits.
  async invalidate(keys: CacheKey[]): Promise<void> {
    for (const k of keys) this.linkChanged(k.domainKey, k.slug);
  }

  // ChangeListener: the change feed calls these for changes made by any process.
  linkChanged(domainKey: string, slug: string): void {
    this.generation++;
    this.links.delete(RedirectCache.keyOf({ domainKey, slug }));
    this.qrCodes.clear();
    this.deps.store.refresh();
  }

  domainChanged(): void {
    this.generation++;
    this.deps.store.refresh();
    this.hosts.clear();
    this.links.clear();
    this.qrCodes.clear();
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
    const host = hostnameOf(h.host);
    let domainKey: string | null | undefined = host === this.shortHost ? '' : this.hosts.get(host);
    if (domainKey === undefined) {
      const found = this.deps.store.findDomainByHost(host);
      if (isPromise(found)) {
        const generation = this.generation;
        found.then(
          (id) => {
            if (generation === this.generation) this.rememberHost(host, id);
            this.route(req, res, fallback, h, id, slug, qrCode, qrFormat);
          },
          (err) => this.fail(res, err),
        );
        return;
      }
      this.rememberHost(host, found);
      domainKey = found;
    }
    this.route(req, res, fallback, h, domainKey, slug, qrCode, qrFormat);
  }

  private rememberHost(host: string, id: string | null) {
    if (this.hosts.size > 10_000) this.hosts.clear();
    this.hosts.set(host, id);
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
    const cached = this.links.get(key);
    if (cached !== undefined) return this.answer(req, res, h, cached, null);
    const loaded = this.deps.store.findLink(domainKey, slug);
    if (isPromise(loaded)) {
      const generation = this.generation;
      loaded.then(
        (link) => {
          if (generation === this.generation) this.links.set(key, link ?? NOT_FOUND);
          this.answer(req, res, h, link ?? NOT_FOUND, null);
        },
        (err) => this.fail(res, err),
      );
      return;
    }
    this.links.set(key, loaded ?? NOT_FOUND);
    this.answer(req, res, h, loaded ?? NOT_FOUND, null);
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

  private answer(req: IncomingMessage, res: ServerResponse, h: VisitHeaders, cached: Cached, qrCodeId: string | null): void {
    const link = cached === NOT_FOUND ? null : cached;
    if (req.method === 'POST') {
      void this.submitPassword(req, res, h, link, qrCodeId).catch((err) => this.fail(res, err));
      return;
    }
    const now = Date.now();
    const visit = decideVisit(link, now);
    if (visit.kind === 'page') return this.page(req, res, visit.page, link);
    const get = req.method === 'GET';
    const bot = isBot(h.userAgent);
    const person = get && !bot && !isPrefetch(h.purpose);
    if (bot && get && link && visit.countsAsClick && hasPreview(link)) {
      return sendPage(res, 200, previewPage({
        url: link.url,
        shortUrl: `https://${h.host}/${link.slug}`,
        title: link.previewTitle,
        description: link.previewDescription,
        image: link.previewImage,
      }));
    }
    if (!person || !visit.countsAsClick) return redirect(res, visit);
    this.countAndRedirect(req, res, h, link!, visit, qrCodeId, now);
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
  ) {
    if (link.clickLimit === null) {
      this.record(h, link, qrCodeId, now);
      return redirect(res, visit);
    }
    const settle = (ok: boolean) => {
      if (!ok) {
        link.served = link.clickLimit!;
        return this.page(req, res, 'limit_reached', link);
      }
      link.served++;
      // The slot was taken now, which may be a database round trip after the request arrived.
      this.record(h, link, qrCodeId, Date.now());
      redirect(res, visit);
    };
    const reserved = this.deps.store.reserveClick(link.id);
    if (isPromise(reserved)) reserved.then(settle, (err) => this.fail(res, err));
    else settle(reserved);
  }

  private record(h: VisitHeaders, link: ResolvedLink, qrCodeId: string | null, at: number) {
    this.deps.clicks.record({
      linkId: link.id,
      workspaceId: link.workspaceId,
      qrCodeId,
      at,
      referer: h.referer,
      // Country only from a proxy we trust; the IP address itself is never kept.
      country: this.deps.config.trustProxy > 0 ? h.country : undefined,
      userAgent: h.userAgent,
    });
  }

  private page(req: IncomingMessage, res: ServerResponse, page: Exclude<Visit, { kind: 'redirect' }>['page'], link: ResolvedLink | null, error?: string) {
    if (page !== 'password') return sendPage(res, PAGE_STATUS[page], statusPage(page));
    const csrf = this.deps.csrf.issue(link!.id);
    const secure = isSecure(req, this.deps.config.trustProxy);
    const action = `/${link!.slug}`;
    sendPage(res, error ? 401 : PAGE_STATUS.password, passwordPage({ action, csrf, error }), {
      'Set-Cookie': `${CSRF_COOKIE}=${csrf}; Path=${action}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}; Max-Age=3600`,
      // A 401 names its scheme; browsers show no dialog for this one.
      'WWW-Authenticate': 'Form realm="Shortlink link password"',
      // The form posts to this page, whose answer redirects to the destination: CSP checks
      // form-action on every hop, so the password page must allow the onward redirect.
      'Content-Security-Policy': PASSWORD_PAGE_CSP,
    });
  }

  private async submitPassword(req: IncomingMessage, res: ServerResponse, h: VisitHeaders, link: ResolvedLink | null, qrCodeId: string | null) {
    const visit = decideVisit(link, Date.now());
    if (visit.kind === 'redirect' || visit.page !== 'password') {
      // Nothing to unlock: answer as a GET would, without following the POST anywhere.
      if (visit.kind === 'page') return this.page(req, res, visit.page, link);
      return sendPage(res, 405, statusPage('not_found'), { Allow: 'GET, HEAD' });
    }
    const form = await readForm(req);
    if (!form) return sendPage(res, 413, statusPage('not_found').replace('Link not found', 'Form too large'), { Connection: 'close' });
    const cookies = parseCookies(req.headers.cookie);
    if (!this.deps.csrf.verify(link!.id, form.get('csrf') ?? undefined, cookies[CSRF_COOKIE])) {
      return this.page(req, res, 'password', link, 'Your session expired. Please enter the password again.');
    }
    // The address the trusted proxy saw, never one the client wrote (domain/client-address).
    const throttleKey = `${link!.id}:${clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.deps.config.trustProxy)}`;
    const wait = await takeAttempt(this.deps.passwordThrottle, throttleKey);
    if (wait > 0) return sendPage(res, 429, throttledPage(wait), { 'Retry-After': wait });
    const password = form.get('password') ?? '';
    if (!password || password.length > 256 || !(await verifyPassword(password, link!.passwordHash!))) {
      return this.page(req, res, 'password', link, 'That password is not correct.');
    }
    await refundAttempt(this.deps.passwordThrottle, throttleKey);
    const now = Date.now();
    const unlocked = decideVisit(link, now, true);
    if (unlocked.kind === 'page') return this.page(req, res, unlocked.page, link);
    if (isBot(h.userAgent) || !unlocked.countsAsClick) return redirect(res, unlocked);
    this.countAndRedirect(req, res, h, link!, unlocked, qrCodeId, now);
  }

  private fail(res: ServerResponse, err: unknown) {
    this.deps.log.error({ err }, 'short link could not be resolved');
    if (res.headersSent) return res.destroy();
    sendPage(res, 503, statusPage('not_found').replace('Link not found', 'Temporarily unavailable'), { 'Retry-After': 5 });
  }
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
