// The dashboard (src/web) against Prism's mock of its contract, with no service: the app is
// built into a temporary folder, served at /app/ by a small static server that forwards
// /app/api/* to `prism mock generated/dashboard.json` (with the session cookie the contract
// asks for), and opened in Debian's Chromium. Prism answers from the schemas (dynamic, with a
// fixed seed: the same request gets the same answer) and keeps no state; it also validates every
// request against the contract and says so in `sl-violations`, which the server collects.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { launchBrowser } from '../../support/browser';
import { startPrismChild } from '../../support/prism-child';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const require = createRequire(import.meta.url);
const VITE_CLI = path.join(root, 'node_modules/vite/bin/vite.js');
export const AXE_PATH = require.resolve('axe-core/axe.min.js');
export const SHOTS_DIR = process.env.DASHBOARD_SHOTS_DIR ?? '/tmp/dashboard-shots';

/** Builds src/web into a fresh folder (the build's own size report is returned). */
export async function buildDashboard(): Promise<{ dir: string; report: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-web-'));
  const report = await run(process.execPath, [
    VITE_CLI,
    'build',
    '--config',
    'src/web/vite.config.ts',
    '--outDir',
    dir,
    '--emptyOutDir',
    '--logLevel',
    'warn',
  ]);
  return { dir, report };
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out}`)),
    );
  });
}

export interface PrismMock {
  url: string;
  stop(): Promise<void>;
}

export async function startPrismMock(seed = '20261124'): Promise<PrismMock> {
  const prism = await startPrismChild('mock', [
    path.join(root, 'generated/dashboard.json'),
    '--dynamic',
    '--seed',
    seed,
  ]);
  return { url: prism.url, stop: prism.stop };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export interface AppServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Requests Prism found against the contract ("POST /workspaces/x/links: ..."). */
  violations: string[];
  /** Every API request that reached the mock, in order. */
  apiRequests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: Buffer }>;
  stop(): Promise<void>;
}

/** Serves the built app at /app/ (index.html for every app address) and /app/api from Prism. */
export async function startAppServer(dir: string, prism: string): Promise<AppServer> {
  const violations: string[] = [];
  const apiRequests: AppServer['apiRequests'] = [];
  const upstream = new URL(prism);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/app/api/')) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const apiPath = url.pathname.slice('/app/api'.length) + url.search;
        apiRequests.push({ method: req.method ?? 'GET', path: apiPath, headers: req.headers, body });
        const headers = { ...req.headers, host: upstream.host, cookie: 'sl_session=mock-session' };
        const forward = http.request(
          { hostname: upstream.hostname, port: upstream.port, path: apiPath, method: req.method, headers },
          (answer) => {
            const found = answer.headers['sl-violations'];
            if (found) violations.push(`${req.method} ${apiPath}: ${found}`);
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forward.on('error', (err) => res.writeHead(502, { 'Content-Type': 'text/plain' }).end(String(err)));
        forward.end(body);
      });
      return;
    }
    if (url.pathname !== '/app' && !url.pathname.startsWith('/app/')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const rel = decodeURIComponent(url.pathname.slice('/app/'.length));
    const file = path.join(dir, rel);
    const isFile = rel && file.startsWith(dir + path.sep) && fs.existsSync(file) && fs.statSync(file).isFile();
    if (isFile) {
      res.writeHead(200, {
        'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'Cache-Control': 'no-store',
      });
      fs.createReadStream(file).pipe(res);
    } else if (rel.startsWith('assets/')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    } else {
      res.writeHead(200, { 'Content-Type': TYPES['.html'], 'Cache-Control': 'no-store' });
      fs.createReadStream(path.join(dir, 'index.html')).pipe(res);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    violations,
    apiRequests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function axeProblems(page: Page): Promise<string[]> {
  // The callbacks run in the page; the test's tsconfig has no DOM types, so they are strings.
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.addScriptTag({ path: AXE_PATH });
  const violations = (await page.evaluate(`window.axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`)) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

/** Waits until the screen has its heading and nothing on it is loading. */
/** Each watched context's requests under way (watchedContext). */
const underWay = new WeakMap<BrowserContext, Set<Request>>();

/**
 * A browser context whose requests settled() can see. Playwright's own "networkidle" never came
 * on some screens of a loaded machine (the bio page editor's, with its preview frame) although
 * every request had finished; this counts the requests themselves and, when they do not end,
 * names them.
 */
export async function watchedContext(
  browser: Browser,
  options: Parameters<Browser['newContext']>[0],
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  const pending = new Set<Request>();
  underWay.set(context, pending);
  context.on('request', (r) => pending.add(r));
  context.on('requestfinished', (r) => pending.delete(r));
  context.on('requestfailed', (r) => pending.delete(r));
  return context;
}

/** The screen is drawn, nothing on it is loading, and no request has been under way for 500 ms. */
export async function settled(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await page.waitForFunction(`!document.querySelector('[aria-busy="true"]')`, undefined, { timeout: 10_000 });
  const pending = underWay.get(page.context());
  if (!pending) throw new Error('settled() needs a context made by watchedContext()');
  // Prism answers each read in turn; on a loaded machine the chain of reads behind a screen takes
  // a while before the network goes quiet.
  const until = Date.now() + 45_000;
  let quietSince: number | null = null;
  for (;;) {
    if (pending.size > 0) quietSince = null;
    else if (quietSince === null) quietSince = Date.now();
    else if (Date.now() - quietSince >= 500) return;
    if (Date.now() > until)
      throw new Error(`requests still under way after 45 s: ${[...pending].map((r) => r.url()).join(', ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What every suite here starts first: Chromium, and the app built and served beside Prism's mock. */
export interface MockDashboard {
  browser: Browser;
  app: AppServer;
  /** Closes the browser, stops the server and Prism, and removes the build. */
  stop(): Promise<void>;
}

/** Starts a MockDashboard; whatever had started is stopped again when a part fails to. */
export async function startMockDashboard(): Promise<MockDashboard> {
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  const started = await Promise.allSettled([launchBrowser(), buildDashboard(), startPrismMock()]);
  const [browser, build, prism] = started.map((r) => (r.status === 'fulfilled' ? r.value : undefined)) as [
    Browser | undefined,
    { dir: string } | undefined,
    PrismMock | undefined,
  ];
  let app: AppServer | undefined;
  const stop = async () => {
    await browser?.close();
    await app?.stop();
    await prism?.stop();
    if (build) fs.rmSync(build.dir, { recursive: true, force: true });
  };
  try {
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    app = await startAppServer(build!.dir, prism!.url);
  } catch (err) {
    await stop();
    throw err;
  }
  return { browser: browser!, app, stop };
}
