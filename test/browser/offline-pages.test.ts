// No page of the service makes a request off the machine: the API reference
// (/docs), the webhook reference (/docs/webhooks) and the visitor pages, opened in a real
// Chromium with every request recorded and every one to another host cut off. A page that
// reaches for a CDN, a font service or an analytics host fails here, and so does one whose own
// Content-Security-Policy refuses something the page tries to load. SQLite only: what is under
// test is what the browser asks for, not the database engine.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeInChromium, launchBrowser, personContext, closeAll } from '../support/browser';
import { seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

describeInChromium("the service's pages in Chromium with the network cut off (sqlite)", () => {
  let server: TestServer;
  let owner: Seeded;
  let browser: Browser;
  let context: BrowserContext;
  /** Every request the pages made, and those that would have left the machine. */
  const requested: string[] = [];
  const offMachine: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startTestServer('sqlite');
    owner = await seedWorkspace(server.services.db.knex);
    const res = await server.request('POST', '/api/v1/links', {
      key: owner.key,
      body: { url: 'https://example.com/secret', slug: 'behind-a-password', password: 'correct horse' },
    });
    expect(res.status, res.text).toBe(201);
    context = await personContext(browser);
    context.setDefaultTimeout(15_000);
    const origin = new URL(server.url).origin;
    await context.route('**/*', (route) => {
      const url = route.request().url();
      requested.push(url);
      if (new URL(url).origin === origin) return route.continue();
      offMachine.push(url);
      return route.abort('internetdisconnected');
    });
  });
  beforeEach(() => {
    offMachine.length = 0;
    problems.length = 0;
  });
  afterAll(() => closeAll(context, browser, server));

  async function open(path: string): Promise<Page> {
    const page = await context.newPage();
    page.on('console', (m) => {
      // The pages' own statuses (401, 404) are logged too: only what the browser refused or could not load counts.
      if (m.type() === 'error' && !/the server responded with a status of/.test(m.text()))
        problems.push(`${path}: console error: ${m.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`${path}: page error: ${err.message}`));
    const res = await page.goto(`${server.url}${path}`, { waitUntil: 'networkidle' });
    expect(res, path).toBeTruthy();
    return page;
  }
  const clean = (path: string) => {
    expect(offMachine, `${path} asked for these off the machine`).toEqual([]);
    expect(problems, `${path}: the browser complained`).toEqual([]);
  };

  it('/docs: the API reference renders, links to /docs/webhooks and asks nothing of another host', async () => {
    const page = await open('/docs');
    await page.getByText('Shortlink API').first().waitFor();
    await page.screenshot({ path: '/tmp/shortlink-docs.png' });
    await page.getByText('Rate limit').first().waitFor();
    expect(await page.locator('a[href="/docs/webhooks"]').count()).toBeGreaterThan(0);
    // The Redocly badge and its logo are gone.
    expect(await page.locator('a[href="https://redocly.com/redoc/"]').isVisible()).toBe(false);
    expect(await page.locator('img[src^="https://"]').count()).toBe(0);
    await page.screenshot({ path: '/tmp/shortlink-docs.png' });
    clean('/docs');
    expect(requested.some((u) => u.endsWith('/docs'))).toBe(true);
  });

  it('/docs/webhooks: both variants, their events, signatures, retries and deduplication, nothing from another host', async () => {
    const page = await open('/docs/webhooks');
    const text = () => page.locator('body').innerText();
    await page.getByText('Shortlink webhooks').first().waitFor();
    for (const words of [
      'Variant A',
      'Variant B',
      'X-Webhook-Signature',
      'X-Service-Signature',
      'X-Service-Delivery-Id',
      'Deduplication key',
      '160 seconds',
      '10 minutes',
    ]) {
      expect(await text(), words).toContain(words);
    }
    // Each variant's channel lists every event of its catalogue, with its payload.
    for (const [channel, events] of [
      ['Variant A: Subscriber endpoint', ['link.created', 'analytics.geo_anomaly', 'domain.verified', 'report.shared']],
      ['Variant B: Subscriber endpoint', ['link.clicked', 'page.viewed', 'qr.scanned', 'domain.verified']],
    ] as const) {
      await page.getByText(channel, { exact: true }).first().click();
      await page.getByRole('heading', { name: channel }).first().waitFor();
      await page.getByText('Payload', { exact: true }).first().waitFor();
      for (const event of events) expect(await text(), `${channel}: ${event}`).toContain(event);
    }
    await page.screenshot({ path: '/tmp/shortlink-webhook-docs.png' });
    clean('/docs/webhooks');
  });

  it('a visitor page (the password form) and the not-found page ask nothing of another host', async () => {
    const form = await open('/behind-a-password');
    await form.getByLabel('Password').waitFor();
    const missing = await open('/no-such-link');
    await missing.getByRole('heading', { level: 1 }).waitFor();
    clean('visitor pages');
  });
});
