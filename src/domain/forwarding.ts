// The last step of a routed redirect: the visit's query forwarded into the destination and the
// click id added (openapi/components/schemas/Routing.yaml, forwardQuery and clickIdParam).
import { createHmac, randomFillSync, timingSafeEqual } from 'node:crypto';
import { BoundedCache } from './bounded-cache.ts';

const decodeName = (raw: string): string => {
  const plus = raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
};
const nameOf = (pair: string): string => {
  const eq = pair.indexOf('=');
  return decodeName(eq === -1 ? pair : pair.slice(0, eq));
};

/** A Location value taken apart for forwarding: kept per destination, which is read per click. */
interface Parts {
  path: string;
  own: string[];
  names: Set<string>;
  fragment: string;
}

function partsOf(location: string): Parts {
  const hash = location.indexOf('#');
  const base = hash === -1 ? location : location.slice(0, hash);
  const q = base.indexOf('?');
  const own =
    q === -1
      ? []
      : base
          .slice(q + 1)
          .split('&')
          .filter((p) => p !== '');
  return {
    path: q === -1 ? base : base.slice(0, q),
    own,
    names: new Set(own.map(nameOf)),
    fragment: hash === -1 ? '' : location.slice(hash),
  };
}
// Keyed by the destinations' own strings, kept by the cached links: their hashes are computed once.
const partsCache = new BoundedCache<Parts>(10_000);

/**
 * `location` with the visit's raw query (`rawQuery`, without `?`) added when `forward`, and
 * `{clickParam}={clickId}` when given. The destination's own parameters win on a name both have;
 * the click id replaces a parameter of its name from either. Pairs are kept as sent, so their
 * percent-encoding is unchanged; the fragment stays last. Only query text is added: the
 * scheme, host and path are the destination's, so no visit can send the redirect elsewhere.
 */
export function forwardedLocation(
  location: string,
  rawQuery: string | null,
  forward: boolean,
  clickParam: string | null,
  clickId: string | null,
): string {
  const visit = forward && rawQuery ? rawQuery : '';
  if (visit === '' && clickId === null) return location;
  const d = partsCache.get(location, partsOf);
  const clicked = clickId !== null && clickParam !== null;
  const kept = clicked && d.names.has(clickParam) ? d.own.filter((p) => nameOf(p) !== clickParam) : d.own.slice();
  if (visit !== '')
    for (const pair of visit.split('&')) {
      if (pair === '') continue;
      const name = nameOf(pair);
      if (d.names.has(name) || (clicked && name === clickParam)) continue;
      kept.push(pair);
    }
  if (clicked) kept.push(`${clickParam}=${clickId}`);
  return kept.length ? `${d.path}?${kept.join('&')}${d.fragment}` : `${d.path}${d.fragment}`;
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
  private used = this.pool.length;
  // link id → route ('' for the link's own url) → `{payload}.{mac}`. Two lookups by the cached
  // links' own strings, where one by a key built per click would hash a new string each time.
  private readonly signed = new Map<string, Map<string, string>>();

  constructor(masterKey: Buffer) {
    this.key = createHmac('sha256', masterKey).update('shortlink click ids v1').digest();
  }

  make(linkId: string, route: string | null): string {
    if (this.used + 9 > this.pool.length) {
      randomFillSync(this.pool);
      this.used = 0;
    }
    const nonce = this.pool.toString('base64url', this.used, this.used + 9);
    this.used += 9;
    let byRoute = this.signed.get(linkId);
    if (byRoute === undefined) {
      if (this.signed.size >= 10_000) this.signed.clear();
      this.signed.set(linkId, (byRoute = new Map()));
    }
    let signed = byRoute.get(route ?? '');
    if (signed === undefined) {
      const payload = Buffer.from(`${linkId}~${route ?? ''}`).toString('base64url');
      signed = `${payload}.${this.mac(payload)}`;
      byRoute.set(route ?? '', signed);
    }
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
