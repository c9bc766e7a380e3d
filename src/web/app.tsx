// Routes (all under /app). Sign-in, forgot password, the set-up and reset screens and an invitation need no session;
// everything else is inside the signed-in frame. Analytics, routing, conversions, goals, pages and import
// load on first use (uPlot, the CSV report).
import { lazy, Suspense, useEffect, type ComponentType, type ReactNode } from 'react';
import { Redirect, Route, Router, Switch, useLocation, useParams } from 'wouter';
import { asApiError } from './api/errors.ts';
import { rememberWorkspace, useSession, useSignedIn } from './api/session.ts';
import { LoadError, Loading } from './components/feedback.tsx';
import { LazyScreen, ScreenBoundary } from './components/lazy-screen.tsx';
import { PageHeader } from './components/page.tsx';
import { KeyboardHelp } from './components/keyboard-help.tsx';
import { PublicFrame, Shell } from './components/shell.tsx';
import { APP_BASE } from './lib/navigation.ts';
import { Account } from './screens/account.tsx';
import { RequiredEnrolment } from './screens/account-security.tsx';
import { FirstRun } from './screens/first-run.tsx';
import { ForgotPassword } from './screens/forgot-password.tsx';
import { Invite } from './screens/invite.tsx';
import { LinkEditor } from './screens/links/link-editor.tsx';
import { LinksList } from './screens/links/links-list.tsx';
import { SetupPassword } from './screens/setup-password.tsx';
import { AuditLog } from './screens/settings/audit.tsx';
import { Campaigns } from './screens/settings/campaigns.tsx';
import { Domains } from './screens/settings/domains.tsx';
import { GeneralSettings } from './screens/settings/general.tsx';
import { ApiKeys } from './screens/settings/keys.tsx';
import { Members } from './screens/settings/members.tsx';
import { Tags } from './screens/settings/tags.tsx';
import { SsoSettings } from './screens/settings/sso.tsx';
import { SignIn } from './screens/sign-in.tsx';

const LinkAnalytics = lazy(() => import('./screens/analytics/link-analytics.tsx'));
const LinkRouting = lazy(() => import('./screens/links/link-routing.tsx'));
const ImportExport = lazy(() => import('./screens/import-export.tsx'));
const Conversions = lazy(() => import('./screens/conversions/conversions.tsx'));
const Goals = lazy(() => import('./screens/goals/goals.tsx'));
const GoalDetail = lazy(() => import('./screens/goals/goal-detail.tsx'));
const Pages = lazy(() => import('./screens/pages/pages.tsx'));
const PageEditor = lazy(() => import('./screens/pages/page-editor.tsx'));
const PageAnalytics = lazy(() => import('./screens/pages/page-analytics.tsx'));
const Webhooks = lazy(() => import('./screens/settings/webhooks/webhooks.tsx'));
const Reports = lazy(() => import('./screens/reports/reports.tsx'));
const SharedReport = lazy(() => import('./screens/reports/shared-report.tsx'));

/**
 * The screens of a workspace, under /w/:workspaceId/ and tried in this order; `loading` is the
 * label shown while a screen loaded on first use arrives.
 */
const WORKSPACE_SCREENS: { path: string; screen: ComponentType; loading?: string }[] = [
  { path: 'links', screen: LinksList },
  { path: 'links/new', screen: LinkEditor },
  { path: 'links/:linkId/analytics', screen: LinkAnalytics, loading: 'Loading analytics…' },
  { path: 'links/:linkId/routing', screen: LinkRouting, loading: 'Loading the routing…' },
  { path: 'links/:linkId', screen: LinkEditor },
  { path: 'import', screen: ImportExport, loading: 'Loading import and export…' },
  { path: 'conversions', screen: Conversions, loading: 'Loading conversions…' },
  { path: 'goals', screen: Goals, loading: 'Loading goals…' },
  { path: 'goals/:goalId', screen: GoalDetail, loading: 'Loading the goal…' },
  { path: 'reports', screen: Reports, loading: 'Loading reports…' },
  { path: 'pages', screen: Pages, loading: 'Loading pages…' },
  { path: 'pages/new', screen: PageEditor, loading: 'Loading the editor…' },
  { path: 'pages/:pageId/analytics', screen: PageAnalytics, loading: 'Loading analytics…' },
  { path: 'pages/:pageId', screen: PageEditor, loading: 'Loading the page…' },
  { path: 'settings', screen: GeneralSettings },
  { path: 'settings/keys', screen: ApiKeys },
  { path: 'settings/members', screen: Members },
  { path: 'settings/domains', screen: Domains },
  { path: 'settings/tags', screen: Tags },
  { path: 'settings/campaigns', screen: Campaigns },
  { path: 'settings/webhooks', screen: Webhooks, loading: 'Loading webhooks…' },
  { path: 'settings/sso', screen: SsoSettings },
  { path: 'settings/audit', screen: AuditLog },
];

export function App() {
  return (
    <Router base={APP_BASE}>
      <Switch>
        <Route path="/login" component={SignIn} />
        <Route path="/setup-password">
          <SetupPassword />
        </Route>
        <Route path="/forgot-password" component={ForgotPassword} />
        <Route path="/reset-password">
          <SetupPassword reset />
        </Route>
        <Route path="/setup" component={FirstRun} />
        <Route path="/invite" component={Invite} />
        {/* A shared report is read signed out, outside the signed-in frame (loaded on first use). */}
        <Route path="/shared/:token">
          <ScreenBoundary frame={PublicFrame}>
            <Suspense
              fallback={
                <PublicFrame>
                  <Loading label="Opening the report…" />
                </PublicFrame>
              }
            >
              <SharedReport />
            </Suspense>
          </ScreenBoundary>
        </Route>
        <Route>
          <SignedIn />
        </Route>
      </Switch>
    </Router>
  );
}

function SignedIn() {
  const session = useSession();
  const [location] = useLocation();
  if (session.isPending) {
    return (
      <PublicFrame>
        <Loading label="Opening your workspace…" />
      </PublicFrame>
    );
  }
  if (session.isError) {
    // A 401 is on its way to the sign-in screen (the API client sends it there).
    if (asApiError(session.error).status === 401) return null;
    return (
      <PublicFrame>
        <h1>Shortlink is not answering</h1>
        <LoadError error={session.error} retry={() => session.refetch()} what="your session" />
      </PublicFrame>
    );
  }
  // A workspace's requirement holds the session to enrolling: nothing else would answer.
  if (session.data.secondFactor.restricted) return <RequiredEnrolment />;
  return (
    <Shell>
      <KeyboardHelp />
      {/* Keyed by the address: another screen starts without the last one's failure. */}
      <ScreenBoundary key={location}>
        <Switch>
          <Route path="/" component={Home} />
          <Route path="/account" component={Account} />
          {WORKSPACE_SCREENS.map(({ path, screen: Screen, loading }) => (
            <Route key={path} path={`/w/:workspaceId/${path}`}>
              <InWorkspace>
                {loading ? (
                  <LazyScreen loading={loading}>
                    <Screen />
                  </LazyScreen>
                ) : (
                  <Screen />
                )}
              </InWorkspace>
            </Route>
          ))}
          <Route>
            <PageHeader title="Page not found" />
            <div className="state">
              <p>There is nothing at this address. Use the navigation above to find your way.</p>
            </div>
          </Route>
        </Switch>
      </ScreenBoundary>
    </Shell>
  );
}

/** "/": the person's first workspace. */
function Home() {
  const session = useSignedIn();
  const ws = session.workspaces[0];
  if (ws) return <Redirect to={`/w/${encodeURIComponent(ws.id)}/links`} replace />;
  return (
    <>
      <PageHeader title="No workspace yet" />
      <div className="state">
        <p>You do not belong to any workspace yet. Ask an owner or admin of a workspace to add you.</p>
      </div>
    </>
  );
}

/** A workspace screen, for workspaces the person belongs to. */
function InWorkspace({ children }: { children: ReactNode }) {
  const { workspaceId } = useParams<{ workspaceId: string }>();
  const session = useSignedIn();
  const member = session.workspaces.some((w) => w.id === workspaceId);
  useEffect(() => {
    if (member) rememberWorkspace(workspaceId);
  }, [member, workspaceId]);
  if (!member) {
    return (
      <>
        <PageHeader title="Workspace not found" />
        <div className="state">
          <p>
            You are not a member of this workspace, or it does not exist. Choose one of yours in the Workspace menu
            above.
          </p>
        </div>
      </>
    );
  }
  return <>{children}</>;
}
