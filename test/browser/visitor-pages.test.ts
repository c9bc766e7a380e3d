// The visitor pages of the short-link path in a real Chromium, driven as a person would: open the
// short URL, read the page, type into the form, follow the redirect. SQLite only (one server):
// what is under test here is the browser's view of the pages, not the database engines.
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  describeInChromium,
  launchBrowser,
  personContext,
  startDestination,
  closeAll,
  type Destination,
} from '../support/browser';
import { seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

describeInChromium('visitor pages in Chromium (sqlite)', () => {
  let server: TestServer;
  let owner: Seeded;
  let destination: Destination;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** What the browser complained about (CSP violations show up here), for failure messages. */
  let consoleErrors: string[];

  const createLink = async (body: Record<string, unknown>) => {
    const res = await server.request('POST', '/api/v1/links', { key: owner.key, body });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: string; slug: string };
  };
  const shortUrl = (slug: string) => `${server.url}/${slug}`;
  const heading = () => page.getByRole('heading', { level: 1 }).textContent();

  beforeAll(async () => {
    // Launch first: in CI a missing Chromium fails here, before anything else is started.
    browser = await launchBrowser();
    server = await startTestServer('sqlite');
    owner = await seedWorkspace(server.services.db.knex);
    destination = await startDestination();
  });
  beforeEach(async () => {
    context = await personContext(browser);
    context.setDefaultTimeout(10_000);
    context.setDefaultNavigationTimeout(10_000);
    page = await context.newPage();
    consoleErrors = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  });
  afterEach(async () => context?.close());
  afterAll(() => closeAll(browser, destination, server));

  it('sanity: the short domain serves https://localhost:<port> and a plain link lands on the destination', async () => {
    expect(new URL(server.url).hostname).toBe('localhost');
    await createLink({ url: `${destination.origin}/plain`, slug: 'plain-link' });
    const res = await page.goto(shortUrl('plain-link'));
    expect(res?.status()).toBe(200);
    expect(page.url()).toBe(`${destination.origin}/plain`);
    await page.getByText('Landed on destination').waitFor();
  });

  it('password: form (401), wrong password stays on the short link with an error, right password lands without leaking the slug', async () => {
    const slug = 'secret-plans';
    const target = `${destination.origin}/landing?from=shortlink`;
    await createLink({ url: target, slug, password: 'correct horse' });
    const seenBefore = destination.requests.length;

    const form = await page.goto(shortUrl(slug));
    expect(form?.status()).toBe(401);
    expect(await heading()).toBe('Password required');
    await expect(page.title()).resolves.toBe('Password required');
    const headers = await form!.allHeaders();
    expect(headers['content-security-policy']).toBeTruthy();
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['cache-control']).toBe('no-store');
    await page.screenshot({ path: '/tmp/shortlink-password.png', fullPage: true });

    // A wrong password: the same form again, with an error, still on the short link.
    await page.getByLabel('Password').fill('wrong horse');
    const [wrong] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Continue' }).click(),
    ]);
    expect(wrong.status()).toBe(401);
    await page.waitForLoadState('domcontentloaded');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('That password is not correct.');
    expect(page.url()).toBe(shortUrl(slug));
    expect(await heading()).toBe('Password required');
    expect(destination.requests.length).toBe(seenBefore);

    // The right password: the browser follows the redirect to the destination.
    await page.getByLabel('Password').fill('correct horse');
    const landing = page
      .waitForURL((u) => u.origin === destination.origin, { waitUntil: 'domcontentloaded' })
      .catch((err: Error) => err);
    await page.getByRole('button', { name: 'Continue' }).click();
    const outcome = await landing;
    if (outcome instanceof Error) {
      throw new Error(
        `the right password did not land on ${target} (still at ${page.url()}): ${outcome.message.split('\n')[0]}\n` +
          `browser console errors:\n  ${consoleErrors.join('\n  ')}`,
      );
    }
    await page.getByText('Landed on destination').waitFor();
    expect(page.url()).toBe(target);

    // No referrer left with the slug: neither in the request the destination saw nor in the page.
    const landed = destination.requests.slice(seenBefore).filter((r) => r.url.startsWith('/landing'));
    expect(landed).toHaveLength(1);
    expect(landed[0].method).toBe('GET');
    expect(landed[0].referer ?? '').not.toContain(slug);
    expect(await page.evaluate('document.referrer')).not.toContain(slug);
  });

  it('expired without expiredUrl: the expired page with 410', async () => {
    await createLink({ url: `${destination.origin}/never`, slug: 'old-sale', expiresAt: '2020-01-01T00:00:00Z' });
    const res = await page.goto(shortUrl('old-sale'));
    expect(res?.status()).toBe(410);
    expect(await heading()).toBe('Link expired');
    expect(await page.locator('body').innerText()).toMatch(/expired/i);
    expect(page.url()).toBe(shortUrl('old-sale'));
    const headers = await res!.allHeaders();
    expect(headers['content-security-policy']).toBeTruthy();
    expect(headers['referrer-policy']).toBe('no-referrer');
    await page.screenshot({ path: '/tmp/shortlink-expired.png', fullPage: true });
    expect(destination.requests.some((r) => r.url === '/never')).toBe(false);
  });

  it('expired with expiredUrl: lands on the expiredUrl, not the original destination', async () => {
    await createLink({
      url: `${destination.origin}/original`,
      slug: 'old-sale-moved',
      expiresAt: '2020-01-01T00:00:00Z',
      expiredUrl: `${destination.origin}/sale-is-over`,
    });
    const res = await page.goto(shortUrl('old-sale-moved'));
    expect(res?.status()).toBe(200);
    expect(page.url()).toBe(`${destination.origin}/sale-is-over`);
    await page.getByText('Landed on destination').waitFor();
    expect(destination.requests.some((r) => r.url === '/original')).toBe(false);
  });

  it('unknown slug: the not-found page with 404', async () => {
    const res = await page.goto(shortUrl('no-such-link'));
    expect(res?.status()).toBe(404);
    expect(await heading()).toBe('Link not found');
    expect(await page.locator('body').innerText()).toMatch(/no link at this address/i);
    expect(page.url()).toBe(shortUrl('no-such-link'));
  });

  it('startAt in the future: a 404 page saying the link is not live yet', async () => {
    await createLink({ url: `${destination.origin}/launch`, slug: 'launch-day', startAt: '2099-01-01T00:00:00Z' });
    const res = await page.goto(shortUrl('launch-day'));
    expect(res?.status()).toBe(404);
    expect(await heading()).toBe('Not live yet');
    expect(await page.locator('body').innerText()).toMatch(/not live yet/i);
    expect(destination.requests.some((r) => r.url === '/launch')).toBe(false);
  });
});
