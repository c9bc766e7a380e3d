// The last step of a routed redirect: the visit's query forwarded into the destination and the
// click id added (openapi/components/schemas/Routing.yaml, forwardQuery and clickIdParam).
import { createHmac, randomFillSync, timingSafeEqual } from 'node:crypto';
import { BoundedCache } from './bounded-cache.ts';

/** A query name or value as a form decodes it (`+` a space, percent-escapes as UTF-8). */
export function formDecode(raw: string): string {
  // Most names and values have neither: no copy, and no call into decodeURIComponent (a
  // runtime call that cost most of a forwarded visit).
  if (raw.indexOf('%') === -1) return raw.indexOf('+') === -1 ? raw : raw.replaceAll('+', ' ');
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    // A malformed escape or invalid UTF-8: decoded as WHATWG URLSearchParams does, which keeps the
    // one and replaces the other.
    return new URLSearchParams(`a=${raw}`).get('a') ?? raw;
  }
}
const nameOf = (pair: string): string => {
  const eq = pair.indexOf('=');
  return formDecode(eq === -1 ? pair : pair.slice(0, eq));
};

/**
 * A Location value taken apart for forwarding, made once per destination (a routed link keeps
 * its destinations', routing.ts; others are kept here by location).
 */
export interface LocationParts {
  path: string;
  /** The destination's own query pairs, as `[name, pair, name, pair, …]`: one array to read. */
  own: string[];
  /**
   * One bit per first character of an own name (initialOf), 0 for none: a visit's pair whose
   * name starts otherwise cannot have an own name, and is forwarded without reading `own`.
   */
  ownInitials: number;
  /** The path and the own pairs (`?` and all): what a visit's pairs are added to. */
  prefix: string;
  fragment: string;
}

export function locationParts(location: string): LocationParts {
  const hash = location.indexOf('#');
  const base = hash === -1 ? location : location.slice(0, hash);
  const q = base.indexOf('?');
  const own: string[] = [];
  if (q !== -1) for (const pair of base.slice(q + 1).split('&')) if (pair !== '') own.push(nameOf(pair), pair);
  const path = q === -1 ? base : base.slice(0, q);
  return {
    path,
    own,
    ownInitials: own.reduce((bits, name, i) => (i % 2 === 0 ? bits | initialOf(name, 0) : bits), 0),
    prefix: withQuery(path, ownQuery(own, null)),
    fragment: hash === -1 ? '' : location.slice(hash),
  };
}
// Keyed by the destinations' own strings, kept by the cached links: their hashes are computed once.
const partsCache = new BoundedCache<LocationParts>(10_000);

/**
 * The bit of the first character of the name at text[from…] (`=` for an empty name); never 0.
 * A name's first character is the same raw and decoded unless it is an escape (`%`, `+`).
 */
function initialOf(text: string, from: number): number {
  const c = text.length > from ? text.charCodeAt(from) : 61; /* = */
  return 1 << (c % 31);
}

function hasName(own: string[], name: string): boolean {
  for (let i = 0; i < own.length; i += 2) if (own[i] === name) return true;
  return false;
}

/** The own pairs joined, without those named `without`. */
function ownQuery(own: string[], without: string | null): string {
  let query = '';
  for (let i = 0; i < own.length; i += 2)
    if (own[i] !== without) query = query === '' ? own[i + 1] : `${query}&${own[i + 1]}`;
  return query;
}

const withQuery = (path: string, query: string): string => (query === '' ? path : `${path}?${query}`);

/** Whether text[from, end) contains `%` or `+`: a name that must be decoded to be compared. */
function escaped(text: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 37 /* % */ || c === 43 /* + */) return true;
  }
  return false;
}

/**
 * Whether the name of the pair at text[from, amp) is `name` once decoded. Compared in place when
 * it has no escape, as nearly every name: no string is made per pair on the redirect path.
 */
export function pairNamed(text: string, from: number, amp: number, name: string): boolean {
  // A first character that is not an escape is the decoded name's first character: most pairs
  // are told apart by it alone.
  const c = text.charCodeAt(from);
  if (c !== name.charCodeAt(0) && c !== 37 /* % */ && c !== 43 /* + */ && name !== '') return false;
  let end = text.indexOf('=', from);
  if (end === -1 || end > amp) end = amp;
  if (escaped(text, from, end)) return formDecode(text.slice(from, end)) === name;
  return end - from === name.length && text.startsWith(name, from);
}

/** Whether the visit's pair at visit[from, amp) gives way: the destination has its name, or it is the click id's. */
function givesWay(visit: string, from: number, amp: number, d: LocationParts, clickParam: string | null): boolean {
  const c = visit.charCodeAt(from);
  if ((d.ownInitials & initialOf(visit, from)) !== 0 || c === 37 /* % */ || c === 43 /* + */) {
    const own = d.own;
    for (let i = 0; i < own.length; i += 2) if (pairNamed(visit, from, amp, own[i])) return true;
  }
  return clickParam !== null && pairNamed(visit, from, amp, clickParam);
}

/**
 * The visit's pairs that are forwarded: all but the empty ones and those that give way. The
 * visit's own text when that is all of them, as on most visits: one string, not one per pair.
 */
function forwardedPairs(visit: string, d: LocationParts, clickParam: string | null): string {
  let whole = visit.charCodeAt(visit.length - 1) !== 38; /* a trailing & */
  for (let from = 0; whole && from < visit.length; ) {
    let amp = visit.indexOf('&', from);
    if (amp === -1) amp = visit.length;
    if (amp === from || givesWay(visit, from, amp, d, clickParam)) whole = false;
    from = amp + 1;
  }
  if (whole) return visit;
  let query = '';
  for (let from = 0; from < visit.length; ) {
    let amp = visit.indexOf('&', from);
    if (amp === -1) amp = visit.length;
    if (amp > from && !givesWay(visit, from, amp, d, clickParam)) {
      const pair = visit.slice(from, amp);
      query = query === '' ? pair : `${query}&${pair}`;
    }
    from = amp + 1;
  }
  return query;
}

/**
 * `location` with the visit's raw query (`rawQuery`, without `?`) added when `forward`, and
 * `{clickParam}={clickId}` when given. The destination's own parameters win on a name both have;
 * the click id replaces a parameter of its name from either. Pairs are kept as sent, so their
 * percent-encoding is unchanged; the fragment stays last. Only query text is added: the
 * scheme, host and path are the destination's, so no visit can send the redirect elsewhere.
 * `parts` is the location's, when the caller keeps them.
 */
export function forwardedLocation(
  location: string,
  rawQuery: string | null,
  forward: boolean,
  clickParam: string | null,
  clickId: string | null,
  parts?: LocationParts,
): string {
  const visit = forward && rawQuery ? rawQuery : '';
  if (visit === '' && clickId === null) return location;
  const d = parts ?? partsCache.get(location, locationParts);
  const clicked = clickId !== null && clickParam !== null;
  // The destination's own pairs (less the click id's name), then the visit's, then the click id.
  let url = d.prefix;
  let sep = d.ownInitials !== 0 ? '&' : '?';
  if (clicked && (d.ownInitials & initialOf(clickParam, 0)) !== 0 && hasName(d.own, clickParam)) {
    const kept = ownQuery(d.own, clickParam);
    url = withQuery(d.path, kept);
    sep = kept === '' ? '?' : '&';
  }
  if (visit !== '') {
    const pairs = forwardedPairs(visit, d, clicked ? clickParam : null);
    if (pairs !== '') {
      url = `${url}${sep}${pairs}`;
      sep = '&';
    }
  }
  if (clicked) url = `${url}${sep}${clickParam}=${clickId}`;
  return d.fragment === '' ? url : `${url}${d.fragment}`;
}

/**
 * Click ids: `{payload}.{mac}.{nonce}`, base64url, where the payload names the link and what served
 * the click, the mac is an HMAC-SHA256 of it (16 bytes) under a key derived from the master key,
 * and the nonce is 9 random bytes that make each click's id its own. A conversion is then
 * attributed from the id alone, also to a click not yet written (clicks are flushed in batches),
 * and no one can make an id for a link they do not own. The nonce is outside the mac: changing it
 * names the same link and route, which is all an id proves. So the mac is made once per link and
 * route, not per click.
 */
export class ClickIds {
  private readonly key: Buffer;
  // Random bytes drawn 4 KiB at a time: a draw per click would cost a call into OpenSSL each.
  private readonly pool = Buffer.alloc(4095);
  private nonces = '';
  private used = 0;
  // link id → route ('' for the link's own url) → `{payload}.{mac}`. Two lookups by the cached
  // links' own strings, where one by a key built per click would hash a new string each time.
  private readonly signedIds = new Map<string, Map<string, string>>();

  constructor(masterKey: Buffer) {
    this.key = createHmac('sha256', masterKey).update('shortlink click ids v1').digest();
  }

  /** A new click id for a click of `linkId` served by `route`. */
  make(linkId: string, route: string | null): string {
    return this.withNonce(this.signed(linkId, route));
  }

  /** `{payload}.{mac}` of a link and route, which a caller may keep (routed.ts keeps its destinations'). */
  signed(linkId: string, route: string | null): string {
    let byRoute = this.signedIds.get(linkId);
    if (byRoute === undefined) {
      if (this.signedIds.size >= 10_000) this.signedIds.clear();
      this.signedIds.set(linkId, (byRoute = new Map()));
    }
    let signed = byRoute.get(route ?? '');
    if (signed === undefined) {
      const payload = Buffer.from(`${linkId}~${route ?? ''}`).toString('base64url');
      signed = `${payload}.${this.mac(payload)}`;
      byRoute.set(route ?? '', signed);
    }
    return signed;
  }

  /** A click id from a `signed()` value: the nonce added. */
  withNonce(signed: string): string {
    if (this.used >= this.nonces.length) {
      randomFillSync(this.pool);
      // 9 bytes are 12 base64url characters: the pool encoded once, a nonce sliced per click.
      this.nonces = this.pool.toString('base64url');
      this.used = 0;
    }
    const nonce = this.nonces.slice(this.used, this.used + 12);
    this.used += 12;
    return `${signed}.${nonce}`;
  }

  /** The link and route of a click id this service made; null for anything else. */
  read(clickId: string): { linkId: string; route: string | null } | null {
    const parts = clickId.split('.');
    if (parts.length !== 3 || clickId.length > 200 || !/^[A-Za-z0-9_-]{12}$/.test(parts[2])) return null;
    const [payload, mac] = parts;
    const given = Buffer.from(mac, 'base64url');
    const wanted = Buffer.from(this.mac(payload), 'base64url');
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return null;
    const [linkId, route] = Buffer.from(payload, 'base64url').toString().split('~');
    return linkId ? { linkId, route: route || null } : null;
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, 16).toString('base64url');
  }
}
