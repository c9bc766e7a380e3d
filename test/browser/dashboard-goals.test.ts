// Goals in the dashboard, end to end in Debian's Chromium against the service: a goal made on the
// Goals screen (a refused field shown where it belongs), its report moving when a conversion is
// recorded through /api/v1/conversions (progress bars for count and value), a change that raises
// the definition version, pause / archive / reactivate, and an ANALYST who sees the report with
// no control (the API answers 403 when asked anyway). axe-core on every screen, screenshots in
// DASHBOARD_E2E_SHOTS_DIR (default /tmp/dashboard-e2e). SQLite only: the rules run on both
// engines in test/dashboard/goals.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeInChromium, closeAll } from '../support/browser';
import { DASHBOARD_API, type Person } from '../support/dashboard';
import { acmeInChromium, type DashboardBrowser, openFromNav } from '../support/dashboard-browser';
import { startTestServer, type TestServer } from '../support/server';
import { dataKey } from '../support/seed';
import { createCampaign, createQrCode } from '../../src/db/repos/workspace-objects';

describeInChromium('goals in the dashboard, in Chromium (sqlite)', () => {
  let server: TestServer;
  let browser: Browser;
  let b: DashboardBrowser;
  let workspaceId: string;
  let owner: Person;
  let analyst: Person;
  let key: string;
  let linkId: string;
  let page: Page;
  let goalUrl: string;
  const h1 = (p: Page) => p.getByRole('heading', { level: 1 });

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    ({ browser, b, workspaceId, owner, analyst } = await acmeInChromium(server));
    const knex = server.services.db.knex;
    key = await dataKey(knex, workspaceId, owner.userId);
    linkId = (
      await server.request('POST', '/api/v1/links', {
        key,
        body: { url: 'https://example.com/pricing', slug: 'pricing' },
      })
    ).body.data.id;
    page = await b.signedInPage(owner);
  }, 60_000);
  afterAll(() => closeAll(browser, server));

  it('makes a goal on the Goals screen; a refused field is shown next to it', async () => {
    await openFromNav(page, 'Goals');
    await page.getByText('No goals yet').waitFor();
    await b.look(page, 'goals-empty');

    await page.getByRole('button', { name: 'New goal' }).click();
    const form = page.getByRole('region', { name: 'New goal' });
    await b.look(page, 'goal-new');
    await form.getByLabel('Name').fill('Pricing purchases');
    await form.getByLabel('Conversions of type').selectOption('purchase');
    // A QR code is chosen by its link; a link without one says so.
    await form.getByLabel('Measure').selectOption('qrCodeId');
    await form.getByLabel('QR code of a link', { exact: true }).fill('pricing');
    await form.getByRole('button', { name: "Use the QR code of pricing for the goal's QR code" }).click();
    await form.getByText("localhost:8443/pricing has no QR code yet: make one on the link's page.").waitFor();
    await form.getByLabel('Measure').selectOption('linkId');
    await form.getByLabel('Conversions', { exact: true }).fill('2');
    await form.getByLabel('Value', { exact: true }).fill('100');
    // A value without its currency: refused before sending, next to the currency.
    await form.getByRole('button', { name: 'Create goal' }).click();
    await expect.poll(() => form.getByLabel('Currency').getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel('Currency').fill('eur');
    // No link chosen yet: said under the search, before anything is sent.
    await form.getByRole('button', { name: 'Create goal' }).click();
    await form.getByText('Choose the link, or measure every conversion.').waitFor();
    await b.look(page, 'goals-refused');
    // The link is found by what people know of it, never typed as an id.
    await form.getByLabel('Link', { exact: true }).fill('pricing');
    const slug = (await server.services.db.knex('links').where({ id: linkId }).first()).slug;
    await form.getByRole('button', { name: `Use ${slug} for the goal's link` }).click();
    await form.getByRole('button', { name: "Change the goal's link" }).waitFor();
    await form.getByRole('button', { name: 'Create goal' }).click();
    await page.getByText('Goal Pricing purchases created.').waitFor();
    const row = page.getByRole('row', { name: /Pricing purchases/ });
    await expect
      .poll(() => row.textContent())
      .toMatch(new RegExp(`Purchase.*Link localhost:8443/${slug}.*2 conversions · €100\\.00.*Active`));
    expect(await row.textContent()).not.toContain(linkId);
    await b.look(page, 'goals-list');
  });

  it("opens the goal's report, which moves when a conversion is recorded through the API", async () => {
    await page
      .getByRole('row', { name: /Pricing purchases/ })
      .getByRole('link', { name: 'Pricing purchases' })
      .click();
    await expect.poll(() => h1(page).textContent()).toBe('Pricing purchases');
    goalUrl = page.url();
    const countBar = page.getByRole('progressbar', { name: /Conversions target/ });
    await expect.poll(() => countBar.getAttribute('aria-label')).toBe('Conversions target: 0 of 2');
    await b.look(page, 'goal-report-empty');

    const recorded = await server.request('POST', '/api/v1/conversions', {
      key,
      body: { eventType: 'purchase', linkId, value: { amountMinor: 6_000, currency: 'EUR' } },
    });
    expect(recorded.status).toBe(201);
    await page.reload();
    await expect.poll(() => countBar.getAttribute('aria-label')).toBe('Conversions target: 1 of 2');
    await expect.poll(() => countBar.getAttribute('value')).toBe('50');
    await expect
      .poll(() => page.getByRole('progressbar', { name: /Value target/ }).getAttribute('aria-label'))
      .toBe('Value target: €60.00 of €100.00');
    await page.getByText('Version 1', { exact: false }).first().waitFor();
    await b.look(page, 'goal-report');
  });

  it('a change of what the goal counts raises its definition version; pause, archive and reactivate', async () => {
    await page.getByRole('button', { name: 'Change goal' }).click();
    const form = page.getByRole('region', { name: 'Definition' });
    await form.getByLabel('Conversions of type').selectOption('custom');
    await form.getByLabel('Custom event name').fill('demo-booked');
    await form.getByRole('button', { name: 'Save goal' }).click();
    await page.getByText('Definition version 2: past conversions were counted again.').waitFor();
    // The purchase no longer matches a custom goal.
    await expect
      .poll(() => page.getByRole('progressbar', { name: /Conversions target/ }).getAttribute('aria-label'))
      .toBe('Conversions target: 0 of 2');
    await b.look(page, 'goal-changed');

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Goal paused.').waitFor();
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByText('Goal archived.').waitFor();
    await expect.poll(() => page.getByText('Archived', { exact: true }).count()).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page.getByText('Goal reactivated.').waitFor();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
  });

  it('an ANALYST reads goals and reports with no control; the API answers 403 when asked anyway', async () => {
    const { page: p } = await b.newPersonPage();
    await b.signInThroughForm(p, analyst);
    await expect.poll(() => h1(p).textContent()).toBe('Links');
    await p.goto(`${server.url}/app/w/${workspaceId}/goals`);
    await expect.poll(() => h1(p).textContent()).toBe('Goals');
    await p.getByRole('link', { name: 'Pricing purchases' }).waitFor();
    expect(await p.getByRole('button', { name: 'New goal' }).count()).toBe(0);
    await b.look(p, 'goals-analyst');
    await p.goto(goalUrl);
    await p.getByRole('progressbar', { name: /Conversions target/ }).waitFor();
    for (const name of ['Pause', 'Archive', 'Change goal'])
      expect(await p.getByRole('button', { name }).count(), name).toBe(0);
    await b.look(p, 'goal-analyst');
    const base = `${DASHBOARD_API}/workspaces/${workspaceId}`;
    const made = await b.apiFromPage(p, 'POST', `${base}/goals`, { name: 'Sneaky', type: 'lead' });
    expect(made.status).toBe(403);
    expect(made.body?.error).toMatch(/ANALYST/);
    expect(b.errors).toEqual([]);
  });

  it("names a goal's QR code by its link; a campaign is found by typing part of its name", async () => {
    const knex = server.services.db.knex;
    const qr = await createQrCode(knex, workspaceId, linkId);
    await createCampaign(knex, workspaceId, 'Spring sale 2026');
    const summer = await createCampaign(knex, workspaceId, 'Summer launch');
    const base = `${DASHBOARD_API}/workspaces/${workspaceId}`;
    const made = await b.apiFromPage(page, 'POST', `${base}/goals`, {
      name: 'Poster scans',
      type: 'lead',
      qrCodeId: qr.id,
    });
    expect(made.status).toBe(201);
    // Made outside the screens: a fresh load reads it.
    await page.goto(`${server.url}/app/w/${workspaceId}/goals`);
    const row = page.getByRole('row', { name: /Poster scans/ });
    await expect.poll(() => row.textContent()).toContain('QR code of localhost:8443/pricing');
    expect(await row.textContent()).not.toContain(qr.id);
    // Changing it shows the code the same way, with Change beside it.
    await row.getByRole('link', { name: 'Poster scans' }).click();
    await page.getByRole('button', { name: 'Change goal' }).click();
    const definition = page.getByRole('region', { name: 'Definition' });
    await definition.getByRole('button', { name: "Change the goal's QR code" }).waitFor();
    await expect.poll(() => definition.textContent()).toContain('QR code of localhost:8443/pricing');
    await b.look(page, 'goal-qr-named');

    await openFromNav(page, 'Goals');
    await page.getByRole('button', { name: 'New goal' }).click();
    const form = page.getByRole('region', { name: 'New goal' });
    await form.getByLabel('Name').fill('Summer leads');
    await form.getByLabel('Conversions of type').selectOption('lead');
    await form.getByLabel('Measure').selectOption('campaignId');
    const campaign = form.getByRole('combobox', { name: 'Campaign' });
    await campaign.fill('summ');
    const choices = form.getByRole('listbox', { name: 'Campaign' });
    await expect.poll(() => choices.getByRole('option').allTextContents()).toEqual(['Summer launch']);
    await campaign.fill('zzz');
    await form.getByText('No campaign matches “zzz”.').waitFor();
    await campaign.fill('launch');
    await b.look(page, 'goal-campaign-search');
    const wide = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    await b.look(page, 'goal-campaign-search-phone');
    await page.setViewportSize(wide);
    await choices.getByRole('option', { name: 'Summer launch' }).click();
    expect(await campaign.inputValue()).toBe('Summer launch');
    await form.getByRole('button', { name: 'Create goal' }).click();
    await page.getByText('Goal Summer leads created.').waitFor();
    const goals = await b.apiFromPage(page, 'GET', `${base}/goals`);
    const listed = goals.body as unknown as { data: Array<{ name: string; campaignId: string | null }> };
    expect(listed.data.find((g) => g.name === 'Summer leads')?.campaignId).toBe(summer);
    await expect
      .poll(() => page.getByRole('row', { name: /Summer leads/ }).textContent())
      .toContain('Campaign Summer launch');
    expect(b.errors).toEqual([]);
  });
});
