// What the dashboard does, driven in Chromium as a person would, by role and accessible name (the
// names the end-to-end tests against the service will use), against Prism's mock of the contract.
// Where a test needs a particular answer (a role, an error, a report) it answers the request
// itself after Prism has seen it, so every request the app makes is still held to the contract.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeInChromium } from '../../support/browser';
import {
  analytics,
  answer,
  bioPage,
  CSRF,
  link,
  linkList,
  realisticReads,
  session,
  signedInAs,
  workspace,
  WS,
} from './fixtures';
import {
  axeProblems,
  settled,
  SHOTS_DIR,
  type AppServer,
  startMockDashboard,
  type MockDashboard,
  watchedContext,
} from './harness';

describeInChromium("the dashboard in Chromium against Prism's mock of the contract", () => {
  let dashboard: MockDashboard;
  let app: AppServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];

  beforeAll(async () => {
    dashboard = await startMockDashboard();
    ({ browser, app } = dashboard);
  }, 120_000);
  afterAll(() => dashboard?.stop());
  beforeEach(async () => {
    context = await watchedContext(browser, {
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      timezoneId: 'Europe/Berlin',
      acceptDownloads: true,
    });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    pageErrors = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
  });
  afterEach(async () => {
    await context?.close();
    expect(pageErrors).toEqual([]);
    expect(app.violations, 'requests Prism found against the contract').toEqual([]);
  });

  const open = async (path: string) => {
    await page.goto(`${app.origin}/app${path}`);
    await settled(page);
  };
  const h1 = () => page.getByRole('heading', { level: 1 });
  /**
   * Picks a one-pixel PNG as `fileName` in the file input `uploadLabel`, the upload answered 201
   * with an image the app server hosts, and waits until the field `fieldLabel` holds that image's
   * URL. Returns the upload requests seen.
   */
  const uploadImage = async (uploadLabel: string, fileName: string, fieldLabel: string) => {
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const hosted = `${app.origin}/app/favicon.svg`;
    const upload = await answer(page, 'POST', `**/app/api/workspaces/${WS}/assets`, { url: hosted }, 201);
    await page.getByLabel(uploadLabel).setInputFiles({ name: fileName, mimeType: 'image/png', buffer: png });
    await expect.poll(() => page.getByLabel(fieldLabel, { exact: true }).inputValue()).toBe(hosted);
    return upload;
  };
  /** A picture of a state worth looking at (dialogs, errors, results), next to the screens'. */
  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS_DIR, `state-${name}.png`), fullPage: true });

  describe('sessions', () => {
    it('a 401 sends the person to sign in, and back to where they were going afterwards', async () => {
      let ended = true;
      await page.route('**/app/api/session', (route) => {
        if (route.request().method() !== 'GET') return route.fallback();
        return ended
          ? route.fulfill({ status: 401, json: { error: 'Sign in to continue.' } })
          : route.fulfill({ json: session() });
      });
      const signIn = await answer(page, 'POST', '**/app/api/session', session());
      await page.goto(`${app.origin}/app/w/${WS}/settings/tags?x=1`);
      await page.waitForURL(/\/app\/login\?next=/);
      expect(new URL(page.url()).searchParams.get('next')).toBe(`/w/${WS}/settings/tags?x=1`);
      await expect.poll(() => h1().textContent()).toBe('Sign in');

      await page.getByLabel('Email').fill('ada@acme.example');
      await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
      ended = false;
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`**/app/w/${WS}/settings/tags?x=1`);
      await expect.poll(() => h1().textContent()).toBe('Tags');
      expect(JSON.parse(signIn[0].body!)).toEqual({ email: 'ada@acme.example', password: 'correct horse battery' });
    });

    it("a wrong password stays on the form with the API's words; a 429 says how long to wait", async () => {
      await answer(page, 'POST', '**/app/api/session', { error: 'Wrong email or password.' }, 401);
      await open('/login');
      await page.getByLabel('Email').fill('ada@acme.example');
      await page.getByLabel('Password', { exact: true }).fill('nope');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong email or password.');
      expect(page.url()).toContain('/app/login');

      await page.unroute('**/app/api/session');
      await answer(page, 'POST', '**/app/api/session', { error: 'Too many wrong passwords.' }, 429, {
        'Retry-After': '840',
      });
      await page.getByLabel('Password', { exact: true }).fill('still wrong');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toBe('Too many attempts. Try again in 14 minutes.');
      await shot('sign-in-too-many');
    });

    it("every state-changing request carries the session's X-CSRF-Token; signing out ends on the sign-in screen", async () => {
      await realisticReads(page);
      await open(`/w/${WS}/settings/tags`);
      const create = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/workspaces/${WS}/tags`));
      await page.getByLabel('Name', { exact: true }).fill('summer');
      await page.getByRole('button', { name: 'Create tag' }).click();
      expect((await create).headers()['x-csrf-token']).toBe(CSRF);
      await expect.poll(() => page.getByRole('status').textContent()).toContain('created');

      const signOut = page.waitForRequest((r) => r.method() === 'DELETE' && r.url().endsWith('/app/api/session'));
      await page.getByRole('button', { name: 'Sign out' }).click();
      expect((await signOut).headers()['x-csrf-token']).toBe(CSRF);
      await page.waitForURL('**/app/login');
    });

    it('set password and first run check the password in the page before sending anything', async () => {
      let sent = 0;
      await page.route('**/app/api/password-setup', (route) => {
        sent += 1;
        return route.fallback();
      });
      await open('/setup-password?token=tok_1');
      await page.getByLabel('Password', { exact: true }).fill('short');
      await page.getByLabel('Confirm password').fill('short');
      await page.getByRole('button', { name: 'Set password' }).click();
      await expect.poll(() => page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByText('Use at least 10 characters.').isVisible()).toBe(true);
      await page.getByLabel('Password', { exact: true }).fill('long enough password');
      await page.getByLabel('Confirm password').fill('long enough passwort');
      await page.getByRole('button', { name: 'Set password' }).click();
      await expect.poll(() => page.getByLabel('Confirm password').getAttribute('aria-invalid')).toBe('true');
      expect(sent).toBe(0);

      await page.unroute('**/app/api/password-setup');
      const setup = await answer(page, 'POST', '**/app/api/password-setup', session());
      await signedInAs(page);
      await page.getByLabel('Confirm password').fill('long enough password');
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.waitForURL(`**/app/w/${WS}/links`);
      expect(JSON.parse(setup[0].body!)).toEqual({ token: 'tok_1', password: 'long enough password' });

      await page.route('**/app/api/first-run?*', (route) => route.fulfill({ json: { available: true } }));
      await open('/setup?token=first');
      for (const label of ['Workspace name', 'Email', 'Password', 'Confirm password']) {
        expect(await page.getByLabel(label, { exact: true }).count(), label).toBe(1);
      }
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await expect.poll(() => page.getByLabel('Workspace name').getAttribute('aria-invalid')).toBe('true');
    });

    it('changing the password ends every session: the person is sent to sign in', async () => {
      await signedInAs(page);
      await open('/account');
      await page.getByLabel('Current password').fill('old password 1');
      await page.getByLabel('New password', { exact: true }).fill('new password 12');
      await page.getByLabel('Confirm new password').fill('new password 12');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.waitForURL('**/app/login?changed=1');
      await expect.poll(() => page.getByRole('status').textContent()).toContain('Sign in with your new password');
    });

    it("the Workspace switcher opens the other workspace's links", async () => {
      await signedInAs(page);
      await open(`/w/${WS}/links`);
      await page.getByLabel('Workspace').selectOption({ label: 'Side project' });
      await page.waitForURL('**/app/w/ws_side/links');
      await settled(page);
      // An ANALYST there: reading only.
      expect(await page.getByRole('button', { name: 'New link' }).count()).toBe(0);
    });

    it('on a phone the Menu button discloses every section; Escape, a section or a press outside closes it', async () => {
      await realisticReads(page);
      await page.setViewportSize({ width: 390, height: 844 });
      await open(`/w/${WS}/links`);
      const nav = page.getByRole('navigation', { name: 'Main' });
      const menu = nav.getByRole('button', { name: 'Menu' });
      const section = (name: string) => nav.getByRole('link', { name, exact: true });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await section('Settings').isVisible()).toBe(false);
      const panel = page.locator(`[id="${await menu.getAttribute('aria-controls')}"]`);

      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      expect(await panel.isVisible()).toBe(true);
      for (const name of ['Links', 'Conversions', 'Goals', 'Pages', 'Reports', 'Import and export', 'Settings']) {
        expect(await section(name).isVisible(), name).toBe(true);
      }
      // Every section is inside the screen's width, none cut off.
      const box = (await section('Import and export').boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      await shot('menu-open-phone');
      await section('Reports').click();
      await page.waitForURL(`**/app/w/${WS}/reports`);
      await expect.poll(() => h1().textContent()).toBe('Reports');
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await section('Reports').isVisible()).toBe(false);

      // Escape closes it from inside the panel and gives the focus back to the button.
      await menu.click();
      await page.keyboard.press('Tab');
      await expect.poll(() => page.evaluate('document.activeElement.textContent')).toBe('Links');
      await page.keyboard.press('Escape');
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await page.evaluate('document.activeElement.getAttribute("aria-expanded")')).toBe('false');
      expect(await page.evaluate('document.activeElement.textContent')).toBe('Menu');

      // A press outside closes it and stays where it is.
      await menu.click();
      await page.mouse.click(195, 820);
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(new URL(page.url()).pathname).toBe(`/app/w/${WS}/reports`);

      await menu.click();
      await section('Settings').click();
      await page.waitForURL(`**/app/w/${WS}/settings**`);
      await settled(page);

      // A wide screen shows the sections in the bar, with no Menu button.
      await page.setViewportSize({ width: 1280, height: 800 });
      expect(await menu.isVisible()).toBe(false);
      expect(await section('Reports').isVisible()).toBe(true);
    });
  });

  describe('links', () => {
    it('lists links with their pages and counts; the search is debounced and sent as q', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/links`);
      for (const name of ['Short link', 'Destination', 'Tags', 'Status', 'Clicks', 'Created']) {
        expect(await page.getByRole('columnheader', { name, exact: true }).count(), name).toBe(1);
      }
      expect(await page.getByText('1–25 of 1,234', { exact: true }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Copy short URL for launch', exact: true }).count()).toBe(1);
      expect(await page.getByRole('link', { name: 'launch', exact: true }).getAttribute('href')).toBe(
        `/app/w/${WS}/links/lnk_0`,
      );

      const searches: string[] = [];
      page.on('request', (r) => {
        const url = new URL(r.url());
        if (url.pathname.endsWith(`/workspaces/${WS}/links`) && url.searchParams.has('q'))
          searches.push(url.searchParams.get('q')!);
      });
      await page.getByLabel('Search links').pressSequentially('spring', { delay: 20 });
      await expect.poll(() => searches.includes('spring')).toBe(true);
      // One request once typing pauses, not one a keystroke.
      expect(searches.length).toBeLessThan(3);
      expect(page.url()).toContain('q=spring');

      await page.unroute('**/app/api/workspaces/**');
      await realisticReads(page);
      await page.route(`**/app/api/workspaces/${WS}/links?*`, (route) =>
        route.fulfill({ json: linkList(25, 10_000, true) }),
      );
      await page.getByLabel('Status').selectOption('DISABLED');
      await expect.poll(() => page.getByText('1–25 of 10,000+', { exact: true }).count()).toBe(1);
      const next = page.waitForRequest((r) => new URL(r.url()).searchParams.get('page') === '2');
      await page.getByRole('button', { name: 'Next page' }).click();
      const url = new URL((await next).url());
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        q: 'spring',
        status: 'DISABLED',
        page: '2',
        limit: '25',
        sort: 'created',
        order: 'desc',
      });
    });

    it('the Tag filter finds a tag by part of its name, with its link count, by pointer or by keys', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/links`);
      const tagged = (id: string) =>
        page.waitForRequest((r) => {
          const url = new URL(r.url());
          return url.pathname.endsWith(`/workspaces/${WS}/links`) && url.searchParams.get('tagId') === id;
        });
      const tag = page.getByRole('combobox', { name: 'Tag' });
      expect(await tag.inputValue()).toBe('All tags');
      await tag.fill('soc');
      const choices = page.getByRole('listbox', { name: 'Tag' });
      expect(await choices.getByRole('option').allTextContents()).toEqual(['social 1 link']);
      await shot('links-tag-filter-search');
      const social = tagged('tag_social');
      await choices.getByRole('option', { name: /^social/ }).click();
      await social;
      expect(new URL(page.url()).searchParams.get('tag')).toBe('tag_social');
      expect(await tag.inputValue()).toBe('social');
      // The keys: type, Down to the match, Enter chooses it (and sends no form).
      await tag.fill('pri');
      const print = tagged('tag_print');
      await tag.press('ArrowDown');
      await tag.press('Enter');
      await print;
      expect(await tag.inputValue()).toBe('print');
      // Leaving with half a name puts back the chosen one: the field shows what it holds.
      await tag.fill('q4');
      await page.getByLabel('Search links').focus();
      expect(await tag.inputValue()).toBe('print');
      // Every tag, "All tags" first, behind the arrow.
      await page.getByRole('button', { name: 'Show every tag' }).click();
      expect(await choices.getByRole('option').allTextContents()).toEqual([
        'All tags',
        'Q4 launch 128 links',
        'social 1 link',
        'print 0 links',
      ]);
      expect(await axeProblems(page), 'axe with the choices open').toEqual([]);
      await choices.getByRole('option', { name: 'All tags' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.has('tag')).toBe(false);
    });

    it("the editor's tags get a search once there are many; chosen ones stay shown", async () => {
      await realisticReads(page);
      const many = Array.from({ length: 12 }, (_, i) => ({
        id: `tag_${i}`,
        name: i % 3 === 0 ? `campaign ${i}` : `topic ${i}`,
        color: '#2563eb',
        linkCount: i,
      }));
      await page.route(`**/app/api/workspaces/${WS}/tags`, (route) => route.fulfill({ json: { data: many } }));
      await open(`/w/${WS}/links/new`);
      const group = page.getByRole('group', { name: 'Tags' });
      expect(await group.getByRole('checkbox').count()).toBe(12);
      await group.getByLabel('topic 1', { exact: true }).check();
      await group.getByLabel('Find a tag').fill('campaign');
      await expect.poll(() => group.getByRole('checkbox').count()).toBe(5);
      expect(await group.getByLabel('topic 1', { exact: true }).isChecked()).toBe(true);
      await group.getByText('5 of 12 tags shown (chosen ones always).').waitFor();
      // Enter narrows; it does not send the editor.
      await group.getByLabel('Find a tag').press('Enter');
      expect(page.url()).toContain('/links/new');
      await group.getByLabel('campaign 9', { exact: true }).check();
      await shot('link-editor-tag-search');
      await group.getByLabel('Find a tag').fill('');
      expect(await group.getByRole('checkbox').count()).toBe(12);
      expect(await axeProblems(page)).toEqual([]);
    });

    it("an OWNER deletes selected links after a native dialog, and sees each link's outcome", async () => {
      await realisticReads(page);
      await open(`/w/${WS}/links`);
      await page.getByLabel('Select launch', { exact: true }).check();
      await page.getByLabel('Select spring-sale', { exact: true }).check();
      const bulk = await answer(page, 'POST', '**/app/api/workspaces/*/links/bulk', {
        data: [
          { id: 'lnk_0', ok: true },
          { id: 'lnk_1', ok: false, error: 'Link not found.' },
        ],
      });
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete 2 links?' });
      await dialog.waitFor();
      await shot('bulk-delete-dialog');
      expect(await dialog.getByRole('button', { name: 'Cancel' }).count()).toBe(1);
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('spring-sale: Link not found.');
      expect(await page.getByRole('status').textContent()).toContain('launch: Deleted');
      await shot('bulk-delete-outcome');
      expect(JSON.parse(bulk[0].body!)).toEqual({ action: 'delete', linkIds: ['lnk_0', 'lnk_1'] });
      expect(bulk[0].headers['x-csrf-token']).toBe(CSRF);
    });

    it("shows each link's schedule and expiry as badges, and when it was made in words with the exact time on hover", async () => {
      await realisticReads(page);
      await open(`/w/${WS}/links`);
      const status = (slug: string) =>
        page.getByRole('row', { name: new RegExp(`^(Select )?${slug} `) }).locator('.cell-status');
      expect(await status('spring-sale').textContent()).toBe('ActiveExpires in 10 days');
      expect(await status('careers').textContent()).toBe('ActiveStarts in 3 days');
      expect(await status('newsletter').textContent()).toBe('ActiveExpired');
      expect(await status('webinar-2026').textContent()).toBe('Disabled');
      expect(await status('spring-sale-7').textContent()).toBe('ActiveEnded');
      expect(await status('docs').textContent()).toBe('ActivePassword');
      // The exact moment is on hover.
      expect(await status('spring-sale').getByText('Expires in 10 days').getAttribute('title')).toMatch(/\d{4}/);
      const created = page.getByRole('row', { name: /^(Select )?docs / }).locator('time');
      expect(await created.textContent()).toBe('3 days ago');
      expect(await created.getAttribute('title')).toMatch(/\d{4}.*\d:\d\d/);
      // No "None" where a link has no tags: the cell is empty to the eye, and says so to a reader.
      expect(await page.getByText('None', { exact: true }).count()).toBe(0);
    });

    it('adds a tag to every link of the page; a MEMBER has no bulk Delete, an ANALYST no New link and no selection', async () => {
      await realisticReads(page, 'MEMBER');
      await open(`/w/${WS}/links`);
      await page.getByLabel('Select all on this page').check();
      expect(await page.getByRole('button', { name: 'Delete', exact: true }).count()).toBe(0);
      const bulk = await answer(page, 'POST', '**/app/api/workspaces/*/links/bulk', {
        data: linkList(25).data.map((l) => ({ id: l.id, ok: true })),
      });
      await page.getByRole('combobox', { name: 'Tag to add' }).fill('pri');
      await shot('links-bulk-tag-search');
      await page.getByRole('option', { name: /^print/ }).click();
      await page.getByRole('button', { name: 'Add tag' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('Tag added: 25 links');
      expect(JSON.parse(bulk[0].body!)).toMatchObject({ action: 'add_tag', tagId: 'tag_print' });
      expect(JSON.parse(bulk[0].body!).linkIds).toHaveLength(25);

      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await realisticReads(page, 'ANALYST');
      await open(`/w/${WS}/links`);
      expect(await page.getByRole('button', { name: 'New link' }).count()).toBe(0);
      expect(await page.getByRole('checkbox').count()).toBe(0);
    });

    it('an empty workspace says so and offers New link', async () => {
      await realisticReads(page);
      await page.route(`**/app/api/workspaces/${WS}/links?*`, (route) => route.fulfill({ json: linkList(0) }));
      await open(`/w/${WS}/links`);
      expect(await page.getByRole('heading', { name: 'No links yet' }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'New link' }).count()).toBe(1);
      // Importing is a link away, not words to look for elsewhere.
      await page.getByRole('link', { name: 'import links from a CSV file' }).click();
      await page.waitForURL(`**/app/w/${WS}/import`);
      await open(`/w/${WS}/links`);
      await page.getByRole('button', { name: 'New link' }).click();
      const dialog = page.getByRole('dialog', { name: 'New link' });
      await dialog.waitFor();
      expect(await page.evaluate('document.activeElement?.type')).toBe('url');
      // An empty destination is caught before anything is sent.
      await page.keyboard.press('Enter');
      await dialog.getByText('Enter the address the short link leads to.').waitFor();
      await page.keyboard.press('Escape');
      await expect.poll(() => dialog.count()).toBe(0);
      await page.getByRole('button', { name: 'New link' }).click();
      await dialog.getByLabel('Destination URL').fill('https://example.com/from-dialog');
      await dialog.getByRole('link', { name: 'More options' }).click();
      await page.waitForURL(`**/app/w/${WS}/links/new?url=*`);
      expect(await page.getByLabel('Destination URL').inputValue()).toBe('https://example.com/from-dialog');
    });
  });

  describe('link editor', () => {
    it("makes a link with what was filled in, dates with the browser's offset, and opens it with its short URL and QR code", async () => {
      await realisticReads(page);
      await open(`/w/${WS}/links/new`);
      for (const label of [
        'Destination URL',
        'Slug',
        'Domain',
        'Title',
        'Redirect type',
        'Starts at',
        'Ends at',
        'Expires at',
        'Expired URL',
        'Click limit',
        'Password',
        'Preview title',
        'Preview description',
        'Preview image',
        'Upload preview image',
      ]) {
        expect(await page.getByLabel(label, { exact: true }).count(), label).toBe(1);
      }
      expect(await page.getByRole('group', { name: 'Tags' }).count()).toBe(1);
      await page.getByLabel('Destination URL').fill('https://www.acme.example/launch');
      await page.getByLabel('Slug').fill('launch');
      await page.getByRole('group', { name: 'Tags' }).getByLabel('print').check();
      await page.getByLabel('Redirect type').selectOption({ label: '301 permanent' });
      await page.getByLabel('Expires at').fill('2027-01-15T18:30');
      await page.getByLabel('Click limit').fill('500');
      const made = link(0, { id: 'lnk_new', slug: 'launch' });
      const create = await answer(page, 'POST', `**/app/api/workspaces/${WS}/links`, { data: made }, 201);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(`**/app/w/${WS}/links/lnk_new?created=1`);
      expect(JSON.parse(create[0].body!)).toEqual({
        url: 'https://www.acme.example/launch',
        slug: 'launch',
        redirectType: 'PERMANENT',
        tagIds: ['tag_print'],
        expiresAt: '2027-01-15T18:30:00+01:00',
        clickLimit: 500,
      });
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Link created');
      expect(await page.getByRole('button', { name: 'Copy short URL', exact: true }).count()).toBe(1);

      await answer(page, 'POST', '**/app/api/workspaces/*/links/*/qr', {
        data: {
          id: 'qr_1',
          linkId: 'lnk_new',
          url: 'https://sho.rt/qr/abc',
          svgUrl: `${app.origin}/app/favicon.svg`,
          pngUrl: `${app.origin}/app/favicon.svg?png`,
        },
      });
      await page.getByRole('button', { name: 'Make QR code' }).click();
      await page.getByRole('img', { name: /QR code for/ }).waitFor();
      expect(await page.getByRole('link', { name: 'Download SVG' }).getAttribute('download')).toBe('launch-qr.svg');
      expect(await page.getByRole('link', { name: 'Download PNG' }).getAttribute('download')).toBe('launch-qr.png');
      await shot('link-created-with-qr');
    });

    it('puts an error naming a field under that field, and any other at the top', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/links/new`);
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByLabel('Destination URL').getAttribute('aria-invalid')).toBe('true');

      await page.getByLabel('Destination URL').fill('https://www.acme.example/');
      await page.getByLabel('Slug').fill('admin');
      await answer(
        page,
        'POST',
        `**/app/api/workspaces/${WS}/links`,
        { error: 'The slug admin is reserved.', field: 'slug' },
        409,
      );
      await page.getByRole('button', { name: 'Save' }).click();
      const slug = page.getByLabel('Slug');
      await expect.poll(() => slug.getAttribute('aria-invalid')).toBe('true');
      const described = (await slug.getAttribute('aria-describedby'))!.split(' ');
      const texts = await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).textContent()));
      expect(texts).toContain('The slug admin is reserved.');
      await shot('link-field-error');
      expect(await page.getByLabel('Destination URL').getAttribute('aria-invalid')).toBeNull();

      await page.unroute(`**/app/api/workspaces/${WS}/links`);
      await answer(page, 'POST', `**/app/api/workspaces/${WS}/links`, { error: 'Your role cannot make links.' }, 403);
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('Your role cannot make links.');
      expect(await slug.getAttribute('aria-invalid')).toBeNull();
    });

    it('edits send only what changed; a password can be removed; Expired URL needs the Growth plan', async () => {
      await realisticReads(page);
      await page.route(`**/app/api/workspaces/${WS}`, (route) =>
        route.fulfill({ json: workspace({ expiredUrl: false }) }),
      );
      await open(`/w/${WS}/links/lnk_0`);
      expect(await page.getByLabel('Expired URL').isDisabled()).toBe(true);
      expect(await page.getByText('Needs the Growth plan').isVisible()).toBe(true);
      expect(await page.getByLabel('Domain').isDisabled()).toBe(true);
      await page.getByLabel('Title', { exact: true }).fill('');
      await page.getByLabel('Remove password').check();
      const update = await answer(page, 'PATCH', `**/app/api/workspaces/${WS}/links/lnk_0`, {
        data: link(0, { title: null, hasPassword: false }),
      });
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Changes saved.');
      expect(JSON.parse(update[0].body!)).toEqual({ title: null, password: null });
      expect(await page.getByRole('button', { name: 'Delete link' }).count()).toBe(1);
    });

    it('uploads a preview image with its own media type and fills Preview image', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/links/lnk_0`);
      const upload = await uploadImage('Upload preview image', 'card.png', 'Preview image');
      expect(upload[0].headers['content-type']).toBe('image/png');
      expect(upload[0].headers['x-csrf-token']).toBe(CSRF);
      expect(await page.getByRole('img', { name: "The link's preview image" }).count()).toBe(1);
    });

    it('an ANALYST reads a link without Save or Delete link', async () => {
      await realisticReads(page, 'ANALYST');
      await open(`/w/${WS}/links/lnk_0`);
      expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Delete link' }).count()).toBe(0);
      expect(await page.getByLabel('Destination URL').isDisabled()).toBe(true);
    });
  });

  describe('analytics, import and export', () => {
    it('shows the chart as an image with a summary, the numbers as a table, and exports them as CSV', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/links/lnk_0/analytics`);
      const chart = page.getByRole('img', { name: /Line chart of clicks and QR scans per day/ });
      expect(await chart.count()).toBe(1);
      expect(await page.locator('canvas').count()).toBeGreaterThan(0);
      await page.getByText('Show the numbers').click();
      expect(await page.getByRole('table', { name: 'Clicks per day' }).isVisible()).toBe(true);
      for (const caption of ['Countries', 'Cities', 'Devices', 'Browsers', 'Operating systems', 'Referrers']) {
        expect(await page.getByRole('table', { name: caption }).count(), caption).toBe(1);
      }
      // A city is named with its country (names repeat across countries); the unknown ones and
      // those beyond the ten largest are rows of their own.
      const cities = page.getByRole('table', { name: 'Cities' });
      expect(await cities.getByRole('rowheader').allInnerTexts()).toEqual([
        'Berlin, Germany',
        'Springfield, United States',
        'Paris, France',
        'Unknown',
        'Other',
      ]);
      await shot('analytics-breakdowns');
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export as CSV' }).click();
      const file = await (await download).path();
      const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
      const expected = analytics(30).series;
      expect(lines[0]).toBe('day,clicks,scans');
      expect(lines[1]).toBe(`${expected[0].day},${expected[0].clicks},${expected[0].scans}`);
      expect(lines).toHaveLength(31);
    });

    it('names the window in its card; the breakdowns say they keep to 90 days; a long referrer wraps between its labels', async () => {
      await realisticReads(page);
      await page.setViewportSize({ width: 390, height: 844 });
      // The realistic answer has 30 days, whatever the window asked for.
      await open(`/w/${WS}/links/lnk_0/analytics`);
      const stat = (name: string) =>
        page.locator('.stat', { has: page.getByText(name, { exact: true }) }).locator('dd');
      await expect.poll(() => stat('Window').textContent()).toBe('30 days');
      expect(await page.getByText('Days', { exact: true }).count()).toBe(0);
      const sources = page.getByRole('region', { name: 'Sources of clicks, last 90 days' });
      expect(
        await sources.getByText('these tables always cover the last 90 days, whatever the window above').count(),
      ).toBe(1);

      const host = 'newsletter.customer-communications.acme-partners.example';
      const cell = page.getByRole('table', { name: 'Referrers' }).getByRole('rowheader', { name: host });
      await cell.scrollIntoViewIfNeeded();
      // The cell's text line by line, as the browser laid it out.
      const lines = (await page.evaluate(`((th) => {
        const lines = [];
        let top = null;
        const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (let i = 0; i < node.data.length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const y = range.getClientRects()[0].top;
            if (top === null || y > top + 2) {
              lines.push('');
              top = y;
            }
            lines[lines.length - 1] += node.data[i];
          }
        }
        return lines;
      })([...document.querySelectorAll('th')].find((th) => th.textContent === ${JSON.stringify(host)}))`)) as string[];
      expect(lines.join('')).toBe(host);
      expect(lines.length).toBeGreaterThan(1);
      // Every line but the first starts a label (after a dot) or follows a hyphen: none splits a word.
      for (let i = 1; i < lines.length; i++) {
        expect(lines[i].startsWith('.') || lines[i - 1].endsWith('-'), lines.join(' | ')).toBe(true);
      }
      await shot('analytics-breakdowns-phone');
    });

    it('asks for another window by preset or by days, at most 400 of them', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/links/lnk_0/analytics`);
      const asked = page.waitForRequest((r) => r.url().includes('/analytics?'));
      await page.getByLabel('Window').selectOption({ label: 'Last 7 days' });
      const q = new URL((await asked).url()).searchParams;
      expect((Date.parse(q.get('to')!) - Date.parse(q.get('from')!)) / 86_400_000).toBe(6);

      await page.getByLabel('Window').selectOption({ label: 'Custom' });
      let requested = 0;
      page.on('request', (r) => {
        if (r.url().includes('/analytics?')) requested += 1;
      });
      await page.getByLabel('From').fill('2025-01-01');
      await page.getByLabel('To').fill('2026-03-01');
      await expect.poll(() => page.getByText('Choose at most 400 days.').count()).toBe(1);
      expect(await page.getByLabel('To').getAttribute('aria-invalid')).toBe('true');
      expect(requested).toBe(0);
      await shot('analytics-window-too-long');
      const custom = page.waitForRequest((r) => r.url().includes('from=2025-01-01&to=2025-12-31'));
      await page.getByLabel('To').fill('2025-12-31');
      await custom;
    });

    it('imports a CSV file and reports it row by row; exports through a download link', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/import`);
      const report = {
        created: 2,
        refused: 1,
        rows: [
          { row: 2, ok: true, linkId: 'lnk_a', slug: 'a' },
          { row: 3, ok: false, error: 'url must be an absolute http or https URL', field: 'url' },
          { row: 4, ok: true, linkId: 'lnk_b', slug: 'b' },
        ],
      };
      const sent = await answer(page, 'POST', `**/app/api/workspaces/${WS}/links/import`, report);
      await page.getByLabel('CSV file').setInputFiles({
        name: 'links.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('url,slug\nhttps://a.example,a\nnot a url,x\nhttps://b.example,b\n'),
      });
      await page.getByRole('button', { name: 'Import' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('2 made, 1 refused');
      expect(sent[0].headers['content-type']).toBe('text/csv');
      expect(sent[0].body).toBe('url,slug\nhttps://a.example,a\nnot a url,x\nhttps://b.example,b\n');
      for (const name of ['Row', 'Result', 'Slug', 'Error'])
        expect(await page.getByRole('columnheader', { name, exact: true }).count(), name).toBe(1);
      expect(await page.getByRole('row', { name: /3 Refused/ }).textContent()).toContain(
        'url must be an absolute http or https URL',
      );
      await shot('import-report');

      const exportLink = page.getByRole('link', { name: 'Export links as CSV' });
      expect(await exportLink.getAttribute('href')).toBe(`/app/api/workspaces/${WS}/links/export`);
      expect(await exportLink.getAttribute('download')).toBeTruthy();
    });
  });

  describe('bio pages', () => {
    const previews = () =>
      app.apiRequests
        .filter((r) => r.method === 'POST' && r.path === `/workspaces/${WS}/page-preview`)
        .map((r) => JSON.parse(r.body.toString()));
    const block = (n: number) => page.getByRole('group', { name: new RegExp(`^Block ${n}\\b`) });

    it('a new page sends what was filled in, blocks in order; the preview gets the unsaved draft, only blocks with text, once typing pauses', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/pages/new`);
      await page.getByLabel('Handle').fill('acme-spring');
      const before = previews().length;
      await page.getByLabel('Title').pressSequentially('Spring at Acme', { delay: 15 });
      await expect.poll(() => previews().at(-1)?.title).toBe('Spring at Acme');
      // One request per pause, not one per key.
      expect(previews().length - before).toBeLessThan('Spring at Acme'.length / 2);

      await page.getByRole('button', { name: 'Add heading' }).click();
      await expect.poll(() => page.evaluate('document.activeElement?.labels?.[0]?.textContent')).toBe('Heading text');
      await page.keyboard.type('Shop');
      await page.getByRole('button', { name: 'Add paragraph' }).click();
      await page.getByRole('button', { name: 'Add link' }).click();
      await block(3).getByRole('button', { name: 'Use launch for block 3' }).click();
      // An empty link text takes the link's title, else its slug.
      expect(await block(3).getByLabel('Link text').inputValue()).toBe('launch');
      await page.getByRole('button', { name: 'Add link' }).click();
      await block(4).getByLabel('Link text').fill('Podcast');
      await block(4).getByLabel('A new short link to a URL').check();
      await block(4).getByLabel('Destination URL').fill('https://podcast.acme.example/');
      await expect
        .poll(() => previews().at(-1)?.blocks)
        .toEqual([
          { type: 'heading', text: 'Shop' },
          { type: 'link', text: 'launch' },
          { type: 'link', text: 'Podcast' },
        ]);
      expect(previews().at(-1)).toMatchObject({
        handle: 'acme-spring',
        title: 'Spring at Acme',
        theme: 'classic',
        bio: null,
        avatarUrl: null,
      });

      // The empty paragraph is caught before sending, under its own input.
      await page.getByRole('button', { name: 'Save draft' }).click();
      await expect.poll(() => block(2).getByLabel('Paragraph text').getAttribute('aria-invalid')).toBe('true');
      await shot('page-new-empty-block');
      await block(2).getByRole('button', { name: 'Remove block 2' }).click();
      // Focus stays in the list: on the block that took its place.
      await expect
        .poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")'))
        .toBe('Remove block 2');

      const create = await answer(
        page,
        'POST',
        `**/app/api/workspaces/${WS}/pages`,
        {
          data: bioPage({
            id: 'pg_new',
            handle: 'acme-spring',
            title: 'Spring at Acme',
            published: false,
            publishedAt: null,
          }),
        },
        201,
      );
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.waitForURL(`**/app/w/${WS}/pages/pg_new?created=1`);
      expect(JSON.parse(create[0].body!)).toEqual({
        handle: 'acme-spring',
        title: 'Spring at Acme',
        theme: 'classic',
        blocks: [
          { type: 'heading', text: 'Shop' },
          { type: 'link', text: 'launch', linkId: 'lnk_0' },
          { type: 'link', text: 'Podcast', url: 'https://podcast.acme.example/' },
        ],
      });
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Page created as a draft');
    });

    it('an edit sends only what changed, blocks whole with their ids; a refused block is shown at its input; Publish saves first, then publishes', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/pages/pg_acme`);
      await block(2).getByRole('button', { name: 'Move block 2 down' }).click();
      await expect
        .poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")'))
        .toBe('Move block 3 down');
      expect(await block(2).getByLabel('Link text').inputValue()).toBe('New: the Ridge trail shoe');
      await page.getByLabel('Title').fill('Acme Outdoor Company');

      await answer(
        page,
        'PATCH',
        `**/app/api/workspaces/${WS}/pages/pg_acme`,
        { error: 'blocks.2.linkId lnk_1 is not a link of this workspace', field: 'blocks.2.linkId' },
        400,
      );
      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      const change = block(3).getByRole('button', { name: 'Change the short link of block 3' });
      await expect.poll(() => change.getAttribute('aria-describedby')).toBeTruthy();
      expect(await page.locator(`[id="${await change.getAttribute('aria-describedby')}"]`).textContent()).toBe(
        'The short link lnk_1 is not a link of this workspace',
      );
      expect(await page.getByRole('alert').count()).toBe(0);
      // Focus goes to the choice at fault.
      await expect
        .poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")'))
        .toBe('Change the short link of block 3');
      await shot('page-block-refused');

      await page.unroute(`**/app/api/workspaces/${WS}/pages/pg_acme`);
      const saved = bioPage({ title: 'Acme Outdoor Company' });
      const update = await answer(page, 'PATCH', `**/app/api/workspaces/${WS}/pages/pg_acme`, { data: saved });
      const publish = await answer(page, 'POST', `**/app/api/workspaces/${WS}/pages/pg_acme/publish`, {
        data: { ...saved, hasUnpublishedChanges: false, publishedAt: new Date().toISOString() },
      });
      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Published.');
      const body = JSON.parse(update[0].body!);
      expect(Object.keys(body).sort()).toEqual(['blocks', 'title']);
      expect(body.title).toBe('Acme Outdoor Company');
      expect(body.blocks.map((b: { id: string }) => b.id)).toEqual([
        'blk_shop000001',
        'blk_launch0001',
        'blk_spring0001',
        'blk_para000001',
        'blk_listen0001',
        'blk_podcast001',
        'blk_news000001',
      ]);
      expect(body.blocks[1]).toEqual({
        id: 'blk_launch0001',
        type: 'link',
        text: 'New: the Ridge trail shoe',
        linkId: 'lnk_0',
      });
      expect(publish).toHaveLength(1);
      await page.getByText('Published at').first().waitFor();
      // Saved and published: nothing left to send.
      expect(await page.getByText('Published: visitors see this draft.').count()).toBe(1);
    });

    it('uploads an avatar, shows it round and sends it to the preview', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/pages/new`);
      const upload = await uploadImage('Upload avatar', 'me.png', 'Avatar');
      expect(upload[0].headers['content-type']).toBe('image/png');
      expect(await page.getByRole('img', { name: "The page's avatar" }).count()).toBe(1);
      await expect.poll(() => previews().at(-1)?.avatarUrl).toBe(`${app.origin}/app/favicon.svg`);
      await page.getByRole('button', { name: 'Remove avatar' }).click();
      expect(await page.getByLabel('Avatar', { exact: true }).inputValue()).toBe('');
    });

    it('a MEMBER edits, publishes and disables but does not delete; an ANALYST sees no editing control', async () => {
      await realisticReads(page, 'MEMBER');
      await open(`/w/${WS}/pages/pg_acme`);
      for (const name of ['Save draft', 'Publish', 'Unpublish', 'Disable', 'Add heading', 'Remove block 1'])
        expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(1);
      expect(await page.getByRole('button', { name: 'Delete page' }).count()).toBe(0);

      await context.close();
      context = await watchedContext(browser, {
        viewport: { width: 1280, height: 800 },
        locale: 'en-US',
        timezoneId: 'Europe/Berlin',
      });
      page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
      await realisticReads(page, 'ANALYST');
      await open(`/w/${WS}/pages`);
      expect(await page.getByRole('button', { name: 'New page' }).count()).toBe(0);
      await open(`/w/${WS}/pages/pg_acme`);
      expect(
        await page
          .getByRole('button')
          .filter({ hasNotText: /^(Sign out|Copy address)$/ })
          .count(),
      ).toBe(0);
      expect(await page.getByLabel('Title').isDisabled()).toBe(true);
      expect(await page.getByRole('radio', { name: 'Forest' }).isDisabled()).toBe(true);
    });
  });

  describe('settings', () => {
    it('API keys: a key is made with its scopes and shown once; revoking asks first; without the API the form is closed', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/settings/keys`);
      // The list names each key and shows its last four characters; a key without a name only those.
      const keysTable = page.getByRole('table', { name: 'API keys' });
      expect(await keysTable.getByRole('row', { name: /3f9a/ }).textContent()).toContain('Zapier');
      expect(await keysTable.getByRole('row', { name: /77c1/ }).textContent()).toContain('…mk_77c1');
      const scopes = page.getByRole('group', { name: 'Scopes' });
      await scopes.getByLabel('links:write', { exact: true }).check();
      await page.getByLabel('Name', { exact: true }).fill('  Reporting script ');
      const create = await answer(
        page,
        'POST',
        `**/app/api/workspaces/${WS}/keys`,
        {
          key: `mk_${'a'.repeat(64)}`,
          data: {
            id: 'key_9',
            name: 'Reporting script',
            hint: 'mk_aaaa',
            scopes: ['links:read', 'links:write'],
            expiresAt: null,
            revokedAt: null,
            createdAt: new Date().toISOString(),
            user: { id: 'usr_ada', email: 'ada@acme.example' },
          },
        },
        201,
      );
      await page.getByRole('button', { name: 'Create key' }).click();
      await expect.poll(() => page.getByLabel('New API key').inputValue()).toBe(`mk_${'a'.repeat(64)}`);
      expect(await page.getByLabel('New API key').getAttribute('readonly')).not.toBeNull();
      expect(await page.getByRole('button', { name: 'Copy key' }).count()).toBe(1);
      await shot('key-created');
      expect(JSON.parse(create[0].body!)).toEqual({
        scopes: ['links:read', 'links:write'],
        expiresAt: null,
        name: 'Reporting script',
      });
      await page.setViewportSize({ width: 390, height: 844 });
      await shot('key-created-390');
      await page.setViewportSize({ width: 1280, height: 800 });

      // A refused name is shown under its input.
      await page.getByRole('button', { name: 'Done' }).click();
      await answer(
        page,
        'POST',
        `**/app/api/workspaces/${WS}/keys`,
        { error: 'name must be at most 100 characters', field: 'name' },
        400,
      );
      await page.getByLabel('Name', { exact: true }).fill('Another script');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByText('name must be at most 100 characters').waitFor();
      expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');

      await page.getByRole('button', { name: 'Revoke key 3f9a' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      expect(await page.getByRole('dialog').count()).toBe(0);

      await page.route(`**/app/api/workspaces/${WS}`, (route) => route.fulfill({ json: workspace({ api: false }) }));
      await open(`/w/${WS}/settings/keys`);
      expect(await page.getByText('API keys need the Growth plan').count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true);
    });

    it('members: inviting someone shows their link and lists the invitation; an OWNER changes roles, an ADMIN cannot', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/settings/members`);
      await page
        .getByRole('table', { name: 'Waiting invitations' })
        .getByRole('cell', { name: 'fay@acme.example', exact: true })
        .waitFor();
      await page.getByLabel('Email').fill('eve@acme.example');
      await page.getByLabel('Role', { exact: true }).selectOption('ANALYST');
      const invitation = {
        id: 'inv_eve',
        email: 'eve@acme.example',
        role: 'ANALYST',
        invitedBy: { id: 'usr_ada', email: 'ada@acme.example' },
        createdAt: new Date().toISOString(),
        expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      };
      const sent = await answer(
        page,
        'POST',
        `**/app/api/workspaces/${WS}/invitations`,
        { data: invitation, inviteUrl: 'https://sho.rt/app/invite?token=abc' },
        201,
      );
      await page.getByRole('button', { name: 'Invite' }).click();
      await expect
        .poll(() => page.getByLabel('Invitation link').inputValue())
        .toBe('https://sho.rt/app/invite?token=abc');
      expect(JSON.parse(sent[0].body!)).toEqual({ email: 'eve@acme.example', role: 'ANALYST' });
      expect(await page.getByRole('button', { name: 'Copy link' }).count()).toBe(1);
      await shot('member-invited');
      const revoke = await answer(page, 'DELETE', `**/app/api/workspaces/${WS}/invitations/inv_fay`, null, 204);
      await page.getByRole('button', { name: 'Revoke the invitation of fay@acme.example' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
      await expect.poll(() => revoke.length).toBe(1);

      const patch = await answer(page, 'PATCH', `**/app/api/workspaces/${WS}/members/usr_bo`, {
        data: { userId: 'usr_bo', email: 'bo@acme.example', role: 'MEMBER', joinedAt: new Date().toISOString() },
      });
      await page.getByLabel('Role for bo@acme.example').selectOption('MEMBER');
      await expect.poll(() => patch.length).toBe(1);
      expect(JSON.parse(patch[0].body!)).toEqual({ role: 'MEMBER' });
      expect(await page.getByRole('button', { name: 'Remove cy@acme.example' }).count()).toBe(1);

      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await realisticReads(page, 'ADMIN');
      await open(`/w/${WS}/settings/members`);
      expect(await page.getByLabel('Role for bo@acme.example').count()).toBe(0);
      // Only an OWNER removes an OWNER.
      expect(await page.getByRole('button', { name: 'Remove ada@acme.example' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Remove cy@acme.example' }).count()).toBe(1);
      // Only an OWNER revokes an invitation to be OWNER.
      await page
        .getByRole('table', { name: 'Waiting invitations' })
        .getByRole('cell', { name: 'gus@acme.example', exact: true })
        .waitFor();
      expect(await page.getByRole('button', { name: 'Revoke the invitation of gus@acme.example' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Revoke the invitation of fay@acme.example' }).count()).toBe(1);
    });

    it('domains: adding one shows what to publish; Verify and Disable name their host; a refused verify says why', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/settings/domains`);
      await page.getByLabel('Host').fill('new.acme.example');
      await answer(
        page,
        'POST',
        `**/app/api/workspaces/${WS}/domains`,
        {
          data: {
            id: 'dom_new',
            host: 'new.acme.example',
            status: 'PENDING',
            verifiedAt: null,
            createdAt: new Date().toISOString(),
            verification: { cname: 'sho.rt', txtName: '_shortlink.new.acme.example', txtValue: 'shortlink-verify=123' },
          },
        },
        201,
      );
      await page.getByRole('button', { name: 'Add domain' }).click();
      await page.getByRole('heading', { name: 'Verify new.acme.example' }).waitFor();
      expect(await page.getByText('shortlink-verify=123').count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Copy TXT value for new.acme.example' }).count()).toBe(1);

      await answer(
        page,
        'POST',
        `**/app/api/workspaces/${WS}/domains/dom_links/verify`,
        { error: 'No TXT record _shortlink.links.acme.example found.' },
        409,
      );
      await page.getByRole('button', { name: 'Verify links.acme.example' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toContain('No TXT record _shortlink.links.acme.example found.');
      await shot('domain-added-verify-refused');
      expect(await page.getByRole('button', { name: 'Disable go.acme.example' }).count()).toBe(1);
      // A lapsed claim is shown as such, with nothing to verify or disable: it is added again.
      const lapsed = page.getByRole('row', { name: /try\.acme\.example/ });
      expect(await lapsed.textContent()).toContain('Expired');
      expect(await lapsed.textContent()).toContain('add the host again');
      expect(await page.getByRole('button', { name: /try\.acme\.example/ }).count()).toBe(0);
    });

    it('general settings show the workspace id to copy and what the plan includes; campaigns are made by name', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/settings`);
      expect(await page.getByText(WS, { exact: true }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Copy workspace id' }).count()).toBe(1);
      await open(`/w/${WS}/settings/campaigns`);
      const create = await answer(
        page,
        'POST',
        `**/app/api/workspaces/${WS}/campaigns`,
        { data: { id: 'cmp_new', name: 'Autumn', createdAt: new Date().toISOString() } },
        201,
      );
      await page.getByLabel('Name').fill('Autumn');
      await page.getByRole('button', { name: 'Create campaign' }).click();
      await expect.poll(() => create.length).toBe(1);
      expect(JSON.parse(create[0].body!)).toEqual({ name: 'Autumn' });
    });

    it('general settings: an OWNER or ADMIN renames the workspace and the switcher shows it; a refused name shows under it; a MEMBER has no form', async () => {
      await realisticReads(page, 'ADMIN');
      await open(`/w/${WS}/settings`);
      const name = page.getByLabel('Workspace name');
      expect(await name.inputValue()).toBe('Acme');
      await name.fill('Acme marketing');
      const renamed = workspace({}, 'ADMIN');
      renamed.data.name = 'Acme marketing';
      const patch = await answer(page, 'PATCH', `**/app/api/workspaces/${WS}`, renamed);
      // From now on the session names the workspace the new way, as the service would.
      await page.route('**/app/api/session', (route) => {
        if (route.request().method() !== 'GET') return route.fallback();
        const after = session('ADMIN');
        after.workspaces[0].name = 'Acme marketing';
        return route.fulfill({ json: after });
      });
      await page.getByRole('button', { name: 'Save name' }).click();
      await expect.poll(() => patch.length).toBe(1);
      expect(JSON.parse(patch[0].body!)).toEqual({ name: 'Acme marketing' });
      await page.getByText('Workspace renamed to Acme marketing.').waitFor();
      await expect
        .poll(() => page.getByLabel('Workspace', { exact: true }).locator('option:checked').textContent())
        .toBe('Acme marketing');
      await shot('workspace-renamed');

      await answer(
        page,
        'PATCH',
        `**/app/api/workspaces/${WS}`,
        { error: 'name must be at most 200 characters', field: 'name' },
        400,
      );
      await name.fill('Acme again');
      await page.getByRole('button', { name: 'Save name' }).click();
      await page.getByText('name must be at most 200 characters').waitFor();
      expect(await name.getAttribute('aria-invalid')).toBe('true');
      // Blank is refused in the page, before anything is sent.
      await name.fill('   ');
      await page.getByRole('button', { name: 'Save name' }).click();
      await page.getByText('Name the workspace.').waitFor();
      await shot('workspace-rename-refused');
      await page.setViewportSize({ width: 390, height: 844 });
      await shot('workspace-rename-refused-390');

      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await realisticReads(page, 'MEMBER');
      await open(`/w/${WS}/settings`);
      await page.getByRole('heading', { name: 'Workspace', exact: true }).waitFor();
      expect(await page.getByLabel('Workspace name').count()).toBe(0);
    });

    it('tags: each shows its link count; renaming sends the new name; deleting says how many links lose it; roles', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/settings/tags`);
      const table = page.getByRole('table', { name: 'Tags' });
      await table.getByRole('row', { name: /Q4 launch/ }).waitFor();
      expect(await table.getByRole('row', { name: /Q4 launch/ }).textContent()).toContain('128 links');
      expect(await table.getByRole('row', { name: /social/ }).textContent()).toContain('1 link');

      await page.getByRole('button', { name: 'Rename social' }).click();
      const newName = page.getByLabel('New name');
      expect(await newName.inputValue()).toBe('social');
      await newName.fill('  social media ');
      const patch = await answer(page, 'PATCH', `**/app/api/workspaces/${WS}/tags/tag_social`, {
        data: { id: 'tag_social', name: 'social media', color: '#2563eb' },
      });
      await page.getByRole('button', { name: 'Save tag' }).click();
      await expect.poll(() => patch.length).toBe(1);
      expect(JSON.parse(patch[0].body!)).toEqual({ name: 'social media' });
      await page.getByText('Tag social renamed to social media.').waitFor();
      expect(await page.getByLabel('New name').count()).toBe(0);

      // A taken name is refused in the API's words, at the top of the form (409 names no field).
      await page.getByRole('button', { name: 'Rename print' }).click();
      await answer(
        page,
        'PATCH',
        `**/app/api/workspaces/${WS}/tags/tag_print`,
        { error: 'A tag named "Q4 launch" already exists' },
        409,
      );
      await page.getByLabel('New name').fill('Q4 launch');
      await page.getByRole('button', { name: 'Save tag' }).click();
      await page.getByRole('alert').filter({ hasText: 'already exists' }).waitFor();
      await shot('tag-rename-refused');
      await page.getByRole('button', { name: 'Cancel' }).click();

      const remove = await answer(page, 'DELETE', `**/app/api/workspaces/${WS}/tags/tag_q4`, null, 204);
      await page.getByRole('button', { name: 'Delete Q4 launch' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete the tag Q4 launch?' });
      expect(await dialog.textContent()).toContain('128 links lose it');
      await shot('tag-delete-confirm');
      await page.setViewportSize({ width: 390, height: 844 });
      await shot('tag-delete-confirm-390');
      await page.setViewportSize({ width: 1280, height: 800 });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(remove.length).toBe(0);
      await page.getByRole('button', { name: 'Delete Q4 launch' }).click();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => remove.length).toBe(1);
      await page.getByText('Tag Q4 launch deleted; it was taken off 128 links.').waitFor();

      // A MEMBER renames but does not delete (as for links); an ANALYST does neither.
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await realisticReads(page, 'MEMBER');
      await open(`/w/${WS}/settings/tags`);
      await page.getByRole('button', { name: 'Rename print' }).waitFor();
      expect(await page.getByRole('button', { name: /^Delete / }).count()).toBe(0);
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await realisticReads(page, 'ANALYST');
      await open(`/w/${WS}/settings/tags`);
      await page.getByRole('table', { name: 'Tags' }).getByRole('row', { name: /print/ }).waitFor();
      expect(await page.getByRole('button', { name: /^(Rename|Delete) / }).count()).toBe(0);
    });

    it('webhooks: the variant select says what each variant is for and which events it carries', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/settings/webhooks`);
      const variant = page.getByLabel('Variant', { exact: true });
      await variant.waitFor();
      // The sentences are the select's description, so a screen reader reads them with it.
      const ids = (await variant.getAttribute('aria-describedby'))!.split(' ');
      const described = (await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))).join(' ');
      expect(described).toContain('Variant A is for acting on changes in the workspace');
      expect(described).toContain('reports shared, conversions, traffic spikes');
      expect(described).toContain('Variant B is for following traffic as it happens');
      expect(described).toContain('QR codes scanned');
      await shot('webhook-variants');
      await page.setViewportSize({ width: 390, height: 844 });
      await shot('webhook-variants-390');
    });
  });

  describe('reports', () => {
    const saved = (over: Record<string, unknown> = {}) => ({
      data: {
        id: 'rpt_new',
        kind: 'CONVERSIONS',
        title: 'Spring purchases',
        params: { window: { lastDays: 30 } },
        visibility: 'UNLISTED',
        hasPassword: true,
        url: 'https://sho.rt/app/shared/Zk3qv9Xw1sT0bY7mN2cR5hL8pD4fJ6gA0eU3iO9kQwE',
        createdBy: 'usr_ada',
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
        ...over,
      },
    });

    it('Share on the Conversions screen saves the view: custom days stay fixed with the filters, a preset is the last N days; a refused title shows under it', async () => {
      await realisticReads(page);
      await open(
        `/w/${WS}/conversions?window=custom&from=2026-03-01&to=2026-03-31&eventType=purchase&campaignId=cmp_spring`,
      );
      const create = await answer(page, 'POST', `**/app/api/workspaces/${WS}/reports`, saved(), 201);
      await page.getByRole('button', { name: 'Share' }).click();
      const dialog = page.getByRole('dialog', { name: 'Share this view' });
      // Share shares: Unlisted is offered first and chosen; a private report has no password.
      expect(await dialog.getByLabel('Visibility').inputValue()).toBe('UNLISTED');
      expect(await dialog.getByLabel('Visibility').getByRole('option').allInnerTexts()).toEqual([
        'Unlisted',
        'Private',
        'Public',
      ]);
      await shot('report-share-dialog');
      await dialog.getByLabel('Visibility').selectOption('PRIVATE');
      expect(await dialog.getByLabel('Password (optional)').count()).toBe(0);
      await dialog.getByLabel('Visibility').selectOption('UNLISTED');
      await dialog.getByLabel('Title').fill('Spring purchases');
      await dialog.getByLabel('Password (optional)').fill('for the board');
      await dialog.getByRole('button', { name: 'Save report' }).click();
      await expect.poll(() => create.length).toBe(1);
      expect(JSON.parse(create[0].body!)).toEqual({
        kind: 'CONVERSIONS',
        title: 'Spring purchases',
        visibility: 'UNLISTED',
        password: 'for the board',
        params: { window: { from: '2026-03-01', to: '2026-03-31' }, eventType: 'purchase', campaignId: 'cmp_spring' },
      });
      const result = page.getByRole('dialog', { name: 'Report saved' });
      await expect
        .poll(() => result.getByLabel('Anyone with this link and the password can read it').inputValue())
        .toBe(saved().data.url);
      await shot('report-saved');
      await result.getByRole('button', { name: 'Done' }).click();

      await page.unroute(`**/app/api/workspaces/${WS}/reports`);
      await open(`/w/${WS}/conversions?window=90`);
      const refused = await answer(
        page,
        'POST',
        `**/app/api/workspaces/${WS}/reports`,
        { error: 'title must be 1 to 200 characters', field: 'title' },
        400,
      );
      await page.getByRole('button', { name: 'Share' }).click();
      const again = page.getByRole('dialog', { name: 'Share this view' });
      await expect.poll(() => again.getByLabel('Title').inputValue()).toBe('Conversions, last 90 days');
      await again.getByRole('button', { name: 'Save report' }).click();
      await expect.poll(() => refused.length).toBe(1);
      expect(JSON.parse(refused[0].body!)).toEqual({
        kind: 'CONVERSIONS',
        title: 'Conversions, last 90 days',
        visibility: 'UNLISTED',
        params: { window: { lastDays: 90 } },
      });
      await expect.poll(() => again.getByLabel('Title').getAttribute('aria-invalid')).toBe('true');
      await again.getByText('title must be 1 to 200 characters').waitFor();
      await shot('report-refused');
    });

    it("Share on a page's analytics saves a PAGE report of the chosen window; the Reports screen opens that view; an ANALYST has no Share", async () => {
      await realisticReads(page);
      await open(`/w/${WS}/pages/pg_acme/analytics?window=90`);
      const made = saved({
        id: 'rpt_page',
        kind: 'PAGE',
        title: '@acme analytics, last 90 days',
        params: { window: { lastDays: 90 }, pageId: 'pg_acme' },
        hasPassword: false,
      });
      const create = await answer(page, 'POST', `**/app/api/workspaces/${WS}/reports`, made, 201);
      await page.getByRole('button', { name: 'Share' }).click();
      const dialog = page.getByRole('dialog', { name: 'Share this view' });
      await expect.poll(() => dialog.getByLabel('Title').inputValue()).toBe('@acme analytics, last 90 days');
      await dialog.getByText('Page analytics: https://sho.rt/@acme, last 90 days.', { exact: false }).waitFor();
      await dialog.getByRole('button', { name: 'Save report' }).click();
      await expect.poll(() => create.length).toBe(1);
      expect(JSON.parse(create[0].body!)).toEqual({
        kind: 'PAGE',
        title: '@acme analytics, last 90 days',
        visibility: 'UNLISTED',
        params: { window: { lastDays: 90 }, pageId: 'pg_acme' },
      });
      await page.getByRole('dialog', { name: 'Report saved' }).getByRole('button', { name: 'Done' }).click();

      await page.unroute(`**/app/api/workspaces/${WS}/reports`);
      await open(`/w/${WS}/reports`);
      const card = page.getByRole('listitem', { name: '@acme analytics, last 90 days' });
      await expect.poll(() => card.textContent()).toMatch(/Page analytics · Last 90 days/);
      expect(await card.getByRole('link', { name: /^Open the view/ }).getAttribute('href')).toBe(
        `/app/w/${WS}/pages/pg_acme/analytics?window=90`,
      );

      await context.clearCookies();
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await realisticReads(page, 'ANALYST');
      await open(`/w/${WS}/pages/pg_acme/analytics`);
      await expect.poll(() => h1().textContent()).toBe('Analytics for @acme');
      expect(await page.getByRole('button', { name: 'Share' }).count()).toBe(0);
    });

    it('the Reports screen sends only what changed; Regenerate address says what it does and asks first; an ANALYST has no control', async () => {
      await realisticReads(page);
      await open(`/w/${WS}/reports`);
      const changes = await answer(
        page,
        'PATCH',
        `**/app/api/workspaces/${WS}/reports/rpt_spring`,
        saved({ id: 'rpt_spring', visibility: 'PRIVATE', url: null }),
      );
      await page.getByLabel('Visibility of Spring sale purchases, last 90 days').selectOption('PRIVATE');
      await expect.poll(() => changes.length).toBe(1);
      expect(JSON.parse(changes[0].body!)).toEqual({ visibility: 'PRIVATE' });
      await page.getByRole('button', { name: 'Remove password of Q4 revenue for the board' }).click();
      const renew = await answer(
        page,
        'POST',
        `**/app/api/workspaces/${WS}/reports/rpt_revenue/token`,
        saved({ id: 'rpt_revenue' }),
      );
      const regenerate = page.getByRole('button', { name: 'Regenerate address of Q4 revenue for the board' });
      expect(await regenerate.textContent()).toBe('Regenerate address');
      const describedBy = await regenerate.getAttribute('aria-describedby');
      expect(await page.locator(`[id="${describedBy}"]`).textContent()).toContain('the old address stops working');
      await regenerate.click();
      const ask = page.getByRole('dialog', { name: 'Regenerate the address of Q4 revenue for the board?' });
      await shot('report-new-link');
      await ask.getByRole('button', { name: 'Cancel' }).click();
      expect(renew).toEqual([]);
      await regenerate.click();
      await page
        .getByRole('dialog', { name: 'Regenerate the address of Q4 revenue for the board?' })
        .getByRole('button', { name: 'Regenerate address' })
        .click();
      await expect.poll(() => renew.length).toBe(1);
      expect(renew[0].headers['x-csrf-token']).toBe(CSRF);

      await context.clearCookies();
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await realisticReads(page, 'ANALYST');
      await open(`/w/${WS}/reports`);
      expect(await page.getByRole('main').getByRole('combobox').count()).toBe(0);
      expect(await page.getByRole('button', { name: /Regenerate address|Delete|password/ }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Copy link to Spring sale purchases, last 90 days' }).count()).toBe(
        1,
      );
    });

    it('a shared page asks for its password, posts it, then reads the report; too many tries say how long to wait', async () => {
      let locked = true;
      await page.route('**/app/api/shared/tok_board', (route) => {
        if (route.request().method() !== 'GET') return route.fallback();
        return locked
          ? route.fulfill({ status: 401, json: { error: 'This report is protected by a password' } })
          : route.fallback();
      });
      const unlock = await answer(
        page,
        'POST',
        '**/app/api/shared/tok_board/unlock',
        { error: 'Too many wrong passwords. Try again in 14 minutes.' },
        429,
        { 'Retry-After': '840' },
      );
      await open('/shared/tok_board');
      await expect.poll(() => h1().textContent()).toBe('This report is protected');
      await page.getByLabel('Password').fill('guess');
      await page.getByRole('button', { name: 'Open report' }).click();
      await page.getByText('Too many attempts. Try again in 14 minutes.').waitFor();
      expect(JSON.parse(unlock[0].body!)).toEqual({ password: 'guess' });
      // No session here: the form sends no anti-forgery token and never sends the reader to sign in.
      expect(unlock[0].headers['x-csrf-token']).toBeUndefined();
      expect(page.url()).toContain('/app/shared/tok_board');
      await page.unroute('**/app/api/shared/tok_board/unlock');
      await page.route('**/app/api/shared/tok_board/unlock', async (route) => {
        await route.fetch().catch(() => undefined);
        await route.fulfill({ status: 204 });
      });
      locked = false;
      await page.getByLabel('Password').fill('right');
      await page.getByRole('button', { name: 'Open report' }).click();
      await expect.poll(() => h1().textContent()).not.toBe('This report is protected');
    });
  });
});
