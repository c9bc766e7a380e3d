// The first run, as a newcomer meets it: `shortlink serve` on an empty database prints a one-time
// link to create the first workspace; the link works once; once someone has an account, a
// restart prints no link.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  serviceClient,
  spawnServe,
  waitUntilHealthy,
  writeTestTls,
  type ServeProcess,
} from '../support/process';

async function waitFor(done: () => boolean, ms: number) {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const FIRST_RUN_LINE = /Open (https:\/\/\S+\/app\/setup\?token=([A-Za-z0-9_-]{43})) to create your workspace/;

describe('the first run of shortlink serve', () => {
  let dir: string;
  let env: Record<string, string>;
  let ca: string;
  let port: number;
  let serve: ServeProcess | undefined;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-first-run-'));
    const tls = await writeTestTls(dir);
    ca = tls.ca;
    port = await freePort();
    env = {
      DATA_DIR: dir,
      DATABASE_URL: `sqlite:${path.join(dir, 'shortlink.db')}`,
      PORT: String(port),
      PUBLIC_URL: `https://localhost:${port}`,
      TLS_CERT_FILE: tls.certFile,
      TLS_KEY_FILE: tls.keyFile,
      LOG_LEVEL: 'warn',
      FIRST_RUN_REMINDER_SECONDS: '1',
    };
  });
  afterAll(async () => {
    await serve?.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prints the way in while nobody has an account; the link creates the OWNER once; a restart prints nothing', async () => {
    serve = spawnServe(env);
    await waitUntilHealthy(serve, port, ca);
    const printed = FIRST_RUN_LINE.exec(serve.output());
    expect(printed, serve.output()).not.toBeNull();
    expect(printed![1]).toBe(`https://localhost:${port}/app/setup?token=${printed![2]}`);
    const token = printed![2];
    // Printed again, the same link, until it is used.
    const count = () => serve!.output().split(printed![1]).length - 1;
    await waitFor(() => count() >= 3, 10_000);
    expect(serve.output()).toContain(`==> Open ${printed![1]} to create your workspace`);
    const client = serviceClient(port, ca);
    try {
      expect((await client.request('GET', `/app/api/first-run?token=${token}`)).body).toEqual({ available: true });
      const claim = await client.request('POST', '/app/api/first-run', {
        body: { token, workspaceName: 'My company', email: 'me@example.com', password: 'a long first password' },
      });
      expect(claim.status).toBe(201);
      expect(claim.body.workspaces).toEqual([
        expect.objectContaining({ name: 'My company', role: 'OWNER', plan: 'growth' }),
      ]);
      expect((await client.request('GET', `/app/api/first-run?token=${token}`)).body).toEqual({ available: false });
      const signIn = await client.request('POST', '/app/api/session', {
        body: { email: 'me@example.com', password: 'a long first password' },
      });
      expect(signIn.status).toBe(200);
      // Used: no longer printed (the reminder that was under way may still write once).
      await new Promise((r) => setTimeout(r, 1_500));
      const after = count();
      await new Promise((r) => setTimeout(r, 2_500));
      expect(count()).toBe(after);
    } finally {
      client.close();
    }
    await serve.kill('SIGTERM');

    serve = spawnServe(env);
    await waitUntilHealthy(serve, port, ca);
    expect(serve.output()).not.toMatch(/to create your workspace/);
  }, 90_000);
});
