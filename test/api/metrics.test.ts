// GET /metrics and GET /readyz through HTTPS on every engine: the counters read back after known
// traffic (n redirects move the 302s by n, the cache's hits and misses, the clicks recorded and
// written, a webhook attempt by variant and result), the outbox's gauges after known rows, the
// pool, the event loop and (Postgres) the raw events' partitions ahead present; who may read it (loopback, or the METRICS_TOKEN); /readyz
// failing while the click backlog is over its bound.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { READY_MAX_CLICK_BACKLOG } from '../../src/http/handlers/ops';
import { testEngines } from '../support/databases';
import { deliveryRow, seedSubscription } from '../support/outbox';
import {
  startDeliveringServer,
  startReceiver,
  TEST_MASTER_KEY,
  type DeliveringServer,
  type Receiver,
} from '../support/receiver';
import { seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer } from '../support/server';

const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

/** The value of one sample of the text format (0 when the series is absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(',').filter(Boolean);
    if (want.every((w) => have.includes(w)) && have.length === want.length) return Number(m[3]);
  }
  return 0;
}

describe.each(testEngines())('metrics and readiness on %s', (engine) => {
  let server: DeliveringServer;
  let receiver: Receiver;
  let owner: Seeded;
  const knex = () => server.services.db.knex;
  const metrics = async (headers: Record<string, string> = {}) => server.request('GET', '/metrics', { headers });
  const visit = (path: string) => server.request('GET', path, { headers: { 'user-agent': PERSON } });

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startDeliveringServer(engine, {
      env: { CLICK_FLUSH_MS: '600000', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', TRUST_PROXY: '1' },
    });
    // The preload (on by default) reads the live links once, at start: waited for here, the link
    // the test makes below is not among them, so its first visit reads the database, as counted.
    await vi.waitFor(() => expect(server.redirects.preloaded.done).toBe(true), { timeout: 30_000, interval: 20 });
    owner = await seedWorkspace(knex(), { scopes: ['links:read', 'links:write'] });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it('counts n redirects as n 302s, the cache hits and misses, and the clicks recorded and written', async () => {
    const link = (
      await server.request('POST', '/api/v1/links', {
        key: owner.key,
        body: { url: 'https://example.com/m', slug: `metrics-${engine}` },
      })
    ).body.data;
    const before = (await metrics()).text;
    for (let i = 0; i < 7; i++) expect((await visit(`/${link.slug}`)).status).toBe(302);
    expect((await visit('/no-such-slug-here')).status).toBe(404);
    // The change feed's poll may drop the new link's entry at any moment (below): the cache's size
    // read on both sides of the scrape brackets what the scrape saw.
    const entriesBefore = server.redirects.cachedLinks;
    const mid = await metrics();
    const entriesAfter = server.redirects.cachedLinks;
    expect(mid.status).toBe(200);
    expect(mid.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(
      sample(mid.text, 'shortlink_redirect_responses_total', { status: '302' }) -
        sample(before, 'shortlink_redirect_responses_total', { status: '302' }),
    ).toBe(7);
    expect(
      sample(mid.text, 'shortlink_redirect_responses_total', { status: '404' }) -
        sample(before, 'shortlink_redirect_responses_total', { status: '404' }),
    ).toBe(1);
    // Every lookup is a hit or a miss. The first visit and the unknown slug read the database;
    // the others the cache, but one more may miss: the change feed's poll can drop the new link's
    // entry once more (its creation is in the feed for a few seconds).
    const misses =
      sample(mid.text, 'shortlink_link_cache_misses_total') - sample(before, 'shortlink_link_cache_misses_total');
    const hits =
      sample(mid.text, 'shortlink_link_cache_hits_total') - sample(before, 'shortlink_link_cache_hits_total');
    expect(misses + hits).toBe(8);
    expect(misses).toBeGreaterThanOrEqual(2);
    expect(misses).toBeLessThanOrEqual(3);
    // The gauge is the cache's size (no link is resident here, so the hot tier's): at least the
    // unknown address (the link's entry may have been dropped by the change feed, as above).
    expect(sample(mid.text, 'shortlink_link_cache_entries')).toBeLessThanOrEqual(entriesBefore);
    expect(sample(mid.text, 'shortlink_link_cache_entries')).toBeGreaterThanOrEqual(entriesAfter);
    expect(sample(mid.text, 'shortlink_link_cache_entries')).toBeGreaterThanOrEqual(1);
    // The resident tier holds what the preload read at start: no link yet.
    expect(sample(mid.text, 'shortlink_link_cache_resident_links')).toBe(0);
    expect(sample(mid.text, 'shortlink_link_cache_resident_hits_total')).toBe(0);
    expect(
      sample(mid.text, 'shortlink_clicks_recorded_total') - sample(before, 'shortlink_clicks_recorded_total'),
    ).toBe(7);
    expect(sample(mid.text, 'shortlink_click_backlog')).toBe(7);
    await server.clicks.flush();
    const after = (await metrics()).text;
    expect(sample(after, 'shortlink_clicks_written_total') - sample(before, 'shortlink_clicks_written_total')).toBe(7);
    expect(sample(after, 'shortlink_click_backlog')).toBe(0);
    expect(sample(after, 'shortlink_clicks_dropped_total')).toBe(0);
    // Node's own, and the pool.
    expect(after).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
    expect(after).toMatch(/^shortlink_db_pool_connections\{state="max"\} [1-9]/m);
    // Postgres's raw events have their days ahead (the migration made them); SQLite has none.
    for (const table of ['clicks', 'page_views'])
      expect(sample(after, 'shortlink_event_partition_days_ahead', { table })).toBe(engine === 'postgres' ? 7 : 0);
  });

  it("counts each webhook attempt by variant and result, and reads the outbox's waiting and UNKNOWN deliveries", async () => {
    const before = (await metrics()).text;
    receiver.reply(`/m/${engine}/ok`, [{ status: 200 }]);
    receiver.reply(`/m/${engine}/bad`, [{ status: 410 }]);
    const ok = await seedSubscription(knex(), Buffer.from(TEST_MASTER_KEY, 'hex'), {
      url: receiver.url(`/m/${engine}/ok`),
      variant: 'B',
      workspaceId: owner.workspaceId,
      events: ['link.created'],
    });
    const bad = await seedSubscription(knex(), Buffer.from(TEST_MASTER_KEY, 'hex'), {
      url: receiver.url(`/m/${engine}/bad`),
      variant: 'A',
      workspaceId: owner.workspaceId,
      events: ['link.created'],
    });
    await server.request('POST', '/api/v1/links', { key: owner.key, body: { url: 'https://example.com/hooked' } });
    await receiver.waitFor(`/m/${engine}/ok`, 1);
    await receiver.waitFor(`/m/${engine}/bad`, 1);
    const delta = async (labels: Record<string, string>) => {
      for (let i = 0; i < 50; i++) {
        const d =
          sample((await metrics()).text, 'shortlink_webhook_attempts_total', labels) -
          sample(before, 'shortlink_webhook_attempts_total', labels);
        if (d > 0) return d;
        await new Promise((r) => setTimeout(r, 100));
      }
      return 0;
    };
    expect(await delta({ variant: 'B', result: 'delivered' })).toBe(1);
    expect(await delta({ variant: 'A', result: 'failed' })).toBe(1);

    // A delivery waiting since an hour ago (due tomorrow) and one UNKNOWN.
    const hourAgo = Date.now() - 3_600_000;
    await knex()('webhook_deliveries').insert([
      { ...deliveryRow(ok), status: 'PENDING', created_at: hourAgo, next_attempt_at: Date.now() + 86_400_000 },
      { ...deliveryRow(bad), status: 'UNKNOWN', attempts: 1, finished_at: Date.now() },
    ]);
    await new Promise((r) => setTimeout(r, 1_100)); // one outbox read serves a scrape and lasts a second
    const now = (await metrics()).text;
    expect(sample(now, 'shortlink_webhook_deliveries_unknown')).toBe(1);
    expect(sample(now, 'shortlink_webhook_outbox_depth')).toBe(1);
    expect(sample(now, 'shortlink_webhook_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(3_600);
    expect(sample(now, 'shortlink_webhook_outbox_oldest_age_seconds')).toBeLessThan(3_700);
  });

  it('answers loopback clients only, as the trusted proxy saw them', async () => {
    expect((await metrics()).status).toBe(200);
    // Through a trusted proxy (TRUST_PROXY=1) the client is the proxy's right-most entry.
    const outside = await metrics({ 'x-forwarded-for': '203.0.113.7' });
    expect(outside.status).toBe(403);
    expect(outside.body.error).toMatch(/loopback/);
    expect((await metrics({ 'x-forwarded-for': '203.0.113.7, 127.0.0.1' })).status).toBe(200);
    // A client cannot claim to be local from the left of the chain.
    expect((await metrics({ 'x-forwarded-for': '127.0.0.1, 198.51.100.2' })).status).toBe(403);
  });

  it('fails /readyz while more clicks wait to be written than its bound, and passes once they are', async () => {
    expect((await server.request('GET', '/readyz')).status).toBe(200);
    const link = (
      await server.request('POST', '/api/v1/links', { key: owner.key, body: { url: 'https://example.com/backlog' } })
    ).body.data;
    for (let i = 0; i <= READY_MAX_CLICK_BACKLOG; i++) {
      server.clicks.record({
        linkId: link.id,
        workspaceId: owner.workspaceId,
        qrCodeId: null,
        at: Date.now(),
        referer: undefined,
        country: undefined,
        userAgent: PERSON,
        address: undefined,
        route: null,
      });
    }
    const busy = await server.request('GET', '/readyz');
    expect(busy.status).toBe(503);
    expect(busy.body.error).toMatch(/clicks are waiting to be written/);
    expect(sample((await metrics()).text, 'shortlink_click_backlog')).toBeGreaterThan(READY_MAX_CLICK_BACKLOG);
    await server.clicks.flush();
    expect((await server.request('GET', '/readyz')).status).toBe(200);
  }, 120_000);
});

describe('metrics behind METRICS_TOKEN', () => {
  it('answers only a request bearing the token, wherever it comes from', async () => {
    const server = await startTestServer('sqlite', { env: { METRICS_TOKEN: 'a-long-scrape-token' } });
    try {
      const get = (headers: Record<string, string>) => server.request('GET', '/metrics', { headers });
      expect((await get({})).status).toBe(401);
      expect((await get({ authorization: 'Bearer wrong' })).status).toBe(401);
      const ok = await get({ authorization: 'Bearer a-long-scrape-token' });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('# TYPE shortlink_redirect_responses_total counter');
      // An API key is not the token.
      const key = (await seedWorkspace(server.services.db.knex)).key;
      expect((await get({ authorization: `Bearer ${key}` })).status).toBe(401);
    } finally {
      await server.stop();
    }
  });
});
