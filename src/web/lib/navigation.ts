// Where the person is in the app, and sending them to sign in when their session has ended.
import { navigate } from 'wouter/use-browser-location';
import { APP_BASE } from './app-paths.ts';

export { APP_BASE, isPublicScreen, safeNext } from './app-paths.ts';

/** The current address inside the app ("/w/ws_1/links?page=2"). */
export function currentAppPath(): string {
  const { pathname, search } = window.location;
  const inside =
    pathname === APP_BASE || pathname.startsWith(`${APP_BASE}/`) ? pathname.slice(APP_BASE.length) || '/' : '/';
  return inside + search;
}

/** The sign-in screen, remembering where the person was going. */
export function signInPath(next: string): string {
  return next === '/' ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}

/** Navigates outside React (the API client's 401 handling). */
export function goTo(appPath: string, replace = false): void {
  navigate(`${APP_BASE}${appPath}`, { replace });
}
