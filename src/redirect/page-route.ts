// A bio page on the redirect path: `/@{handle}` shows the page, `/@{handle}/{block}` follows one
// of its link blocks. Pages are rendered once per host and kept in LookupTiers.pages.
import { clientAddress } from '../domain/client-address.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseContent } from '../domain/bio-pages.ts';
import type { LivePage } from '../db/redirect-store.ts';
import { bioPageHeaders, renderBioPage } from './bio-page.ts';
import {
  isPromise,
  NOT_FOUND,
  type Cached,
  type CachedPage,
  type CachedPageEntry,
  type LookupTiers,
} from './lookup-tiers.ts';
import { methodNotAllowedPage, pageNotFound, statusPage } from './pages.ts';
import { hostnameOf, isBot, isPrefetch, safeDecode, visitHeaders, type VisitHeaders } from './visitor.ts';

const HANDLE = /^[a-z0-9_-]{1,64}$/;
/** Bounds the pages cache; past it the cache starts again (pages are few next to links). */
const MAX_CACHED_PAGES = 10_000;

/** A visit that came through a bio page's link block (/@{handle}/{blockId}). */
export interface PageVia {
  pageId: string;
  workspaceId: string;
  blockId: string;
  /** The address the block is followed at: where the password form posts back to. */
  action: string;
}

type Fallback = (req: IncomingMessage, res: ServerResponse) => void;

/** What the page route uses of the redirect service (handler.ts), which passes itself. */
export interface PageRouteHost extends Pick<LookupTiers, 'deps' | 'pages' | 'generation' | 'domainOf'> {
  readonly responses: Float64Array;
  answer(
    req: IncomingMessage,
    res: ServerResponse,
    h: VisitHeaders,
    cached: Cached,
    qrCodeId: string | null,
    via?: PageVia,
  ): void;
  sendPage(res: ServerResponse, status: number, html: string, extra?: Record<string, string | number>): void;
  fail(res: ServerResponse, err: unknown): void;
}

/**
 * A bio page: `/@{handle}` (GET, HEAD) shows it and counts a person's view; `/@{handle}/{block}`
 * follows one of its link blocks as a visit of the block's short link (its rules, its click
 * limit, its password form posting back here), counted as that link's click with the page as
 * its referrer, and as the block's click.
 */
export function handlePage(
  svc: PageRouteHost,
  req: IncomingMessage,
  res: ServerResponse,
  fallback: Fallback,
  path: string,
): void {
  const rest = path.slice(2);
  const slash = rest.indexOf('/');
  const handle = safeDecode(slash === -1 ? rest : rest.slice(0, slash)).toLowerCase();
  const blockId = slash === -1 || slash === rest.length - 1 ? null : rest.slice(slash + 1);
  if (blockId === null && req.method === 'POST')
    return svc.sendPage(res, 405, methodNotAllowedPage('page'), { Allow: 'GET, HEAD' });
  const h = visitHeaders(req.headers);
  const host = hostnameOf(h.host);
  const domainKey = svc.domainOf(host);
  if (isPromise(domainKey)) {
    domainKey.then(
      (id) => routePage(svc, req, res, fallback, h, host, id, handle, blockId),
      (err) => svc.fail(res, err),
    );
    return;
  }
  routePage(svc, req, res, fallback, h, host, domainKey, handle, blockId);
}

function routePage(
  svc: PageRouteHost,
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
  if (!HANDLE.test(handle)) return answerPage(svc, req, res, h, NOT_FOUND, blockId);
  const cached = svc.pages.get(handle)?.get(domainKey);
  if (cached !== undefined) return answerPage(svc, req, res, h, cached, blockId);
  const generation = svc.generation;
  const settle = (live: LivePage | null) => {
    // The short domain's canonical host keeps its port, as its short URLs do.
    const entry = live ? cachedPage(live, domainKey === '' ? svc.deps.config.shortDomain : host) : NOT_FOUND;
    if (generation === svc.generation) {
      if (svc.pages.size >= MAX_CACHED_PAGES && !svc.pages.has(handle)) svc.pages.clear();
      let byDomain = svc.pages.get(handle);
      if (!byDomain) svc.pages.set(handle, (byDomain = new Map()));
      byDomain.set(domainKey, entry);
    }
    answerPage(svc, req, res, h, entry, blockId);
  };
  try {
    const loaded = svc.deps.store.findPage(handle, domainKey);
    if (isPromise(loaded)) loaded.then(settle, (err) => svc.fail(res, err));
    else settle(loaded);
  } catch (err) {
    svc.fail(res, err);
  }
}

function answerPage(
  svc: PageRouteHost,
  req: IncomingMessage,
  res: ServerResponse,
  h: VisitHeaders,
  page: CachedPageEntry,
  blockId: string | null,
): void {
  if (page === NOT_FOUND) return svc.sendPage(res, 404, pageNotFound());
  const get = req.method === 'GET';
  if (blockId === null) {
    svc.responses[200]++;
    res.writeHead(200, page.headers);
    res.end(get ? page.html : undefined);
    // Views by people only, as clicks are: no bots, no HEAD, no prefetch.
    if (get && !isBot(h.userAgent) && !isPrefetch(h.purpose)) {
      svc.deps.clicks.recordPageVisit({
        pageId: page.id,
        blockId: null,
        workspaceId: page.workspaceId,
        at: Date.now(),
        referer: h.referer,
        country: svc.deps.config.trustProxy > 0 ? h.country : undefined,
        userAgent: h.userAgent,
        address: clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], svc.deps.config.trustProxy),
      });
    }
    return;
  }
  const linkId = page.blocks.get(blockId);
  if (linkId === undefined) return svc.sendPage(res, 404, statusPage('not_found'));
  const via: PageVia = {
    pageId: page.id,
    workspaceId: page.workspaceId,
    blockId,
    action: `/@${page.handle}/${blockId}`,
  };
  // The page is the click's referrer, whatever the browser sent.
  const visit: VisitHeaders = { ...h, referer: page.address };
  try {
    const loaded = svc.deps.store.findLinkById(linkId);
    if (isPromise(loaded)) {
      loaded.then(
        (link) => svc.answer(req, res, visit, link ?? NOT_FOUND, null, via),
        (err) => svc.fail(res, err),
      );
    } else svc.answer(req, res, visit, loaded ?? NOT_FOUND, null, via);
  } catch (err) {
    svc.fail(res, err);
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
