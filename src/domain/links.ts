// Rules of the interface's Links sections that need no I/O.

export const MAX_URL_LENGTH = 2048;
export const MAX_TITLE_LENGTH = 200;
export const MAX_TAGS = 25;
const PREVIEW_IMAGE_ENDINGS = /\.(png|jpe?g|gif|webp)$/i;

/** Absolute http(s) URL of at most 2048 characters; anything else would be an open redirect risk. */
export function destinationProblem(value: string): string | null {
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (!url.hostname) return 'must name a host';
  return null;
}

/** Titles are trimmed and stored truncated at 200 characters; an empty title is no title. */
export function normalizeTitle(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : [...trimmed].slice(0, MAX_TITLE_LENGTH).join('');
}

/** previewImage: an https URL under ASSET_BASE_URL (hosted by the service) with an image ending. */
export function previewImageProblem(value: string, assetBaseUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an https URL of an image hosted by the service';
  }
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (!value.startsWith(assetBaseUrl)) return `must be an image hosted by the service under ${assetBaseUrl}`;
  if (!PREVIEW_IMAGE_ENDINGS.test(url.pathname)) return 'must end in .png, .jpg, .jpeg, .gif or .webp';
  return null;
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
  const sameAddress = (a: ShortAddress | null, b: ShortAddress | null) => !!a && !!b && a.host === b.host && a.slug === b.slug;
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
