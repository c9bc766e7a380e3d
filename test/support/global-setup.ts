// Decides once per run which database engines the API tests use. SQLite always; Postgres when
// TEST_POSTGRES_URL (or the local default) answers. In CI a missing Postgres fails the run;
// locally it is skipped loudly.
//
// With TEST_THROUGH_PGBOUNCER=1 every test's Postgres is reached through PgBouncer in transaction
// mode (test/support/pgbouncer.ts), started here and stopped after the run: `.ci/run` runs the
// suites of several processes so (docs/operations.md, Through PgBouncer).
//
// With TEST_WITH_REPLICA=1 a streaming replica of that Postgres (test/support/replica.ts) is
// started here, and every test server on Postgres names it in DATABASE_READ_URL: `.ci/run` runs
// the suites that change links and subscriptions so, where a write sent to the replica would fail.
import pg from 'pg';

export const DEFAULT_PG = 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

export default async function setup() {
  // Each project of vitest.config.ts runs this: the first decides for the run, and a pooler or
  // replica it started serves both (a second would stand in front of the first's).
  if (process.env.SHORTLINK_TEST_ENGINES_DECIDED) return;
  process.env.SHORTLINK_TEST_ENGINES_DECIDED = '1';
  const url = process.env.TEST_POSTGRES_URL || DEFAULT_PG;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    // The reruns through PgBouncer or with a replica are about Postgres: their SQLite half ran in
    // the main run already.
    const rerun = process.env.TEST_WITH_REPLICA || process.env.TEST_THROUGH_PGBOUNCER;
    process.env.SHORTLINK_TEST_ENGINES = rerun ? 'postgres' : 'sqlite,postgres';
    process.env.TEST_POSTGRES_URL = url;
  } catch (err) {
    if (process.env.CI) throw new Error(`CI needs Postgres at ${url}: ${(err as Error).message}`);
    console.warn(`\n!!! Postgres not reachable at ${url} (${(err as Error).message}): API tests run on SQLite only.\n`);
    process.env.SHORTLINK_TEST_ENGINES = 'sqlite';
  } finally {
    await client.end().catch(() => undefined);
  }
  if (process.env.TEST_WITH_REPLICA && process.env.SHORTLINK_TEST_ENGINES.includes('postgres')) {
    const { startReplica } = await import('./replica');
    const replica = await startReplica(url);
    process.env.TEST_REPLICA_URL = replica.url('postgres');
    return () => replica.close();
  }
  if (process.env.TEST_THROUGH_PGBOUNCER && process.env.SHORTLINK_TEST_ENGINES.includes('postgres')) {
    const { startPgBouncer } = await import('./pgbouncer');
    const bouncer = await startPgBouncer(url);
    process.env.TEST_POSTGRES_URL = bouncer.url(new URL(url).pathname.slice(1) || 'postgres');
    return () => bouncer.close();
  }
}
