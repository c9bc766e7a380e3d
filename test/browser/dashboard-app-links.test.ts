// A custom domain's app links on the Domains screen, end to end in Debian's Chromium against the
// service: the OWNER opens a domain's app links, a document that is not JSON and one the service
// refuses are shown at their text area, a saved pair is served at /.well-known/ on the domain's
// host; an ANALYST reads them with nothing to save. axe-core on every state, screenshots in
// DASHBOARD_E2E_SHOTS_DIR (default /tmp/dashboard-e2e). SQLite only: the rules run on both
// engines in test/dashboard/app-links.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { AASA, ANDROID, APPLE, ASSETLINKS } from '../support/app-links';
import { describeInChromium, closeAll } from '../support/browser';
import type { Person } from '../support/dashboard';
import { acmeInChromium, type DashboardBrowser } from '../support/dashboard-browser';
import { startTestServer, type TestServer } from '../support/server';

const HOST = 'go.acme.example';

describeInChromium('app links in the dashboard, in Chromium (sqlite)', () => {
  let server: TestServer;
  let browser: Browser;
  let b: DashboardBrowser;
  let workspaceId: string;
  let owner: Person;
  let analyst: Person;
  let page: Page;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { SHORT_DOMAIN: 'sho.rt' } });
    ({ browser, b, workspaceId, owner, analyst } = await acmeInChromium(server));
    const knex = server.services.db.knex;
    await setDomainStatus(knex, await addDomain(knex, workspaceId, HOST), 'ACTIVE');
    page = await b.signedInPage(owner);
  }, 60_000);
  afterAll(() => closeAll(browser, server));

  const domains = (p: Page) => p.goto(`${server.url}/app/w/${workspaceId}/settings/domains`);

  it('saves both documents from their text areas; the host serves them', async () => {
    await domains(page);
    await page.getByRole('button', { name: `App links for ${HOST}` }).click();
    const panel = page.getByRole('region', { name: `App links for ${HOST}` });
    const apple = panel.getByLabel('Apple: apple-app-site-association');
    const android = panel.getByLabel('Android: assetlinks.json');
    await expect.poll(() => apple.inputValue()).toBe('');
    await b.look(page, 'app-links-empty');

    // Not JSON: refused before sending, at its text area.
    await android.fill('[{"relation": ');
    await panel.getByRole('button', { name: 'Save app links' }).click();
    await expect.poll(() => android.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => panel.getByText(/This is not JSON/).count()).toBe(1);
    // A shape the service refuses: its message, naming the place, at the text area it belongs to.
    await android.fill('');
    await apple.fill(JSON.stringify({ applinks: { details: [{ appIDs: ['com.example.app'], paths: ['*'] }] } }));
    await panel.getByRole('button', { name: 'Save app links' }).click();
    await expect.poll(() => apple.getAttribute('aria-invalid')).toBe('true');
    await expect
      .poll(() => panel.getByText(/apple\.applinks\.details\.0\.appIDs\.0 must be an app id/).count())
      .toBe(1);
    await b.look(page, 'app-links-refused');
    expect((await server.request('GET', AASA, { headers: { host: HOST } })).status).toBe(404);

    await apple.fill(JSON.stringify(APPLE, null, 2));
    await android.fill(JSON.stringify(ANDROID, null, 2));
    await panel.getByRole('button', { name: 'Save app links' }).click();
    await panel.getByText(`Saved: ${HOST} serves the app links from now on.`).waitFor();
    await expect.poll(() => apple.getAttribute('aria-invalid')).toBe(null);
    await b.look(page, 'app-links-saved');
    for (const [p, doc] of [
      [AASA, APPLE],
      [ASSETLINKS, ANDROID],
    ] as const) {
      const res = await server.request('GET', p, { headers: { host: HOST } });
      expect([res.status, res.headers['content-type'], res.text]).toEqual([
        200,
        'application/json',
        JSON.stringify(doc),
      ]);
    }
    // Opened again, the text areas hold what is stored.
    await page.reload();
    await page.getByRole('button', { name: `App links for ${HOST}` }).click();
    await expect.poll(async () => JSON.parse(await android.inputValue())).toEqual(ANDROID);
  });

  it('shows an ANALYST the documents with nothing to change', async () => {
    const theirs = await b.signedInPage(analyst);
    await domains(theirs);
    await theirs.getByRole('button', { name: `App links for ${HOST}` }).click();
    const panel = theirs.getByRole('region', { name: `App links for ${HOST}` });
    await expect
      .poll(async () => JSON.parse(await panel.getByLabel('Apple: apple-app-site-association').inputValue()))
      .toEqual(APPLE);
    expect(await panel.getByLabel('Apple: apple-app-site-association').isDisabled()).toBe(true);
    expect(await panel.getByRole('button', { name: 'Save app links' }).count()).toBe(0);
    await b.look(theirs, 'app-links-analyst');
    await theirs.setViewportSize({ width: 390, height: 844 });
    await b.look(theirs, 'app-links-analyst-phone');
    await panel.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => panel.count()).toBe(0);
    expect(b.errors).toEqual([]);
  });
});
