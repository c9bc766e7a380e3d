// Conversions in the dashboard, end to end in Debian's Chromium against the service: conversions
// recorded through /api/v1/conversions with a key and clicks through the short links, then the
// Conversions screen: the figures of the last 30 days, another window and a filter (kept in the
// address), the breakdowns with a rate and an undefined rate explained beside them, one link
// only, the CSV download checked line by line, the API's refusal of a window over 400 days under
// its field, a 400-day window whose rate predates click retention, a phone's width, an ANALYST,
// a plan without conversions and a deployment without them. axe-core on every screen,
// screenshots in DASHBOARD_E2E_SHOTS_DIR (default /tmp/dashboard-e2e). SQLite only: the rules run
// on both engines in test/dashboard/conversions.test.ts.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeInChromium, launchBrowser, PERSON_USER_AGENT, closeAll } from '../support/browser';
import { seedPerson, type Person } from '../support/dashboard';
import {
  acmeInChromium,
  DASHBOARD_SHOTS,
  dashboardBrowser,
  type DashboardBrowser,
  openFromNav,
} from '../support/dashboard-browser';
import { startTestServer, type TestServer } from '../support/server';
import { addMember, createWorkspace } from '../../src/db/repos/workspaces';
import { dataKey } from '../support/seed';
import { createCampaign, createQrCode } from '../../src/db/repos/workspace-objects';

const DAY = 86_400_000;

describeInChromium('conversions in the dashboard, in Chromium (sqlite)', () => {
  let server: TestServer;
  let browser: Browser;
  let b: DashboardBrowser;
  let workspaceId: string;
  let proWorkspaceId: string;
  let owner: Person;
  let analyst: Person;
  let page: Page;
  const ids: Record<string, string> = {};
  const h1 = (p: Page) => p.getByRole('heading', { level: 1 });
  const stat = (p: Page, name: string) =>
    p
      .locator('.stat', { has: p.locator('dt', { hasText: new RegExp(`^${name}$`) }) })
      .locator('dd')
      .first();
  const statNote = (p: Page, name: string) =>
    p.locator('.stat', { has: p.locator('dt', { hasText: new RegExp(`^${name}$`) }) }).locator('dd.stat-note');
  const today = new Date(Math.floor(Date.now() / DAY) * DAY);
  const daysAgo = (d: number) =>
    d === 0 ? new Date(Date.now() - 60_000) : new Date(today.getTime() - d * DAY + 10 * 3_600_000);

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    ({ browser, b, workspaceId, owner, analyst } = await acmeInChromium(server));
    const knex = server.services.db.knex;
    // The owner is in a second workspace, on a plan without conversions.
    proWorkspaceId = await createWorkspace(knex, 'Acme Labs', 'pro');
    await addMember(knex, proWorkspaceId, owner.email, 'OWNER');
    const key = await dataKey(knex, workspaceId, owner.userId);
    for (const slug of ['pricing', 'spring-sale', 'guide']) {
      ids[slug] = (
        await server.request('POST', '/api/v1/links', {
          key,
          body: { url: `https://example.com/${slug}`, slug, title: `Acme ${slug}` },
        })
      ).body.data.id;
    }
    ids.campaign = await createCampaign(knex, workspaceId, 'Spring sale 2026');
    const qr = await createQrCode(knex, workspaceId, ids.pricing);
    ids.qr = qr.id;
    const record = async (d: number, body: Record<string, unknown>) => {
      const res = await server.request('POST', '/api/v1/conversions', {
        key,
        body: { ...body, occurredAt: daysAgo(d).toISOString() },
      });
      expect(res.status, res.text).toBe(201);
    };
    await record(1, { eventType: 'purchase', linkId: ids.pricing, value: { amountMinor: 4_900, currency: 'EUR' } });
    await record(3, { eventType: 'purchase', linkId: ids.pricing, value: { amountMinor: 12_900, currency: 'EUR' } });
    await record(2, { eventType: 'purchase', qrCodeId: ids.qr, value: { amountMinor: 2_500, currency: 'USD' } });
    await record(5, {
      eventType: 'purchase',
      linkId: ids['spring-sale'],
      campaignId: ids.campaign,
      value: { amountMinor: 9_900, currency: 'EUR' },
    });
    await record(4, { eventType: 'custom', customName: 'webinar', campaignId: ids.campaign });
    await record(0, { eventType: 'signup' });
    await record(10, { eventType: 'lead', linkId: ids['spring-sale'] });
    await record(45, { eventType: 'purchase', linkId: ids.pricing, value: { amountMinor: 100_000, currency: 'EUR' } });
    await record(120, { eventType: 'signup', linkId: ids.guide });
    // Clicks today: 4 on the pricing link, 2 scans of its QR code, 1 on guide; none on spring-sale.
    const person = { 'user-agent': PERSON_USER_AGENT };
    for (let i = 0; i < 4; i++) expect((await server.request('GET', '/pricing', { headers: person })).status).toBe(302);
    for (let i = 0; i < 2; i++)
      expect([301, 302]).toContain((await server.request('GET', `/qr/${qr.code}`, { headers: person })).status);
    expect((await server.request('GET', '/guide', { headers: person })).status).toBe(302);
    await server.clicks.flush();

    page = await b.signedInPage(owner);
  }, 90_000);
  afterAll(() => closeAll(browser, server));

  it('shows the last 30 days: totals, value per currency, the rate with its counts', async () => {
    await openFromNav(page, 'Conversions');
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('7');
    expect(await stat(page, 'Attributed to a link').textContent()).toBe('5');
    expect(await stat(page, 'Unattributed').textContent()).toBe('2');
    expect(await stat(page, 'Value \\(EUR\\)').textContent()).toBe('€277.00');
    expect(await stat(page, 'Value \\(USD\\)').textContent()).toBe('$25.00');
    // 5 attributed conversions over 7 clicks (the QR code's scans are its link's clicks too).
    expect(await stat(page, 'Conversion rate').textContent()).toBe('71.4%');
    expect(await statNote(page, 'Conversion rate').textContent()).toBe('5 attributed conversions per 7 clicks');
    expect(await page.getByLabel('Window', { exact: true }).inputValue()).toBe('30');
    await b.look(page, 'conversions');
  });

  it('shows conversions per day in a chart with the numbers in a table', async () => {
    const chart = page.getByRole('img', { name: /^Chart of conversions per day/ });
    expect(await chart.getAttribute('aria-label')).toMatch(/7 conversions in all/);
    await page.getByText('Show the numbers').click();
    const table = page.getByRole('table', { name: 'Conversions per day' });
    expect(await table.locator('tbody tr').count()).toBe(30);
    const dayRow = (d: number) =>
      table.getByRole('row', {
        name: new RegExp(
          `^${new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(daysAgo(d))}`,
        ),
      });
    expect(await dayRow(3).locator('td').allTextContents()).toEqual(['1', '€129.00', '—']);
    expect(await dayRow(2).locator('td').allTextContents()).toEqual(['1', '—', '$25.00']);
    expect(
      await table
        .getByRole('row', { name: /^All days/ })
        .locator('td')
        .allTextContents(),
    ).toEqual(['7', '€277.00', '$25.00']);
    await page.getByText('Show the numbers').click();
  });

  it('explains the breakdowns: a rate, and one that is not available, next to their figures', async () => {
    const byLink = page.getByRole('region', { name: 'By link' }).first();
    const pricing = byLink.getByRole('row', { name: /localhost:8443\/pricing/ });
    // 3 conversions (one through the QR code) over 6 clicks (4 clicks and 2 scans).
    expect(await pricing.locator('td').allTextContents()).toEqual(['3', '€178.00$25.00', '6', '50%']);
    const spring = byLink.getByRole('row', { name: /localhost:8443\/spring-sale/ });
    expect(await spring.locator('td').last().textContent()).toBe('Not available no clicks in the window');
    expect(
      await page.getByText('No click was counted in the window, so there is nothing to divide by.').count(),
    ).toBeGreaterThan(0);
    const byCampaign = page.getByRole('region', { name: 'By campaign' }).first();
    expect(
      await byCampaign
        .getByRole('row', { name: /Spring sale 2026/ })
        .locator('td')
        .allTextContents(),
    ).toEqual(['2', '€99.00']);
    const byQr = page.getByRole('region', { name: 'By QR code' }).first();
    expect(
      await byQr
        .getByRole('row', { name: /QR code of localhost:8443\/pricing/ })
        .locator('td')
        .allTextContents(),
    ).toEqual(['1', '$25.00', '2', '50%']);
    const byType = page.getByRole('region', { name: 'By event type' }).first();
    const conversionsOf = (name: RegExp) => byType.getByRole('row', { name }).locator('td').first().textContent();
    expect(await conversionsOf(/^Purchase/)).toBe('4');
    expect(await conversionsOf(/^webinar/)).toBe('1');
  });

  it('changes the window and a filter, both kept in the address', async () => {
    await page.getByLabel('Window', { exact: true }).selectOption('90');
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('8');
    expect(new URL(page.url()).searchParams.get('window')).toBe('90');
    await page.getByLabel('Event type', { exact: true }).selectOption('purchase');
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('5');
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ window: '90', eventType: 'purchase' });
    expect(await stat(page, 'Value \\(EUR\\)').textContent()).toBe('€1,277.00');
    await b.look(page, 'conversions-purchases-90-days');
    // The address is the view: opened afresh, it shows the same.
    await page.reload();
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('5');
    expect(await page.getByLabel('Event type', { exact: true }).inputValue()).toBe('purchase');
  });

  it('narrows to one link from its row, and a custom event by its name', async () => {
    await page.getByRole('button', { name: 'Only this link: localhost:8443/pricing' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('linkId')).toBe(ids.pricing);
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('4');
    // The filter names the link as people know it, with a way to choose another.
    const filters = page.getByRole('form', { name: 'Conversion filters' });
    await filters.getByRole('button', { name: 'Change the link filter' }).waitFor();
    expect(await filters.textContent()).toContain('localhost:8443/pricing');
    expect(await filters.textContent()).not.toContain(ids.pricing);
    await page.getByText('localhost:8443/pricing', { exact: true }).first().waitFor();
    // The rate of one link: its conversions over its clicks.
    expect(await statNote(page, 'Conversion rate').textContent()).toBe('4 attributed conversions per 6 clicks');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('8');
    // The same link found by searching, applied on choosing it (no Apply).
    await filters.getByLabel('Link', { exact: true }).fill('pric');
    await filters.getByRole('button', { name: 'Use pricing for the link filter' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('linkId')).toBe(ids.pricing);
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('4');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('8');
    // A QR code by its link, also applied on choosing it, and named by its link.
    await filters.getByLabel('QR code of a link', { exact: true }).fill('pric');
    await filters.getByRole('button', { name: 'Use the QR code of pricing for the QR code filter' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('qrCodeId')).toBe(ids.qr);
    await filters.getByText('QR code of localhost:8443/pricing').waitFor();
    expect(await filters.textContent()).not.toContain(ids.qr);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('8');
    await page.getByLabel('Event type', { exact: true }).selectOption('custom');
    await page.getByLabel('Custom event name').fill('webinar');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('1');
    expect(new URL(page.url()).searchParams.get('customName')).toBe('webinar');
    // A campaign is found by typing part of its name.
    await page.getByRole('combobox', { name: 'Campaign' }).fill('spring');
    await page.getByRole('option', { name: 'Spring sale 2026' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('campaignId')).toBe(ids.campaign);
    expect(await stat(page, 'Conversions').textContent()).toBe('1');
    expect(await stat(page, 'Unattributed').textContent()).toBe('1');
    await b.look(page, 'conversions-custom-campaign');
    const wide = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    await b.look(page, 'conversions-custom-campaign-phone');
    await page.setViewportSize(wide);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('8');
  });

  it('exports what is shown as CSV: totals, every day and every breakdown row', async () => {
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^conversions-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = fs
      .readFileSync((await file.path())!, 'utf8')
      .trim()
      .split('\n');
    expect(lines[0]).toBe(
      'section,key,label,conversions,value_EUR,value_USD,rate_conversions,clicks,rate,rate_undefined_reason',
    );
    expect(lines).toContain(`total,all,All conversions,8,1277.00,25.00,6,7,${6 / 7},`);
    expect(lines).toContain('total,unattributed,Unattributed,2,,,,,,');
    const days = lines.filter((l) => l.startsWith('day,'));
    expect(days.length).toBe(90);
    expect(days.reduce((n, l) => n + Number(l.split(',')[3]), 0)).toBe(8);
    expect(days).toContain(`day,${daysAgo(45).toISOString().slice(0, 10)},,1,1000.00,,,,,`);
    expect(lines).toContain(`link,${ids.pricing},https://localhost:8443/pricing,4,1178.00,25.00,4,6,${4 / 6},`);
    expect(lines).toContain(
      `link,${ids['spring-sale']},https://localhost:8443/spring-sale,2,99.00,,2,0,,no_clicks_in_window`,
    );
    expect(lines).toContain(`campaign,${ids.campaign},Spring sale 2026,2,99.00,,,,,`);
    expect(lines).toContain(`qr_code,${ids.qr},QR code of https://localhost:8443/pricing,1,,25.00,1,2,0.5,`);
    expect(lines).toContain('event_type,custom:webinar,webinar,1,,,,,,');
  });

  it("refuses a custom window over 400 days with the API's message under From", async () => {
    await page.getByLabel('Window', { exact: true }).selectOption('custom');
    await page.getByLabel('From', { exact: true }).fill('2024-01-01');
    await page.getByLabel('To', { exact: true }).fill('2025-06-30');
    await page.getByRole('button', { name: 'Apply' }).click();
    const from = page.getByLabel('From', { exact: true });
    await expect.poll(() => from.getAttribute('aria-invalid')).toBe('true');
    const described = (await from.getAttribute('aria-describedby'))!.split(' ');
    const texts = await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(texts).toContain('The window may not exceed 400 days');
    await b.look(page, 'conversions-window-refused');
  });

  it('a 400-day window: its rate predates click retention, and says so', async () => {
    await page.getByLabel('Window', { exact: true }).selectOption('400');
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('9');
    expect(await stat(page, 'Conversion rate').textContent()).toBe('Not available');
    expect(await statNote(page, 'Conversion rate').textContent()).toBe(
      'The window starts more than 90 days ago; clicks are kept 90 days, so they cannot be counted for all of it.',
    );
    await b.look(page, 'conversions-400-days');
  });

  it('fits a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByLabel('Window', { exact: true }).selectOption('30');
    await expect.poll(() => stat(page, 'Conversions').textContent()).toBe('7');
    // Nothing wider than the screen but the tables, which scroll inside their frame.
    const overflow = (await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    )) as number;
    expect(overflow).toBeLessThanOrEqual(0);
    await b.look(page, 'conversions-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('an ANALYST sees all of it; a plan without conversions says so', async () => {
    const { page: p } = await b.newPersonPage();
    await b.signInThroughForm(p, analyst);
    await expect.poll(() => h1(p).textContent()).toBe('Links');
    await p.goto(`${server.url}/app/w/${workspaceId}/conversions?window=90`);
    await expect.poll(() => stat(p, 'Conversions').textContent()).toBe('8');
    await p.getByRole('button', { name: 'Export CSV' }).waitFor();
    await b.look(p, 'conversions-analyst');

    await page.goto(`${server.url}/app/w/${proWorkspaceId}/conversions`);
    await page.getByText('Conversions need the Growth plan.').waitFor();
    expect(await page.getByText('The Pro plan of this workspace does not include conversion tracking.').count()).toBe(
      1,
    );
    await b.look(page, 'conversions-pro-plan');
    expect(b.errors).toEqual([]);
  });
});

describeInChromium(
  'conversions in the dashboard of a deployment without conversion tracking, in Chromium (sqlite)',
  () => {
    let server: TestServer;
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchBrowser();
      server = await startTestServer('sqlite', { env: { FEATURE_CONVERSIONS: 'off' } });
    }, 60_000);
    afterAll(() => closeAll(browser, server));

    it('says conversion tracking is not available here, never a bare error', async () => {
      const knex = server.services.db.knex;
      const workspaceId = await createWorkspace(knex, 'Acme', 'growth');
      const owner = await seedPerson(knex, workspaceId, 'OWNER', 'ada@acme.example');
      const b = dashboardBrowser(browser, server.url, [], DASHBOARD_SHOTS);
      const page = await b.signedInPage(owner);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Conversions' }).click();
      await page.getByText('Conversion tracking is not available on this deployment.').waitFor();
      expect(await page.getByRole('alert').count()).toBe(0);
      await b.look(page, 'conversions-feature-off');
      expect(b.errors).toEqual([]);
    });
  },
);
