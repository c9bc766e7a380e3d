// Read replicas (docs/operations.md, Read replicas): the service with DATABASE_READ_URL naming a
// real streaming replica of the test Postgres, made by `pg_basebackup -R` (test/support/replica.ts).
// Which server answered a read is proved by what it sees: with the replica's replay paused, a row
// written on the primary is absent from an answer read on the replica and present in one read on
// the primary. /metrics says the same in shortlink_db_reads_total.
//
// Without pg_basebackup (or Postgres) the suite is skipped with a warning locally and fails in CI
// (CI=true), as the other deployment suites do.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/knex';
import { REPLICA_READS } from '../../src/db/read-replicas';
import { createTestDatabase, testEngines, type TestDatabase } from '../support/databases';
import { seedPerson, signIn } from '../support/dashboard';
import { skippedWithout } from '../support/process';
import { PG_BIN, startReplica, type Replica } from '../support/replica';
import { DATA_SCOPES, seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

/** Short, so that the test can pass it; long enough for a few reads on a loaded machine. */
const MAX_LAG_MS = 3_000;

const missing = [
  !fs.existsSync(`${PG_BIN}/pg_basebackup`) && `pg_basebackup (${PG_BIN}; apt-get install postgresql-15)`,
  !testEngines().includes('postgres') && `Postgres (${process.env.TEST_POSTGRES_URL ?? 'TEST_POSTGRES_URL'})`,
].filter((m): m is string => !!m);
const skipped = skippedWithout('test/deploy/replica.test.ts', missing);

/** A sample of the Prometheus text: the value of `name` with exactly `labels`, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(',').filter(Boolean);
    if (want.every((w) => have.includes(w)) && have.length === want.length) return Number(m[3]);
  }
  return 0;
}

describe.skipIf(skipped)('heavy reads on a streaming replica', () => {
  let database: TestDatabase;
  let replica: Replica;
  let server: TestServer;
  /** A second instance on the same databases: it learns of the first one's writes only by a cookie. */
  let other: TestServer;
  let primary: Database;
  /** Changes links through the API. */
  let writer: Seeded;
  /** Never changes anything through the API: its rows are written on the primary directly. */
  let reader: Seeded;
  let n = 0;

  beforeAll(async () => {
    if (missing.length) throw new Error(`test/deploy/replica.test.ts needs ${missing.join(', ')}`);
    database = await createTestDatabase('postgres');
    // The database exists before the copy; what the service writes from here on streams to it.
    replica = await startReplica(process.env.TEST_POSTGRES_URL!);
    const env = {
      DATABASE_READ_URL: replica.url(new URL(database.url).pathname.slice(1)),
      DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS),
    };
    server = await startTestServer('postgres', { database, env });
    other = await startTestServer('postgres', { database, env });
    primary = openDatabase(database.url, { poolMax: 2 });
    writer = await seedWorkspace(primary.knex, { scopes: DATA_SCOPES });
    reader = await seedWorkspace(primary.knex, { scopes: DATA_SCOPES });
  }, 120_000);

  afterAll(async () => {
    await replica?.resumeReplay().catch(() => undefined);
    await other?.stop();
    await server?.stop();
    await primary?.knex.destroy();
    await replica?.close();
    await database?.drop();
  });

  const metrics = async (on = server) => (await on.request('GET', '/metrics')).text;
  const reads = async (target: string, reason: string, on = server) =>
    sample(await metrics(on), 'shortlink_db_reads_total', { target, reason });
  const replicaMetric = async (name: string) => sample(await metrics(), name, { replica: '0' });
  const slugsOf = async (key: string, query = '') => {
    const res = await server.request('GET', `/api/v1/links${query}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body.data.map((l: { slug: string }) => l.slug) as string[];
  };
  /** The replica in use and with everything the primary has. */
  const inSync = async () => {
    await expect.poll(() => replicaMetric('shortlink_db_replica_in_use'), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => replicaMetric('shortlink_db_replica_lag_seconds'), { timeout: 20_000 }).toBe(0);
  };
  /** A link of `who` written on the primary directly, as another instance's write would be. */
  const writeOnPrimary = async (who: Seeded) => {
    const slug = `direct-${++n}`;
    const template = await primary.knex('links').where({ workspace_id: writer.workspaceId }).first();
    if (!template) throw new Error('the writer has no link to copy');
    const { seq: _seq, ...row } = template;
    await primary.knex('links').insert({
      ...row,
      id: `lnk_direct_${n}_${Date.now()}`,
      workspace_id: who.workspaceId,
      created_by: who.userId,
      slug,
      created_at: Date.now(),
      updated_at: Date.now(),
    });
    return slug;
  };
  const createThroughApi = async (slug: string) => {
    const made = await server.request('POST', '/api/v1/links', {
      key: writer.key,
      body: { url: `https://example.com/${slug}`, slug },
    });
    expect(made.status, made.text).toBe(201);
  };

  it('keeps the queries that write off the replicas', () => {
    for (const write of ['retention', 'clickFold', 'insertSubscription', 'updateSubscriptionA'])
      expect(REPLICA_READS).not.toContain(write);
  });

  it('answers heavy reads from the replica, as far as it has replayed', async () => {
    await createThroughApi('template');
    await inSync();
    await replica.pauseReplay();
    try {
      const slug = await writeOnPrimary(reader);
      const before = await reads('replica', 'in_sync');
      // The page, a search, and the conversion summary, all on the replica: it has not the link.
      expect(await slugsOf(reader.key)).not.toContain(slug);
      expect(await slugsOf(reader.key, '?search=direct')).not.toContain(slug);
      const summary = await server.request('GET', '/api/v1/conversions', { key: reader.key });
      expect(summary.status, summary.text).toBe(200);
      expect(await reads('replica', 'in_sync')).toBe(before + 3);
      await replica.resumeReplay();
      await expect.poll(() => slugsOf(reader.key), { timeout: 10_000 }).toContain(slug);
    } finally {
      await replica.resumeReplay();
    }
  });

  it("reads a workspace's own change at once, while others' reads stay on the replica", async () => {
    await inSync();
    await replica.pauseReplay();
    try {
      const onPrimary = await reads('primary', 'recent_write');
      const onReplica = await reads('replica', 'in_sync');
      await createThroughApi('own-write');
      // Right after the change, with the replica paused before it: list and search show it.
      expect(await slugsOf(writer.key)).toContain('own-write');
      expect(await slugsOf(writer.key, '?search=own-write')).toEqual(['own-write']);
      expect(await reads('primary', 'recent_write')).toBe(onPrimary + 2);
      // A workspace that changed nothing reads the replica meanwhile.
      await slugsOf(reader.key);
      expect(await reads('replica', 'in_sync')).toBe(onReplica + 1);
    } finally {
      await replica.resumeReplay();
    }
    // Once the replica has the change, the writer's reads go back to it.
    await inSync();
    const onReplica = await reads('replica', 'in_sync');
    await expect
      .poll(async () => {
        await slugsOf(writer.key);
        return (await reads('replica', 'in_sync')) > onReplica;
      })
      .toBe(true);
  });

  it("carries a dashboard session's change to another instance in a cookie", async () => {
    await inSync();
    const person = await seedPerson(primary.knex, writer.workspaceId, 'ADMIN');
    const here = await signIn(server, person);
    await replica.pauseReplay();
    try {
      const made = await here.request('POST', `/workspaces/${writer.workspaceId}/links`, {
        body: { url: 'https://example.com/dashboard-write', slug: 'dashboard-write' },
      });
      expect(made.status, made.text).toBe(201);
      const cookies = [made.headers['set-cookie'] ?? []].flat();
      const wrote = cookies.find((c) => c.startsWith('sl_wrote='))?.split(';')[0];
      expect(wrote).toMatch(/^sl_wrote=\d+$/);
      const list = (cookie: string) =>
        other.request('GET', `/app/api/workspaces/${writer.workspaceId}/links`, { headers: { cookie } });
      const slugs = (res: Awaited<ReturnType<typeof list>>) => res.body.data.map((l: { slug: string }) => l.slug);
      // The other instance, which did not take the change, reads the replica without the cookie...
      const without = await list(here.cookie);
      expect(without.status, without.text).toBe(200);
      expect(slugs(without)).not.toContain('dashboard-write');
      // ... and the primary with it.
      const before = await reads('primary', 'recent_write', other);
      const withCookie = await list(`${here.cookie}; ${wrote}`);
      expect(slugs(withCookie)).toContain('dashboard-write');
      expect(await reads('primary', 'recent_write', other)).toBe(before + 1);
    } finally {
      await replica.resumeReplay();
    }
  });

  it('reads the primary once the replica is further behind than the bound, and says so', async () => {
    await inSync();
    await replica.pauseReplay();
    try {
      const slug = await writeOnPrimary(reader);
      await expect.poll(() => replicaMetric('shortlink_db_replica_in_use'), { timeout: MAX_LAG_MS + 10_000 }).toBe(0);
      expect(await replicaMetric('shortlink_db_replica_lag_seconds')).toBeGreaterThan(MAX_LAG_MS / 1000);
      const before = await reads('primary', 'lagging');
      expect(await slugsOf(reader.key)).toContain(slug);
      expect(await reads('primary', 'lagging')).toBe(before + 1);
    } finally {
      await replica.resumeReplay();
    }
    await inSync();
  });

  it('reads the primary while the replica is down, without an error, and the replica again when back', async () => {
    await inSync();
    const slug = await writeOnPrimary(reader);
    await expect.poll(() => slugsOf(reader.key)).toContain(slug);
    await replica.stop();
    // Between two polls a read may still pick the stopped replica: it is read again on the primary.
    expect(await slugsOf(reader.key)).toContain(slug);
    await expect.poll(() => replicaMetric('shortlink_db_replica_in_use')).toBe(0);
    const before = await reads('primary', 'unreachable');
    expect(await slugsOf(reader.key)).toContain(slug);
    expect(await reads('primary', 'unreachable')).toBe(before + 1);
    expect(await replicaMetric('shortlink_db_replica_lag_seconds')).toBeNaN();

    await replica.start();
    await inSync();
    const onReplica = await reads('replica', 'in_sync');
    expect(await slugsOf(reader.key)).toContain(slug);
    expect(await reads('replica', 'in_sync')).toBe(onReplica + 1);
  });
});
