// Passkeys in the dashboard, end to end in Debian's Chromium against the service, with Chromium's
// virtual authenticator (DevTools protocol: WebAuthn.enable, WebAuthn.addVirtualAuthenticator;
// CTAP2, internal, resident keys, user verification): an OWNER adds a passkey on the Account
// screen and renames it, signs out and in with the passkey alone, then with the password, when
// the passkey is asked as the second step; removes it, after which the authenticator's copy is
// refused and the password alone signs in. axe-core on every screen, screenshots `passkeys-*.png`
// in DASHBOARD_E2E_SHOTS_DIR (default /tmp/dashboard-e2e). SQLite only: the rules run on both
// engines in test/dashboard/passkeys.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { closeAll, describeInChromium } from '../support/browser';
import type { Person } from '../support/dashboard';
import { acmeInChromium, type DashboardBrowser } from '../support/dashboard-browser';
import { startTestServer, type TestServer } from '../support/server';

describeInChromium('passkeys in the dashboard, in Chromium (sqlite)', () => {
  let server: TestServer;
  let browser: Browser;
  let b: DashboardBrowser;
  let owner: Person;
  let analyst: Person;
  let workspaceId: string;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  const h1 = (p: Page) => p.getByRole('heading', { level: 1 });
  const credentials = async () =>
    (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as Array<{
      isResidentCredential: boolean;
      rpId?: string;
      signCount: number;
    }>;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    ({ browser, b, owner, analyst, workspaceId } = await acmeInChromium(server));
    page = await b.signedInPage(owner);
    ({ cdp, authenticatorId } = await withAuthenticator(page));
  }, 60_000);
  afterAll(() => closeAll(browser, server));

  /**
   * The page's own authenticator, as a laptop's fingerprint reader: it stays with the page's
   * target across navigations, signing out and in.
   */
  async function withAuthenticator(p: Page) {
    const session = await p.context().newCDPSession(p);
    await session.send('WebAuthn.enable');
    const added = await session.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return { cdp: session, authenticatorId: added.authenticatorId };
  }

  async function signOut(p: Page) {
    await p.getByRole('button', { name: 'Sign out', exact: true }).click();
    await expect.poll(() => h1(p).textContent()).toBe('Sign in');
  }

  it('adds a passkey on the Account screen (a name asked first) and renames it', async () => {
    await page.getByRole('link', { name: /^Account/ }).click();
    const panel = page.getByRole('region', { name: 'Passkeys' });
    await panel.getByText('You have no passkey yet.').waitFor();
    await b.look(page, 'passkeys-account-empty');
    await panel.getByRole('button', { name: 'Add a passkey' }).click();
    await panel.getByText('Name the passkey, such as "Laptop" or "Phone".').waitFor();
    expect(await panel.getByLabel('Passkey name').getAttribute('aria-invalid')).toBe('true');
    expect(await credentials()).toHaveLength(0);
    await panel.getByLabel('Passkey name').fill('Laptop');
    await panel.getByRole('button', { name: 'Add a passkey' }).click();
    await panel.getByText('Laptop is added. You can sign in with it now.').waitFor();
    const list = panel.getByRole('list', { name: 'Your passkeys' });
    await list.getByText('Laptop', { exact: true }).waitFor();
    await list.getByText('not used yet').waitFor();
    // The authenticator keeps a discoverable credential for the dashboard's host.
    const held = await credentials();
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    await b.look(page, 'passkeys-account-added');

    await panel.getByRole('button', { name: 'Rename Laptop' }).click();
    await panel.getByLabel('New name for Laptop').fill('Work laptop');
    await b.look(page, 'passkeys-account-rename');
    await panel.getByRole('button', { name: 'Save' }).click();
    await panel.getByText('Renamed to Work laptop.').waitFor();
    await list.getByText('Work laptop', { exact: true }).waitFor();
  });

  it('signs in with the passkey alone: no email, no password', async () => {
    await signOut(page);
    await b.look(page, 'passkeys-sign-in');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Links');
    const session = await b.apiFromPage(page, 'GET', '/app/api/session');
    expect((session.body as unknown as { user: { email: string } }).user.email).toBe(owner.email);
    expect((await credentials())[0].signCount).toBeGreaterThan(0);
  });

  it('asks for the passkey as the second step after the password', async () => {
    await signOut(page);
    await b.signInThroughForm(page, owner);
    await expect.poll(() => h1(page).textContent()).toBe('Use your passkey');
    await b.look(page, 'passkeys-second-step');
    await page.getByRole('button', { name: 'Use your passkey' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Links');
    await page.getByRole('link', { name: /^Account/ }).click();
    const list = page.getByRole('region', { name: 'Passkeys' }).getByRole('list', { name: 'Your passkeys' });
    await list.getByText(/last used/).waitFor();
  });

  it("removes the passkey after a question: the authenticator's copy signs in no more, the password alone does", async () => {
    const panel = page.getByRole('region', { name: 'Passkeys' });
    await panel.getByRole('button', { name: 'Remove Work laptop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove Work laptop?' });
    await dialog.getByText('It signs you in no more.', { exact: false }).waitFor();
    await b.look(page, 'passkeys-remove-question');
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await panel.getByText('Work laptop is removed: it signs in no more.').waitFor();
    await panel.getByText('You have no passkey yet.').waitFor();
    await b.look(page, 'passkeys-account-removed');

    await signOut(page);
    // The authenticator still holds it; the service refuses it.
    expect(await credentials()).toHaveLength(1);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByText('This passkey is not known here: it may have been removed').waitFor();
    await b.look(page, 'passkeys-sign-in-refused');
    await b.signInThroughForm(page, owner);
    await expect.poll(() => h1(page).textContent()).toBe('Links');
    expect(b.errors).toEqual([]);
  });

  it("meets a workspace's requirement: a member held to set up two-step sign-in adds a passkey there and carries on", async () => {
    await server.services.db.knex('workspaces').where({ id: workspaceId }).update({ require_second_factor: true });
    const { page: theirs } = await b.newPersonPage();
    await withAuthenticator(theirs);
    await b.signInThroughForm(theirs, analyst);
    await expect.poll(() => h1(theirs).textContent()).toBe('Set up two-step sign-in');
    expect((await b.apiFromPage(theirs, 'GET', `/app/api/workspaces/${workspaceId}/links`)).status).toBe(403);
    await theirs.getByLabel('Passkey name').fill('Phone');
    await b.look(theirs, 'passkeys-required');
    await theirs.getByRole('button', { name: 'Add a passkey' }).click();
    await expect.poll(() => h1(theirs).textContent()).toBe('Links');
    expect((await b.apiFromPage(theirs, 'GET', `/app/api/workspaces/${workspaceId}/links`)).status).toBe(200);
    expect(b.errors).toEqual([]);
  });
});
