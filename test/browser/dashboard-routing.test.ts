// A link's routing end to end in Debian's Chromium against the service: rules added, filled in and
// reordered on the Routing tab and saved; a value the service refuses shown under its input with
// everything typed kept; "Try a visit" answered by the service's own routing function on what was
// saved (an iPhone in France, then an iPhone elsewhere); the next real visit following it; an
// ANALYST reading with no control; the saved rules on the analytics screen. axe-core and
// screenshots (routing-*.png in DASHBOARD_E2E_SHOTS_DIR). SQLite only: the API's rules run on both
// engines in test/dashboard/link-routing.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { closeAll, describeInChromium } from '../support/browser';
import { signIn, type Person } from '../support/dashboard';
import { acmeInChromium, type DashboardBrowser } from '../support/dashboard-browser';
import { startTestServer, type TestServer } from '../support/server';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const IOS_URL = 'https://apps.example.com/ios';
const FR_URL = 'https://example.com/fr';

describeInChromium("a link's routing in the dashboard, in Chromium (sqlite)", () => {
  let server: TestServer;
  let browser: Browser;
  let b: DashboardBrowser;
  let workspaceId: string;
  let owner: Person;
  let analyst: Person;
  let page: Page;
  let linkId: string;
  const slug = 'routed';
  const rule = (p: Page, n: number) => p.getByRole('group', { name: `Rule ${n}`, exact: true });
  const condition = (p: Page, r: number, c: number) =>
    p.getByRole('group', { name: `Rule ${r}, condition ${c}`, exact: true });
  const routingUrl = () => `${server.url}/app/w/${workspaceId}/links/${linkId}/routing`;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    ({ browser, b, workspaceId, owner, analyst } = await acmeInChromium(server));
    const ada = await signIn(server, owner);
    const made = await ada.request('POST', `/workspaces/${workspaceId}/links`, {
      body: { url: 'https://example.com/launch', slug },
    });
    expect(made.status, made.text).toBe(201);
    linkId = made.body.data.id;
    page = await b.signedInPage(owner);
  }, 60_000);
  afterAll(() => closeAll(browser, server));

  it('adds, fills in and reorders rules, shows a refused value under its input, and saves', async () => {
    await page.goto(`${server.url}/app/w/${workspaceId}/links/${linkId}`);
    await page.getByRole('link', { name: 'Routing' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`Routing for ${slug}`);
    await b.look(page, 'routing-empty');

    await page.getByRole('button', { name: 'Add a rule' }).click();
    await condition(page, 1, 1).getByLabel('Type').selectOption({ label: 'Operating system' });
    await condition(page, 1, 1).getByLabel('Value').selectOption({ label: 'iOS' });
    await rule(page, 1).getByLabel('Destination URL').fill(IOS_URL);
    await page.getByRole('button', { name: 'Add a rule' }).click();
    await condition(page, 2, 1).getByLabel('Type').selectOption({ label: 'Country' });
    await condition(page, 2, 1).getByLabel('Value').fill('France');
    await rule(page, 2).getByLabel('Destination URL').fill(FR_URL);
    await page.getByRole('button', { name: 'Move rule 2 up' }).click();

    await page.getByRole('button', { name: 'Save routing' }).click();
    const refused = condition(page, 1, 1).getByLabel('Value');
    await expect.poll(() => refused.getAttribute('aria-invalid')).toBe('true');
    const describedBy = ((await refused.getAttribute('aria-describedby')) ?? '').split(' ');
    const message = await page.locator(`[id="${describedBy.at(-1)}"]`).textContent();
    expect(message).toMatch(/country/i);
    expect(await refused.inputValue()).toBe('France');
    expect(await rule(page, 2).getByLabel('Destination URL').inputValue()).toBe(IOS_URL);
    await b.look(page, 'routing-refused');

    await refused.fill('FR');
    await page.getByRole('button', { name: 'Save routing' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Routing saved' }).count()).toBe(1);
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(0);
  });

  it('tries visits on the saved routing with the service choosing the destination, and a real visit agrees', async () => {
    const tryPanel = page.getByRole('region', { name: 'Try a visit' });
    await tryPanel.getByLabel('Browser preset').selectOption({ label: 'iPhone (Safari)' });
    await tryPanel.getByLabel('Country').fill('FR');
    await tryPanel.getByRole('button', { name: 'Try', exact: true }).click();
    const answer = tryPanel.getByRole('status');
    await expect.poll(() => answer.getByText(FR_URL, { exact: true }).count()).toBe(1);
    expect(await answer.getByText('Rule 1', { exact: true }).count()).toBe(1);
    await b.look(page, 'routing-trial');

    await tryPanel.getByLabel('Country').fill('');
    await tryPanel.getByRole('button', { name: 'Try', exact: true }).click();
    await expect.poll(() => answer.getByText(IOS_URL, { exact: true }).count()).toBe(1);
    expect(await answer.getByText('Rule 2', { exact: true }).count()).toBe(1);

    const visit = await server.request('GET', `/${slug}`, { headers: { 'user-agent': IPHONE } });
    expect(visit.headers.location).toBe(IOS_URL);
  });

  it('lists the saved rules on the analytics screen by the names the editor gives them', async () => {
    await page.goto(`${server.url}/app/w/${workspaceId}/links/${linkId}/analytics`);
    const routes = page.getByRole('table', { name: 'Clicks and conversions by rule and variant' });
    await expect
      .poll(() => routes.getByRole('rowheader').allTextContents())
      .toEqual(["The link's own URL", 'Rule 1', 'Rule 2']);
    const rowOf = (name: string) =>
      routes.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
    expect(await rowOf('Rule 1').getByRole('cell').first().textContent()).toBe(FR_URL);
    expect(await rowOf('Rule 2').getByRole('cell').first().textContent()).toBe(IOS_URL);
    expect(await page.getByRole('table', { name: /split's variants/ }).count()).toBe(0);
    await b.look(page, 'routing-analytics');
  });

  it('lets an ANALYST read the routing with no control to change it', async () => {
    const seen = await b.signedInPage(analyst);
    await seen.goto(routingUrl());
    await expect.poll(() => seen.getByText('Your role (Analyst) cannot change links').count()).toBe(1);
    expect(await seen.getByRole('button', { name: 'Save routing' }).count()).toBe(0);
    expect(await rule(seen, 1).getByLabel('Destination URL').inputValue()).toBe(FR_URL);
    expect(await rule(seen, 1).getByLabel('Destination URL').isDisabled()).toBe(true);
    await b.look(seen, 'routing-analyst');
    expect(b.errors).toEqual([]);
  });
});
