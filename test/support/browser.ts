// A real Chromium for tests that drive the visitor pages as a person would, and a local
// "destination" site for links to land on (there is no internet in the test environment).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { describe } from 'vitest';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// Headless Chromium says "HeadlessChrome" in its User-Agent, which the service (rightly) takes for
// a bot. A person's browser does not, so the contexts present an ordinary desktop Chrome.
export const PERSON_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * Whether browser tests can run. Without Chromium they are skipped loudly on a workstation; in CI
 * (process.env.CI set) a missing Chromium is an error, so the suite cannot silently shrink.
 */
export function browserAvailability(): { run: boolean; missing: boolean } {
  const missing = !fs.existsSync(CHROMIUM_PATH);
  if (missing && !process.env.CI) {
    console.warn(
      `\n!!! Chromium not found at ${CHROMIUM_PATH}: browser tests are SKIPPED. ` +
        'Install chromium (apt-get install chromium) or set CHROMIUM_PATH.\n',
    );
    return { run: false, missing };
  }
  return { run: true, missing };
}

let availability: ReturnType<typeof browserAvailability> | undefined;

/** A `describe` that browserAvailability skips (asked once per file, so it warns once). */
export function describeInChromium(name: string, fn: () => void): void {
  availability ??= browserAvailability();
  describe.skipIf(!availability.run)(name, fn);
}

/** What a suite opens and closes after its tests: a browser, a context, a receiver, a server. */
type Opened = { stop(): Promise<unknown> } | { close(): Promise<unknown> } | undefined;

/** Closes (or stops) what a suite opened, in the order given, passing over what never started. */
export async function closeAll(...opened: Opened[]): Promise<void> {
  for (const o of opened) if (o) await ('stop' in o ? o.stop() : o.close());
}

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `CI needs Chromium at ${CHROMIUM_PATH} for the browser tests (set CHROMIUM_PATH or install chromium)`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: LAUNCH_ARGS });
}

export function personContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({
    ignoreHTTPSErrors: true,
    userAgent: PERSON_USER_AGENT,
    viewport: { width: 900, height: 640 },
  });
}

export interface SeenRequest {
  method: string;
  url: string;
  referer: string | undefined;
}

export interface Destination {
  /** http://127.0.0.1:<port> */
  origin: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** A plain HTTP site on loopback that answers "Landed on destination" at any path. */
export async function startDestination(): Promise<Destination> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', referer: req.headers.referer });
    if (req.url === '/favicon.ico') {
      res.writeHead(404).end();
      return;
    }
    const html =
      '<!doctype html><html><head><title>Destination</title></head><body><h1>Landed on destination</h1></body></html>';
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(html) });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
