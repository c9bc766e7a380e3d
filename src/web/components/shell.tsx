// The signed-in frame: a top bar with the product, the workspace switcher, the main navigation
// (main-nav.tsx) and signing out; then the screen in <main>.
import type { ReactNode } from 'react';
import { Link, useLocation, useRoute } from 'wouter';
import { useSignOut } from '../api/account.ts';
import { lastWorkspace, useSignedIn } from '../api/session.ts';
import { Options } from './fields.tsx';
import { MainNav } from './main-nav.tsx';

export function Shell({ children }: { children: ReactNode }) {
  const session = useSignedIn();
  const [location, navigate] = useLocation();
  const [inWorkspace, params] = useRoute<{ workspaceId: string }>('/w/:workspaceId/*?');
  const current =
    (inWorkspace && session.workspaces.find((w) => w.id === params.workspaceId)) || lastWorkspace(session);
  const ws = current ? `/w/${encodeURIComponent(current.id)}` : null;

  // Signed out or already ended: either way the sign-in form is next.
  const signOut = useSignOut(() => navigate('/login', { replace: true }));

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <Link href="/" className="brand">
            <span className="brand-mark" aria-hidden="true" />
            Shortlink
          </Link>
          {session.workspaces.length > 0 ? (
            <div className="switcher">
              <label htmlFor="workspace-switcher">Workspace</label>
              <select
                id="workspace-switcher"
                value={current?.id ?? ''}
                onChange={(e) => navigate(`/w/${encodeURIComponent(e.target.value)}/links`)}
              >
                <Options choices={session.workspaces.map((w) => ({ value: w.id, label: w.name }))} />
              </select>
            </div>
          ) : null}
          {ws ? <MainNav ws={ws} location={location} /> : null}
          <div className="account">
            <Link
              href="/account"
              className="account-link"
              aria-current={location === '/account' ? 'page' : undefined}
              aria-label={`Account (${session.user.email})`}
              title={session.user.email}
            >
              <span className="account-email">{session.user.email}</span>
              <span className="account-word">Account</span>
            </Link>
            <button
              type="button"
              className="button button-small"
              onClick={() => signOut.mutate()}
              disabled={signOut.isPending}
            >
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main id="main" className="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** The header of a page seen without a session: the product's name (not a link), then `children`. */
export function PublicHeader({ className, children }: { className?: string; children?: ReactNode }) {
  return (
    <header className={className ? `public-header ${className}` : 'public-header'}>
      <span className="brand">
        <span className="brand-mark" aria-hidden="true" />
        Shortlink
      </span>
      {children}
    </header>
  );
}

/** The frame of the screens that need no session (sign in, set-up links, the first run). */
export function PublicFrame({ children }: { children: ReactNode }) {
  return (
    <div className="public">
      <PublicHeader />
      <main id="main" className="public-main">
        <div className="card public-card">{children}</div>
      </main>
    </div>
  );
}
