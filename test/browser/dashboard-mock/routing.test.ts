// A link's routing screen and its report by rule and variant, driven in Chromium by role and
// accessible name against Prism's mock of the contract (every request the app makes is held to
// it): rules edited, added and reordered and the PUT that saves them; a refused value shown under
// the input the API's field names, the form kept; "Try a visit" with a preset showing the chosen
// destination and why; an ANALYST reading without controls; the split's variants on the
// analytics screen with how sure their difference is. axe-core on each, and screenshots at
// desktop and phone widths (routing-*.png in DASHBOARD_SHOTS_DIR) to look at.
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeInChromium } from '../../support/browser';
import { answer, realisticReads, WS } from './fixtures';
import {
  axeProblems,
  settled,
  SHOTS_DIR,
  type AppServer,
  startMockDashboard,
  type MockDashboard,
  watchedContext,
} from './harness';
import { IPHONE_TRIAL, REPORT, ROUTING } from './routing-fixtures';

const PHONE = { width: 390, height: 844 };

describeInChromium("a link's routing in Chromium against Prism's mock of the contract", () => {
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

  const rule = (n: number) => page.getByRole('group', { name: `Rule ${n}`, exact: true });
  const condition = (r: number, c: number) =>
    page.getByRole('group', { name: `Rule ${r}, condition ${c}`, exact: true });
  const shoot = async (name: string, full = true) => {
    await page.screenshot({ path: path.join(SHOTS_DIR, `routing-${name}.png`), fullPage: full });
  };
  const openRouting = async (role: 'OWNER' | 'ANALYST' = 'OWNER') => {
    await realisticReads(page, role);
    await answer(page, 'GET', '**/app/api/workspaces/*/links/lnk_0/routing', { data: ROUTING });
    await page.goto(`${app.origin}/app/w/${WS}/links/lnk_0/routing`);
    await settled(page);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Routing for launch');
  };

  it('edits, adds and reorders rules and saves the whole routing; the answer is what the form shows', async () => {
    await openRouting();
    expect(await axeProblems(page), 'axe on the editor').toEqual([]);
    await shoot('editor-desktop');
    await expect.poll(() => rule(1).getByLabel('Destination URL').inputValue()).toBe(ROUTING.rules[0].url);
    expect(await condition(2, 2).getByLabel('Value').inputValue()).toBe('FR');

    // Rule 2's country becomes BE; a third rule for a query parameter, moved to the top.
    await condition(2, 2).getByLabel('Value').fill('BE');
    await page.getByRole('button', { name: 'Add a rule' }).click();
    await condition(3, 1).getByLabel('Type').selectOption({ label: 'Query parameter' });
    await condition(3, 1).getByLabel('Parameter name').fill('ref');
    await condition(3, 1).getByLabel('Value (optional)').fill('partner');
    await page.getByRole('button', { name: 'Add a condition to rule 3' }).click();
    await condition(3, 2).getByLabel('Type').selectOption({ label: 'Device' });
    await condition(3, 2).getByLabel('Value').selectOption({ label: 'Tablet' });
    await rule(3).getByLabel('Destination URL').fill('https://partners.acme.example/welcome');
    await page.getByRole('button', { name: 'Move rule 3 up' }).click();
    await page.getByRole('button', { name: 'Move rule 2 up' }).click();
    expect(await rule(1).getByLabel('Destination URL').inputValue()).toBe('https://partners.acme.example/welcome');
    expect(await page.getByRole('button', { name: 'Move rule 1 up' }).isDisabled()).toBe(true);
    // Focus follows the moved rule: at the top its Up is disabled, so its Down takes it.
    const focused = () => page.evaluate('document.activeElement?.getAttribute("aria-label")');
    await expect.poll(focused).toBe('Move rule 1 down');
    // A new rule's first field takes focus; removing it puts focus on the rule before it.
    await page.getByRole('button', { name: 'Add a rule' }).click();
    await expect
      .poll(() =>
        page.evaluate(`(() => {
          const items = [...document.querySelectorAll('[data-item-key]')];
          const at = document.activeElement?.closest('[data-item-key]');
          return [document.activeElement?.tagName, at ? items.indexOf(at) + 1 : 0];
        })()`),
      )
      .toEqual(['SELECT', 4]);
    await page.getByRole('button', { name: 'Remove rule 4' }).click();
    await expect.poll(focused).toBe('Remove rule 3');
    // The split's second variant takes 30%, a third 20%; the click id goes.
    await page.getByRole('group', { name: 'Variant A', exact: true }).getByLabel('Weight (%)').fill('50');
    await page.getByRole('group', { name: 'Variant B', exact: true }).getByLabel('Weight (%)').fill('30');
    await page.getByRole('button', { name: 'Add a variant' }).click();
    const c = page.getByRole('group', { name: 'Variant C', exact: true });
    await c.getByLabel('Destination URL').fill('https://www.acme.example/launch-c');
    await c.getByLabel('Weight (%)').fill('20');
    await page.getByLabel('Click id parameter').fill('');
    await page.getByLabel("Forward the visit's query to the destination").uncheck();
    await page.getByLabel('Split ends at').fill('2027-01-15T09:30');

    const stored = {
      ...ROUTING,
      rules: [
        {
          id: 'rul_new',
          conditions: [
            { type: 'query' as const, name: 'ref', value: 'partner' },
            { type: 'device' as const, value: 'tablet' },
          ],
          url: 'https://partners.acme.example/welcome',
        },
        ROUTING.rules[0],
        {
          ...ROUTING.rules[1],
          conditions: [
            { type: 'language' as const, value: 'fr' },
            { type: 'country' as const, value: 'BE' },
          ],
        },
      ],
      forwardQuery: false,
      clickIdParam: null,
    };
    const put = await answer(page, 'PUT', '**/app/api/workspaces/*/links/lnk_0/routing', { data: stored });
    await page.getByRole('button', { name: 'Save routing' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Routing saved' }).count()).toBe(1);
    expect(put).toHaveLength(1);
    expect(put[0].headers['x-csrf-token']).toBeTruthy();
    expect(JSON.parse(put[0].body ?? '')).toEqual({
      rules: [
        {
          conditions: [
            { type: 'query', name: 'ref', value: 'partner' },
            { type: 'device', value: 'tablet' },
          ],
          url: 'https://partners.acme.example/welcome',
        },
        { id: 'rul_ios', conditions: [{ type: 'os', value: 'ios' }], url: ROUTING.rules[0].url },
        {
          id: 'rul_fr',
          conditions: [
            { type: 'language', value: 'fr' },
            { type: 'country', value: 'BE' },
          ],
          url: ROUTING.rules[1].url,
        },
      ],
      split: {
        variants: [
          { id: 'var_a', url: 'https://www.acme.example/launch-a', weight: 50 },
          { id: 'var_b', url: 'https://www.acme.example/launch-b', weight: 30 },
          { url: 'https://www.acme.example/launch-c', weight: 20 },
        ],
        // Berlin is an hour ahead of UTC in January.
        endsAt: '2027-01-15T09:30:00+01:00',
        metric: 'conversions',
      },
      forwardQuery: false,
      indexable: false,
      clickIdParam: null,
    });
    // The form now shows what was stored: the answer's split (two variants), not the draft's three.
    expect(await page.getByRole('group', { name: 'Variant C', exact: true }).count()).toBe(0);
    expect(await rule(3).getByLabel('Destination URL').inputValue()).toBe(ROUTING.rules[1].url);
  });

  it("shows a refused value under the input the API's field names and keeps everything typed", async () => {
    await openRouting();
    await condition(2, 2).getByLabel('Value').fill('Francia');
    await rule(1).getByLabel('Destination URL').fill('https://apps.apple.com/app/id999');
    const error = 'rules[1].conditions[1].value must be an ISO 3166-1 alpha-2 country code (FR)';
    await answer(
      page,
      'PUT',
      '**/app/api/workspaces/*/links/lnk_0/routing',
      { error, field: 'rules[1].conditions[1].value' },
      400,
    );
    await page.getByRole('button', { name: 'Save routing' }).click();
    const input = condition(2, 2).getByLabel('Value');
    await expect.poll(() => input.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await input.getAttribute('aria-describedby')) ?? '';
    const described = await Promise.all(describedBy.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(described).toContain(error);
    await expect.poll(() => page.evaluate('document.activeElement?.value')).toBe('Francia');
    // Nothing typed is lost, and no other input claims the error.
    expect(await rule(1).getByLabel('Destination URL').inputValue()).toBe('https://apps.apple.com/app/id999');
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(1);
    expect(await page.getByRole('status').filter({ hasText: 'Routing saved' }).count()).toBe(0);
    expect(await axeProblems(page), 'axe with the error shown').toEqual([]);
    await input.scrollIntoViewIfNeeded();
    await shoot('error-desktop', false);
  });

  it('tries a visit as an iPhone in France on the saved routing and says which rule chose the destination', async () => {
    await openRouting();
    const tryPanel = page.getByRole('region', { name: 'Try a visit' });
    await expect.poll(() => tryPanel.getByText('Runs on the saved routing').count()).toBe(1);
    await tryPanel.getByLabel('Browser preset').selectOption({ label: 'iPhone (Safari)' });
    expect(await tryPanel.getByLabel('User-Agent').inputValue()).toContain('iPhone');
    await tryPanel.getByLabel('Country').fill('FR');
    await tryPanel.getByLabel('Accept-Language').fill('fr-FR,fr;q=0.9');
    await tryPanel.getByLabel('Query').fill('?utm_source=news');
    await tryPanel.getByLabel('Split variant held').selectOption({ label: 'Variant B' });
    const trial = await answer(page, 'POST', '**/app/api/workspaces/*/links/lnk_0/routing/trial', IPHONE_TRIAL);
    await tryPanel.getByRole('button', { name: 'Try', exact: true }).click();
    const result = tryPanel.getByRole('status');
    await expect.poll(() => result.getByText(IPHONE_TRIAL.data.url!).count()).toBe(1);
    const body = JSON.parse(trial[0].body ?? '');
    expect(body).toMatchObject({
      country: 'FR',
      language: 'fr-FR,fr;q=0.9',
      query: 'utm_source=news',
      variantId: 'var_b',
    });
    expect(body.userAgent).toMatch(/iPhone OS/);
    expect(Object.keys(body).sort()).toEqual(['country', 'language', 'query', 'userAgent', 'variantId']);
    expect(await result.getByText('Rule 1', { exact: true }).count()).toBe(1);
    expect(await result.getByRole('listitem').allTextContents()).toEqual(IPHONE_TRIAL.data.reasons);
    expect(await axeProblems(page), 'axe with an answer').toEqual([]);
    await page.setViewportSize(PHONE);
    await settled(page);
    await shoot('trial-phone');
    // A bad client address comes back under its input.
    await tryPanel.getByLabel('Client address').fill('300.1.1.1');
    await answer(
      page,
      'POST',
      '**/app/api/workspaces/*/links/lnk_0/routing/trial',
      { error: 'ip must be an IPv4 or IPv6 address', field: 'ip' },
      400,
    );
    await tryPanel.getByRole('button', { name: 'Try', exact: true }).click();
    await expect.poll(() => tryPanel.getByLabel('Client address').getAttribute('aria-invalid')).toBe('true');
    expect(await tryPanel.getByText('ip must be an IPv4 or IPv6 address').count()).toBe(1);
  });

  it('lets an ANALYST read the routing and try a visit, with nothing to change', async () => {
    await openRouting('ANALYST');
    await expect.poll(() => page.getByText('Your role (Analyst) cannot change links').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Save routing' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Move|Remove|Add)/ }).count()).toBe(0);
    expect(await rule(1).getByLabel('Destination URL').isDisabled()).toBe(true);
    expect(
      await page
        .getByRole('region', { name: 'Try a visit' })
        .getByRole('button', { name: 'Try', exact: true })
        .isEnabled(),
    ).toBe(true);
    expect(await axeProblems(page), 'axe, read-only').toEqual([]);
    await page.setViewportSize(PHONE);
    await settled(page);
    await shoot('analyst-phone');
  });

  it('shows clicks and conversions by rule and variant on the analytics screen, and how sure the split is', async () => {
    await realisticReads(page);
    await answer(page, 'GET', '**/app/api/workspaces/*/links/lnk_0/routing/report', REPORT);
    await page.goto(`${app.origin}/app/w/${WS}/links/lnk_0/analytics`);
    await settled(page);
    const routes = page.getByRole('table', { name: 'Clicks and conversions by rule and variant' });
    await expect.poll(() => routes.getByRole('row').count()).toBe(REPORT.data.routes.length + 1);
    const rowOf = (t: typeof routes, name: string) =>
      t.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
    expect(await rowOf(routes, 'Rule 1').getByRole('cell').allTextContents()).toEqual([
      'https://apps.apple.com/app/id123456789',
      '800',
      '19%',
      '40',
    ]);
    expect(await rowOf(routes, 'Removed rules and variants').count()).toBe(1);
    const variants = page.getByRole('table', { name: "The split's variants: clicks, conversions and conversion rate" });
    expect(await rowOf(variants, 'Variant B').getByRole('cell').allTextContents()).toEqual([
      'https://www.acme.example/launch-b',
      '50%',
      '1,480',
      '89',
      '6.0%',
    ]);
    expect(await rowOf(variants, 'Variant A').getByRole('cell').last().textContent()).toBe('4.0%');
    await expect
      .poll(() =>
        page
          .getByText(
            'Variant B converts better than A with 98% confidence (two-proportion z-test); about 1,200 clicks per variant are needed to be sure of a difference this size (95% confidence, 80% power).',
          )
          .count(),
      )
      .toBe(1);
    expect(
      await page
        .getByText(/^The split ends on .*; then the variant with the highest conversion rate serves everyone\.$/)
        .count(),
    ).toBe(1);
    expect(await axeProblems(page), 'axe on the analytics').toEqual([]);
    await page.getByRole('heading', { name: 'By rule and variant' }).scrollIntoViewIfNeeded();
    await shoot('report-desktop');
    await page.setViewportSize(PHONE);
    await settled(page);
    await shoot('report-phone');
  });

  it('names the winner once the split has settled, and says when there is not enough data yet', async () => {
    await realisticReads(page);
    const split = REPORT.data.split!;
    const report = await answer(page, 'GET', '**/app/api/workspaces/*/links/lnk_0/routing/report', {
      data: {
        ...REPORT.data,
        split: { ...split, winnerId: 'var_b', endsAt: '2026-11-01T10:00:00Z', comparison: null },
      },
    });
    await page.goto(`${app.origin}/app/w/${WS}/links/lnk_0/analytics`);
    await settled(page);
    await expect.poll(() => report.length).toBe(1);
    await expect.poll(() => page.getByRole('rowheader', { name: 'Variant B (winner)' }).count()).toBe(1);
    expect(await page.getByText(/^Not enough data yet/).count()).toBe(1);
    expect(
      await page
        .getByText(/^The split ended on .*: Variant B won with the highest conversion rate and now serves everyone\.$/)
        .count(),
    ).toBe(1);
  });
});
