// Rules of the links operations (openapi/) that need no I/O.

export const MAX_URL_LENGTH = 2048;
export const MAX_TITLE_LENGTH = 200;
export const MAX_TAGS = 25;
export const MAX_TAG_NAME_LENGTH = 100;
/** The colour of a tag made without one (a form's default, or a name an import made). */
export const DEFAULT_TAG_COLOR = '#6b7280';

/**
 * A destination (`url`, `expiredUrl`): an absolute http(s) URL of at most 2048 characters, as
 * the URL parser reads it. What is stored and redirected to is that reading (`href`), never the
 * text as sent: `https:evil.example` parses as https://evil.example/, but sent as written in a
 * Location header a browser resolves it against the short link's own address; `\` reads as `/`.
 */
export function normalizeDestination(value: string): { href: string } | { problem: string } {
  if (value.length > MAX_URL_LENGTH) return { problem: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: 'must be an absolute http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: 'must be an absolute http or https URL' };
  if (!url.hostname) return { problem: 'must name a host' };
  if (url.href.length > MAX_URL_LENGTH)
    return {
      problem: `must be at most ${MAX_URL_LENGTH} characters once normalised (non-ASCII characters are percent-encoded)`,
    };
  return { href: url.href };
}

/** The reason a destination is refused, or null. */
export function destinationProblem(value: string): string | null {
  const d = normalizeDestination(value);
  return 'problem' in d ? d.problem : null;
}

/** Titles are trimmed and stored truncated at 200 characters; an empty title is no title. */
export function normalizeTitle(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : [...trimmed].slice(0, MAX_TITLE_LENGTH).join('');
}

const ASSET_FILE_NAME = /^[A-Za-z0-9_-]+\.(png|jpe?g|gif|webp)$/i;
/** A `.` or `..` path segment, also percent-encoded (`%2e`): the parser would resolve it away. */
const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(\/|$)/i;

/**
 * previewImage: an https URL of one image file hosted by the service, directly under
 * ASSET_BASE_URL (same origin, same path), with no dot segments, no query and no fragment, as
 * the URL parser reads it: `/assets/../../etc/passwd.png` is refused, not resolved. Returns the
 * normalised URL (stored) and the asset's file name, which the caller checks the workspace holds.
 */
export function previewImageAsset(
  value: string,
  assetBaseUrl: string,
): { href: string; fileName: string } | { problem: string } {
  const hosted = `must be an image hosted by the service under ${assetBaseUrl} (shortlink asset add)`;
  let url: URL;
  let base: URL;
  try {
    url = new URL(value);
    base = new URL(assetBaseUrl);
  } catch {
    return { problem: 'must be an https URL of an image hosted by the service' };
  }
  if (url.protocol !== 'https:') return { problem: 'must be an https URL' };
  const rawPath = value
    .replace(/^[a-z][a-z0-9+.-]*:\/*[^/?#\\]*/i, '')
    .split(/[?#]/)[0]
    .replace(/\\/g, '/');
  if (DOT_SEGMENT.test(rawPath)) return { problem: 'must not contain . or .. path segments' };
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname) || url.search || url.hash)
    return { problem: hosted };
  const fileName = url.pathname.slice(base.pathname.length);
  if (!/\.(png|jpe?g|gif|webp)$/i.test(fileName)) return { problem: 'must end in .png, .jpg, .jpeg, .gif or .webp' };
  if (!ASSET_FILE_NAME.test(fileName)) return { problem: hosted };
  return { href: url.href, fileName };
}

export function parseTimestamp(value: string): number | null {
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** A short link of this service, named by the host and slug it is served under. */
export interface ShortAddress {
  host: string;
  slug: string;
}

/** Splits a URL into host and slug when it could be one of this service's short links. */
export function shortAddressOf(value: string): ShortAddress | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const slug = decodeURIComponent(url.pathname.replace(/^\/+/, '').replace(/\/+$/, ''));
  if (!slug || slug.includes('/')) return null;
  return { host: url.host.toLowerCase(), slug: slug.toLowerCase() };
}

export interface ChainNode {
  id: string;
  originalUrl: string;
  expiredUrl: string | null;
}

/**
 * expiredUrl may not point back at the link itself nor around a chain of this service's links
 * that returns to it. A visitor sent to another short link follows that link's destination or,
 * once it is expired, its expiredUrl, so both are edges of the chain.
 */
export async function expiredUrlReturnsTo(
  linkId: string | null,
  expiredUrl: string,
  selfAddress: ShortAddress | null,
  lookup: (address: ShortAddress) => Promise<ChainNode | null>,
  maxHops = 50,
): Promise<boolean> {
  const sameAddress = (a: ShortAddress | null, b: ShortAddress | null) =>
    !!a && !!b && a.host === b.host && a.slug === b.slug;
  const seen = new Set<string>();
  const queue: string[] = [expiredUrl];
  let hops = 0;
  while (queue.length && hops++ < maxHops) {
    const address = shortAddressOf(queue.shift()!);
    if (!address) continue;
    if (sameAddress(address, selfAddress)) return true;
    const node = await lookup(address);
    if (!node) continue;
    if (linkId && node.id === linkId) return true;
    if (seen.has(node.id)) continue;
    seen.add(node.id);
    queue.push(node.originalUrl);
    if (node.expiredUrl) queue.push(node.expiredUrl);
  }
  return false;
}
