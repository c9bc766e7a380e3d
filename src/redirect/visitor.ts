// What the redirect path learns about a visit: person or bot, prefetch, the headers a click
// keeps, the host it asked for. Judging is cached per User-Agent string because the same few
// strings make up most traffic.
import type { IncomingHttpHeaders } from 'node:http';
import { isbot } from 'isbot';
import { BoundedCache } from '../domain/bounded-cache.ts';

const botCache = new BoundedCache<boolean>(10_000);
/** Crawlers, link checkers and clients with no User-Agent are not people. */
export function isBot(userAgent: string | undefined): boolean {
  if (!userAgent) return true;
  return botCache.get(userAgent, isbot);
}

/** Browsers announce speculative loads (VisitHeaders.purpose); those are not clicks. */
export function isPrefetch(purpose: string | undefined): boolean {
  if (!purpose) return false;
  return /prefetch|prerender|preview/i.test(purpose);
}

/** The request headers a visit reads. */
export interface VisitHeaders {
  host: string;
  userAgent: string | undefined;
  referer: string | undefined;
  /** Sec-Purpose, else Purpose, else X-Purpose, else X-Moz. */
  purpose: string | undefined;
  /** CF-IPCountry, else X-Country-Code (trusted only behind a trusted proxy). */
  country: string | undefined;
}

/** The first of a header Node may give as a list. */
export const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

// The User-Agent strings seen lately, each kept once. Node's parser makes a new string for every
// request, and the first Map lookup on a string hashes all of it: for a browser's 100-odd
// characters that was the largest single cost of the redirect path's own code (a sixth of it,
// bench/README.md). A slot picked from the length and three characters, then one comparison
// of the text, finds the string kept for the same text, whose hash V8 has already stored with it;
// isBot's cache and the click buffer then look it up without hashing again. Hand-written because
// it is the hot path itself: a cache library would hash the key, the cost this avoids. A
// different string in the slot (a collision, or a new agent) just takes the slot. At most 1,024
// strings of up to 512 characters are kept.
const AGENT_SLOTS = 1024;
const agentSlots: string[] = new Array<string>(AGENT_SLOTS).fill('');

/** The kept string with the same text as `userAgent` (the same text, with its hash computed). */
export function keptUserAgent(userAgent: string | undefined): string | undefined {
  if (userAgent === undefined) return undefined;
  const n = userAgent.length;
  // Short strings hash cheaply; long ones (up to Node's 16 KB of headers) are not worth a slot.
  if (n < 16 || n > 512) return userAgent;
  const slot =
    (n +
      userAgent.charCodeAt(n >> 1) * 31 +
      userAgent.charCodeAt((n * 3) >> 2) * 961 +
      userAgent.charCodeAt(n - 2) * 29791) &
    (AGENT_SLOTS - 1);
  const kept = agentSlots[slot];
  if (kept === userAgent) return kept;
  agentSlots[slot] = userAgent;
  return userAgent;
}

/**
 * The headers of a visit, from the `req.headers` Node has already built: on Node 20 the server
 * builds that object for every HTTP/1.1 request anyway (parserOnIncoming reads `host` and
 * `expect`), so reading five of its fields is the cheapest way to them. (An earlier version
 * walked `req.rawHeaders` to avoid building it, which only repeated that work.) Duplicates are
 * as Node reads them: the first Host, User-Agent and Referer win, and repeats of the others are
 * joined with ", ".
 */
export function visitHeaders(h: IncomingHttpHeaders): VisitHeaders {
  return {
    host: h.host ?? '',
    userAgent: keptUserAgent(h['user-agent']),
    referer: h.referer,
    purpose: first(h['sec-purpose'] ?? h.purpose ?? h['x-purpose'] ?? h['x-moz']),
    country: first(h['cf-ipcountry'] ?? h['x-country-code']),
  };
}

/** The host name a visit asked for (the Host header), lower case, without its port. */
export function hostnameOf(host: string): string {
  const h = host.toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/** A path segment percent-decoded, or as written when it is not valid percent-encoding. */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
