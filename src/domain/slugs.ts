import { randomString } from './ids.ts';

export const RESERVED_SLUGS = new Set([
  'api',
  'admin',
  'app',
  'assets',
  'dashboard',
  'docs',
  'healthz',
  'readyz',
  'metrics',
  'login',
  'logout',
  'qr',
  'settings',
  'static',
  'www',
  'favicon.ico',
  'robots.txt',
  // The published OpenAPI document, /openapi.json, on the host that is also the short domain.
  'openapi.json',
]);
const SLUG_CHARS = /^[a-z0-9_-]{1,64}$/;
const GENERATED_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

export type SlugCheck = { ok: true; slug: string } | { ok: false; reason: 'reserved' | 'invalid' };

/** Slugs are lowercased; reserved names are a conflict (409), a bad charset is a 400. */
export function checkSlug(input: string): SlugCheck {
  const slug = input.toLowerCase();
  if (RESERVED_SLUGS.has(slug)) return { ok: false, reason: 'reserved' };
  if (!SLUG_CHARS.test(slug)) return { ok: false, reason: 'invalid' };
  return { ok: true, slug };
}

export function generateSlug(): string {
  return randomString(7, GENERATED_CHARS);
}
