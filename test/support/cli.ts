// Runs the real `shortlink` command (node bin/shortlink.mjs, compiled as in production: see
// compiled.ts) as an operator would, and checks
// the command-line contract (docs/configuration.md): one JSON line on stdout and exit 0, or an empty
// stdout, a one-line message on stderr and a non-zero exit.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect } from 'vitest';
import type { Engine } from '../../src/db/knex';
import { compiledService } from './compiled';
import { testEngines } from './databases';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/shortlink.mjs');

// Every suite importing this builds (or finds built) dist/ before its tests: a build takes longer
// than one test may.
beforeAll(() => compiledService(), 300_000);

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * `describe.each(testEngines())(name, fn)` with the engines side by side: each engine's suite has
 * its own database (and service), so they share nothing, while the tests within one engine still
 * run one after another, in the order written, as their steps build on each other.
 */
export function describeEachEngine(name: string, fn: (engine: Engine) => void): void {
  describe.concurrent.each(testEngines())('%s', (engine) => {
    describe.sequential(name.replace('%s', engine), () => fn(engine));
  });
}

/** Spawns `node bin/shortlink.mjs ...args` from dist/, with only PATH/HOME from this process plus `env`. */
export async function runCli(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<CliResult> {
  await compiledService();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The keys of one delivery as `webhook deliveries` lists it and `webhook show` prints it. */
export const DELIVERY_KEYS = [
  'id',
  'subscriptionId',
  'variant',
  'eventType',
  'eventId',
  'test',
  'status',
  'attempts',
  'lastStatusCode',
  'lastError',
  'createdAt',
  'nextAttemptAt',
  'finishedAt',
];

const show = (args: string[], r: CliResult) =>
  `shortlink ${args.join(' ')}\n  exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\n  stdout: ${JSON.stringify(r.stdout)}\n  stderr: ${JSON.stringify(r.stderr)}`;

/** A success: exit 0, nothing on stderr, exactly one line of JSON with exactly `keys`. */
export function expectJsonLine(args: string[], r: CliResult, keys: string[]): Record<string, any> {
  expect(r.code, show(args, r)).toBe(0);
  expect(r.stderr, show(args, r)).toBe('');
  expect(r.stdout.endsWith('\n'), show(args, r)).toBe(true);
  expect(r.stdout.slice(0, -1).includes('\n'), show(args, r)).toBe(false);
  const out = JSON.parse(r.stdout);
  expect(out !== null && typeof out === 'object' && !Array.isArray(out), show(args, r)).toBe(true);
  expect(Object.keys(out).sort(), show(args, r)).toEqual([...keys].sort());
  return out;
}

/** A failure: non-zero exit, empty stdout, one line on stderr matching `message`, no stack trace. */
export function expectFailure(args: string[], r: CliResult, message: RegExp): string {
  expect(r.signal, show(args, r)).toBeNull();
  expect(r.code, show(args, r)).not.toBe(0);
  expect(r.stdout, show(args, r)).toBe('');
  expect(r.stderr, show(args, r)).toMatch(/^[^\n]+\n$/);
  expect(r.stderr, show(args, r)).not.toContain('    at ');
  expect(r.stderr, show(args, r)).toMatch(message);
  return r.stderr.trim();
}

/** Runs `work` over `items` with at most `limit` at a time (each spawn is one node process). */
export async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]);
      }
    }),
  );
  return out;
}
