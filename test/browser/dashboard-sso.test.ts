// Single sign-on end to end in Debian's Chromium against the service and a real OpenID provider
// on loopback (test/support/oidc-provider.ts): an OWNER sets the provider up in Settings › Single
// sign-on, a new person signs in from the sign-in screen's "Sign in with SSO" (email first, the
// provider, back into the dashboard), and a refused sign-in comes back to the sign-in screen with
// its reason in words. axe-core on every screen, screenshots in DASHBOARD_E2E_SHOTS_DIR (default
// /tmp/dashboard-e2e). SQLite only: the rules run on both engines in test/dashboard/sso.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { closeAll, describeInChromium } from '../support/browser';
import type { Person } from '../support/dashboard';
import { acmeInChromium, type DashboardBrowser } from '../support/dashboard-browser';
import { callbackOf, ssoTestEnv, startTestProvider, type TestProvider } from '../support/oidc-provider';
import { startTestServer, type TestServer } from '../support/server';

describeInChromium('single sign-on in the dashboard, in Chromium (sqlite)', () => {
  let server: TestServer;
  let provider: TestProvider;
  let browser: Browser;
  let b: DashboardBrowser;
  let workspaceId: string;
  let owner: Person;
  const h1 = (p: Page) => p.getByRole('heading', { level: 1 });

  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: await ssoTestEnv() });
    provider = await startTestProvider(callbackOf(server));
    ({ browser, b, workspaceId, owner } = await acmeInChromium(server, [provider.issuer]));
  }, 60_000);
  afterAll(async () => {
    await closeAll(browser, provider, server);
  });

  it('lets the OWNER set the provider up in Settings › Single sign-on', async () => {
    const page = await b.signedInPage(owner);
    await page.goto(`${server.url}/app/w/${workspaceId}/settings`);
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Single sign-on' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Single sign-on');
    await page.getByText(callbackOf(server)).waitFor();
    await page.getByLabel('Issuer URL').fill(provider.issuer);
    await page.getByLabel('Client ID').fill(provider.clientId);
    await page.getByLabel('Client secret').fill(provider.clientSecret);
    await page.getByLabel('Email domains').fill('acme.example');
    await page.getByLabel('Role of new members').selectOption('MEMBER');
    await page.getByRole('button', { name: 'Save single sign-on' }).click();
    await page.getByText('Single sign-on is saved and on').waitFor();
    // The secret is never shown again: the field is empty, saying it is kept.
    await expect.poll(() => page.getByLabel('Client secret').inputValue()).toBe('');
    await page.getByText('Stored and never shown').waitFor();
    await b.look(page, 'sso-settings');
  });

  it('signs a new person in from the sign-in screen through the provider', async () => {
    provider.loginAs({ sub: 'browser-newcomer', email: 'newcomer@acme.example', email_verified: true });
    const { page } = await b.newPersonPage();
    await page.goto(`${server.url}/app/login`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.getByLabel('Email').fill('newcomer@acme.example');
    await expect.poll(() => page.getByLabel('Password', { exact: true }).count()).toBe(0);
    await b.look(page, 'sso-sign-in');
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await page
      .waitForURL((u) => !u.pathname.startsWith('/app/login'), { timeout: 10_000 })
      .catch(async () => {
        throw new Error(`stayed at ${page.url()}: ${await page.locator('main').textContent()}`);
      });
    // The provider signs the person in and sends the browser back, signed in, to the dashboard.
    await page.getByRole('heading', { level: 1, name: 'Links' }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/app\//);
    const me = (await page.evaluate(async () => (await fetch('/app/api/session')).json())) as {
      user: { email: string };
      workspaces: unknown[];
    };
    expect(me.user.email).toBe('newcomer@acme.example');
    expect(me.workspaces).toEqual([expect.objectContaining({ id: workspaceId, role: 'MEMBER' })]);
    await b.look(page, 'sso-signed-in');
  });

  it('brings a refused sign-in back to the sign-in screen with its reason', async () => {
    provider.loginAs({ sub: 'browser-unverified', email: 'unverified@acme.example', email_verified: false });
    const { page } = await b.newPersonPage();
    await page.goto(`${server.url}/app/login`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.getByLabel('Email').fill('unverified@acme.example');
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await page.getByRole('alert').filter({ hasText: 'has not verified your email address' }).waitFor();
    expect(new URL(page.url()).search).toBe('?sso_error=email_unverified');
    // A domain nobody signs in with SSO is said at once, without leaving.
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.getByLabel('Email').fill('someone@nowhere.example');
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await page.getByText('No single sign-on is set up for nowhere.example').waitFor();
    await b.look(page, 'sso-refused');
    expect(b.errors).toEqual([]);
  });
});
