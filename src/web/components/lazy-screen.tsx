// A screen loaded on first use (React.lazy), and what the person sees when it cannot be: never a
// blank page.
//
// Vite names every built file by its content, and an upgrade of the service replaces dist/web, so
// a tab opened before the upgrade asks for files the server no longer has the first time it opens
// such a screen. The same happens when the connection drops. React then throws from the lazy
// component, and without a boundary it unmounts the whole app.
//  - `vite:preloadError` (Vite's event when a lazily loaded file or one of its imports fails):
//    the page reloads once, which fetches the current index.html and its files, so an upgrade
//    costs the person one reload at the screen they asked for. A second failure within
//    RELOAD_GUARD_MS does not reload again (the server or the network is down, not upgraded).
//  - ScreenBoundary (around every screen: the signed-in frame keys one by the address, the shared
//    report has its own): what a failure that is not reloaded away shows in place of the screen,
//    with a button to reload; also any error a screen throws while rendering.
// Both are React's and Vite's documented mechanisms; only the messages are ours.
import { Component, Suspense, type ComponentType, type ReactNode } from 'react';
import { Loading } from './feedback.tsx';

const RELOAD_KEY = 'shortlink:reloaded-after-load-error';
/** A load error this soon after the reload it caused is not reloaded again. */
export const RELOAD_GUARD_MS = 30_000;

/** Installs the reload on Vite's preload errors (main.tsx, once). */
export function reloadOnStaleBuild(): void {
  window.addEventListener('vite:preloadError', () => {
    let last = 0;
    try {
      last = Number(sessionStorage.getItem(RELOAD_KEY) ?? 0);
      if (Date.now() - last < RELOAD_GUARD_MS) return; // the boundary shows it
      sessionStorage.setItem(RELOAD_KEY, String(Date.now()));
    } catch {
      return; // no sessionStorage (a locked-down browser): no guard, so no automatic reload
    }
    // Not preventDefault(): Vite would then resolve the import with nothing, and the boundary
    // would say the screen broke. The error goes on to the boundary, which says it could not be
    // loaded for the moment the page takes to unload.
    window.location.reload();
  });
}

/** A dynamically imported file that did not arrive (Chromium, Firefox and Safari word it differently). */
export function isLoadError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /dynamically imported module|module script failed|Unable to preload|error loading dynamically/i.test(message);
}

interface BoundaryState {
  error: unknown;
}

/** Shows a screen's failure in its place, with a way to reload. A class: React has no hook for this. */
export class ScreenBoundary extends Component<
  { children: ReactNode; frame?: ComponentType<{ children: ReactNode }> },
  BoundaryState
> {
  state: BoundaryState = { error: null };

  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { error };
  }

  render() {
    if (this.state.error === null) return this.props.children;
    const load = isLoadError(this.state.error);
    const Frame = this.props.frame ?? Unframed;
    return (
      <Frame>
        <div className="state state-error" role="alert">
          <h2>{load ? 'This screen could not be loaded' : 'This screen stopped working'}</h2>
          <p>
            {load
              ? 'Shortlink may have been updated since this tab was opened, or the connection dropped. Reloading the page fetches the current version.'
              : 'Something went wrong while showing it. Reloading the page usually helps; nothing you saved is lost.'}
          </p>
          <button type="button" className="button" onClick={() => window.location.reload()}>
            Reload the page
          </button>
        </div>
      </Frame>
    );
  }
}

const Unframed = ({ children }: { children: ReactNode }) => <>{children}</>;

/**
 * A lazily loaded screen: `loading` while its files arrive. A failure goes to the ScreenBoundary
 * around it (the signed-in frame's, keyed by the address; the shared report's own).
 */
export function LazyScreen({ loading, children }: { loading: string; children: ReactNode }) {
  return <Suspense fallback={<Loading label={loading} />}>{children}</Suspense>;
}
