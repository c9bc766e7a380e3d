// Several instances through PgBouncer (docs/operations.md, PgBouncer): two `shortlink serve`
// processes whose DATABASE_URL is Debian's pgbouncer (1.18) in transaction mode, in front of a
// fresh Postgres database, with fewer server connections (POOL_SIZE) than the two processes'
// pools hold. Each statement or transaction may run on a different server connection, so what
// relied on a session would fail here: both start at once on the empty database and migrate it
// through the pooler; then the features that coordinate the processes through the database work
// through it (the shared API rate limit, the change feed that keeps the redirect caches
// coherent, click counting and click limits, webhook deliveries claimed once).
//
// Without pgbouncer (or Postgres) the suite is skipped with a warning locally and fails in CI
// (CI=true), as test/deploy/nginx.test.ts does: `.ci/run` installs it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/knex';
import { migrationSource } from '../../src/db/migrations/index';
import { CHANGE_POLL_MS } from '../../src/redirect/changes';
import { createTestDatabase, testEngines, type TestDatabase } from '../support/databases';
import { PGBOUNCER, startPgBouncer, type PgBouncer } from '../support/pgbouncer';
import {
  freePort,
  skippedWithout,
  serviceClient,
  sleep,
  spawnServe,
  waitUntilHealthy,
  writeTestTls,
  type ServeProcess,
  type ServiceClient,
} from '../support/process';
import { startReceiver, TEST_MASTER_KEY, type Receiver } from '../support/receiver';
import { seedWorkspace, type Seeded } from '../support/seed';

const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
/** Server connections per database through the pooler: fewer than one instance's pools hold (docs/operations.md). */
const POOL_SIZE = 6;

const missing = [
  !fs.existsSync(PGBOUNCER) && `pgbouncer (${PGBOUNCER}; apt-get install pgbouncer)`,
  !testEngines().includes('postgres') && `Postgres (${process.env.TEST_POSTGRES_URL ?? 'TEST_POSTGRES_URL'})`,
].filter((m): m is string => !!m);
const skipped = skippedWithout('test/deploy/pgbouncer.test.ts', missing);

interface Instance {
  name: string;
  proc: ServeProcess;
  client: ServiceClient;
}

describe.skipIf(skipped)('two instances through PgBouncer in transaction mode', () => {
  let dir: string;
  let database: TestDatabase;
  let bouncer: PgBouncer;
  let receiver: Receiver;
  let db: Database;
  let a: Instance;
  let b: Instance;
  let s: Seeded;

  beforeAll(async () => {
    if (missing.length) throw new Error(`test/deploy/pgbouncer.test.ts needs ${missing.join(', ')}`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-pgbouncer-test-'));
    database = await createTestDatabase('postgres');
    bouncer = await startPgBouncer(process.env.TEST_POSTGRES_URL!, { poolSize: POOL_SIZE });
    const pooled = bouncer.url(new URL(database.url).pathname.slice(1));
    receiver = await startReceiver();
    const tls = await writeTestTls(dir);
    const start = async (name: string): Promise<Instance> => {
      const port = await freePort();
      const proc = spawnServe({
        DATABASE_URL: pooled,
        DATA_DIR: path.join(dir, 'data'),
        PORT: String(port),
        PUBLIC_URL: `https://localhost:${port}`,
        TLS_CERT_FILE: tls.certFile,
        TLS_KEY_FILE: tls.keyFile,
        LOG_LEVEL: 'warn',
        MASTER_KEY: TEST_MASTER_KEY,
        CLICK_FLUSH_MS: '100',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
        WEBHOOK_CA_FILE: tls.certFile,
        WEBHOOK_RETRY_SCALE: '0.01',
      });
      await waitUntilHealthy(proc, port, tls.ca, 60_000).catch((err) => {
        throw new Error(`${name}: ${(err as Error).message}\npgbouncer:\n${bouncer.output()}`);
      });
      return { name, proc, client: serviceClient(port, tls.ca) };
    };
    // Both at once on the empty database: each migrates, or waits for the other, through the pooler.
    [a, b] = await Promise.all([start('a'), start('b')]);
    db = openDatabase(pooled, { poolMax: 2 });
  }, 120_000);
  // A key of its own for each test: the API's 60 requests a minute are per key.
  beforeEach(async () => {
    s = await seedWorkspace(db.knex, { scopes: ['links:read', 'links:write', 'webhooks:write'] });
  });

  afterAll(async () => {
    for (const i of [a, b]) {
      i?.client.close();
      await i?.proc.kill('SIGTERM');
    }
    await db?.knex.destroy();
    await receiver?.close();
    await bouncer?.close();
    await database?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const api = (i: Instance, method: string, pathname: string, body?: unknown) =>
    i.client.request(method, pathname, { key: s.key, body, timeoutMs: 15_000 });
  const visit = (i: Instance, slug: string) =>
    i.client.request('GET', `/${slug}`, { headers: { 'user-agent': PERSON }, timeoutMs: 15_000 });
  const outputs = () => `--- a:\n${a.proc.output()}\n--- b:\n${b.proc.output()}\n--- pgbouncer:\n${bouncer.output()}`;

  it('migrated the fresh database once, with both instances starting at once', async () => {
    const expected = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m));
    const ran = await db.knex('knex_migrations').orderBy('id').pluck('name');
    expect(ran).toEqual(expected);
  });

  it('holds 60 API requests a minute per key across both instances', async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 62; n++) statuses.push((await api(n % 2 ? b : a, 'GET', '/api/v1/links')).status);
    expect(statuses, outputs()).toEqual([...Array(60).fill(200), 429, 429]);
  });

  it('shows a link change made on one instance on the other from its next visits', async () => {
    const made = await api(a, 'POST', '/api/v1/links', { url: 'https://example.com/pgb/one', slug: 'pgb-link' });
    expect(made.status, made.text).toBe(201);
    const first = await visit(b, 'pgb-link');
    expect([first.status, first.headers.location]).toEqual([302, 'https://example.com/pgb/one']);
    const changed = await api(a, 'PATCH', `/api/v1/links/${made.body.data.id}`, { url: 'https://example.com/pgb/two' });
    expect(changed.status, changed.text).toBe(200);
    // b hears of it by the change feed, polled every CHANGE_POLL_MS through the pooler.
    const since = Date.now();
    let location = first.headers.location;
    while (location !== 'https://example.com/pgb/two' && Date.now() - since < 20 * CHANGE_POLL_MS) {
      await sleep(25);
      location = (await visit(b, 'pgb-link')).headers.location;
    }
    expect(location, outputs()).toBe('https://example.com/pgb/two');
    for (let n = 0; n < 4; n++) expect((await visit(b, 'pgb-link')).headers.location).toBe(location);
  });

  it('counts the clicks of both instances, and holds a click limit across them', async () => {
    const counted = await api(a, 'POST', '/api/v1/links', { url: 'https://example.com/pgb/c', slug: 'pgb-count' });
    const limited = await api(b, 'POST', '/api/v1/links', {
      url: 'https://example.com/pgb/l',
      slug: 'pgb-limit',
      clickLimit: 3,
    });
    expect([counted.status, limited.status], limited.text).toEqual([201, 201]);
    for (let n = 0; n < 10; n++) expect((await visit(n % 2 ? b : a, 'pgb-count')).status).toBe(302);
    const limitedStatuses: number[] = [];
    for (let n = 0; n < 6; n++) limitedStatuses.push((await visit(n % 2 ? b : a, 'pgb-limit')).status);
    expect(limitedStatuses.filter((st) => st === 302)).toHaveLength(3);
    expect(limitedStatuses.slice(0, 3)).toEqual([302, 302, 302]);

    const started = Date.now();
    let clicks = -1;
    while (clicks !== 10 && Date.now() - started < 15_000) {
      await sleep(300);
      clicks = (await api(b, 'GET', `/api/v1/links/${counted.body.data.id}`)).body.data.clicks;
    }
    expect(clicks, outputs()).toBe(10);
  });

  it('delivers each webhook event once with both webhook workers on', async () => {
    receiver.reply('/pgb/hooks', [{ status: 200 }]);
    const sub = await api(a, 'POST', '/api/v1/webhooks', {
      url: receiver.url('/pgb/hooks'),
      events: ['link.created'],
      secret: 'pgbouncer-secret-0123456789',
    });
    expect(sub.status, sub.text).toBe(201);
    for (let n = 0; n < 10; n++) {
      const r = await api(n % 2 ? b : a, 'POST', '/api/v1/links', { url: `https://example.com/pgb/hook/${n}` });
      expect(r.status, r.text).toBe(201);
    }
    await receiver.waitFor('/pgb/hooks', 10, 30_000);
    // Long enough for a second worker's claim of the same delivery to have been made.
    await sleep(1_500);
    const got = receiver.to('/pgb/hooks');
    expect(got).toHaveLength(10);
    expect(new Set(got.map((r) => r.headers['x-service-delivery-id'])).size).toBe(10);
  });

  it('leaves Postgres no more server connections than the pooler was given', async () => {
    const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [
        new URL(database.url).pathname.slice(1),
      ]);
      expect(rows[0].n).toBeGreaterThan(0);
      expect(rows[0].n).toBeLessThanOrEqual(POOL_SIZE);
    } finally {
      await admin.end();
    }
  });
});
