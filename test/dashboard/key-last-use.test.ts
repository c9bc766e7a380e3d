// API keys' last use (the dashboard's `lastUsedAt`), through HTTPS on every engine: null until the
// key opens the API, then the time it did; written at most once a minute per key per process, so
// the API's requests do not write each time (src/http/key-uses.ts).
import { describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { serverWithTeam } from '../support/dashboard';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(testEngines())("keys' last use on %s", (engine) => {
  const fixture = serverWithTeam(engine);
  const keysPath = () => `/workspaces/${fixture.team.workspaceId}/keys`;
  const lastUsedAt = async (id: string) =>
    (await fixture.team.owner.request('GET', keysPath())).body.data.find((k: any) => k.id === id).lastUsedAt;

  it('is null until the key is used, then when it was, and not written again within the minute', async () => {
    const made = await fixture.team.owner.request('POST', keysPath(), { body: { scopes: ['links:read'] } });
    expect(made.status).toBe(201);
    expect(made.body.data.lastUsedAt).toBeNull();
    const id = made.body.data.id;
    expect(await lastUsedAt(id)).toBeNull();
    const before = Date.now();
    expect((await fixture.server.request('GET', '/api/v1/links', { key: made.body.key })).status).toBe(200);
    let seen: string | null = null;
    for (let i = 0; i < 100 && !seen; i++) {
      await sleep(100);
      seen = await lastUsedAt(id);
    }
    expect(seen).not.toBeNull();
    expect(Date.parse(seen!)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(seen!)).toBeLessThanOrEqual(Date.now());
    // Within the minute the process writes nothing more for the key, however often it is used.
    const marker = 1_000_000;
    await fixture.server.services.db.knex('api_keys').where({ id }).update({ last_used_at: marker });
    for (let i = 0; i < 5; i++)
      expect((await fixture.server.request('GET', '/api/v1/links', { key: made.body.key })).status).toBe(200);
    await sleep(1_500);
    expect(await lastUsedAt(id)).toBe(new Date(marker).toISOString());
  });

  it('a refused key (revoked) records no use', async () => {
    const made = await fixture.team.owner.request('POST', keysPath(), { body: { scopes: ['links:read'] } });
    await fixture.team.owner.request('DELETE', `${keysPath()}/${made.body.data.id}`);
    expect((await fixture.server.request('GET', '/api/v1/links', { key: made.body.key })).status).toBe(401);
    await sleep(1_500);
    expect(await lastUsedAt(made.body.data.id)).toBeNull();
  });
});
