// Two-step sign-in in the dashboard, end to end in Debian's Chromium against the service: an
// OWNER sets up an authenticator app on the Account screen (the key read off the screen, codes
// computed here as the app would), saves the recovery codes shown once, signs in again with a
// code (a wrong one refused first), then with a recovery code, which does not work twice; then
// requires a second factor in General settings after a question naming the ANALYST without one,
// who at their next sign-in can only set one up (the API answers 403) and then works as before.
// axe-core on every screen, screenshots in DASHBOARD_E2E_SHOTS_DIR (default /tmp/dashboard-e2e).
// SQLite only: the rules run on both engines in test/dashboard/second-factors.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { totpCode, TOTP_PERIOD_S } from '../../src/domain/second-factors';
import { closeAll, describeInChromium } from '../support/browser';
import type { Person } from '../support/dashboard';
import { acmeInChromium, type DashboardBrowser } from '../support/dashboard-browser';
import { startTestServer, type TestServer } from '../support/server';

const STEP_MS = TOTP_PERIOD_S * 1000;

describeInChromium('two-step sign-in in the dashboard, in Chromium (sqlite)', () => {
  let server: TestServer;
  let browser: Browser;
  let b: DashboardBrowser;
  let workspaceId: string;
  let owner: Person;
  let analyst: Person;
  let page: Page;
  let secret: string;
  let recoveryCodes: string[];
  const h1 = (p: Page) => p.getByRole('heading', { level: 1 });

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    ({ browser, b, workspaceId, owner, analyst } = await acmeInChromium(server));
    page = await b.signedInPage(owner);
  }, 60_000);
  afterAll(() => closeAll(browser, server));

  /** Sets up the app on the screen `p` shows: the key read off it, a code computed from it; the recovery codes. */
  async function enrolOnScreen(p: Page, shot: string) {
    await p.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await p.getByRole('img', { name: 'QR code to scan with your authenticator app' }).waitFor();
    await b.look(p, `${shot}-scan`);
    const key = ((await p.locator('.enrolment-key').textContent()) ?? '').replace(/\s+/g, '');
    expect(key).toMatch(/^[A-Z2-7]{32}$/);
    await p.getByLabel('Code from the app').fill(totpCode(key, Date.now()));
    await p.getByRole('button', { name: 'Turn on' }).click();
    const list = p.getByRole('list', { name: 'Recovery codes' });
    await list.waitFor();
    const codes = (await list.getByRole('listitem').allTextContents()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    await b.look(p, `${shot}-codes`);
    return { key, codes };
  }

  async function signOut(p: Page) {
    await p.getByRole('button', { name: 'Sign out', exact: true }).click();
    await expect.poll(() => h1(p).textContent()).toBe('Sign in');
  }

  it('sets up an authenticator app on the Account screen and shows the recovery codes once', async () => {
    await page.getByRole('link', { name: /^Account/ }).click();
    const panel = page.getByRole('region', { name: 'Two-step sign-in' });
    await panel.getByRole('button', { name: 'Set up an authenticator app' }).waitFor();
    await b.look(page, '2fa-account-off');
    // A wrong code does not turn it on.
    await panel.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await panel.getByLabel('Code from the app').fill('12345');
    await panel.getByRole('button', { name: 'Turn on' }).click();
    await panel.getByText('That code is not correct').waitFor();
    expect(await panel.getByLabel('Code from the app').getAttribute('aria-invalid')).toBe('true');
    // Starting again makes a new key.
    await page.reload();
    ({ key: secret, codes: recoveryCodes } = await enrolOnScreen(page, '2fa-account'));
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await panel.getByText('Recovery codes left').waitFor();
    await expect.poll(() => panel.getByText('10 of 10').count()).toBe(1);
    await b.look(page, '2fa-account-on');
  });

  it('signing in asks for a code after the password: a wrong one is refused, the right one signs in', async () => {
    await signOut(page);
    await b.signInThroughForm(page, owner);
    await expect.poll(() => h1(page).textContent()).toBe('Enter your authentication code');
    await b.look(page, '2fa-sign-in-code');
    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('That code is not correct').waitFor();
    await b.look(page, '2fa-sign-in-wrong');
    // The step after the one the enrolment used (a code is accepted once).
    await page.getByLabel('Authentication code').fill(totpCode(secret, Date.now() + STEP_MS));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Links');
  });

  it('a recovery code signs in once', async () => {
    await signOut(page);
    await b.signInThroughForm(page, owner);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Enter a recovery code');
    await b.look(page, '2fa-sign-in-recovery');
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Links');
    await signOut(page);
    await b.signInThroughForm(page, owner);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('That recovery code is not correct or was used already').waitFor();
    await page.getByLabel('Recovery code').fill(recoveryCodes[1]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Links');
  });

  it('an OWNER requires a second factor after a question naming who has none; that member can only enrol', async () => {
    await page.goto(`${server.url}/app/w/${workspaceId}/settings`);
    const panel = page.getByRole('region', { name: 'Two-step sign-in' });
    await panel.getByText(`Without a second factor: ${analyst.email}.`).waitFor();
    await b.look(page, '2fa-settings-off');
    await panel.getByRole('button', { name: 'Require a second factor' }).click();
    const dialog = page.getByRole('dialog', { name: 'Require a second factor?' });
    await dialog.getByText(`${analyst.email} (Analyst)`).waitFor();
    await b.look(page, '2fa-settings-question');
    await dialog.getByRole('button', { name: 'Require a second factor' }).click();
    await panel.getByText('Members must now use a second factor.').waitFor();
    await b.look(page, '2fa-settings-on');

    const { page: theirs } = await b.newPersonPage();
    await b.signInThroughForm(theirs, analyst);
    await expect.poll(() => h1(theirs).textContent()).toBe('Set up two-step sign-in');
    await theirs.getByText('Acme requires its members to use a second factor.', { exact: false }).waitFor();
    await b.look(theirs, '2fa-required');
    const refused = await b.apiFromPage(theirs, 'GET', `/app/api/workspaces/${workspaceId}/links`);
    expect(refused.status).toBe(403);
    expect(refused.body?.error).toMatch(/^Acme requires a second factor/);
    // Any address leads to the same screen until they have one.
    await theirs.goto(`${server.url}/app/w/${workspaceId}/links`);
    await expect.poll(() => h1(theirs).textContent()).toBe('Set up two-step sign-in');
    await enrolOnScreen(theirs, '2fa-required');
    await theirs.getByRole('button', { name: 'I have saved them' }).click();
    await expect.poll(() => h1(theirs).textContent()).toBe('Links');
    expect((await b.apiFromPage(theirs, 'GET', `/app/api/workspaces/${workspaceId}/links`)).status).toBe(200);
    await b.look(theirs, '2fa-required-done');
    expect(b.errors).toEqual([]);
  });
});
