// Where visitors come from, through real visits on every engine: a click's country and city come
// from the client address as the trusted proxy saw it (the packaged data, or GEOIP_DB's MaxMind
// file), the proxy's country header wins, an X-Forwarded-For from an untrusted client is ignored,
// a bad GEOIP_DB stops the start, and the address itself is written nowhere: no column of any
// table, no log line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { geoLocator } from '../../src/platform/geo';
import { startServer } from '../../src/start/server';
import { testEngines } from '../support/databases';
import { cityRecord, mmdbFile } from '../support/mmdb';
import { seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';
import { subscriptionBodyB } from '../support/subscriptions';

const PERSON =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
/** A public address the packaged data places in Great Britain (MaxMind's and DB-IP's London range). */
const LONDON = '81.2.69.142';
/** A public address in 2a02::/16 (RIPE), which the packaged data places too. */
const IPV6 = '2a00:1450:4001:80b::200e';

/** A GeoLite2-City-shaped file placing LONDON's /24 in "Testville", NZ: unlike any real data. */
function testDatabase(dir: string): string {
  const file = path.join(dir, 'GeoLite2-City.mmdb');
  fs.writeFileSync(
    file,
    mmdbFile('GeoLite2-City', [
      ['81.2.69.0/24', cityRecord('NZ', 'Testville')],
      ['2a00:1450::/32', cityRecord('JP', 'Lowtown')],
    ]),
  );
  return file;
}

/** Every table and text column of the database (SQLite or Postgres). */
async function textColumns(knex: Knex, engine: string): Promise<Array<{ table: string; column: string }>> {
  if (engine === 'sqlite') {
    const tables: Array<{ name: string }> = await knex.raw(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    );
    const out: Array<{ table: string; column: string }> = [];
    for (const { name } of tables) {
      const cols: Array<{ name: string; type: string }> = await knex.raw(`PRAGMA table_info("${name}")`);
      // SQLite keeps text in any column whose type is not an integer or real one; search all but those.
      for (const c of cols) if (!/INT|REAL|FLOA|DOUB|BOOL/i.test(c.type)) out.push({ table: name, column: c.name });
    }
    return out;
  }
  const { rows } = await knex.raw(
    `SELECT table_name AS table, column_name AS column FROM information_schema.columns
      WHERE table_schema = current_schema()
        AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'inet', 'cidr')`,
  );
  return rows;
}

/** The `table.column`s holding `needle` anywhere in their text. */
async function columnsHolding(knex: Knex, engine: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  const columns = await textColumns(knex, engine);
  expect(columns.length).toBeGreaterThan(50);
  for (const { table, column } of columns) {
    const text = engine === 'sqlite' ? `CAST("${column}" AS TEXT)` : `CAST("${column}" AS TEXT)`;
    const hits = await knex.raw(`SELECT COUNT(*) AS n FROM "${table}" WHERE ${text} LIKE ?`, [`%${needle}%`]);
    const n = Number((engine === 'sqlite' ? hits : hits.rows)[0].n);
    if (n > 0) found.push(`${table}.${column}`);
  }
  return found;
}

describe.each(testEngines())('where visitors come from on %s', (engine) => {
  let server: TestServer;
  let owner: Seeded;
  const logs: string[] = [];
  const knex = () => server.services.db.knex;

  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (c) => logs.push(String(c)));
    server = await startTestServer(engine, { env: { CLICK_FLUSH_MS: '60000', TRUST_PROXY: '1' }, logStream: stream });
    owner = await seedWorkspace(knex(), { scopes: ['links:read', 'links:write', 'webhooks:read', 'webhooks:write'] });
  });
  afterAll(async () => server?.stop());

  const create = async (slug: string) => {
    const res = await server.request('POST', '/api/v1/links', {
      key: owner.key,
      body: { url: `https://example.com/${slug}`, slug },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: string };
  };
  const visit = async (slug: string, headers: Record<string, string> = {}) => {
    const res = await server.request('GET', `/${slug}`, { headers: { 'user-agent': PERSON, ...headers } });
    expect(res.status).toBe(302);
  };
  const clicksOf = async (linkId: string) => {
    await server.clicks.flush();
    return knex()('clicks').where({ link_id: linkId }).orderBy('id').select('country', 'city', 'route');
  };

  it('records the country and city of the address the trusted proxy saw, IPv4 and IPv6', async () => {
    const link = await create('geo-place');
    // The right-most entry is the proxy's; what the client wrote before it is not believed.
    await visit('geo-place', { 'x-forwarded-for': `9.9.9.9, ${LONDON}` });
    await visit('geo-place', { 'x-forwarded-for': IPV6 });
    await visit('geo-place', { 'x-forwarded-for': '10.1.2.3' });
    const packaged = geoLocator({});
    const london = packaged.locate(LONDON)!;
    const v6 = packaged.locate(IPV6)!;
    expect(london.country).toBe('GB');
    expect(london.city).toEqual(expect.any(String));
    expect(v6.country).toMatch(/^[A-Z]{2}$/);
    expect(await clicksOf(link.id)).toEqual([
      { country: 'GB', city: london.city, route: null },
      { country: v6.country, city: v6.city, route: null },
      // A private address is nowhere.
      { country: null, city: null, route: null },
    ]);
  });

  it("keeps the trusted proxy's country header over the address's, and a city only of that country", async () => {
    const link = await create('geo-header');
    await visit('geo-header', { 'x-forwarded-for': LONDON, 'cf-ipcountry': 'DE' });
    await visit('geo-header', { 'x-forwarded-for': LONDON, 'x-country-code': 'gb' });
    const london = geoLocator({}).locate(LONDON)!;
    expect(await clicksOf(link.id)).toEqual([
      { country: 'DE', city: null, route: null },
      { country: 'GB', city: london.city, route: null },
    ]);
  });

  it('stores the rule or variant that served a click as the redirect path records it', async () => {
    const link = await create('geo-route');
    server.clicks.record({
      linkId: link.id,
      workspaceId: owner.workspaceId,
      qrCodeId: null,
      at: Date.now(),
      referer: undefined,
      country: undefined,
      userAgent: PERSON,
      address: LONDON,
      route: 'rul_first',
    });
    expect(await clicksOf(link.id)).toEqual([{ country: 'GB', city: expect.any(String), route: 'rul_first' }]);
  });

  it('writes the address to no column of any table and no log line, events included', async () => {
    // From before the API calls below, whose request lines show that the log is being read.
    const from = logs.length;
    const hook = await server.request('POST', '/api/v1/webhooks', { key: owner.key, body: subscriptionBodyB() });
    expect(hook.status, hook.text).toBe(201);
    const link = await create('geo-nowhere');
    for (let i = 0; i < 3; i++)
      await visit('geo-nowhere', { 'x-forwarded-for': LONDON, referer: 'https://a.example/' });
    expect(await clicksOf(link.id)).toHaveLength(3);
    // The clicks raised link.clicked events in the outbox: the search below covers them.
    const events = await knex()('webhook_deliveries').where({ event_type: 'link.clicked' });
    expect(events.length).toBeGreaterThan(0);
    expect(await columnsHolding(knex(), engine, LONDON)).toEqual([]);
    // The search finds what is there: the referrer host of the same clicks.
    expect(await columnsHolding(knex(), engine, 'a.example')).toContain('clicks.referrer_host');
    await new Promise((r) => setTimeout(r, 100));
    const written = logs.slice(from).join('');
    expect(written.length).toBeGreaterThan(0);
    expect(written).not.toContain(LONDON);
  });
});

describe.each(testEngines())('GEOIP_DB on %s', (engine) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-geoip-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("locates clicks with the operator's MaxMind file instead of the packaged data", async () => {
    const server = await startTestServer(engine, {
      env: { CLICK_FLUSH_MS: '60000', TRUST_PROXY: '1', GEOIP_DB: testDatabase(dir) },
    });
    try {
      const owner = await seedWorkspace(server.services.db.knex, { scopes: ['links:write', 'webhooks:write'] });
      const hook = await server.request('POST', '/api/v1/webhooks', { key: owner.key, body: subscriptionBodyB() });
      expect(hook.status, hook.text).toBe(201);
      const made = await server.request('POST', '/api/v1/links', {
        key: owner.key,
        body: { url: 'https://example.com/geoip-db', slug: 'geoip-db' },
      });
      for (const address of [LONDON, IPV6, '8.8.8.8'])
        await server.request('GET', '/geoip-db', { headers: { 'user-agent': PERSON, 'x-forwarded-for': address } });
      await server.clicks.flush();
      const rows = await server.services.db
        .knex('clicks')
        .where({ link_id: made.body.data.id })
        .orderBy('id')
        .select('country', 'city');
      expect(rows).toEqual([
        { country: 'NZ', city: 'Testville' },
        { country: 'JP', city: 'Lowtown' },
        // Not in the operator's file: the packaged data is not asked.
        { country: null, city: null },
      ]);
      // Each click's link.clicked names its city, as the click keeps it.
      const events = await server.services.db
        .knex('webhook_deliveries')
        .where({ event_type: 'link.clicked' })
        .orderBy('seq')
        .select('data');
      expect(events.map((e) => JSON.parse(e.data)).map((d) => [d.country, d.city])).toEqual([
        ['NZ', 'Testville'],
        ['JP', 'Lowtown'],
        [null, null],
      ]);
    } finally {
      await server.stop();
    }
  });

  it('ignores X-Forwarded-For without a trusted proxy: the socket peer (loopback) is nowhere', async () => {
    const server = await startTestServer(engine, { env: { CLICK_FLUSH_MS: '60000', GEOIP_DB: testDatabase(dir) } });
    try {
      const owner = await seedWorkspace(server.services.db.knex);
      const made = await server.request('POST', '/api/v1/links', {
        key: owner.key,
        body: { url: 'https://example.com/untrusted', slug: 'untrusted' },
      });
      await server.request('GET', '/untrusted', {
        headers: { 'user-agent': PERSON, 'x-forwarded-for': LONDON, 'cf-ipcountry': 'DE' },
      });
      await server.clicks.flush();
      const rows = await server.services.db
        .knex('clicks')
        .where({ link_id: made.body.data.id })
        .select('country', 'city');
      expect(rows).toEqual([{ country: null, city: null }]);
    } finally {
      await server.stop();
    }
  });
});

// Before any database is opened, so one test covers every engine.
describe('a GEOIP_DB that cannot be used', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-geoip-bad-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const start = (file: string) =>
    startServer(loadConfig({ DATABASE_URL: 'sqlite::memory:', DATA_DIR: dir, GEOIP_DB: file }), {
      log: pino({ level: 'silent' }),
    });

  it('stops the start with a message naming GEOIP_DB for a missing file or one not in MaxMind format', async () => {
    await expect(start(path.join(dir, 'missing.mmdb'))).rejects.toThrow(/^GEOIP_DB: cannot read .*missing\.mmdb/);
    const notMmdb = path.join(dir, 'GeoLite2-City.csv');
    fs.writeFileSync(notMmdb, 'network,geoname_id\n81.2.69.0/24,2643743\n');
    await expect(start(notMmdb)).rejects.toThrow(/^GEOIP_DB: .*GeoLite2-City\.csv is not a MaxMind database/);
  });
});
