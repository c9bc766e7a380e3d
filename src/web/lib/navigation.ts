// Where the person is in the app, and sending them to sign in when their session has ended.
import { navigate } from 'wouter/use-browser-location';

export const APP_BASE = '/app';

/** Screens that need no session: a 401 there is the screen's own business. */
const PUBLIC_SCREENS = ['/login', '/setup', '/setup-password', '/invite'];

/** The current address inside the app ("/w/ws_1/links?page=2"). */
export function currentAppPath(): string {
  const { pathname, search } = window.location;
  const inside = pathname === APP_BASE || pathname.startsWith(`${APP_BASE}/`) ? pathname.slice(APP_BASE.length) || '/' : '/';
  return inside + search;
}

export function isPublicScreen(path: string): boolean {
  const pathname = path.split('?')[0];
  // A shared report is read signed out: its 401 asks for the report's password, not a sign-in.
  return PUBLIC_SCREENS.includes(pathname) || pathname.startsWith('/shared/');
}

/**
 * An address inside the app to return to after signing in, or "/" for anything else (another
 * origin, a protocol-relative URL, a public screen).
 */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (isPublicScreen(next)) return '/';
  return next;
}

/** The sign-in screen, remembering where the person was going. */
export function signInPath(next: string): string {
  return next === '/' ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}

/** Navigates outside React (the API client's 401 handling). */
export function goTo(appPath: string, replace = false): void {
  navigate(`${APP_BASE}${appPath}`, { replace });
}
