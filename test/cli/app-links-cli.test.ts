// `shortlink app-links show|set|clear` run as an operator runs them (a child process), beside a
// running service on the same database: the shared short domain's documents are set only here,
// and the service (another process) serves them from its next poll of the change feed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { createWorkspace } from '../../src/db/repos/workspaces';
import { AASA, ANDROID, APPLE, ASSETLINKS } from '../support/app-links';
import { describeEachEngine, expectFailure, expectJsonLine, runCli } from '../support/cli';
import { startTestServer, type TestServer } from '../support/server';

const SHORT = 'sho.rt';
const KEYS = ['domain', 'host', 'served', 'apple', 'android', 'updatedAt'];

describeEachEngine('shortlink app-links on %s', (engine) => {
  let server: TestServer;
  let files: string;
  const file = (name: string, content: unknown) => {
    const p = path.join(files, name);
    fs.writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return p;
  };
  const ok = async (args: string[]) => expectJsonLine(args, await runCli(args, server.env), KEYS);
  const fails = async (args: string[], message: RegExp) => expectFailure(args, await runCli(args, server.env), message);
  const served = (p: string, host: string) => server.request('GET', p, { headers: { host } });

  beforeAll(async () => {
    server = await startTestServer(engine, { env: { SHORT_DOMAIN: SHORT } });
    files = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-app-links-'));
  });
  afterAll(async () => {
    await server?.stop();
    if (files) fs.rmSync(files, { recursive: true, force: true });
  });

  it('sets the shared short domain’s documents, which the running service serves on that host only', async () => {
    expect((await served(AASA, SHORT)).status).toBe(404); // the service now holds "none" for the host

    const set = await ok(['app-links', 'set', '--shared', '--apple', file('aasa.json', APPLE)]);
    expect(set).toMatchObject({ domain: 'shared', host: SHORT, served: true, apple: APPLE, android: null });
    await within(2000, async () => (await served(AASA, SHORT)).status === 200);
    const res = await served(AASA, SHORT);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.text).toBe(JSON.stringify(APPLE));
    expect((await served(ASSETLINKS, SHORT)).status).toBe(404);

    // The other document is kept when one is set.
    await ok(['app-links', 'set', '--shared', '--android', file('assetlinks.json', ANDROID)]);
    expect(await ok(['app-links', 'show', '--shared'])).toMatchObject({ apple: APPLE, android: ANDROID });
    await within(2000, async () => (await served(ASSETLINKS, SHORT)).text === JSON.stringify(ANDROID));

    // A custom domain by id, whatever its workspace.
    const knex = server.services.db.knex;
    const domain = await addDomain(knex, await createWorkspace(knex, 'Apps', 'growth'), 'go.cli-apps.example');
    await setDomainStatus(knex, domain, 'ACTIVE');
    const custom = await ok(['app-links', 'set', '--domain', domain, '--android', file('custom.json', [ANDROID[1]])]);
    expect(custom).toMatchObject({ domain, host: 'go.cli-apps.example', served: true, android: [ANDROID[1]] });
    await within(2000, async () => (await served(ASSETLINKS, 'go.cli-apps.example')).status === 200);
    expect((await served(AASA, 'go.cli-apps.example')).status).toBe(404);
    expect((await served(ASSETLINKS, SHORT)).text).toBe(JSON.stringify(ANDROID));

    await ok(['app-links', 'clear', '--shared', '--apple']);
    expect(await ok(['app-links', 'show', '--shared'])).toMatchObject({ apple: null, android: ANDROID });
    await within(2000, async () => (await served(AASA, SHORT)).status === 404);
    await ok(['app-links', 'clear', '--shared']);
    expect(await ok(['app-links', 'show', '--shared'])).toMatchObject({ apple: null, android: null, updatedAt: null });
    await within(2000, async () => (await served(ASSETLINKS, SHORT)).status === 404);
  });

  it('refuses a bad document, file or flag in one line, changing nothing', async () => {
    await ok(['app-links', 'set', '--shared', '--apple', file('good.json', APPLE)]);
    const bad = { applinks: { details: [{ appIDs: ['com.example.app'], paths: ['*'] }] } };
    await fails(
      ['app-links', 'set', '--shared', '--apple', file('bad.json', bad)],
      /apple\.applinks\.details\.0\.appIDs\.0/,
    );
    await fails(
      ['app-links', 'set', '--shared', '--android', file('text.json', 'not json')],
      /--android: .* is not JSON/,
    );
    await fails(['app-links', 'set', '--shared', '--apple', path.join(files, 'missing.json')], /--apple: cannot read/);
    await fails(['app-links', 'set', '--shared'], /--apple FILE/);
    await fails(['app-links', 'set', '--apple', file('a.json', APPLE)], /--shared or --domain/);
    await fails(['app-links', 'show', '--shared', '--domain', 'dom_x'], /not both/);
    await fails(['app-links', 'show', '--domain', 'dom_nothing'], /domain dom_nothing not found/);
    // Each document at most 64 KiB as stored.
    const big = { webcredentials: { apps: ['ABCDE12345.com.example.app'] }, note: 'x'.repeat(70_000) };
    await fails(['app-links', 'set', '--shared', '--apple', file('big.json', big)], /at most 65536/);
    expect((await ok(['app-links', 'show', '--shared'])).apple).toEqual(APPLE);
  });
});

/** Polls until `check` passes. */
async function within(ms: number, check: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`not within ${ms} ms`);
}
