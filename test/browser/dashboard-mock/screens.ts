// Every screen of the dashboard at 1280×800 and 390×844, on Prism's answers
// (screens-prism.test.ts) and on realistic ones (screens-realistic.test.ts): the screen renders
// its heading without a browser error and without asking another host for anything, axe-core
// finds nothing serious or critical, and a screenshot is saved (DASHBOARD_SHOTS_DIR, default
// /tmp/dashboard-shots) for a person to look at. Every request the app made is valid against the
// contract (Prism says). Two files, so that vitest.config.ts can run them at the same time: one
// alone left a core idle while its browser waited on the other.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeInChromium } from '../../support/browser';
import { realisticReads, signedInAs, WS } from './fixtures';
import {
  axeProblems,
  settled,
  SHOTS_DIR,
  type AppServer,
  startMockDashboard,
  type MockDashboard,
  watchedContext,
} from './harness';

const SCREENS: Array<{ name: string; path: string; public?: boolean }> = [
  { name: 'login', path: '/app/login', public: true },
  { name: 'setup-password', path: '/app/setup-password?token=one-time-token', public: true },
  { name: 'setup', path: '/app/setup?token=first-run-token', public: true },
  { name: 'forgot-password', path: '/app/forgot-password', public: true },
  { name: 'reset-password', path: '/app/reset-password?token=reset-token', public: true },
  { name: 'links', path: `/app/w/${WS}/links` },
  { name: 'link-new', path: `/app/w/${WS}/links/new` },
  { name: 'link-new-dialog', path: `/app/w/${WS}/links?new=1` },
  { name: 'link-edit', path: `/app/w/${WS}/links/lnk_0` },
  { name: 'link-analytics', path: `/app/w/${WS}/links/lnk_0/analytics` },
  { name: 'link-routing', path: `/app/w/${WS}/links/lnk_0/routing` },
  { name: 'import', path: `/app/w/${WS}/import` },
  { name: 'settings', path: `/app/w/${WS}/settings` },
  { name: 'settings-keys', path: `/app/w/${WS}/settings/keys` },
  { name: 'settings-members', path: `/app/w/${WS}/settings/members` },
  { name: 'settings-domains', path: `/app/w/${WS}/settings/domains` },
  { name: 'settings-tags', path: `/app/w/${WS}/settings/tags` },
  { name: 'settings-campaigns', path: `/app/w/${WS}/settings/campaigns` },
  { name: 'settings-webhooks', path: `/app/w/${WS}/settings/webhooks` },
  { name: 'settings-sso', path: `/app/w/${WS}/settings/sso` },
  { name: 'settings-audit', path: `/app/w/${WS}/settings/audit` },
  { name: 'conversions', path: `/app/w/${WS}/conversions` },
  {
    name: 'conversions-filtered',
    path: `/app/w/${WS}/conversions?window=90&eventType=custom&customName=demo-booked&linkId=lnk_0`,
  },
  { name: 'goals', path: `/app/w/${WS}/goals` },
  { name: 'goal', path: `/app/w/${WS}/goals/goal_revenue` },
  { name: 'pages', path: `/app/w/${WS}/pages` },
  { name: 'page-new', path: `/app/w/${WS}/pages/new` },
  { name: 'page-edit', path: `/app/w/${WS}/pages/pg_acme` },
  { name: 'page-analytics', path: `/app/w/${WS}/pages/pg_acme/analytics` },
  { name: 'account', path: '/app/account' },
  { name: 'reports', path: `/app/w/${WS}/reports` },
  { name: 'shared-conversions', path: '/app/shared/tok_conversions', public: true },
  { name: 'shared-goal', path: '/app/shared/tok_goal', public: true },
  { name: 'shared-link', path: '/app/shared/tok_link', public: true },
  { name: 'shared-page', path: '/app/shared/tok_page', public: true },
  { name: 'shared-password', path: '/app/shared/tok_password', public: true },
  { name: 'shared-gone', path: '/app/shared/tok_gone', public: true },
];

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800, mobile: false },
  { name: 'phone', width: 390, height: 844, mobile: true },
];

/** Every screen at both sizes, on `data`: Prism's own answers or the realistic ones (fixtures.ts). */
export function describeScreens(data: 'prism' | 'realistic'): void {
  describeInChromium(`dashboard screens on Prism's mock of the contract, ${data} data (Chromium)`, () => {
    let dashboard: MockDashboard;
    let app: AppServer;
    let browser: Browser;

    beforeAll(async () => {
      dashboard = await startMockDashboard();
      ({ browser, app } = dashboard);
    }, 120_000);
    afterAll(() => dashboard?.stop());

    for (const viewport of VIEWPORTS) {
      describe(`${viewport.name} ${viewport.width}×${viewport.height}`, () => {
        let context: BrowserContext;
        let page: Page;
        const problems: string[] = [];

        beforeAll(async () => {
          context = await watchedContext(browser, {
            viewport: { width: viewport.width, height: viewport.height },
            isMobile: viewport.mobile,
            hasTouch: viewport.mobile,
            deviceScaleFactor: 1,
            locale: 'en-US',
            timezoneId: 'Europe/Berlin',
          });
          context.setDefaultTimeout(10_000);
          // One tab for all of this group's screens: each screen is still a fresh load of its own
          // address (goto), with the same answers, but opening a tab per screen cost Chromium
          // more than drawing the screen.
          page = await context.newPage();
          page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
          // Nothing the app loads may leave the machine: no CDN, no fonts, no analytics.
          await page.route('**/*', (route) => {
            const url = route.request().url();
            if (url.startsWith(app.origin) || url.startsWith('data:') || url.startsWith('blob:'))
              return route.fallback();
            problems.push(`asked another host for ${url}`);
            return route.abort('internetdisconnected');
          });
          page.on('console', (m) => {
            if (m.type() === 'error' && !/status of (4\d\d|5\d\d)/.test(m.text()))
              problems.push(`console: ${m.text()}`);
          });
          if (data === 'realistic') await realisticReads(page);
          else await signedInAs(page);
        });
        afterAll(async () => {
          await context?.close();
        });

        for (const screen of SCREENS) {
          it(`${screen.name}: renders its heading, passes axe, is photographed`, async () => {
            problems.length = 0;
            try {
              if (screen.name === 'setup') {
                // Prism may answer either way; the screenshot wants the form.
                await page.route('**/app/api/first-run?*', (route) => route.fulfill({ json: { available: true } }));
              }
              await page.goto(`${app.origin}${screen.path}`);
              await settled(page);
              expect(await page.getByRole('heading', { level: 1 }).count(), 'one h1').toBe(1);
              if (!screen.public) {
                expect(await page.getByRole('banner').count()).toBe(1);
                expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(1);
              }
              expect(await page.getByRole('main').count()).toBe(1);
              expect(await axeProblems(page), 'axe: serious and critical findings').toEqual([]);
              // A table shown as cards (a phone) puts each column's name beside its cell: a name
              // that wraps must make the cell taller, never run under the next one.
              const overflowing = await page.evaluate(
                `[...document.querySelectorAll('.table-cards td[data-label]')]
                  .filter((td) => td.offsetParent !== null)
                  .filter((td) => parseFloat(getComputedStyle(td, '::before').height) > td.clientHeight)
                  .map((td) => td.dataset.label)`,
              );
              expect(overflowing, 'card labels taller than their cells').toEqual([]);
              // Chromium paints a frame below the fold (the page editor's preview on a phone) only
              // once it has been on screen.
              for (const frame of await page.locator('iframe').all()) {
                await frame.scrollIntoViewIfNeeded();
                await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
              }
              // Prism's answers make some screens very tall (the routing editor with every list at
              // its longest is about 29,000 px): painting them whole on a loaded machine takes
              // longer than a click is allowed to.
              await page.screenshot({
                path: path.join(SHOTS_DIR, `${screen.name}-${data}-${viewport.name}.png`),
                fullPage: true,
                timeout: 60_000,
              });
              expect(problems).toEqual([]);
              expect(app.violations, 'requests Prism found against the contract').toEqual([]);
            } finally {
              if (screen.name === 'setup') await page.unroute('**/app/api/first-run?*');
            }
          }, 120_000);
        }
      });
    }
  });
}
