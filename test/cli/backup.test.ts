// `shortlink backup` and `shortlink restore` (src/start/commands/backup.ts), run as an operator
// runs them: a backup taken from a live service while links are made and followed through its
// API, restored into a new data directory, and a service started there that has every link,
// conversion and webhook subscription acknowledged before the backup began, its webhook secret
// still readable and its hosted image served. And the refusals: Postgres, a data directory in
// use, a file that is no backup. SQLite only: on Postgres both commands refuse (tested here).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecret } from '../../src/webhooks/secrets';
import { type CliResult, expectFailure, expectJsonLine, runCli } from '../support/cli';
import { API_SCOPES, seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const BACKUP_KEYS = ['backup', 'bytes', 'format', 'createdAt', 'migration', 'masterKey', 'assets'];
const RESTORE_KEYS = ['restored', 'from', 'format', 'createdAt', 'migration', 'masterKey', 'assets'];

/** Success as every command has it (exit 0, one JSON line), and what it says to the operator on stderr. */
function done(r: CliResult, keys: string[], said: RegExp): Record<string, unknown> {
  const shown = JSON.stringify(r);
  expect(r.code, shown).toBe(0);
  expect(r.stdout.endsWith('\n') && !r.stdout.slice(0, -1).includes('\n'), shown).toBe(true);
  expect(r.stderr, shown).toMatch(said);
  const out = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(Object.keys(out).sort()).toEqual([...keys].sort());
  return out;
}

describe('shortlink backup and restore (sqlite)', () => {
  let live: TestServer;
  let restored: TestServer | undefined;
  let owner: Seeded;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-backup-'));
  const file = path.join(scratch, 'nightly.tgz');
  const newDir = path.join(scratch, 'restored-data');
  const newEnv = () => ({
    DATABASE_URL: `sqlite:${path.join(newDir, 'shortlink.db')}`,
    DATA_DIR: newDir,
    PUBLIC_URL: 'https://localhost:8443',
  });

  beforeAll(async () => {
    live = await startTestServer('sqlite');
    owner = await seedWorkspace(live.services.db.knex, { scopes: API_SCOPES });
  }, 60_000);
  afterAll(async () => {
    await restored?.stop();
    await live?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('copies a live database while links are made and followed; a restore elsewhere has all that was acknowledged', async () => {
    const api = (method: string, url: string, body?: unknown) => live.request(method, url, { key: owner.key, body });
    // What the service has acknowledged before the backup starts: it must all come back.
    const hook = await api('POST', '/api/webhooks', {
      workspaceId: owner.workspaceId,
      url: 'https://hooks.example.com/in',
      events: ['link.created'],
    });
    expect(hook.status).toBe(201);
    const image = path.join(scratch, 'logo.png');
    fs.writeFileSync(image, PNG);
    const { url: assetUrl } = expectJsonLine(
      ['asset', 'add'],
      await runCli(['asset', 'add', '--workspace', owner.workspaceId, '--file', image], live.env),
      ['url'],
    ) as { url: string };
    const acknowledged: Array<{ slug: string; url: string; id: string }> = [];
    const make = async (i: number) => {
      const res = await api('POST', '/api/v1/links', { url: `https://example.com/page-${i}`, slug: `bk-${i}` });
      expect(res.status).toBe(201);
      return { slug: `bk-${i}`, url: `https://example.com/page-${i}`, id: res.body.data.id as string };
    };
    for (let i = 0; i < 20; i++) acknowledged.push(await make(i));
    const conversion = await api('POST', '/api/v1/conversions', {
      eventType: 'purchase',
      linkId: acknowledged[0].id,
      value: { amountMinor: 4_200, currency: 'EUR' },
    });
    expect(conversion.status).toBe(201);

    // Writes and visits keep going while the backup runs.
    let running = true;
    const during: Promise<void>[] = [];
    const load = (async () => {
      for (let i = 100; running; i++) {
        // A key may send 60 requests a minute: at most 15 writes during the copy, visits throughout.
        if (i < 115) during.push(make(i).then(() => undefined));
        const visit = await live.request('GET', `/${acknowledged[i % 20].slug}`);
        expect(visit.status).toBe(302);
      }
    })();
    const backup = await runCli(['backup', '--to', file, '--with-master-key'], live.env);
    running = false;
    await load;
    await Promise.all(during);
    const made = done(backup, BACKUP_KEYS, /HOLDS THE MASTER KEY/);
    expect(made).toMatchObject({ backup: file, format: 'shortlink-backup/1', masterKey: true, assets: 1 });
    expect(made.migration).toMatch(/^\d{14}_/);
    expect(fs.statSync(file).mode & 0o077).toBe(0);
    expect(fs.readdirSync(scratch).filter((f) => f.endsWith('.partial') || f.startsWith('.shortlink-'))).toEqual([]);

    const back = await runCli(['restore', '--from', file], newEnv());
    expect(done(back, RESTORE_KEYS, /^$/)).toMatchObject({ masterKey: true, assets: 1 });
    restored = await startTestServer('sqlite', { env: newEnv() });
    for (const link of acknowledged) {
      const visit = await restored.request('GET', `/${link.slug}`);
      expect(visit.status, link.slug).toBe(302);
      expect(visit.headers.location).toBe(link.url);
    }
    const conversions = await restored.request('GET', '/api/v1/conversions?eventType=purchase', { key: owner.key });
    expect(conversions.status).toBe(200);
    expect(conversions.body.data.total).toBe(1);
    // The webhook secret, sealed with the master key, still opens with the restored key.
    const row = await restored.services.db.knex('webhook_subscriptions').where({ id: hook.body.data.id }).first();
    const key = Buffer.from(fs.readFileSync(path.join(newDir, 'master.key'), 'utf8').trim(), 'hex');
    expect(openSecret(key, row.secret_encrypted)).toBe(hook.body.data.secret);
    const served = await restored.request('GET', new URL(assetUrl).pathname);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(Number(served.headers['content-length'])).toBe(PNG.length);
  }, 120_000);

  it('refuses to restore over data, and a file that is no backup; without the key it says so', async () => {
    // newDir now holds a database: restoring there again would mix two services.
    const again = await runCli(['restore', '--from', file], newEnv());
    expectFailure(['restore'], again, /shortlink\.db exists: restore into an empty DATA_DIR/);
    expect(again.code).toBe(1);

    const junk = path.join(scratch, 'junk.tgz');
    fs.writeFileSync(junk, 'not a backup');
    const emptyDir = path.join(scratch, 'empty');
    const intoEmpty = {
      ...newEnv(),
      DATA_DIR: emptyDir,
      DATABASE_URL: `sqlite:${path.join(emptyDir, 'shortlink.db')}`,
    };
    const refused = await runCli(['restore', '--from', junk], intoEmpty);
    expectFailure(['restore'], refused, /is not a Shortlink backup/);
    expect(refused.code).toBe(2);
    expect(fs.existsSync(path.join(emptyDir, 'shortlink.db'))).toBe(false);

    const keyless = path.join(scratch, 'keyless.tgz');
    const plain = await runCli(['backup', '--to', keyless], live.env);
    expect(done(plain, BACKUP_KEYS, /the master key is NOT in/)).toMatchObject({ masterKey: false });
    const noKey = await runCli(['restore', '--from', keyless], intoEmpty);
    expect(done(noKey, RESTORE_KEYS, /holds no master key/)).toMatchObject({ masterKey: false });
    expect(fs.existsSync(path.join(emptyDir, 'master.key'))).toBe(false);
  }, 60_000);

  it('on Postgres both commands point to pg_dump and pg_restore, and touch nothing', async () => {
    const pgEnv = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', DATA_DIR: path.join(scratch, 'pg') };
    for (const args of [
      ['backup', '--to', path.join(scratch, 'pg.tgz')],
      ['restore', '--from', file],
    ]) {
      const res = await runCli(args, pgEnv);
      expectFailure(args, res, /pg_dump and restore it with pg_restore/);
      expect(res.code).toBe(2);
    }
    expect(fs.existsSync(path.join(scratch, 'pg.tgz'))).toBe(false);
  });
});
