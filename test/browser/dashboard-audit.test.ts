// Settings › Audit log in Debian's Chromium against the service: changes made through the API
// and the dashboard listed newest first with who, what and the address's network; filtered by
// object type and by person; the CSV download holding what the filters select; an ANALYST with no
// entry in the Settings navigation and 403 from the API. axe-core and screenshots in
// DASHBOARD_E2E_SHOTS_DIR (default /tmp/dashboard-e2e). SQLite only: the rules run on both engines
// in test/dashboard/audit-log.test.ts.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeInChromium, closeAll } from '../support/browser';
import type { Person } from '../support/dashboard';
import { acmeInChromium, type DashboardBrowser } from '../support/dashboard-browser';
import { startTestServer, type TestServer } from '../support/server';
import { dataKey } from '../support/seed';

describeInChromium('the audit log in the dashboard, in Chromium (sqlite)', () => {
  let server: TestServer;
  let browser: Browser;
  let b: DashboardBrowser;
  let workspaceId: string;
  let owner: Person;
  let analyst: Person;
  let page: Page;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    ({ browser, b, workspaceId, owner, analyst } = await acmeInChromium(server));
    const key = await dataKey(server.services.db.knex, workspaceId, owner.userId);
    await server.request('POST', '/api/v1/links', {
      key,
      body: { url: 'https://example.com/pricing', slug: 'pricing' },
    });
    await server.request('POST', '/api/v1/tags', { key, body: { name: 'Spring' } });
    page = await b.signedInPage(owner);
  }, 60_000);
  afterAll(() => closeAll(browser, server));

  /** Settings opens on its General screen. */
  const openSettings = async (p: Page) => {
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await p.getByRole('heading', { level: 1, name: 'General' }).waitFor();
  };

  it('lists the changes newest first, filters them, and downloads them as CSV', async () => {
    await openSettings(page);
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const table = page.getByRole('table', { name: 'Audit log, newest first' });
    await table.waitFor();
    // The owner's sign-in through the form is the newest; the key's link and tag before it.
    await expect.poll(() => table.getByRole('row').nth(1).textContent()).toContain('session.signed_in');
    await expect.poll(() => table.textContent()).toMatch(/API key key_\w+ of ada@acme\.example/);
    await expect.poll(() => table.textContent()).toContain('127.0.0.0/24');
    await b.look(page, 'audit-log');

    await page.getByLabel('Object type').selectOption('tag');
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await expect.poll(() => table.textContent()).toContain('tag.created');
    await expect.poll(() => table.textContent()).toContain('name: Spring');
    await b.look(page, 'audit-log-filtered');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    const lines = fs
      .readFileSync((await download.path())!, 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(lines[0]).toMatch(/^seq,at,actor_type,/);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toContain('tag.created');

    await page.getByLabel('Object type').selectOption('');
    await page.getByLabel('Person').selectOption({ label: analyst.email });
    await page.getByText('No entries').waitFor();
    await b.look(page, 'audit-log-empty');
  });

  it('an ANALYST is not offered it, and the API answers 403', async () => {
    const theirs = await b.signedInPage(analyst);
    await openSettings(theirs);
    const nav = theirs.getByRole('navigation', { name: 'Settings' });
    await nav.getByRole('link', { name: 'Members' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    const res = await b.apiFromPage(theirs, 'GET', `/app/api/workspaces/${workspaceId}/audit`);
    expect(res.status).toBe(403);
    expect(b.errors).toEqual([]);
  });
});
