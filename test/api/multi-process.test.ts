// Several Shortlink processes on one Postgres database share the per-key rate limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { seedWorkspace } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

const engines = testEngines().filter((e) => e === 'postgres');

describe.skipIf(!engines.length)('two processes on one Postgres', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer('postgres');
    b = await startTestServer('postgres', { database: a.database });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('counts 60 requests a minute per key in total across both', async () => {
    const s = await seedWorkspace(a.services.db.knex);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await (i % 2 ? a : b).request('GET', '/api/v1/links', { key: s.key })).status);
    expect(statuses.every((x) => x === 200)).toBe(true);
    expect((await a.request('GET', '/api/v1/links', { key: s.key })).status).toBe(429);
    expect((await b.request('GET', '/api/v1/links', { key: s.key })).status).toBe(429);
  });

  it('sees a link created through one process from the other', async () => {
    const s = await seedWorkspace(a.services.db.knex);
    const made = await a.request('POST', '/api/v1/links', { key: s.key, body: { url: 'https://example.com', slug: 'cross' } });
    expect(made.status).toBe(201);
    expect((await b.request('GET', `/api/v1/links/${made.body.data.id}`, { key: s.key })).body.data).toEqual(made.body.data);
    expect((await b.request('POST', '/api/v1/links', { key: s.key, body: { url: 'https://example.com', slug: 'cross' } })).status).toBe(409);
  });
});
