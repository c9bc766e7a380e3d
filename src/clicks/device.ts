// What a stored click keeps of its visitor: device, browser and OS from the User-Agent, and the
// referrer's host. Parsing is cached per User-Agent string because the same few strings make up
// most traffic.
import { UAParser } from 'ua-parser-js';
import { BoundedCache } from '../domain/bounded-cache.ts';

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
