// `shortlink serve` as a real child process (node bin/shortlink.mjs serve), as an operator runs
// it: configured by environment variables only, HTTPS with the test certificate, on a fixed
// port so that a restart answers at the same address. Plus a keep-alive HTTPS client that
// talks to it as the short domain (Host: localhost:<port>).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, sleep } from '../../bench/util';
import type { RequestOptions, TestResponse } from './server';
import { readResponse, requestPayload, testCertificate } from './server';
import { YOUNG_GENERATION_FLAG } from '../../src/start/node-flags';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/shortlink.mjs');
const OUTPUT_TAIL = 20_000;

// The benches' helpers, for the tests that start processes as the benches do.
export { freePort, sleep };

/**
 * Writes the test certificate (the one every test receiver and server uses) into `dir`: the
 * files a child process needs for TLS_CERT_FILE / TLS_KEY_FILE and WEBHOOK_CA_FILE.
 */
export async function writeTestTls(dir: string): Promise<{ certFile: string; keyFile: string; ca: string }> {
  const material = await testCertificate();
  const certFile = path.join(dir, 'test-cert.pem');
  const keyFile = path.join(dir, 'test-key.pem');
  fs.writeFileSync(certFile, material.cert);
  fs.writeFileSync(keyFile, material.key, { mode: 0o600 });
  return { certFile, keyFile, ca: material.cert };
}

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The last lines the process wrote (stdout and stderr), for failure messages. */
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  get running(): boolean;
  /** Sends `signal` and waits for the process to be gone. */
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `node --min-semi-space-size=16 bin/shortlink.mjs serve` from the sources (SHORTLINK_FROM_SOURCE=1: the tests test
 * the code as edited; test/cli/compiled.test.ts runs the compiled one) with only PATH/HOME from
 * this process plus `env`.
 */
export function spawnServe(env: Record<string, string>, opts: { compiled?: boolean } = {}): ServeProcess {
  // With node's flags as `npm start` gives them (src/start/node-flags.ts).
  const child = spawn(process.execPath, [YOUNG_GENERATION_FLAG, BIN, 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(opts.compiled ? {} : { SHORTLINK_FROM_SOURCE: '1' }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (d: string) => {
    tail = (tail + d).slice(-OUTPUT_TAIL);
  };
  child.stdout!.setEncoding('utf8').on('data', keep);
  child.stderr!.setEncoding('utf8').on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const proc: ServeProcess = {
    child,
    pid: child.pid!,
    output: () => tail,
    exited,
    get running() {
      return child.exitCode === null && child.signalCode === null;
    },
    async kill(signal) {
      if (proc.running) child.kill(signal);
      return exited;
    },
  };
  return proc;
}

/**
 * A client for one service port: HTTPS over loopback with the test certificate, keep-alive
 * connections, and the short domain's Host header so `/{slug}` resolves as a short link.
 */
export interface ServiceClient {
  request(method: string, pathname: string, opts?: RequestOptions & { timeoutMs?: number }): Promise<TestResponse>;
  close(): void;
}

export function serviceClient(port: number, ca: string, opts: { maxSockets?: number } = {}): ServiceClient {
  const agent = new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 16, ca, servername: 'localhost' });
  return {
    request(method, pathname, ro = {}) {
      const headers: Record<string, string> = { host: `localhost:${port}`, ...ro.headers };
      const payload = requestPayload(ro, headers);
      return new Promise((resolve, reject) => {
        const req = https.request(
          { host: '127.0.0.1', port, method, path: pathname, headers, agent, servername: 'localhost' },
          (res) => {
            res.on('error', reject);
            readResponse(res, resolve);
          },
        );
        if (ro.timeoutMs)
          req.setTimeout(ro.timeoutMs, () => req.destroy(new Error(`no answer within ${ro.timeoutMs} ms`)));
        req.on('error', reject);
        if (payload !== undefined) req.write(payload);
        req.end();
      });
    },
    close: () => agent.destroy(),
  };
}

/** Polls GET /healthz until it answers 200; fails early, with the process's output, if it exits. */
export async function waitUntilHealthy(
  proc: ServeProcess,
  port: number,
  ca: string,
  timeoutMs = 30_000,
): Promise<number> {
  const client = serviceClient(port, ca, { maxSockets: 1 });
  const start = Date.now();
  let last = 'no answer';
  try {
    while (Date.now() - start < timeoutMs) {
      if (!proc.running)
        throw new Error(
          `shortlink serve exited (${JSON.stringify(await proc.exited)}) before answering:\n${proc.output()}`,
        );
      try {
        const r = await client.request('GET', '/healthz', { timeoutMs: 2_000 });
        if (r.status === 200) return Date.now() - start;
        last = `status ${r.status}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await sleep(100);
    }
  } finally {
    client.close();
  }
  throw new Error(`shortlink serve did not answer GET /healthz within ${timeoutMs} ms (${last}):\n${proc.output()}`);
}

/** Whether a command is on PATH. */
export const hasCommand = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;

/**
 * Whether a suite that needs machine tools (`missing`: what is absent, with how to install it)
 * is skipped: locally yes, with a loud warning; in CI (CI=true) never, so that it fails there,
 * since `.ci/run` installs them.
 */
export function skippedWithout(file: string, missing: (string | false)[]): boolean {
  const absent = missing.filter((m): m is string => !!m);
  const skipped = absent.length > 0 && !process.env.CI;
  if (skipped) console.warn(`\n!!! ${file} skipped: ${absent.join(', ')} missing. CI fails without them.\n`);
  return skipped;
}

/** Sends `signal` and waits for the child to exit, killing it after `graceMs`. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
}
