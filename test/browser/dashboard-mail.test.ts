// Forgot password and a person's sessions in Debian's Chromium against the service and a real SMTP
// server on loopback (test/support/smtp.ts): "Forgot your password?" from the sign-in screen, the
// same answer for an email with an account and one without, the mailed link followed to choose a
// new password (signed in here, the other browser signed out); Account › Your sessions listing both
// browsers, one signed out from its row. axe-core on every screen, screenshots in
// DASHBOARD_E2E_SHOTS_DIR (default /tmp/dashboard-e2e). SQLite only: the rules run on both engines
// in test/dashboard/mail.test.ts and own-sessions.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { closeAll, describeInChromium } from '../support/browser';
import type { Person } from '../support/dashboard';
import { acmeInChromium, type DashboardBrowser } from '../support/dashboard-browser';
import { linkIn, startSmtp, type TestSmtp } from '../support/smtp';
import { startTestServer, type TestServer } from '../support/server';

const NEW_PASSWORD = 'a new password for ada';

describeInChromium('forgot password and sessions, in Chromium (sqlite)', () => {
  let smtp: TestSmtp;
  let server: TestServer;
  let browser: Browser;
  let b: DashboardBrowser;
  let owner: Person;
  let elsewhere: Page;

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer('sqlite', { env: { SMTP_URL: smtp.url } });
    ({ browser, b, owner } = await acmeInChromium(server));
    // Ada is signed in on another browser too.
    elsewhere = await b.signedInPage(owner);
  }, 60_000);
  afterAll(async () => {
    await closeAll(browser, server);
    await smtp?.close();
  });

  const askForLink = async (page: Page, email: string) => {
    await page.goto(`${server.url}/app/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await page.getByText(/a link to set a new password is on its way/).waitFor();
    return (await page.getByRole('status').first().textContent())?.trim();
  };

  it('mails a link for an account, says the same for an email without one, and the link sets a new password', async () => {
    const { page } = await b.newPersonPage();
    await page.goto(`${server.url}/app/forgot-password`);
    await page.getByRole('button', { name: 'Email me a link' }).waitFor();
    await b.look(page, 'forgot-password');
    // An empty form is refused at its field.
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await expect.poll(() => page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');

    const unknown = await askForLink(page, 'nobody@acme.example');
    const known = await askForLink(page, owner.email);
    expect(known).toMatch(/^If this email has a Shortlink account, a link to set a new password is on its way/);
    expect(unknown).toBe(known);
    await b.look(page, 'forgot-password-sent');

    const link = linkIn(await smtp.waitFor(owner.email, /new Shortlink password/));
    expect(smtp.to('nobody@acme.example')).toEqual([]);
    await page.goto(link.href.replace('https://localhost:8443', server.url));
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    await b.look(page, 'reset-password');
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { level: 1, name: 'Links' }).waitFor();
    // The other browser's session ended with the reset.
    expect((await b.apiFromPage(elsewhere, 'GET', '/app/api/session')).status).toBe(401);
    // The link worked once.
    await page.goto(link.href.replace('https://localhost:8443', server.url));
    await page.getByLabel('Password', { exact: true }).fill('another password here');
    await page.getByLabel('Confirm password').fill('another password here');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/not valid any more/);
    owner.password = NEW_PASSWORD;
  });

  it('lists both browsers on Account and signs the other one out from its row', async () => {
    const other = await b.signedInPage(owner);
    const page = await b.signedInPage(owner);
    await page.goto(`${server.url}/app/account`);
    const table = page.getByRole('table', { name: 'Your sessions' });
    await expect.poll(() => table.getByRole('row').count()).toBeGreaterThanOrEqual(3);
    await expect.poll(() => table.getByText('This browser').count()).toBe(1);
    await b.look(page, 'account-sessions');
    const before = await table.getByRole('row').count();
    await table
      .getByRole('button', { name: /^Sign out Chrome on Linux, signed in/ })
      .first()
      .click();
    await b.look(page, 'account-sessions-confirm');
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('Chrome on Linux is signed out.').waitFor();
    await expect.poll(() => table.getByRole('row').count()).toBe(before - 1);
    // Everywhere else: only this browser stays.
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere else' }).click();
    await page.getByText('Every other session has ended.').waitFor();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    expect((await b.apiFromPage(other, 'GET', '/app/api/session')).status).toBe(401);
    expect((await b.apiFromPage(page, 'GET', '/app/api/session')).status).toBe(200);
    await b.look(page, 'account-sessions-alone');
    expect(b.errors).toEqual([]);
  });
});
