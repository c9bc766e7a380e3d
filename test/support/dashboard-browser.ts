// What every browser test of the dashboard does (test/browser/dashboard*.test.ts): people's
// pages that may load nothing from another host and record every error the app shows in the
// console, axe-core and a full-page screenshot per screen, signing in through the form, and the
// dashboard API called from inside a page as the app calls it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createWorkspace } from '../../src/db/repos/workspaces';
import { projectPath } from '../../src/platform/project-root';
import { launchBrowser, PERSON_USER_AGENT } from './browser';
import { seedPerson, type Person } from './dashboard';
import type { TestServer } from './server';

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Where the dashboard's browser tests keep their screenshots. */
export const DASHBOARD_SHOTS = process.env.DASHBOARD_E2E_SHOTS_DIR ?? '/tmp/dashboard-e2e';

/** Follows the Main navigation's link `name` and waits for the screen's heading to read `name`. */
export async function openFromNav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(name);
}

export interface DashboardBrowser {
  /** Errors seen by any page: expect it empty at the end. */
  errors: string[];
  newPersonPage(): Promise<{ context: BrowserContext; page: Page }>;
  /** Waits for the screen to settle, then checks it with axe-core and keeps a screenshot. */
  look(p: Page, name: string): Promise<void>;
  signInThroughForm(p: Page, person: { email: string; password: string }): Promise<void>;
  /** A new person's page signed in through the form, on the Links screen the sign-in lands on. */
  signedInPage(person: { email: string; password: string }): Promise<Page>;
  /** Calls the dashboard API from inside the page, as its own code does (cookie and anti-forgery token). */
  apiFromPage(
    p: Page,
    method: string,
    url: string,
    body?: unknown,
  ): Promise<{ status: number; body: { error?: string } | null }>;
}

/** `allowedOrigins`: the service's, and any destination the test's links go to. */
export function dashboardBrowser(
  browser: Browser,
  serviceUrl: string,
  allowedOrigins: string[],
  shotsDir: string,
): DashboardBrowser {
  const errors: string[] = [];
  fs.mkdirSync(shotsDir, { recursive: true });
  return {
    errors,
    async newPersonPage() {
      const context = await browser.newContext({
        ignoreHTTPSErrors: true,
        userAgent: PERSON_USER_AGENT,
        viewport: { width: 1280, height: 800 },
      });
      context.setDefaultTimeout(10_000);
      context.setDefaultNavigationTimeout(10_000);
      // Nothing the dashboard loads may come from another host.
      await context.route(
        (url) => !url.href.startsWith(serviceUrl) && !allowedOrigins.some((o) => url.href.startsWith(o)),
        (route) => {
          errors.push(`request to another host: ${route.request().url()}`);
          return route.abort();
        },
      );
      const p = await context.newPage();
      p.on('console', (m) => {
        // A 4xx the app expects and shows (a refused field, a used set-up link, an ANALYST asking
        // anyway) shows in the console as a failed resource; every other error is a defect.
        if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(m.text());
      });
      p.on('response', (r) => {
        if (r.status() >= 500) errors.push(`${r.status()} from ${r.url()}`);
      });
      p.on('pageerror', (e) => errors.push(String(e)));
      return { context, page: p };
    },
    async look(p, name) {
      await p.waitForLoadState('networkidle');
      await expect.poll(() => p.locator('[aria-busy="true"]').count()).toBe(0);
      // Evaluated through the DevTools protocol, which the app's Content-Security-Policy does not
      // govern (an injected <script> would be refused by script-src 'self', as it should be).
      if (!(await p.evaluate('typeof window.axe === "object"'))) await p.evaluate(AXE_SOURCE);
      const found = (await p.evaluate(`window.axe.run(document, { resultTypes: ['violations'] }).then((r) =>
        r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => v.id + ': ' + v.help + ' (' + v.nodes.map((n) => n.target.join(' ')).join(', ') + ')'))`)) as string[];
      await p.screenshot({ path: path.join(shotsDir, `${name}.png`), fullPage: true });
      expect(found, `axe-core on ${name}`).toEqual([]);
    },
    async signInThroughForm(p, person) {
      await p.goto(`${serviceUrl}/app/login`);
      await p.getByLabel('Email').fill(person.email);
      await p.getByLabel('Password', { exact: true }).fill(person.password);
      await p.getByRole('button', { name: 'Sign in' }).click();
    },
    async signedInPage(person) {
      const { page } = await this.newPersonPage();
      await this.signInThroughForm(page, person);
      await page.getByRole('heading', { level: 1, name: 'Links' }).waitFor();
      return page;
    },
    apiFromPage: (p, method, url, body) =>
      p.evaluate(
        async ({ method, url, body }) => {
          const session = (await (await fetch('/app/api/session')).json()) as { csrfToken: string };
          const res = await fetch(url, {
            method,
            headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': session.csrfToken },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          return { status: res.status, body: (await res.json().catch(() => null)) as { error?: string } | null };
        },
        { method, url, body },
      ),
  };
}

export interface AcmeInChromium {
  browser: Browser;
  b: DashboardBrowser;
  workspaceId: string;
  owner: Person;
  analyst: Person;
}

/**
 * The set-up every dashboard browser test shares: the built app checked present (dist/web, built at
 * install), the workspace Acme (growth) on `server` with its OWNER ada@ and ANALYST cy@, Chromium,
 * and a DashboardBrowser on it (`allowedOrigins` as dashboardBrowser takes them).
 */
export async function acmeInChromium(server: TestServer, allowedOrigins: string[] = []): Promise<AcmeInChromium> {
  expect(fs.existsSync(projectPath('dist/web/index.html')), 'dist/web is built at install (npm run build:web)').toBe(
    true,
  );
  const knex = server.services.db.knex;
  const workspaceId = await createWorkspace(knex, 'Acme', 'growth');
  const owner = await seedPerson(knex, workspaceId, 'OWNER', 'ada@acme.example');
  const analyst = await seedPerson(knex, workspaceId, 'ANALYST', 'cy@acme.example');
  const browser = await launchBrowser();
  return {
    browser,
    b: dashboardBrowser(browser, server.url, allowedOrigins, DASHBOARD_SHOTS),
    workspaceId,
    owner,
    analyst,
  };
}
