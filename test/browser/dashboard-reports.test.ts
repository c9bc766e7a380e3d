// Shared reports, end to end in Debian's Chromium against the service and a real HTTPS receiver
// on loopback: a goal's report shared as UNLISTED from its screen ("Share"), report.shared
// arriving signed at a Variant A receiver with exactly its four fields, the report read signed
// out (the same figures as the goal's screen, noindex) and answering 404 once made PRIVATE on the
// Reports screen; a password-protected report made from the Conversions screen (the form, a wrong
// password, the right one); a link's analytics shared PUBLIC, its address regenerated (the old
// one answers 404) and deleted; a bio page's analytics shared from its screen and read signed out
// (its views, its blocks' clicks); an ANALYST who sees reports with no control (the API answers
// 403 when asked anyway). axe-core on every screen and the shared page, at desktop and phone widths;
// screenshots in DASHBOARD_E2E_SHOTS_DIR (default /tmp/dashboard-e2e). SQLite only: the rules run
// on both engines in test/dashboard/reports.test.ts and test/webhooks/report-shared.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeInChromium, closeAll, PERSON_USER_AGENT } from '../support/browser';
import { DASHBOARD_API, signIn, type DashboardClient, type Person } from '../support/dashboard';
import { acmeInChromium, type DashboardBrowser, openFromNav } from '../support/dashboard-browser';
import { startDeliveringServer, startReceiver, type DeliveringServer, type Receiver } from '../support/receiver';
import type { TestServer } from '../support/server';
import { createKey } from '../../src/db/repos/api-keys';
import { verifyVariantA } from '../../src/webhooks/verify';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** Answers the confirmation dialog named `dialog` with its button `confirm`. */
const confirmIn = (page: Page, dialog: string, confirm: string) =>
  page.getByRole('dialog', { name: dialog }).getByRole('button', { name: confirm }).click();

describeInChromium('shared reports in the dashboard, in Chromium (sqlite)', () => {
  let server: DeliveringServer;
  let receiver: Receiver;
  let browser: Browser;
  let b: DashboardBrowser;
  let workspaceId: string;
  let owner: Person;
  let analyst: Person;
  let key: string;
  let secret: string;
  let goalId: string;
  let linkId: string;
  let ownerApi: DashboardClient;
  let page: Page;
  const knex = () => server.services.db.knex;
  const h1 = (p: Page) => p.getByRole('heading', { level: 1 });
  /** The shared page's address on this test's server (the report's URL names PUBLIC_URL). */
  const onServer = (url: string) => `${server.url}${new URL(url).pathname}`;
  const reportCard = (p: Page, title: string) => p.getByRole('listitem', { name: title });

  /** Both widths: axe and a screenshot each. */
  async function lookBoth(p: Page, name: string) {
    await b.look(p, name);
    await p.setViewportSize(PHONE);
    await b.look(p, `${name}-phone`);
    await p.setViewportSize(DESKTOP);
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startDeliveringServer('sqlite', {
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_RETRY_SCALE: '0.01' },
    });
    ({ browser, b, workspaceId, owner, analyst } = await acmeInChromium(server));
    key = (
      await createKey(
        knex(),
        workspaceId,
        owner.userId,
        ['links:read', 'links:write', 'conversions:read', 'conversions:write', 'webhooks:write'],
        null,
      )
    ).key;
    const api = (server as unknown as TestServer).request;
    linkId = (
      await api('POST', '/api/v1/links', {
        key,
        body: { url: 'https://example.com/pricing', slug: 'pricing', title: 'Pricing page' },
      })
    ).body.data.id;
    const sub = await api('POST', '/api/webhooks', {
      key,
      body: { workspaceId, url: receiver.url('/hooks/reports'), events: ['report.shared'] },
    });
    expect(sub.status).toBe(201);
    secret = sub.body.data.secret;
    receiver.reply('/hooks/reports', [{ status: 204 }]);
    ownerApi = await signIn(server as unknown as TestServer, owner);
    goalId = (
      await ownerApi.request('POST', `/workspaces/${workspaceId}/goals`, {
        body: { name: 'Pricing purchases', type: 'purchase', linkId, targetCount: 4 },
      })
    ).body.data.id;
    for (const body of [
      { eventType: 'purchase', linkId, value: { amountMinor: 6_000, currency: 'EUR' } },
      { eventType: 'purchase', linkId, value: { amountMinor: 2_500, currency: 'EUR' } },
      { eventType: 'signup', linkId },
    ]) {
      expect((await api('POST', '/api/v1/conversions', { key, body })).status).toBe(201);
    }
    ({ page } = await b.newPersonPage());
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await b.signInThroughForm(page, owner);
    await page.getByRole('heading', { level: 1, name: 'Links' }).waitFor();
  }, 60_000);
  afterAll(() => closeAll(browser, server, receiver));

  let goalReportUrl: string;

  it("shares a goal's report as UNLISTED, the dialog's default; report.shared arrives signed; signed out, anyone with the URL reads the goal's figures", async () => {
    await page.goto(`${server.url}/app/w/${workspaceId}/goals/${goalId}`);
    await expect.poll(() => h1(page).textContent()).toBe('Pricing purchases');
    const bar = page.getByRole('progressbar', { name: /Conversions target/ });
    await expect.poll(() => bar.getAttribute('aria-label')).toBe('Conversions target: 2 of 4');

    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this view' });
    await expect.poll(() => dialog.getByLabel('Title').inputValue()).toBe('Pricing purchases, last 30 days');
    // Share shares: the dialog starts on Unlisted.
    await expect.poll(() => dialog.getByLabel('Visibility').inputValue()).toBe('UNLISTED');
    await dialog.getByLabel('Title').fill('Pricing purchases this month');
    await lookBoth(page, 'report-share-dialog');
    await dialog.getByRole('button', { name: 'Save report' }).click();
    const saved = page.getByRole('dialog', { name: 'Report saved' });
    const urlField = saved.getByLabel('Anyone with this link can read it');
    await expect
      .poll(() => urlField.inputValue())
      .toMatch(/^https:\/\/localhost:8443\/app\/shared\/[A-Za-z0-9_-]{43}$/);
    goalReportUrl = await urlField.inputValue();
    await b.look(page, 'report-share-saved');
    await saved.getByRole('button', { name: 'Copy link to Pricing purchases this month' }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(goalReportUrl);
    await saved.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    // The receiver gets report.shared, signed with the subscription's secret, with exactly its four fields.
    const [delivery] = await receiver.waitFor('/hooks/reports', 1);
    expect(verifyVariantA(delivery.rawBody, delivery.headers['x-webhook-signature'] as string, secret)).toBe(true);
    const reportRow = await knex()('reports').where({ workspace_id: workspaceId }).first();
    expect(delivery.body).toMatchObject({ event: 'report.shared' });
    expect(delivery.body.data).toEqual({
      workspaceId,
      reportId: reportRow.id,
      title: 'Pricing purchases this month',
      visibility: 'UNLISTED',
    });

    // Signed out: another browser with no session reads it.
    const { page: visitor } = await b.newPersonPage();
    const answer = await visitor.goto(onServer(goalReportUrl));
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['x-robots-tag']).toBe('noindex');
    expect(await visitor.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex');
    await expect.poll(() => h1(visitor).textContent()).toBe('Pricing purchases this month');
    const shared = visitor.getByRole('progressbar', { name: /Conversions target/ });
    await expect.poll(() => shared.getAttribute('aria-label')).toBe('Conversions target: 2 of 4');
    await expect
      .poll(() => visitor.getByRole('progressbar', { name: /Conversions target/ }).getAttribute('value'))
      .toBe('50');
    await visitor.getByText('Goal: Pricing purchases').waitFor();
    // Read-only, no session: no navigation of the dashboard, no sign-out, no control that changes anything.
    expect(await visitor.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    expect(await visitor.getByRole('button', { name: /Sign out|Share|Pause|Archive|Change goal/ }).count()).toBe(0);
    expect(await visitor.getByText('ada@acme.example').count()).toBe(0);
    expect(await visitor.getByText('Acme', { exact: true }).count()).toBe(0);
    await lookBoth(visitor, 'shared-goal-report');
    await visitor.context().close();
  });

  it('made PRIVATE on the Reports screen, its URL answers 404 at once', async () => {
    await openFromNav(page, 'Reports');
    const card = reportCard(page, 'Pricing purchases this month');
    await expect.poll(() => card.textContent()).toMatch(/Unlisted.*Goal report · Last 30 days/);
    await expect
      .poll(() => card.getByRole('link', { name: /shared page of Pricing purchases this month/ }).getAttribute('href'))
      .toBe(goalReportUrl);
    await lookBoth(page, 'reports');
    await card.getByLabel('Visibility of Pricing purchases this month').selectOption('PRIVATE');
    await page.getByText('Pricing purchases this month is private: only members of this workspace see it.').waitFor();
    await expect.poll(() => card.textContent()).toMatch(/No link while it is private/);

    const { page: visitor } = await b.newPersonPage();
    const answer = await visitor.goto(onServer(goalReportUrl));
    expect(answer?.status()).toBe(404);
    await expect.poll(() => h1(visitor).textContent()).toBe('Report not available');
    await lookBoth(visitor, 'shared-not-available');
    await visitor.context().close();
  });

  it('a password-protected report made from the Conversions screen: the form, a wrong password, then the figures', async () => {
    await page.goto(`${server.url}/app/w/${workspaceId}/conversions?window=90&eventType=purchase`);
    await expect.poll(() => h1(page).textContent()).toBe('Conversions');
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this view' });
    await expect.poll(() => dialog.getByLabel('Title').inputValue()).toBe('Conversions, last 90 days (Purchase)');
    await dialog.getByLabel('Visibility').selectOption('PUBLIC');
    await dialog.getByLabel('Password (optional)').fill('open sesame 1');
    await dialog.getByRole('button', { name: 'Save report' }).click();
    const urlField = page
      .getByRole('dialog', { name: 'Report saved' })
      .getByLabel('Anyone with this link and the password can read it');
    await expect.poll(() => urlField.inputValue()).toMatch(/\/app\/shared\//);
    const url = await urlField.inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    await receiver.waitFor('/hooks/reports', 2);

    const { page: visitor } = await b.newPersonPage();
    const answer = await visitor.goto(onServer(url));
    expect(answer?.status()).toBe(200);
    // Public, but with a password: never indexed.
    expect(answer?.headers()['x-robots-tag']).toBe('noindex');
    await expect.poll(() => h1(visitor).textContent()).toBe('This report is protected');
    await lookBoth(visitor, 'shared-password');
    await visitor.getByLabel('Password').fill('open sesame 2');
    await visitor.getByRole('button', { name: 'Open report' }).click();
    await expect.poll(() => visitor.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    await visitor.getByText('That password is not correct.').waitFor();
    await b.look(visitor, 'shared-password-wrong');
    await visitor.getByLabel('Password').fill('open sesame 1');
    await visitor.getByRole('button', { name: 'Open report' }).click();
    await expect.poll(() => h1(visitor).textContent()).toBe('Conversions, last 90 days (Purchase)');
    // The figures of the Conversions screen for the same view: two purchases, €85.00.
    const stat = (name: string) =>
      visitor
        .locator('.stat', { has: visitor.locator('dt', { hasText: new RegExp(`^${name}$`) }) })
        .locator('dd')
        .first();
    await expect.poll(() => stat('Conversions').textContent()).toBe('2');
    await expect.poll(() => stat('Value \\(EUR\\)').textContent()).toBe('€85.00');
    await visitor.getByText('Only conversions of: Purchase.').waitFor();
    expect(await visitor.getByRole('button', { name: /Only this/ }).count()).toBe(0);
    await lookBoth(visitor, 'shared-conversions');
    // The cookie is remembered: a reload reads it without asking again.
    await visitor.reload();
    await expect.poll(() => h1(visitor).textContent()).toBe('Conversions, last 90 days (Purchase)');
    await visitor.context().close();
  });

  it("a link's analytics shared PUBLIC, its address regenerated (the old one answers 404), its password set and removed, then deleted", async () => {
    await page.goto(`${server.url}/app/w/${workspaceId}/links/${linkId}/analytics?window=7`);
    await expect.poll(() => h1(page).textContent()).toBe('Analytics for pricing');
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this view' });
    await expect.poll(() => dialog.getByLabel('Title').inputValue()).toBe('Clicks on pricing, last 7 days');
    await dialog.getByLabel('Visibility').selectOption('PUBLIC');
    await dialog.getByRole('button', { name: 'Save report' }).click();
    const first = await page
      .getByRole('dialog', { name: 'Report saved' })
      .getByLabel('Anyone with this link can read it')
      .inputValue();
    await page.getByRole('link', { name: 'Open Reports' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Reports');

    const { page: visitor } = await b.newPersonPage();
    const answer = await visitor.goto(onServer(first));
    expect(answer?.status()).toBe(200);
    // PUBLIC without a password: indexable.
    expect(answer?.headers()['x-robots-tag']).toBeUndefined();
    expect(await visitor.locator('meta[name="robots"]').count()).toBe(0);
    await expect.poll(() => h1(visitor).textContent()).toBe('Clicks on pricing, last 7 days');
    await visitor.getByRole('heading', { name: 'Clicks and QR scans per day' }).waitFor();
    await lookBoth(visitor, 'shared-link-analytics');

    const card = reportCard(page, 'Clicks on pricing, last 7 days');
    await card.getByRole('button', { name: 'Regenerate address of Clicks on pricing, last 7 days' }).click();
    await confirmIn(page, 'Regenerate the address of Clicks on pricing, last 7 days?', 'Regenerate address');
    await page.getByText('Clicks on pricing, last 7 days has a new address. The old one no longer works.').waitFor();
    const second = await card.getByRole('link', { name: /shared page of/ }).getAttribute('href');
    expect(second).not.toBe(first);
    expect((await visitor.goto(onServer(first)))?.status()).toBe(404);
    expect((await visitor.goto(onServer(second!)))?.status()).toBe(200);

    await card.getByRole('button', { name: 'Set password of Clicks on pricing, last 7 days' }).click();
    await card.getByLabel('New password for Clicks on pricing, last 7 days').fill('a new secret');
    await b.look(page, 'reports-password');
    await card.getByRole('button', { name: 'Save password for Clicks on pricing, last 7 days' }).click();
    await page.getByText('Clicks on pricing, last 7 days now asks for its password.').waitFor();
    await visitor.reload();
    await expect.poll(() => h1(visitor).textContent()).toBe('This report is protected');
    await card.getByRole('button', { name: 'Remove password of Clicks on pricing, last 7 days' }).click();
    await page.getByText('Clicks on pricing, last 7 days no longer asks for a password.').waitFor();
    await visitor.reload();
    await expect.poll(() => h1(visitor).textContent()).toBe('Clicks on pricing, last 7 days');

    await card.getByRole('button', { name: 'Delete Clicks on pricing, last 7 days' }).click();
    await confirmIn(page, 'Delete Clicks on pricing, last 7 days?', 'Delete');
    await page.getByText('Clicks on pricing, last 7 days deleted. Its link no longer works.').waitFor();
    expect(await reportCard(page, 'Clicks on pricing, last 7 days').count()).toBe(0);
    expect((await visitor.goto(onServer(second!)))?.status()).toBe(404);
    await visitor.context().close();
  });

  it("a bio page's analytics shared from its screen: signed out, anyone with the URL reads the page's views and its blocks' clicks", async () => {
    const base = `/workspaces/${workspaceId}`;
    const made = await ownerApi.request('POST', `${base}/pages`, {
      body: { handle: 'acme-outdoor', title: 'Acme Outdoor', blocks: [{ type: 'link', text: 'Pricing', linkId }] },
    });
    expect(made.status).toBe(201);
    const bio = made.body.data;
    expect((await ownerApi.request('POST', `${base}/pages/${bio.id}/publish`)).status).toBe(200);
    // Three views by a person and one followed block.
    const api = (server as unknown as TestServer).request;
    const visit = (path: string) => api('GET', path, { headers: { 'user-agent': PERSON_USER_AGENT } });
    for (let i = 0; i < 3; i++) expect((await visit('/@acme-outdoor')).status).toBe(200);
    expect((await visit(`/@acme-outdoor/${bio.blocks[0].id}`)).status).toBe(302);
    await server.clicks.flush();

    const stat = (p: Page, name: string) =>
      p
        .locator('.stat')
        .filter({ has: p.getByText(name, { exact: true }) })
        .locator('dd');
    await page.goto(`${server.url}/app/w/${workspaceId}/pages/${bio.id}/analytics?window=7`);
    await expect.poll(() => h1(page).textContent()).toBe('Analytics for @acme-outdoor');
    await expect.poll(() => stat(page, 'Views').textContent()).toBe('3');
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this view' });
    await expect.poll(() => dialog.getByLabel('Title').inputValue()).toBe('@acme-outdoor analytics, last 7 days');
    await dialog.getByText(/^Page analytics: https:\/\/localhost:8443\/@acme-outdoor, last 7 days\./).waitFor();
    await lookBoth(page, 'report-share-page');
    await dialog.getByRole('button', { name: 'Save report' }).click();
    const url = await page
      .getByRole('dialog', { name: 'Report saved' })
      .getByLabel('Anyone with this link can read it')
      .inputValue();
    expect(url).toMatch(/^https:\/\/localhost:8443\/app\/shared\/[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Done' }).click();
    const row = await knex()('reports').where({ workspace_id: workspaceId, kind: 'PAGE' }).first();
    expect(JSON.parse(row.params)).toEqual({ window: { lastDays: 7 }, pageId: bio.id });

    // A fresh browser context, signed out.
    const { page: visitor } = await b.newPersonPage();
    const answer = await visitor.goto(onServer(url));
    expect(answer?.status()).toBe(200);
    await expect.poll(() => h1(visitor).textContent()).toBe('@acme-outdoor analytics, last 7 days');
    await visitor.getByText('https://localhost:8443/@acme-outdoor · Acme Outdoor').waitFor();
    await expect.poll(() => stat(visitor, 'Views').textContent()).toBe('3');
    await expect.poll(() => stat(visitor, 'Clicks on links').textContent()).toBe('1');
    const blocks = visitor.getByRole('table', { name: 'Clicks by link block' });
    await expect
      .poll(() =>
        blocks
          .getByRole('row', { name: /Pricing/ })
          .locator('td.num')
          .textContent(),
      )
      .toBe('1');
    // Read-only: no short link leading into the workspace, no dashboard, no control.
    expect(await blocks.getByRole('columnheader', { name: 'Short link' }).count()).toBe(0);
    expect(await visitor.getByRole('link').count()).toBe(0);
    expect(await visitor.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    expect(await visitor.getByRole('button', { name: /Sign out|Share/ }).count()).toBe(0);
    await lookBoth(visitor, 'shared-page-analytics');
    await visitor.context().close();
  });

  it('an ANALYST sees the reports with no control; the API answers 403 when asked anyway', async () => {
    const { page: p } = await b.newPersonPage();
    await b.signInThroughForm(p, analyst);
    await expect.poll(() => h1(p).textContent()).toBe('Links');
    await p.goto(`${server.url}/app/w/${workspaceId}/reports`);
    await expect.poll(() => h1(p).textContent()).toBe('Reports');
    await reportCard(p, 'Conversions, last 90 days (Purchase)').waitFor();
    expect(await p.getByRole('main').getByRole('combobox').count()).toBe(0);
    expect(await p.getByRole('button', { name: /Regenerate address|Delete|password/ }).count()).toBe(0);
    await p.getByRole('button', { name: 'Copy link to Conversions, last 90 days (Purchase)' }).waitFor();
    await lookBoth(p, 'reports-analyst');
    await p.goto(`${server.url}/app/w/${workspaceId}/goals/${goalId}`);
    await expect.poll(() => h1(p).textContent()).toBe('Pricing purchases');
    expect(await p.getByRole('button', { name: 'Share' }).count()).toBe(0);
    const report = await knex()('reports').where({ workspace_id: workspaceId }).first();
    const refused = await b.apiFromPage(p, 'PATCH', `${DASHBOARD_API}/workspaces/${workspaceId}/reports/${report.id}`, {
      visibility: 'PUBLIC',
    });
    expect(refused.status).toBe(403);
    expect(refused.body?.error).toMatch(/ANALYST/);
    expect(b.errors).toEqual([]);
  });
});
