// A visit to a link with a routing document (domain/routing.ts): the rule, variant or winner
// that serves it, the split's cookie, the click's id and route, the query forwarded. A plain
// function given the service, as the other routes beside handler.ts are.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientAddress } from '../domain/client-address.ts';
import { forwardedLocation } from '../domain/forwarding.ts';
import type { ResolvedLink, Visit } from '../domain/resolve.ts';
import {
  chooseRoute,
  type CompiledVariant,
  drawVariant,
  routeId,
  routeLocation,
  type Route,
  splitEnd,
} from '../domain/routing.ts';
import type { LookupTiers } from './lookup-tiers.ts';
import type { PageVia } from './page-route.ts';
import { Facts } from './visit-facts.ts';
import { first, type VisitHeaders } from './visitor.ts';

/** A visit that counts as a click: from a QR code (its id), and through a bio page's block (`via`). */
export interface Click {
  qrCodeId: string | null;
  via: PageVia | undefined;
}

/** What a routed visit uses of the redirect service (handler.ts), which passes itself. */
export interface RoutedHost extends Pick<LookupTiers, 'deps'> {
  record(
    req: IncomingMessage,
    h: VisitHeaders,
    link: ResolvedLink,
    click: Click,
    at: number,
    route: string | null,
    address?: string,
  ): void;
  send(res: ServerResponse, status: 301 | 302, location: string, indexable: boolean, cookie: string | undefined): void;
}

/** The split cookie: `{linkId}.{variantId}`, scoped to the address visited. */
export const VARIANT_COOKIE = 'sl_v';
/** How long a variant is kept when the split has no end. */
const KEEP_WITHOUT_END_S = 180 * 24 * 3600;
const COOKIE_PATH = /^\/[A-Za-z0-9_@/.-]*$/;

export function routeVisit(
  svc: RoutedHost,
  req: IncomingMessage,
  res: ServerResponse,
  h: VisitHeaders,
  link: ResolvedLink,
  visit: Extract<Visit, { kind: 'redirect' }>,
  now: number,
  click: Click | null,
  rawQuery: string | null,
): void {
  const routing = link.routing!;
  const trustProxy = svc.deps.config.trustProxy;
  const facts = new Facts(
    {
      now,
      userAgent: h.userAgent,
      acceptLanguage: first(req.headers['accept-language']),
      trustedCountry: trustProxy > 0 ? h.country : undefined,
      address: () => clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trustProxy),
      rawQuery,
    },
    svc.deps.geo ?? null,
  );
  const held = routing.split ? heldVariant(req.headers.cookie, link.id) : null;
  const route: Route = chooseRoute(routing, facts, held, Math.random);
  if (route.kind === 'unsettled') {
    const split = routing.split!;
    if (split.settling === undefined) {
      const settling = svc.deps.settleSplit?.(link) ?? Promise.resolve(null);
      split.settling = settling.then(
        (winner) => {
          split.winnerId = winner;
          split.settling = undefined;
          return winner;
        },
        (err) => {
          split.settling = undefined;
          throw err;
        },
      );
    }
    split.settling.then(
      () => routeVisit(svc, req, res, h, link, visit, now, click, rawQuery),
      (err) => {
        // The visitor still goes somewhere: a variant by weight, as before the end.
        svc.deps.log.warn({ err, linkId: link.id }, 'settling an ended split failed');
        const variant = drawVariant(routing, Math.random);
        finish(svc, req, res, h, link, visit, now, click, rawQuery, { kind: 'variant', variant, drawn: false }, facts);
      },
    );
    return;
  }
  finish(svc, req, res, h, link, visit, now, click, rawQuery, route, facts);
}

function finish(
  svc: RoutedHost,
  req: IncomingMessage,
  res: ServerResponse,
  h: VisitHeaders,
  link: ResolvedLink,
  visit: Extract<Visit, { kind: 'redirect' }>,
  now: number,
  click: Click | null,
  rawQuery: string | null,
  route: Route,
  facts: Facts,
): void {
  const routing = link.routing!;
  if (route.kind === 'unsettled' || route.kind === 'split') {
    // Settled to no winner (a split changed meanwhile): a variant by weight.
    route = { kind: 'variant', variant: drawVariant(routing, Math.random), drawn: false };
  }
  const id = routeId(route);
  const dest = route.kind === 'rule' ? route.rule : route.kind === 'link' ? null : route.variant;
  const ids = svc.deps.clickIds;
  let clickId: string | null = null;
  if (click && routing.clickIdParam !== null && ids) {
    // A destination keeps its signed part: a lookup in the signer's maps per click reads memory
    // no other visit to this link does.
    if (dest === null) clickId = ids.make(link.id, id);
    else {
      if (dest.signedBy !== ids) {
        dest.signed = ids.signed(link.id, id);
        dest.signedBy = ids;
      }
      clickId = ids.withNonce(dest.signed);
    }
  }
  // The address a rule may have read already: read once per visit.
  if (click) svc.record(req, h, link, click, now, id, facts.addressText());
  const location = forwardedLocation(
    routeLocation(route, visit.location),
    rawQuery,
    routing.forwardQuery,
    routing.clickIdParam,
    clickId,
    dest ?? undefined,
  );
  const cookie =
    route.kind === 'variant' && route.drawn
      ? variantCookie(req, link.id, route.variant, splitEnd(routing), now)
      : undefined;
  svc.send(res, visit.status, location, routing.indexable, cookie);
}

/** The variant the visitor's cookie holds for this link (several paths' cookies may be sent). */
export function heldVariant(cookieHeader: string | undefined, linkId: string): string | null {
  if (!cookieHeader) return null;
  const prefix = `${linkId}.`;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== VARIANT_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (value.startsWith(prefix)) return value.slice(prefix.length) || null;
  }
  return null;
}

/**
 * The split cookie for a variant drawn now, until the split's end (`endsAt`, Infinity for none).
 * Made per visit from what the visit has read already: a copy kept per variant was two more
 * strings to read from memory on each visit, which cost more than making it.
 */
function variantCookie(req: IncomingMessage, linkId: string, variant: CompiledVariant, endsAt: number, now: number) {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const tail =
    endsAt === Number.POSITIVE_INFINITY
      ? KEEP_WITHOUT_END
      : `; Max-Age=${Math.max(1, Math.ceil((endsAt - now) / 1000))}${ATTRIBUTES}`;
  return `${VARIANT_COOKIE}=${linkId}.${variant.id}; Path=${COOKIE_PATH.test(path) ? path : '/'}${tail}`;
}
const ATTRIBUTES = '; HttpOnly; Secure; SameSite=Lax';
/** The attributes after the path of a split without an end: one string for every such cookie. */
const KEEP_WITHOUT_END = `; Max-Age=${KEEP_WITHOUT_END_S}${ATTRIBUTES}`;
