// The icons of destinations' sites, for the dashboard's links list (openapi/dashboard,
// getFavicon): fetched only where the operator allows fetching destinations (DESTINATION_FETCH),
// through the process's DestinationFetchPolicy (destination-preview.ts), and kept in memory, one
// cache per process (Services.favicons, built in src/start/server.ts). Only raster
// images are kept, recognised by their bytes: an SVG or HTML answer served from the dashboard's
// origin could run script there.
import { BoundedCache } from '../domain/bounded-cache.ts';
import { type GuardedFetch, PreviewFailed, readHead } from './destination-preview.ts';

export interface Favicon {
  type: string;
  bytes: Buffer;
}

const MAX_ICON_BYTES = 64 * 1024;
/** How long an icon, or a site's answer that it has none, is kept before the site is asked again. */
const KEEP_MS = 24 * 3600 * 1000;
/** How long a site that could not be reached (refused, cut, timed out) goes unasked: a passing fault must not hide its icon for a day. */
const RETRY_MS = 10 * 60 * 1000;
const TIMEOUT_MS = 4000;
/** A host name, with its port when not 443, as a URL's host carries it (no user or path). */
const HOST =
  /^(?=[^:]{1,253}(:|$))[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+(:\d{1,5})?$/;

export const isFaviconHost = (host: string) => HOST.test(host);

/** The image type of `bytes` by their first bytes, or null for anything that is no raster image. */
export function rasterType(bytes: Buffer): string | null {
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x00000100) return 'image/x-icon';
  if (bytes.length >= 6 && /^GIF8[79]a/.test(bytes.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (
    bytes.length >= 12 &&
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  return null;
}

interface Found {
  icon: Favicon | null;
  /** No icon because the site could not be reached, rather than because it has none. */
  unreachable: boolean;
}

export class Favicons {
  private readonly kept = new BoundedCache<{ icon: Favicon | null; until: number }>(2000);
  private readonly underWay = new Map<string, Promise<Found>>();

  constructor(private readonly fetch: GuardedFetch) {}

  /** The icon of `host`'s site (its page's `<link rel="icon">`, else /favicon.ico), or null. */
  async get(host: string, now = Date.now()): Promise<Favicon | null> {
    const kept = this.kept.peek(host);
    if (kept && kept.until > now) return kept.icon;
    let pending = this.underWay.get(host);
    if (!pending) {
      pending = this.find(host).finally(() => this.underWay.delete(host));
      this.underWay.set(host, pending);
    }
    const { icon, unreachable } = await pending;
    this.kept.set(host, { icon, until: Date.now() + (unreachable ? RETRY_MS : KEEP_MS) });
    return icon;
  }

  private async find(host: string): Promise<Found> {
    const deadline = Date.now() + TIMEOUT_MS;
    let named: string | null = null;
    let unreachable = false;
    try {
      const { res, url } = await this.fetch(`https://${host}/`, deadline, 'text/html');
      if (res.statusCode === 200 && /^text\/html/i.test(String(res.headers['content-type'] ?? '')))
        named = (await readHead(res, url, deadline)).icon;
      else res.resume();
    } catch (err) {
      if (!(err instanceof PreviewFailed)) throw err;
      unreachable = true;
    }
    for (const candidate of named ? [named, `https://${host}/favicon.ico`] : [`https://${host}/favicon.ico`]) {
      const found = await this.image(candidate, deadline);
      if (found === 'unreachable') unreachable = true;
      else if (found) return { icon: found, unreachable: false };
    }
    return { icon: null, unreachable };
  }

  private async image(address: string, deadline: number): Promise<Favicon | null | 'unreachable'> {
    try {
      const { res } = await this.fetch(address, deadline, 'image/*');
      if (res.statusCode !== 200) {
        res.resume();
        return null;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res) {
        size += (chunk as Buffer).length;
        if (size > MAX_ICON_BYTES) {
          res.destroy();
          return null;
        }
        chunks.push(chunk as Buffer);
      }
      const bytes = Buffer.concat(chunks);
      const type = rasterType(bytes);
      return type ? { type, bytes } : null;
    } catch (err) {
      if (err instanceof PreviewFailed || (err as NodeJS.ErrnoException).code !== undefined) return 'unreachable';
      throw err;
    }
  }
}
