// Bio pages in the dashboard, end to end in Debian's Chromium against the service: a page built on
// the Pages screens with three blocks (a heading, a link to an existing short link, a link made
// from a URL) while the live preview follows the typing; a taken handle and a bad URL refused next
// to their inputs; published, opened at /@handle by a visitor who follows a block to its
// destination, and that view and click read back in the page's analytics; every theme published
// and checked with axe-core on the public page; an ANALYST with no editing control (403 from the
// API when asked anyway); unpublish, disable and delete taking the address down. axe-core on the
// list, the editor and the analytics; screenshots in DASHBOARD_E2E_SHOTS_DIR (default
// /tmp/dashboard-e2e) as pages-*.png. SQLite only: the rules run on both engines in
// test/dashboard/pages.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeInChromium, startDestination, type Destination, closeAll } from '../support/browser';
import { DASHBOARD_API, seedPerson, signIn, type Person } from '../support/dashboard';
import { acmeInChromium, type DashboardBrowser, openFromNav } from '../support/dashboard-browser';
import { startTestServer, type TestServer } from '../support/server';
import { createWorkspace } from '../../src/db/repos/workspaces';

const HANDLE = 'acme-outdoor';
/** Each theme's page background (src/redirect/bio-page.ts), as the preview's stylesheet has it. */
const THEMES = [
  { name: 'Classic', value: 'classic', background: '#f8fafc' },
  { name: 'Midnight', value: 'midnight', background: '#0f172a' },
  { name: 'Forest', value: 'forest', background: '#ecfdf5' },
  { name: 'Sunrise', value: 'sunrise', background: '#fff7ed' },
] as const;

describeInChromium('bio pages in the dashboard, in Chromium (sqlite)', () => {
  let server: TestServer;
  let destination: Destination;
  let browser: Browser;
  let b: DashboardBrowser;
  let workspaceId: string;
  let owner: Person;
  let analyst: Person;
  let page: Page;
  let editorUrl: string;
  const h1 = (p: Page) => p.getByRole('heading', { level: 1 });
  const preview = (p: Page) => p.locator('iframe[title="Page preview"]');
  const block = (p: Page, n: number) => p.getByRole('group', { name: new RegExp(`^Block ${n}\\b`) });
  const stat = (p: Page, name: string) =>
    p
      .locator('.stat')
      .filter({ has: p.getByText(name, { exact: true }) })
      .locator('dd');
  const publicPage = (path = '') => `${server.url}/@${HANDLE}${path}`;
  /**
   * b.look, settled first where the preview's frame is: Playwright loses "networkidle" when a frame
   * attaches after the screen changed without a page load, and finds it again only once a request
   * ends after that; one from the page does.
   */
  const look = async (p: Page, name: string) => {
    if (await p.locator('iframe').count()) await p.evaluate("fetch('/app/api/session').then((r) => r.text())");
    await b.look(p, name);
  };

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    destination = await startDestination();
    ({ browser, b, workspaceId, owner, analyst } = await acmeInChromium(server, [destination.origin]));
    const knex = server.services.db.knex;
    const ada = await signIn(server, owner);
    const shop = await ada.request('POST', `/workspaces/${workspaceId}/links`, {
      body: { url: `${destination.origin}/shop?from=page`, slug: 'shop', title: 'The shop' },
    });
    expect(shop.status, shop.text).toBe(201);
    // Handles are unique on the short domain, which every workspace shares: another one has "acme".
    const otherId = await createWorkspace(knex, 'Other', 'free');
    const other = await signIn(server, await seedPerson(knex, otherId, 'OWNER', 'zed@other.example'));
    expect(
      (await other.request('POST', `/workspaces/${otherId}/pages`, { body: { handle: 'acme', title: 'Not Acme' } }))
        .status,
    ).toBe(201);

    page = await b.signedInPage(owner);
  }, 60_000);
  afterAll(() => closeAll(browser, destination, server));

  it('builds a page of three blocks while the preview follows the typing; a taken handle and a bad URL are refused next to their inputs', async () => {
    await openFromNav(page, 'Pages');
    await page.getByRole('heading', { name: 'No pages yet' }).waitFor();
    await look(page, 'pages-empty');

    await page.getByRole('button', { name: 'New page' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('New page');
    await page.getByLabel('Handle').fill('acme');
    await page.getByLabel('Title').fill('Acme Outdoor');
    await expect.poll(() => preview(page).getAttribute('srcdoc')).toContain('<h1>Acme Outdoor</h1>');
    await page.getByLabel('Bio').fill('Trail shoes and rain gear, made to be mended.');
    await expect.poll(() => preview(page).getAttribute('srcdoc')).toContain('made to be mended');

    await page.getByRole('button', { name: 'Add heading' }).click();
    await block(page, 1).getByLabel('Heading text').fill('Shop');
    await page.getByRole('button', { name: 'Add link' }).click();
    await block(page, 2).getByLabel('Link text').fill('Spring sale');
    await block(page, 2).getByLabel('Find a short link').fill('shop');
    await block(page, 2).getByRole('button', { name: 'Use shop for block 2' }).click();
    await expect.poll(() => block(page, 2).textContent()).toContain(`${destination.origin}/shop?from=page`);
    await page.getByRole('button', { name: 'Add link' }).click();
    await block(page, 3).getByLabel('Link text').fill('Our podcast');
    await block(page, 3).getByLabel('A new short link to a URL').check();
    await block(page, 3).getByLabel('Destination URL').fill('ftp://example.com/episodes');
    // Every block is in the preview as it is typed, in order, before anything is saved.
    await expect
      .poll(async () =>
        (await preview(page).getAttribute('srcdoc'))?.match(/<li>.*?<\/li>/g)?.map((li) => li.replace(/<[^>]+>/g, '')),
      )
      .toEqual(['Shop', 'Spring sale', 'Our podcast']);
    await look(page, 'pages-editor-new');

    // The handle another workspace's page has: the service's 409, under Handle.
    await page.getByRole('button', { name: 'Save draft' }).click();
    const handle = page.getByLabel('Handle');
    await expect.poll(() => handle.getAttribute('aria-invalid')).toBe('true');
    const handleError = page.locator(`[id="${await handle.getAttribute('id')}-error"]`);
    await expect.poll(() => handleError.textContent()).toMatch(/already taken/);
    await look(page, 'pages-editor-taken-handle');

    // A URL the link rules refuse: the message under that block's Destination URL.
    await handle.fill(HANDLE);
    await page.getByRole('button', { name: 'Save draft' }).click();
    const url = block(page, 3).getByLabel('Destination URL');
    await expect.poll(() => url.getAttribute('aria-invalid')).toBe('true');
    const urlError = page.locator(`[id="${await url.getAttribute('id')}-error"]`);
    // The API's message, naming the input as the person sees it rather than as "blocks.2.url".
    await expect.poll(() => urlError.textContent()).toBe('Destination URL must be an absolute http or https URL');
    expect(await handle.getAttribute('aria-invalid')).toBeNull();
    await look(page, 'pages-editor-bad-url');

    await url.fill(`${destination.origin}/podcast`);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Page created as a draft.').waitFor();
    await expect.poll(() => h1(page).textContent()).toBe(`Edit @${HANDLE}`);
    editorUrl = page.url().replace(/\?.*$/, '');
    await page.getByText('Draft: not published.').waitFor();
    // The URL block is a short link of the workspace now, titled with the block's text.
    const made = await server.services.db
      .knex('links')
      .where({ workspace_id: workspaceId, original_url: `${destination.origin}/podcast` })
      .first();
    expect(made?.title).toBe('Our podcast');
    await expect.poll(() => block(page, 3).textContent()).toContain(`/${made.slug}`);
    await look(page, 'pages-editor');
  });

  it("publishes it; a visitor opens /@handle and follows a block to its destination; the page's analytics count the view and the click", async () => {
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published. Visitors see this version').waitFor();
    await page.getByText(/^Published at .*Visitors see the draft as it is\.$/).waitFor();
    await page.getByRole('link', { name: 'Open page' }).waitFor();
    await look(page, 'pages-editor-published');

    const visitor = await b.newPersonPage();
    const opened = await visitor.page.goto(publicPage());
    expect(opened?.status()).toBe(200);
    await visitor.page.getByRole('heading', { level: 1, name: 'Acme Outdoor' }).waitFor();
    expect(await visitor.page.getByRole('link').allTextContents()).toEqual(['Spring sale', 'Our podcast']);
    await visitor.page.getByRole('link', { name: 'Spring sale' }).click();
    await visitor.page.getByText('Landed on destination').waitFor();
    expect(visitor.page.url()).toBe(`${destination.origin}/shop?from=page`);
    await visitor.context.close();
    await server.clicks.flush();

    await page.getByRole('link', { name: 'Analytics' }).click();
    await expect.poll(() => h1(page).textContent()).toBe(`Analytics for @${HANDLE}`);
    await expect.poll(() => stat(page, 'Views').textContent()).toBe('1');
    await expect.poll(() => stat(page, 'Clicks on links').textContent()).toBe('1');
    const blocks = page.getByRole('table', { name: 'Clicks by link block' });
    const blockClicks = (name: RegExp) => blocks.getByRole('row', { name }).locator('td.num').textContent();
    await expect.poll(() => blockClicks(/Spring sale/)).toBe('1');
    await expect.poll(() => blockClicks(/Our podcast/)).toBe('0');
    // The day's figures are in the table under the chart too.
    await page.getByText('Show the numbers').click();
    const totals = page.getByRole('table', { name: 'Views and clicks per day' }).locator('tfoot tr');
    await expect.poll(() => totals.locator('td').allTextContents()).toEqual(['1', '1']);
    await page
      .getByRole('table', { name: 'Devices' })
      .getByRole('row', { name: /Desktop/ })
      .waitFor();
    await look(page, 'pages-analytics');
  });

  it('publishes each theme; the public page passes axe-core in every one', async () => {
    await page.goto(editorUrl);
    await expect.poll(() => h1(page).textContent()).toBe(`Edit @${HANDLE}`);
    const visitor = await b.newPersonPage();
    for (const theme of THEMES) {
      await page.getByLabel(theme.name, { exact: true }).check();
      await expect.poll(() => preview(page).getAttribute('srcdoc')).toContain(`background:${theme.background}`);
      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      await page.getByText('Published. Visitors see this version').waitFor();
      expect((await visitor.page.goto(publicPage()))?.status(), theme.value).toBe(200);
      expect(await visitor.page.content()).toContain(`background:${theme.background}`);
      await look(visitor.page, `pages-public-${theme.value}`);
    }
    await visitor.context.close();
    await look(page, 'pages-editor-sunrise');
  });

  it('an ANALYST reads the list, the editor and the analytics with no editing control; the API answers 403 when asked anyway', async () => {
    const { context, page: p } = await b.newPersonPage();
    await b.signInThroughForm(p, analyst);
    await expect.poll(() => h1(p).textContent()).toBe('Links');
    await p.goto(`${server.url}/app/w/${workspaceId}/pages`);
    await expect.poll(() => h1(p).textContent()).toBe('Pages');
    await p.getByRole('link', { name: `@${HANDLE}`, exact: true }).waitFor();
    expect(await p.getByRole('button', { name: 'New page' }).count()).toBe(0);
    await look(p, 'pages-list-analyst');

    await p.getByRole('link', { name: `@${HANDLE}`, exact: true }).click();
    await expect.poll(() => h1(p).textContent()).toBe(`Edit @${HANDLE}`);
    await p.getByText('Your role (Analyst) cannot change pages.').waitFor();
    expect(await p.getByLabel('Handle').isDisabled()).toBe(true);
    expect(await block(p, 2).getByLabel('Link text').isDisabled()).toBe(true);
    for (const name of [
      'Save draft',
      'Publish',
      'Unpublish',
      'Disable',
      'Delete page',
      'Add heading',
      'Add link',
      'Move block 1 down',
      'Remove block 1',
      'Change the short link of block 2',
    ]) {
      expect(await p.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    expect(await p.getByLabel('Upload avatar').count()).toBe(0);
    await look(p, 'pages-editor-analyst');
    await p.getByRole('link', { name: 'Analytics' }).click();
    await expect.poll(() => stat(p, 'Views').textContent()).not.toBe('0');
    await look(p, 'pages-analytics-analyst');

    const pageId = editorUrl.split('/').pop()!;
    const base = `${DASHBOARD_API}/workspaces/${workspaceId}/pages`;
    const changed = await b.apiFromPage(p, 'PATCH', `${base}/${pageId}`, { title: 'Sneaky' });
    expect(changed.status).toBe(403);
    expect(changed.body?.error).toMatch(/ANALYST/);
    expect((await b.apiFromPage(p, 'POST', `${base}/${pageId}/unpublish`)).status).toBe(403);
    expect((await b.apiFromPage(p, 'POST', base, { handle: 'sneaky', title: 'Sneaky' })).status).toBe(403);
    await context.close();
  });

  it('disable and unpublish take /@handle down (404); delete frees it, after the confirm dialog', async () => {
    const status = async () => (await server.request('GET', `/@${HANDLE}`)).status;
    expect(await status()).toBe(200);
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Disabled. The address answers').waitFor();
    await page.getByText(/^Disabled: visitors get/).waitFor();
    expect(await status()).toBe(404);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Enabled.').waitFor();
    expect(await status()).toBe(200);

    await page.getByRole('button', { name: 'Unpublish' }).click();
    await page.getByText('Unpublished. The address answers').waitFor();
    await page.getByText('Draft: not published.').waitFor();
    const visitor = await b.newPersonPage();
    expect((await visitor.page.goto(publicPage()))?.status()).toBe(404);
    await visitor.context.close();
    await look(page, 'pages-editor-unpublished');

    await page.getByRole('link', { name: 'All pages' }).click();
    const row = page.getByRole('row', { name: new RegExp(`@${HANDLE}`) });
    await expect.poll(() => row.textContent()).toContain('Draft');
    await expect.poll(() => row.textContent()).toContain('Not published');
    await look(page, 'pages-list');

    await row.getByRole('link', { name: `@${HANDLE}`, exact: true }).click();
    await page.getByRole('button', { name: 'Delete page' }).click();
    const dialog = page.getByRole('dialog', { name: `Delete @${HANDLE}?` });
    await look(page, 'pages-delete-dialog');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText(`Page @${HANDLE} deleted.`).waitFor();
    await page.getByRole('heading', { name: 'No pages yet' }).waitFor();
    expect(await status()).toBe(404);
    expect(b.errors).toEqual([]);
  });
});
