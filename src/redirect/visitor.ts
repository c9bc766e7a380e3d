// What the redirect path learns about a visitor: person or bot, prefetch, device. Parsing is
// cached per User-Agent string because the same few strings make up most traffic.
import { isbot } from 'isbot';
import { UAParser } from 'ua-parser-js';

class BoundedCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string, make: (key: string) => V): V {
    let v = this.map.get(key);
    if (v === undefined) {
      if (this.map.size >= this.max) this.map.clear();
      v = make(key);
      this.map.set(key, v);
    }
    return v;
  }
}

const botCache = new BoundedCache<boolean>(10_000);
/** Crawlers, link checkers and clients with no User-Agent are not people. */
export function isBot(userAgent: string | undefined): boolean {
  if (!userAgent) return true;
  return botCache.get(userAgent, isbot);
}

/** Browsers announce speculative loads; those are not clicks. */
export function isPrefetch(headers: Record<string, string | string[] | undefined>): boolean {
  const purpose = headers['sec-purpose'] ?? headers.purpose ?? headers['x-purpose'] ?? headers['x-moz'];
  if (!purpose) return false;
  return /prefetch|prerender|preview/i.test(String(purpose));
}

export interface Device {
  device: string | null;
  browser: string | null;
  os: string | null;
}
const deviceCache = new BoundedCache<Device>(5_000);
export function parseDevice(userAgent: string | undefined): Device {
  if (!userAgent) return { device: null, browser: null, os: null };
  return deviceCache.get(userAgent, (ua) => {
    const r = UAParser(ua);
    return {
      device: r.device.type ?? 'desktop',
      browser: r.browser.name ?? null,
      os: r.os.name ?? null,
    };
  });
}

export function referrerHost(referer: string | undefined): string | null {
  if (!referer) return null;
  try {
    return new URL(referer).hostname.slice(0, 253) || null;
  } catch {
    return null;
  }
}
