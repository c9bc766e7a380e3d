// Several Shortlink processes on one Postgres database share the per-key rate limit.
import { clickTotals } from '../../src/db/repos/links';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { seedWorkspace } from '../support/seed';
import { startTestServer, twoProcessesOnOnePostgres, type TestServer } from '../support/server';

const engines = testEngines().filter((e) => e === 'postgres');

describe.skipIf(!engines.length)('two processes on one Postgres', () => {
  const servers = twoProcessesOnOnePostgres((database) => startTestServer('postgres', { database }));

  it('counts 60 requests a minute per key in total across both', async () => {
    const { a, b } = servers;
    const s = await seedWorkspace(a.services.db.knex);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++)
      statuses.push((await (i % 2 ? a : b).request('GET', '/api/v1/links', { key: s.key })).status);
    expect(statuses.every((x) => x === 200)).toBe(true);
    expect((await a.request('GET', '/api/v1/links', { key: s.key })).status).toBe(429);
    expect((await b.request('GET', '/api/v1/links', { key: s.key })).status).toBe(429);
  });

  it('sees a link created through one process from the other', async () => {
    const { a, b } = servers;
    const s = await seedWorkspace(a.services.db.knex);
    const made = await a.request('POST', '/api/v1/links', {
      key: s.key,
      body: { url: 'https://example.com', slug: 'cross' },
    });
    expect(made.status).toBe(201);
    expect((await b.request('GET', `/api/v1/links/${made.body.data.id}`, { key: s.key })).body.data).toEqual(
      made.body.data,
    );
    expect(
      (await b.request('POST', '/api/v1/links', { key: s.key, body: { url: 'https://example.com', slug: 'cross' } }))
        .status,
    ).toBe(409);
  });
});

describe.skipIf(!engines.length)('short links across two processes on one Postgres', () => {
  const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
  const servers = twoProcessesOnOnePostgres((database) => startTestServer('postgres', { database }));
  const visit = (s: TestServer, path: string) => s.request('GET', path, { headers: { 'user-agent': PERSON } });

  /** Polls until `check` passes; returns how long it took. */
  async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
    const start = Date.now();
    while (Date.now() - start < ms) {
      if (await check()) return Date.now() - start;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`not within ${ms} ms`);
  }

  it('applies an update, rename, disable and delete made through one process on the other within a second', async () => {
    const { a, b } = servers;
    const s = await seedWorkspace(a.services.db.knex);
    const link = (
      await a.request('POST', '/api/v1/links', {
        key: s.key,
        body: { url: 'https://example.com/one', slug: 'mp-link' },
      })
    ).body.data;
    expect((await visit(b, '/mp-link')).headers.location).toBe('https://example.com/one'); // now cached in b
    await a.request('PATCH', `/api/v1/links/${link.id}`, { key: s.key, body: { url: 'https://example.com/two' } });
    await within(1000, async () => (await visit(b, '/mp-link')).headers.location === 'https://example.com/two');
    await a.request('PATCH', `/api/v1/links/${link.id}`, { key: s.key, body: { slug: 'mp-renamed' } });
    await within(1000, async () => (await visit(b, '/mp-link')).status === 404);
    expect((await visit(b, '/mp-renamed')).status).toBe(302);
    await a.request('PATCH', `/api/v1/links/${link.id}`, { key: s.key, body: { status: 'DISABLED' } });
    await within(1000, async () => (await visit(b, '/mp-renamed')).status === 404);
    await a.request('PATCH', `/api/v1/links/${link.id}`, { key: s.key, body: { status: 'ACTIVE' } });
    await within(1000, async () => (await visit(b, '/mp-renamed')).status === 302);
    await a.request('DELETE', `/api/v1/links/${link.id}`, { key: s.key });
    await within(1000, async () => (await visit(b, '/mp-renamed')).status === 404);
  });

  it('serves a new link on the other process even after it cached the slug as unknown', async () => {
    const { a, b } = servers;
    const s = await seedWorkspace(a.services.db.knex);
    expect((await visit(b, '/mp-later')).status).toBe(404);
    await a.request('POST', '/api/v1/links', {
      key: s.key,
      body: { url: 'https://example.com/later', slug: 'mp-later' },
    });
    await within(1000, async () => (await visit(b, '/mp-later')).status === 302);
  });

  it('keeps a click limit exact across both processes', async () => {
    const { a, b } = servers;
    const s = await seedWorkspace(a.services.db.knex);
    await a.request('POST', '/api/v1/links', {
      key: s.key,
      body: { url: 'https://example.com/lim', slug: 'mp-limit', clickLimit: 50 },
    });
    const results = await Promise.all(Array.from({ length: 500 }, (_, i) => visit(i % 2 ? a : b, '/mp-limit')));
    expect(results.filter((r) => r.status === 302)).toHaveLength(50);
    expect(results.filter((r) => r.status === 410)).toHaveLength(450);
    await Promise.all([a.clicks.flush(), b.clicks.flush()]);
    const row = await a.services.db.knex('links').where({ slug: 'mp-limit' }).first();
    expect((await clickTotals(a.services.db.knex, row.workspace_id, [row.id])).get(row.id)).toBe(50);
    expect(Number(row.served)).toBe(50);
  });

  it('applies a routing change made through one process on the other from its next click', async () => {
    const { a, b } = servers;
    const s = await seedWorkspace(a.services.db.knex);
    const link = (
      await a.request('POST', '/api/v1/links', {
        key: s.key,
        body: { url: 'https://example.com/all', slug: 'mp-route' },
      })
    ).body.data;
    expect((await visit(b, '/mp-route')).headers.location).toBe('https://example.com/all'); // now cached in b
    const set = await a.request('PUT', `/api/v1/links/${link.id}/routing`, {
      key: s.key,
      body: { rules: [{ conditions: [{ type: 'os', value: 'linux' }], url: 'https://example.com/linux' }] },
    });
    expect(set.status).toBe(200);
    await within(1000, async () => (await visit(b, '/mp-route')).headers.location === 'https://example.com/linux');
    // An ended split's winner is settled once: both processes serve the same one.
    const split = await a.request('PUT', `/api/v1/links/${link.id}/routing`, {
      key: s.key,
      body: {
        split: {
          variants: [
            { url: 'https://example.com/x', weight: 50 },
            { url: 'https://example.com/y', weight: 50 },
          ],
          endsAt: new Date(Date.now() - 1000).toISOString(),
        },
      },
    });
    expect(split.status).toBe(200);
    await within(1000, async () => (await visit(b, '/mp-route')).headers.location !== 'https://example.com/linux');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => visit(i % 2 ? a : b, '/mp-route')));
    expect(new Set(answers.map((r) => r.headers.location)).size).toBe(1);
  });
});
