// No API request holds the redirect path (issue: one summary over 1.6 million of today's clicks
// held every visitor for 2 s on SQLite). Summaries, goal reports and list pages run as queries
// (src/db/queries.ts): on SQLite on query threads, on Postgres on the pool; redirects are answered
// meanwhile. On both engines.
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as goals from '../../src/db/repos/goals';
import { createKey } from '../../src/db/repos/api-keys';
import { testEngines } from '../support/databases';
import { DATA_SCOPES } from '../support/recount';
import { seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';
import { goalDefinition } from '../support/stored-rows';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Raw clicks in the half of yesterday a window that starts at yesterday noon reads row by row. */
const CLICKS = 300_000;

describe.each(testEngines())('API reads beside the redirect path on %s', (engine) => {
  let server: TestServer;
  let owner: Seeded;
  let linkId: string;
  let goalId: string;
  const knex = () => server.services.db.knex;
  const key = async () =>
    (await createKey(knex(), owner.workspaceId, owner.userId, [...DATA_SCOPES, 'links:read', 'links:write'], null)).key;
  const noon = Math.floor(Date.now() / DAY) * DAY - 12 * HOUR;

  beforeAll(async () => {
    server = await startTestServer(engine, { env: { CLICK_FLUSH_MS: '60000' } });
    owner = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
    const made = await server.request('POST', '/api/v1/links', {
      key: await key(),
      body: { url: 'https://example.com/busy', slug: 'busy' },
    });
    linkId = made.body.data.id;
    goalId = (
      await goals.createGoal(knex(), owner.workspaceId, goalDefinition({ name: 'Purchases', type: 'purchase' }))
    ).id;
    // Yesterday afternoon's clicks, raw and as their daily count. A window from yesterday noon
    // holds half of that day, so it reads those raw rows rather than the day's count.
    const series =
      engine === 'postgres'
        ? `SELECT g AS n FROM generate_series(1, ${CLICKS}) g`
        : `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${CLICKS}) SELECT n FROM s`;
    await knex().raw(
      `INSERT INTO clicks (workspace_id, link_id, occurred_at, device) SELECT ?, ?, CAST(? AS BIGINT) + n * CAST(? AS BIGINT), 'desktop' FROM (${series}) AS t`,
      [owner.workspaceId, linkId, noon, Math.floor((12 * HOUR) / (CLICKS + 1))],
    );
    await knex()('link_daily_clicks').insert({
      link_id: linkId,
      workspace_id: owner.workspaceId,
      day: Math.floor(noon / DAY),
      clicks: CLICKS,
      scans: 0,
    });
  });
  afterAll(async () => server?.stop());

  /**
   * Sends redirects one after another on a kept-alive connection while `request` runs, and returns
   * how long it ran and the longest time between two answered redirects meanwhile. The test
   * client shares the server's process, so while the event loop is held no redirect completes.
   */
  async function redirectsDuring(request: () => Promise<{ status: number }>) {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    const answered: number[] = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        await new Promise<void>((resolve, reject) => {
          const req = https.get(
            `${server.url}/busy`,
            { agent, ca: server.ca, headers: { host: 'localhost', 'user-agent': 'curl/8' } },
            (res) => {
              res.resume();
              res.on('end', () => resolve());
            },
          );
          req.on('error', reject);
        });
        answered.push(performance.now());
      }
    })();
    await new Promise((r) => setTimeout(r, 100));
    const start = performance.now();
    const res = await request();
    const end = performance.now();
    running = false;
    await loop;
    agent.destroy();
    const times = [start, ...answered.filter((t) => t > start && t < end), end];
    let longestGap = 0;
    for (let i = 1; i < times.length; i++) longestGap = Math.max(longestGap, times[i] - times[i - 1]);
    return { status: res.status, ms: end - start, longestGap, redirects: times.length - 2 };
  }

  /** The SQL the event loop's own connection ran while `fn` ran (SQLite: none of the query's). */
  async function sqlOnTheEventLoop(fn: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    const listener = (q: { sql: string }) => seen.push(q.sql);
    knex().on('query', listener);
    try {
      await fn();
    } finally {
      knex().off('query', listener);
    }
    return seen;
  }

  const summary = async () =>
    server.request('GET', `/api/v1/conversions?${new URLSearchParams({ from: new Date(noon).toISOString() })}`, {
      key: await key(),
    });
  const report = async () =>
    server.request(
      'GET',
      `/api/v1/goals/${goalId}/report?${new URLSearchParams({ from: new Date(noon).toISOString() })}`,
      { key: await key() },
    );

  it.each([
    ['a conversion summary', summary],
    ['a goal report', report],
  ])('answers redirects throughout %s that reads hundreds of thousands of raw clicks', async (_name, request) => {
    const r = await redirectsDuring(request);
    expect(r.status).toBe(200);
    // Meaningful only if the request took a while: reading 300,000 rows on the event loop held it
    // for about as long as the request took, and no redirect was answered meanwhile.
    if (engine === 'sqlite') expect(r.ms).toBeGreaterThan(40);
    if (r.ms > 40) expect(r.longestGap, `${r.redirects} redirects in ${r.ms.toFixed(0)} ms`).toBeLessThan(r.ms / 2);
  });

  it('counts those clicks right: the rate of the summary has every one of them', async () => {
    const res = await summary();
    expect(res.body.data.rate).toMatchObject({ clicks: CLICKS });
  });

  // Query threads exist on SQLite only (Postgres reads are asynchronous on its pool).
  if (engine === 'sqlite') {
    it("runs summaries, reports and list pages on query threads, not on the event loop's connection", async () => {
      const sql = await sqlOnTheEventLoop(async () => {
        expect((await summary()).status).toBe(200);
        expect((await report()).status).toBe(200);
        expect((await server.request('GET', '/api/v1/links?page=1&limit=100', { key: await key() })).status).toBe(200);
      });
      // Keys, rate limits and the goal's own row are point reads on the event loop; nothing else.
      const scans = sql.filter(
        (q) =>
          /\b(clicks|link_daily_clicks|qr_daily_scans|conversions|conversion_\w+|links)\b/.test(q) &&
          !/api_keys|rate_limits/.test(q),
      );
      expect(scans).toEqual([]);
    });

    it('replaces a query thread that stopped: the next summary is answered', async () => {
      await server.queryService.threads!.crashForTest();
      const res = await summary();
      expect(res.status).toBe(200);
      expect(res.body.data.rate.clicks).toBe(CLICKS);
    });
  }
});
