// Production runs the compiled JavaScript (dist/, built by `npm run build`, which `npm ci` runs):
// `shortlink serve` and an operator command from dist/, with its worker threads (click writer,
// link lookups, query threads) started from their compiled entries, and no TypeScript loader.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  serviceClient,
  spawnServe,
  waitUntilHealthy,
  writeTestTls,
  type ServeProcess,
} from '../support/process';
import { compiledService } from '../support/compiled';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

describe('the compiled service', () => {
  let dir: string;
  let serve: ServeProcess | undefined;
  const cli = (args: string[]) =>
    run(process.execPath, [path.join(ROOT, 'bin/shortlink.mjs'), ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: dir,
        DATABASE_URL: `sqlite:${path.join(dir, 'shortlink.db')}`,
        LOG_LEVEL: 'warn',
      },
    });

  beforeAll(async () => {
    await compiledService();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-compiled-'));
  }, 300_000);
  afterAll(async () => {
    await serve?.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs operator commands from dist/ without tsx', async () => {
    const { stdout } = await cli(['workspace', 'create', '--name', 'Compiled']);
    expect(JSON.parse(stdout)).toEqual({ id: expect.stringMatching(/^ws_/) });
    // Nothing of the sources was loaded: the TypeScript files are not even looked at.
    expect(fs.existsSync(path.join(ROOT, 'dist/src/start/cli.js'))).toBe(true);
  });

  it('serves the API, a redirect and its click, and a summary from dist/, with its threads', async () => {
    const workspace = JSON.parse((await cli(['workspace', 'create', '--name', 'Threads'])).stdout).id;
    const user = JSON.parse(
      (await cli(['member', 'add', '--workspace', workspace, '--email', 'c@example.com', '--role', 'OWNER'])).stdout,
    ).id;
    const key = JSON.parse(
      (
        await cli([
          'key',
          'create',
          '--workspace',
          workspace,
          '--user',
          user,
          '--scopes',
          'links:read,links:write,conversions:read',
        ])
      ).stdout,
    ).key;
    const tls = await writeTestTls(dir);
    const port = await freePort();
    serve = spawnServe(
      {
        DATA_DIR: dir,
        DATABASE_URL: `sqlite:${path.join(dir, 'shortlink.db')}`,
        PORT: String(port),
        TLS_CERT_FILE: tls.certFile,
        TLS_KEY_FILE: tls.keyFile,
        CLICK_FLUSH_MS: '100',
        LOG_LEVEL: 'warn',
      },
      { compiled: true },
    );
    await waitUntilHealthy(serve, port, tls.ca);
    const client = serviceClient(port, tls.ca);
    try {
      const made = await client.request('POST', '/api/v1/links', {
        key,
        body: { url: 'https://example.com/compiled', slug: 'compiled' },
      });
      expect(made.status).toBe(201);
      const visit = await client.request('GET', '/compiled', {
        headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36' },
      });
      expect(visit.status).toBe(302);
      // The click writer thread wrote the click; a summary ran on a query thread.
      let clicks = 0;
      for (let i = 0; i < 50 && clicks === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        clicks = (await client.request('GET', `/api/v1/links/${made.body.data.id}`, { key })).body.data.clicks;
      }
      expect(clicks).toBe(1);
      const summary = await client.request('GET', '/api/v1/conversions', { key });
      expect(summary.status).toBe(200);
      expect(summary.body.data.rate.clicks).toBe(1);
      expect(serve.output()).not.toMatch(/tsx|\.ts:\d/);
    } finally {
      client.close();
    }
  }, 60_000);
});
