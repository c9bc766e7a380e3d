// The dashboard end to end: the built app (dist/web, built at install) served by the real service
// at /app/, driven in Debian's Chromium as its people would drive it: sign in, make a link with tags
// and a password and follow it as a visitor, rename it, read its clicks, import a CSV with a bad
// row, make an API key and use it on /api/v1, see an ANALYST unable to change anything (no control,
// and the API says 403), sign out. axe-core on every screen; a full-page screenshot of each in
// DASHBOARD_E2E_SHOTS_DIR (default /tmp/dashboard-e2e) for a person to look at. SQLite only: the
// dashboard API's rules run on both engines in test/dashboard/; this is the browser's view of them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeInChromium, startDestination, type Destination, closeAll } from '../support/browser';
import { acmeInChromium, type DashboardBrowser } from '../support/dashboard-browser';
import { DASHBOARD_API, PASSWORD, seedPerson, type Person } from '../support/dashboard';
import { startReceiver } from '../support/receiver';
import { startTestServer, testCertificate, type TestServer } from '../support/server';
import { createWorkspace, roleOf } from '../../src/db/repos/workspaces';

describeInChromium('the dashboard in Chromium against the service (sqlite)', () => {
  let server: TestServer;
  let destination: Destination;
  let browser: Browser;
  let workspaceId: string;
  let owner: Person;
  let analyst: Person;
  /** The owner's browser, signed in across the tests below (they run in order). */
  let ownerContext: BrowserContext;
  let page: Page;

  const app = (p: string) => `${server.url}/app${p}`;
  const h1 = (p: Page) => p.getByRole('heading', { level: 1 });

  let helpers: DashboardBrowser;
  const look = (p: Page, name: string) => helpers.look(p, name);
  const newPersonPage = () => helpers.newPersonPage();
  const signInThroughForm = (p: Page, person: { email: string; password: string }) =>
    helpers.signInThroughForm(p, person);
  const apiFromPage = (p: Page, method: string, url: string, body?: unknown) =>
    helpers.apiFromPage(p, method, url, body);

  beforeAll(async () => {
    // Destinations may be fetched for a new link's title; the test's destination is on loopback,
    // which only a deployment allowing private networks (tests only) reaches.
    server = await startTestServer('sqlite', {
      env: { DESTINATION_FETCH: 'on', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' },
      // The HTTPS sites of the icon test use the tests' certificate.
      webhookCa: [(await testCertificate()).cert],
    });
    destination = await startDestination();
    ({ browser, b: helpers, workspaceId, owner, analyst } = await acmeInChromium(server, [destination.origin]));
    ({ context: ownerContext, page } = await newPersonPage());
  }, 60_000);
  afterAll(() => closeAll(browser, destination, server));

  it('signs in: a wrong password is refused on the form, the right one opens the links', async () => {
    await signInThroughForm(page, { email: owner.email, password: 'not the password' });
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/email or password/i);
    expect(page.url()).toContain('/app/login');
    await look(page, 'login-refused');

    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Links');
    expect(page.url()).toBe(app(`/w/${workspaceId}/links`));
    await look(page, 'links-empty');
  });

  it('makes tags in settings, then a link with tags and a password that a visitor follows', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await look(page, 'settings');
    await page.getByText(workspaceId, { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Tags' }).click();
    for (const tag of ['spring', 'social']) {
      // Exactly: each row's "Rename …" button has "name" in its name too.
      await page.getByLabel('Name', { exact: true }).fill(tag);
      await page.getByRole('button', { name: 'Create tag' }).click();
      // Listed with the links that carry it: none yet.
      const row = page.getByRole('table', { name: 'Tags' }).getByRole('row').filter({ hasText: tag });
      await expect.poll(() => row.textContent()).toContain('0 links');
    }
    await look(page, 'settings-tags');

    await page.getByRole('link', { name: 'Links', exact: true }).click();
    await page.getByRole('button', { name: 'New link' }).click();
    // The dialog over the list, its destination focused: the API's rule and message under it.
    const dialog = page.getByRole('dialog', { name: 'New link' });
    await expect.poll(() => page.evaluate('document.activeElement?.type')).toBe('url');
    await page.keyboard.type('javascript:alert(1)');
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.locator('[aria-invalid="true"]').count()).toBe(1);
    await dialog
      .getByText(/http or https/i)
      .first()
      .waitFor();
    await look(page, 'link-new-dialog-error');
    // "More options" carries what was typed to the whole form, whose own check says the same.
    await dialog.getByLabel('Slug').fill('spring-sale');
    await dialog.getByRole('link', { name: 'More options' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('New link');
    expect(await page.getByLabel('Destination URL').inputValue()).toBe('javascript:alert(1)');
    expect(await page.getByLabel('Slug').inputValue()).toBe('spring-sale');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('[aria-invalid="true"]').count()).toBe(1);
    await look(page, 'link-new-error');

    await page.getByLabel('Destination URL').fill(`${destination.origin}/spring?from=dashboard`);
    await page.getByLabel('Title', { exact: true }).fill('Spring sale');
    const tags = page.getByRole('group', { name: 'Tags' });
    await tags.getByLabel('spring').check();
    await tags.getByLabel('social').check();
    // A tag made here, without leaving the form (Enter adds it; it does not save the link).
    await tags.getByLabel('New tag').fill('launch');
    await tags.getByLabel('New tag').press('Enter');
    await expect.poll(() => tags.getByLabel('launch', { exact: true }).isChecked()).toBe(true);
    expect(await h1(page).textContent()).toBe('New link');
    await page.getByLabel('Password', { exact: true }).fill('open sesame');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Edit spring-sale');
    await look(page, 'link-edit');

    // What the service stored is what was typed.
    const link = await server.services.db
      .knex('links')
      .where({ workspace_id: workspaceId, slug: 'spring-sale' })
      .first();
    expect(link.original_url).toBe(`${destination.origin}/spring?from=dashboard`);
    expect(link.password_hash).toBeTruthy();
    expect(link.password_hash).not.toContain('open sesame');

    const visitor = await newPersonPage();
    const form = await visitor.page.goto(`${server.url}/spring-sale`);
    expect(form?.status()).toBe(401);
    await visitor.page.getByLabel('Password').fill('open sesame');
    await visitor.page.getByRole('button', { name: /continue|open|submit/i }).click();
    await visitor.page.getByText('Landed on destination').waitFor();
    expect(visitor.page.url()).toBe(`${destination.origin}/spring?from=dashboard`);
    await visitor.context.close();

    await page.getByRole('link', { name: 'Links', exact: true }).click();
    const row = page.getByRole('row', { name: /spring-sale/ });
    await expect.poll(() => row.textContent()).toContain('spring');
    await expect.poll(() => row.textContent()).toContain('social');
    await expect.poll(() => row.textContent()).toContain('launch');
    await expect.poll(() => row.textContent()).toContain('Password');
    await look(page, 'links');
  });

  it('makes a link from the dialog with the keyboard alone, and lists it at once', async () => {
    await page.getByRole('link', { name: 'Links', exact: true }).click();
    await page.getByRole('row', { name: /spring-sale/ }).waitFor();
    // `?` lists the keys; Escape closes; `c` opens "New link", from any screen of the workspace.
    await page.keyboard.press('?');
    const keys = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await keys.getByText('Make a new link').waitFor();
    await look(page, 'keyboard-shortcuts');
    await page.keyboard.press('Escape');
    await expect.poll(() => keys.count()).toBe(0);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(`**/w/${workspaceId}/settings`);
    await page.keyboard.press('c');
    const dialog = page.getByRole('dialog', { name: 'New link' });
    await dialog.waitFor();
    expect(page.url()).toContain(`/w/${workspaceId}/links`);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    // `/` goes to the search; typed there, `c` is a letter of the search.
    await page.keyboard.press('/');
    await page.keyboard.type('c');
    expect(await page.getByLabel('Search links').inputValue()).toBe('c');
    await page.getByLabel('Search links').fill('');
    await page.getByLabel('Search links').blur();

    await page.keyboard.press('c');
    await dialog.waitFor();
    await page.keyboard.type(`${destination.origin}/quick`);
    // The page's own title, read by the service, fills Title until the person types one.
    await expect.poll(() => dialog.getByLabel('Title').inputValue()).toBe('Destination');
    await dialog.getByText('Taken from the page').waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.type('made-quick');
    const started = Date.now();
    await page.keyboard.press('Enter');
    const row = page.getByRole('row', { name: /made-quick/ });
    await row.waitFor();
    // From Enter to the list showing the link, for the issue's "under one second" (no timed
    // assertion: the machine is shared; the figure goes to the log).
    console.log(`link made through the dialog: ${Date.now() - started} ms from Enter to the list showing it`);
    expect(await dialog.count()).toBe(0);
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Link created: .*\/made-quick/);
    await look(page, 'link-made-from-dialog');
    const stored = await server.services.db
      .knex('links')
      .where({ workspace_id: workspaceId, slug: 'made-quick' })
      .first();
    expect(stored.original_url).toBe(`${destination.origin}/quick`);
    expect(stored.title).toBe('Destination');
  });

  it("shows a destination's site icon beside it, fetched by the service", async () => {
    // A real 1×1 PNG: the browser must decode it for the icon to show.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    const site = await startReceiver();
    try {
      site.reply('/', [{ status: 200, headers: { 'content-type': 'text/html' }, body: '<title>Iconic</title>' }]);
      site.reply('/favicon.ico', [{ status: 200, headers: { 'content-type': 'image/png' }, body: png }]);
      await page.keyboard.press('c');
      const dialog = page.getByRole('dialog', { name: 'New link' });
      await dialog.getByLabel('Destination URL').fill(site.url('/shop'));
      await dialog.getByLabel('Slug').fill('with-icon');
      await dialog.getByLabel('Slug').press('Enter');
      const row = page.getByRole('row', { name: /with-icon/ });
      await row.waitFor();
      const icon = row.locator('img.site-icon');
      await expect.poll(() => icon.evaluate((i: any) => i.complete && i.naturalWidth)).toBe(1);
      // Decorative: the address beside it says the same.
      expect(await icon.getAttribute('alt')).toBe('');
      // A site with no icon (the plain destination) shows none, and no broken image.
      const plain = page.getByRole('row', { name: /made-quick/ });
      await expect.poll(() => plain.locator('img.site-icon').count()).toBe(0);
      await look(page, 'links-with-icons');
    } finally {
      await site.close();
    }
  });

  it("takes a link's social preview title from its page when asked", async () => {
    await page.getByRole('link', { name: 'made-quick', exact: true }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Edit made-quick');
    expect(await page.getByLabel('Preview title').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Take title and description from the page' }).click();
    await expect.poll(() => page.getByLabel('Preview title').inputValue()).toBe('Destination');
    await page.getByText('Taken from the page: check them before saving.').waitFor();
    await look(page, 'link-preview-from-page');
    await page.getByRole('link', { name: 'Links', exact: true }).click();
  });

  it('renames the link: the new short URL works and the old one stops', async () => {
    await page.getByRole('link', { name: 'spring-sale', exact: true }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Edit spring-sale');
    await page.getByLabel('Slug').fill('spring-2026');
    await page.getByLabel('Title', { exact: true }).fill('Spring sale 2026');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Edit spring-2026');
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/saved/i);

    expect((await server.request('GET', '/spring-sale')).status).toBe(404);
    expect((await server.request('GET', '/spring-2026')).status).toBe(401);
    const stored = await server.services.db
      .knex('links')
      .where({ workspace_id: workspaceId, slug: 'spring-2026' })
      .first();
    expect(stored.title).toBe('Spring sale 2026');
  });

  it("shows the visitor's click in the link's analytics, in the chart's table", async () => {
    await server.clicks.flush();
    await page.getByRole('link', { name: 'Analytics' }).first().click();
    await expect.poll(() => h1(page).textContent()).toContain('spring-2026');
    await page.getByText('Show the numbers').click();
    const perDay = page.getByRole('table', { name: 'Clicks per day' });
    await perDay.waitFor();
    const counts = await perDay
      .locator('tbody tr')
      .evaluateAll((rows: Array<{ querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> }>) =>
        rows.map((r) =>
          Array.from(r.querySelectorAll('td')).map((c) => Number((c.textContent ?? '').replace(/,/g, '')) || 0),
        ),
      );
    // One click (the visitor's, after the password), no QR scan, over the whole window.
    expect(counts.reduce((sum, cells) => sum + (cells[0] ?? 0), 0)).toBe(1);
    await look(page, 'link-analytics');
  });

  it('imports a CSV with a bad row: the good rows are made, the bad one is refused with its reason', async () => {
    await page.getByRole('link', { name: 'Import and export' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Import and export');
    await look(page, 'import');
    const csv = [
      'url,slug,title,tags',
      `${destination.origin}/a,imported-a,First,spring`,
      'ftp://example.com/file,imported-bad,Bad,',
      `${destination.origin}/c,imported-c,Third,social|spring`,
    ].join('\n');
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'links.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Import' }).click();
    const report = page.getByRole('table', { name: 'Import report, row by row' });
    await expect.poll(() => report.getByRole('row', { name: /imported-a/ }).textContent()).toContain('Made');
    await expect.poll(() => report.getByRole('row', { name: /imported-c/ }).textContent()).toContain('Made');
    const refused = report.getByRole('row', { name: /Refused/ });
    await expect.poll(() => refused.count()).toBe(1);
    await expect.poll(() => refused.textContent()).toContain('3');
    await expect.poll(() => refused.textContent()).toMatch(/http or https/i);
    await look(page, 'import-report');
    const slugs = (
      await server.services.db.knex('links').where({ workspace_id: workspaceId }).whereNull('deleted_at').pluck('slug')
    ).sort();
    expect(slugs).toEqual(['imported-a', 'imported-c', 'made-quick', 'spring-2026', 'with-icon']);
  });

  it('creates an API key that works on /api/v1, shown once', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Reporting script');
    await page.getByRole('group', { name: 'Scopes' }).getByLabel('links:read', { exact: true }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('New API key').inputValue();
    expect(key).toMatch(/\S{20,}/);
    // The list tells keys apart by their name and their last four characters, which are what a person has.
    await page.getByRole('button', { name: `Revoke key ${key.slice(-4)}` }).waitFor();
    const keyRow = page.getByRole('row').filter({ hasText: key.slice(-4) });
    await expect.poll(() => keyRow.textContent()).toContain('Reporting script');
    await look(page, 'settings-keys-created');

    const listed = await server.request('GET', '/api/v1/links', { key });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((l: { slug: string }) => l.slug)).toContain('spring-2026');
    // Its scopes are what was ticked: no writing.
    expect(
      (await server.request('POST', '/api/v1/links', { key, body: { url: `${destination.origin}/x` } })).status,
    ).toBe(403);
    // Stored hashed: the key itself is nowhere in the database.
    const rows = await server.services.db.knex('api_keys').where({ workspace_id: workspaceId });
    expect(JSON.stringify(rows)).not.toContain(key);

    await page.reload();
    await expect.poll(() => page.getByLabel('New API key').count()).toBe(0);
  });

  it('after sign-in follows next= only to a place inside the app: /w/../../x is dropped', async () => {
    // A short link at /evil-next on this host: sign-in sending the person there would be a
    // redirect to anywhere, chosen by whoever wrote the sign-in address.
    const made = await apiFromPage(page, 'POST', `${DASHBOARD_API}/workspaces/${workspaceId}/links`, {
      url: `${destination.origin}/evil`,
      slug: 'evil-next',
    });
    expect(made.status).toBe(201);
    const { context, page: p } = await newPersonPage();
    for (const next of ['%2Fw%2F..%2F..%2Fevil-next', '%2Fw%2F%252e%252e%2F..%2Fevil-next', '%2F%5C%2Fevil-next']) {
      await p.goto(app(`/login?next=${next}`));
      await p.getByLabel('Email').fill(owner.email);
      await p.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => h1(p).textContent()).toBe('Links');
      expect(new URL(p.url()).pathname, next).toBe(`/app/w/${workspaceId}/links`);
      await p.reload();
      await expect.poll(() => h1(p).textContent()).toBe('Links');
      await p.getByRole('button', { name: 'Sign out' }).click();
      await p.getByRole('button', { name: 'Sign in' }).waitFor();
    }
    expect(destination.requests.filter((r) => r.url === '/evil')).toEqual([]);
    // An address inside the app is still where sign-in leads, its dot segments resolved.
    await p.goto(app(`/login?next=${encodeURIComponent(`/w/${workspaceId}/links/../settings/keys`)}`));
    await p.getByLabel('Email').fill(owner.email);
    await p.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => new URL(p.url()).pathname).toBe(`/app/w/${workspaceId}/settings/keys`);
    await context.close();
  });

  it('invites a MEMBER who creates their account from the link, then makes links but deletes none and manages nobody', async () => {
    await page.getByRole('link', { name: 'Members', exact: true }).click();
    await page.getByLabel('Email').fill('bo@acme.example');
    await page.getByLabel('Role', { exact: true }).selectOption('MEMBER');
    await page.getByRole('button', { name: 'Invite' }).click();
    const inviteUrl = await page.getByLabel('Invitation link').inputValue();
    // PUBLIC_URL is https://localhost:8443 in the tests; the server listens on another port.
    const link = new URL(inviteUrl);
    expect(link.pathname).toBe('/app/invite');
    expect(link.searchParams.get('token')).toMatch(/\S{20,}/);
    const onThisServer = `${server.url}${link.pathname}${link.search}`;
    // Waiting until accepted: listed, not a member yet.
    await page
      .getByRole('table', { name: 'Waiting invitations' })
      .getByRole('cell', { name: 'bo@acme.example', exact: true })
      .waitFor();
    expect(
      await page
        .getByRole('table', { name: 'Members' })
        .getByRole('cell', { name: 'bo@acme.example', exact: true })
        .count(),
    ).toBe(0);
    await look(page, 'settings-members-invited');

    const { context, page: p } = await newPersonPage();
    await p.goto(onThisServer);
    await expect.poll(() => h1(p).textContent()).toBe('Join Acme');
    await look(p, 'invite-signed-out');
    const create = p.getByRole('region', { name: 'I am new here' });
    await create.getByLabel('New password', { exact: true }).fill('short');
    await create.getByLabel('Confirm new password').fill('short');
    await create.getByRole('button', { name: 'Create account and join' }).click();
    await create.getByText('Use at least 10 characters.').waitFor();
    await create.getByLabel('New password', { exact: true }).fill('a long enough password');
    await create.getByLabel('Confirm new password').fill('a long enough passw0rd');
    await create.getByRole('button', { name: 'Create account and join' }).click();
    await expect.poll(() => p.locator('[aria-invalid="true"]').count()).toBeGreaterThan(0);
    await look(p, 'invite-errors');
    await create.getByLabel('Confirm new password').fill('a long enough password');
    await create.getByRole('button', { name: 'Create account and join' }).click();
    await expect.poll(() => h1(p).textContent()).toBe('Links');

    await p.getByRole('button', { name: 'New link' }).waitFor();
    await p.getByRole('link', { name: 'spring-2026', exact: true }).click();
    await p.getByRole('button', { name: 'Save' }).waitFor();
    await expect.poll(() => p.getByRole('button', { name: 'Delete link' }).count()).toBe(0);
    await p.getByRole('link', { name: 'Settings' }).click();
    await p.getByRole('link', { name: 'Members', exact: true }).click();
    await p.getByRole('cell', { name: /bo@acme\.example/ }).waitFor();
    await expect.poll(() => p.getByRole('button', { name: 'Invite' }).count()).toBe(0);
    await look(p, 'settings-members-member');
    // The key form offers only the scopes a MEMBER may hold: no webhooks:write.
    await p.getByRole('link', { name: 'API keys' }).click();
    const scopes = p.getByRole('group', { name: 'Scopes' });
    await scopes.getByLabel('webhooks:read', { exact: true }).waitFor();
    expect(await scopes.getByLabel('webhooks:write', { exact: true }).count()).toBe(0);
    await look(p, 'settings-keys-member');
    await context.close();

    // The link worked once.
    const again = await newPersonPage();
    await again.page.goto(onThisServer);
    await expect.poll(() => again.page.getByRole('alert').first().textContent()).toMatch(/not valid any more/);
    await look(again.page, 'invite-used');
    await again.context.close();
  });

  it('someone with an account signs in on the invitation and joins; signed in as another email, they are told so', async () => {
    const knex = server.services.db.knex;
    const elsewhere = await createWorkspace(knex, 'Elsewhere', 'growth');
    const dee = await seedPerson(knex, elsewhere, 'OWNER', 'dee@elsewhere.example');
    await page.getByRole('link', { name: 'Members', exact: true }).click();
    await page.getByLabel('Email').fill(dee.email);
    await page.getByLabel('Role', { exact: true }).selectOption('ANALYST');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = new URL(await page.getByLabel('Invitation link').inputValue());
    const onThisServer = `${server.url}${link.pathname}${link.search}`;

    // Signed in as the analyst: the invitation is not theirs.
    const other = await newPersonPage();
    await signInThroughForm(other.page, analyst);
    await expect.poll(() => h1(other.page).textContent()).toBe('Links');
    await other.page.goto(onThisServer);
    await expect
      .poll(() => other.page.getByRole('alert').first().textContent())
      .toContain(`This invitation is for ${dee.email}`);
    await look(other.page, 'invite-other-account');
    await other.page.getByRole('button', { name: 'Sign out' }).click();
    const signInPart = other.page.getByRole('region', { name: 'I have an account' });
    await signInPart.waitFor();
    expect(await signInPart.getByLabel('Email').inputValue()).toBe(dee.email);
    await signInPart.getByLabel('Password', { exact: true }).fill('not the password');
    await signInPart.getByRole('button', { name: 'Sign in and join' }).click();
    await expect.poll(() => signInPart.getByRole('alert').textContent()).toMatch(/email or password/i);
    await signInPart.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await signInPart.getByRole('button', { name: 'Sign in and join' }).click();
    await expect.poll(() => h1(other.page).textContent()).toBe('Links');
    expect(other.page.url()).toBe(app(`/w/${workspaceId}/links`));
    expect(await roleOf(knex, workspaceId, dee.userId)).toBe('ANALYST');
    expect(await roleOf(knex, elsewhere, dee.userId)).toBe('OWNER');
    await other.context.close();
  });

  it('keeps a screenshot of the remaining screens, each clean under axe-core', async () => {
    for (const [name, sub] of [
      ['settings-members', 'Members'],
      ['settings-domains', 'Domains'],
      ['settings-campaigns', 'Campaigns'],
    ] as const) {
      await page.getByRole('link', { name: sub, exact: true }).click();
      await page.getByRole('heading', { name: sub, exact: true }).first().waitFor();
      await look(page, name);
    }
    await page.getByRole('link', { name: owner.email }).click();
    await h1(page).waitFor();
    await look(page, 'account');
  });

  it('an ANALYST sees no control that changes anything, and the API answers 403 when asked anyway', async () => {
    const { context, page: p } = await newPersonPage();
    await signInThroughForm(p, analyst);
    await expect.poll(() => h1(p).textContent()).toBe('Links');
    await p.getByRole('row', { name: /spring-2026/ }).waitFor();
    await expect.poll(() => p.getByRole('button', { name: 'New link' }).count()).toBe(0);
    await expect.poll(() => p.getByLabel('Select all on this page').count()).toBe(0);
    await look(p, 'links-analyst');

    await p.getByRole('link', { name: 'spring-2026', exact: true }).click();
    await expect.poll(() => h1(p).textContent()).toContain('spring-2026');
    await expect.poll(() => p.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await expect.poll(() => p.getByRole('button', { name: 'Delete link' }).count()).toBe(0);
    await look(p, 'link-analyst');

    await p.getByRole('link', { name: 'Settings' }).click();
    await p.getByRole('link', { name: 'API keys' }).click();
    await expect.poll(() => p.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    await p.getByRole('link', { name: 'Members', exact: true }).click();
    await p.getByRole('heading', { name: 'Members', exact: true }).first().waitFor();
    await expect.poll(() => p.getByRole('button', { name: 'Invite' }).count()).toBe(0);
    await expect.poll(() => p.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    await look(p, 'settings-members-analyst');

    const id = (
      await server.services.db.knex('links').where({ workspace_id: workspaceId, slug: 'spring-2026' }).first()
    ).id;
    const base = `${DASHBOARD_API}/workspaces/${workspaceId}`;
    const made = await apiFromPage(p, 'POST', `${base}/links`, { url: `${destination.origin}/analyst` });
    expect(made.status).toBe(403);
    expect(made.body?.error).toBeTruthy();
    expect((await apiFromPage(p, 'PATCH', `${base}/links/${id}`, { title: 'changed by an analyst' })).status).toBe(403);
    expect((await apiFromPage(p, 'DELETE', `${base}/links/${id}`)).status).toBe(403);
    const stored = await server.services.db.knex('links').where({ id }).first();
    expect(stored.title).toBe('Spring sale 2026');
    expect(stored.deleted_at).toBeNull();
    await context.close();
  });

  it('a screen whose file is gone (the service upgraded since the tab opened) reloads once, then says so with a way to reload', async () => {
    const { context, page: p } = await newPersonPage();
    await signInThroughForm(p, owner);
    await expect.poll(() => h1(p).textContent()).toBe('Links');
    // As after an upgrade: the build this tab loaded named the analytics screen's file by its
    // content, and the server no longer has it.
    const gone = /\/app\/assets\/link-analytics-[\w-]+\.js$/;
    let documents = 0;
    p.on('load', () => documents++);
    /** The documents (0: the one signed in, 1: after the reload) that asked for the file. */
    const refusedIn = new Set<number>();
    await context.route(gone, (route) => {
      refusedIn.add(documents);
      return route.fulfill({ status: 404, contentType: 'text/plain', body: 'Not Found' });
    });
    await p
      .getByRole('row', { name: /spring-2026/ })
      .getByRole('link', { name: 'Analytics' })
      .click();
    const failed = p
      .getByRole('alert')
      .filter({ has: p.getByRole('heading', { name: 'This screen could not be loaded' }) });
    // One automatic reload (the current build would have the file), then no more: both documents
    // asked for the file, and the person is told, still signed in, with the navigation in place.
    await expect.poll(() => documents).toBe(1);
    await failed.waitFor();
    expect([...refusedIn].sort()).toEqual([0, 1]);
    expect(new URL(p.url()).pathname).toMatch(/\/links\/[^/]+\/analytics$/);
    const linksInNav = p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Links', exact: true });
    await linksInNav.waitFor();
    await look(p, 'screen-load-error');
    await p.setViewportSize({ width: 390, height: 844 });
    await look(p, 'screen-load-error-phone');
    await p.setViewportSize({ width: 1280, height: 800 });

    // Another screen opens as usual; back at this one the message is the same, with no second
    // automatic reload within the guard's time.
    await linksInNav.click();
    await expect.poll(() => h1(p).textContent()).toBe('Links');
    expect(await failed.count()).toBe(0);
    await p.goBack();
    await failed.waitFor();
    expect(documents).toBe(1);

    // The file is back (as it is in the current build): the button opens the screen.
    await context.unroute(gone);
    await p.getByRole('button', { name: 'Reload the page' }).click();
    await expect.poll(() => h1(p).textContent()).toContain('spring-2026');
    await p.getByText('Show the numbers').waitFor();
    expect(documents).toBe(2);
    await context.close();
  });

  it('renames the workspace, then renames a tag and deletes it after saying how many links lose it', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Workspace name').fill('Acme marketing');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Workspace renamed to Acme marketing.').waitFor();
    // The header's workspace list names it the new way, as the service stored it.
    await expect
      .poll(() => page.getByLabel('Workspace', { exact: true }).locator('option:checked').textContent())
      .toBe('Acme marketing');
    expect((await server.services.db.knex('workspaces').where({ id: workspaceId }).first()).name).toBe(
      'Acme marketing',
    );
    await look(page, 'settings-renamed');

    await page.getByRole('link', { name: 'Tags' }).click();
    const social = await server.services.db.knex('tags').where({ workspace_id: workspaceId, name: 'social' }).first();
    const carried = (
      await server.services.db
        .knex('link_tags as lt')
        .join('links as l', 'l.id', 'lt.link_id')
        .where('lt.tag_id', social.id)
        .whereNull('l.deleted_at')
    ).length;
    expect(carried).toBeGreaterThan(0);
    const counted = `${carried} ${carried === 1 ? 'link' : 'links'}`;
    const tagRow = (name: string) =>
      page.getByRole('table', { name: 'Tags' }).getByRole('row').filter({ hasText: name });
    await expect.poll(() => tagRow('social').textContent()).toContain(counted);

    await page.getByRole('button', { name: 'Rename social' }).click();
    await page.getByLabel('New name').fill('social media');
    await page.getByRole('button', { name: 'Save tag' }).click();
    await page.getByText('Tag social renamed to social media.').waitFor();

    await page.getByRole('button', { name: 'Delete social media' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the tag social media?' });
    expect(await dialog.textContent()).toContain(`${counted} ${carried === 1 ? 'loses' : 'lose'} it`);
    await look(page, 'settings-tag-delete');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`Tag social media deleted; it was taken off ${counted}.`).waitFor();
    // The notice comes with the answer; the list is read again just after.
    await expect.poll(() => tagRow('social media').count()).toBe(0);
    expect(await server.services.db.knex('link_tags').where({ tag_id: social.id })).toEqual([]);
  });

  it('signs out: the session is over on the server, not only in this tab', async () => {
    const before = await ownerContext.cookies(app('/'));
    expect(before.length).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/login');
    // The cookie as it was before signing out no longer opens anything.
    const cookie = before.map((c) => `${c.name}=${c.value}`).join('; ');
    const res = await server.request('GET', `${DASHBOARD_API}/session`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(401);
    await page.goto(app(`/w/${workspaceId}/links`));
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(page.url()).toContain('/app/login?next=');
  });

  it('made no request to another host and raised no browser error on the way', () => {
    expect(helpers.errors).toEqual([]);
  });
});
