// Addresses inside the app (under /app), without the browser: which screens need no session, and
// where sign-in may send the person afterwards.

export const APP_BASE = '/app';

/** Screens that need no session: a 401 there is the screen's own business. */
const PUBLIC_SCREENS = ['/login', '/setup', '/setup-password', '/invite'];

/** Resolves paths the way the browser will; the host is never used. */
const PLACEHOLDER_ORIGIN = 'https://app.invalid';

export function isPublicScreen(path: string): boolean {
  const pathname = path.split('?')[0];
  // A shared report is read signed out: its 401 asks for the report's password, not a sign-in.
  return PUBLIC_SCREENS.includes(pathname) || pathname.startsWith('/shared/');
}

/**
 * An address inside the app to return to after signing in ("/w/ws_1/links?page=2"), or "/".
 * `next` is resolved as the browser would resolve it under /app (dot segments, encoded dots,
 * backslashes), and kept only when the result is still under /app/: otherwise a path such as
 * "/w/../../x" would leave the app for a short link on this host, which may redirect anywhere.
 */
export function safeNext(next: string | null): string {
  // Only a plain path: a scheme, an authority ("//host") or what a URL parser turns into one
  // (a backslash, a tab or line break it strips) is never a place in the app.
  if (!next?.startsWith('/') || /[\\\u0000-\u001f\u007f]/.test(next)) return '/';
  let url: URL;
  try {
    url = new URL(`${APP_BASE}${next}`, PLACEHOLDER_ORIGIN);
  } catch {
    return '/';
  }
  if (url.origin !== PLACEHOLDER_ORIGIN) return '/';
  if (url.pathname !== APP_BASE && !url.pathname.startsWith(`${APP_BASE}/`)) return '/';
  const inside = url.pathname.slice(APP_BASE.length) || '/';
  if (inside.startsWith('//')) return '/';
  const resolved = `${inside}${url.search}${url.hash}`;
  return isPublicScreen(resolved) ? '/' : resolved;
}
