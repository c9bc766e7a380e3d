// Conversions through HTTPS on every database engine: recording (POST /api/v1/conversions) and
// the summary (GET /api/v1/conversions), the summary checked figure by figure against an
// independent in-memory recount (test/support/recount.ts) of a seeded random data set.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKey } from '../../src/db/repos/api-keys';
import type { Scope } from '../../src/domain/access';
import { testEngines } from '../support/databases';
import {
  createObjects,
  DAY,
  dayOf,
  HOUR,
  insertClicks,
  midnight,
  MINUTE,
  normalizeValues,
  postConversions,
  randomClicks,
  randomConversion,
  recountSummary,
  rng,
  DATA_SCOPES,
  type Filters,
  type Objects,
  type PlannedConversion,
  type RClick,
  type RConversion,
  type Win,
} from '../support/recount';
import { seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';
import { apiClient, asResponse } from '../support/client';

const iso = (t: number) => new Date(t).toISOString();
const LEAK = 'METADATA-MUST-NOT-LEAK';

describe.each(testEngines())('conversions API on %s', (engine) => {
  let server: TestServer;
  const knex = () => server.services.db.knex;
  const freshKey = async (s: Seeded, scopes: Scope[] = DATA_SCOPES) =>
    (await createKey(knex(), s.workspaceId, s.userId, scopes, null)).key;
  const countRows = async (table: string, workspaceId: string) =>
    Number((await knex()(table).where({ workspace_id: workspaceId }).count({ c: '*' }))[0].c);
  const dailyTotal = async (workspaceId: string) =>
    Number(
      (await knex()('conversion_daily_type').where({ workspace_id: workspaceId }).sum({ c: 'conversions' }))[0].c ?? 0,
    );

  beforeAll(async () => {
    server = await startTestServer(engine);
  });
  afterAll(async () => server?.stop());

  // -------------------------------------------------------------------------------------------
  describe('POST /api/v1/conversions', () => {
    let main: Seeded;
    let other: Seeded;
    let mainObjects: Objects;
    let otherObjects: Objects;
    let deletedLink: string;
    let key: string;
    const record = (body: unknown, opts: { key?: string; headers?: Record<string, string> } = {}) =>
      server.request('POST', '/api/v1/conversions', { key: opts.key ?? key, body, headers: opts.headers });

    beforeAll(async () => {
      main = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
      other = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
      mainObjects = await createObjects(server, main, { links: 3, campaigns: 1, qrOn: [0, 1] });
      otherObjects = await createObjects(server, other, { links: 1, campaigns: 1, qrOn: [0] });
      deletedLink = mainObjects.links[2];
      const del = await server.request('DELETE', `/api/v1/links/${deletedLink}`, { key: await freshKey(main) });
      expect(del.status).toBe(200);
    });
    // A fresh key per test: each key has its own 60-requests-a-minute budget.
    beforeEach(async () => {
      key = await freshKey(main);
    });

    const [L1, L2] = [0, 1].map((i) => () => mainObjects.links[i]);
    const qrOf = (linkIndex: number) => () =>
      Object.keys(mainObjects.qrs).find((q) => mainObjects.qrs[q] === mainObjects.links[linkIndex])!;

    it.each(['signup', 'lead', 'purchase', 'booking', 'download'])(
      'records a %s and answers 201 with the Conversion',
      async (eventType) => {
        const before = Date.now();
        const res = await record({ eventType, linkId: L1() });
        const after = Date.now();
        expect(res.status, res.text).toBe(201);
        const c = res.body.data;
        expect(c).toEqual({
          id: expect.stringMatching(/^cnv_/),
          eventType,
          customName: null,
          linkId: L1(),
          campaignId: null,
          qrCodeId: null,
          value: null,
          occurredAt: expect.any(String),
          createdAt: expect.any(String),
        });
        // occurredAt defaults to the time the request is received.
        expect(Date.parse(c.occurredAt)).toBeGreaterThanOrEqual(before - 1);
        expect(Date.parse(c.occurredAt)).toBeLessThanOrEqual(after + 1);
        expect(Date.parse(c.createdAt)).toBeGreaterThanOrEqual(before - 1);
        const row = await knex()('conversions').where({ id: c.id }).first();
        expect(row).toMatchObject({
          workspace_id: main.workspaceId,
          event_type: eventType,
          link_id: L1(),
          custom_name: null,
        });
        expect(Number(row.occurred_at)).toBe(Date.parse(c.occurredAt));
      },
    );

    it('keeps every total exact: a conversion that would take its currency total above 2^53 - 1 is refused with 400', async () => {
      const s = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
      const k = await freshKey(s);
      const eur = (amountMinor: number) =>
        record({ eventType: 'purchase', value: { amountMinor, currency: 'EUR' } }, { key: k });
      expect((await eur(Number.MAX_SAFE_INTEGER - 2)).status).toBe(201);
      expect((await eur(1)).status).toBe(201);
      // Room for one more minor unit: two racing for it, exactly one gets it.
      const race = await Promise.all([eur(1), eur(1)]);
      expect(race.map((r) => r.status).sort()).toEqual([201, 400]);
      const over = race.find((r) => r.status === 400)!;
      expect(over.body).toMatchObject({
        field: 'value.amountMinor',
        error: expect.stringContaining('9007199254740991'),
      });
      expect((await eur(1)).status).toBe(400);
      // Another currency has its own total; a conversion without a value is not limited.
      expect(
        (await record({ eventType: 'purchase', value: { amountMinor: 500, currency: 'USD' } }, { key: k })).status,
      ).toBe(201);
      expect((await record({ eventType: 'signup' }, { key: k })).status).toBe(201);
      const summary = await server.request('GET', '/api/v1/conversions', { key: k });
      expect(summary.body.data.value).toEqual([
        { currency: 'EUR', valueMinor: Number.MAX_SAFE_INTEGER, conversions: 3 },
        { currency: 'USD', valueMinor: 500, conversions: 1 },
      ]);
      // Exact on the wire, not rounded (2^53 + 1 would print as ...992).
      expect(summary.text).toContain('"valueMinor":9007199254740991');
      // A single amount above 2^53 - 1 cannot even be read exactly: refused by the schema.
      const big = await server.request('POST', '/api/v1/conversions', {
        key: k,
        rawBody: '{"eventType":"purchase","value":{"amountMinor":9007199254740993,"currency":"EUR"}}',
        headers: { 'content-type': 'application/json' },
      });
      expect(big.status).toBe(400);
      expect(await countRows('conversions', s.workspaceId)).toBe(5);
    });

    it('records a custom event with its customName (up to 40 characters)', async () => {
      const name = 'n'.repeat(40);
      const res = await record({ eventType: 'custom', customName: name });
      expect(res.status, res.text).toBe(201);
      expect(res.body.data).toMatchObject({ eventType: 'custom', customName: name, linkId: null });
    });

    it.each([
      ['custom without customName', { eventType: 'custom' }, 'customName'],
      ['custom with an empty customName', { eventType: 'custom', customName: '' }, 'customName'],
      ['custom with a 41-character customName', { eventType: 'custom', customName: 'n'.repeat(41) }, 'customName'],
      ['customName with purchase', { eventType: 'purchase', customName: 'newsletter' }, 'customName'],
      ['customName with signup', { eventType: 'signup', customName: 'x' }, 'customName'],
      ['an unknown eventType', { eventType: 'click' }, 'eventType'],
      ['no eventType', { linkId: 'lnk_x' }, 'eventType'],
      ['an unknown key', { eventType: 'purchase', visitorId: 'v1' }, 'visitorId'],
      ['a malformed occurredAt', { eventType: 'purchase', occurredAt: 'yesterday' }, 'occurredAt'],
    ])('refuses %s with 400 naming the field and records nothing', async (_t, body, field) => {
      const before = await countRows('conversions', main.workspaceId);
      const res = await record(body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.field).toBe(field);
      expect(typeof res.body.error).toBe('string');
      expect(await countRows('conversions', main.workspaceId)).toBe(before);
    });

    it('refuses a linkId, campaignId or qrCodeId that is not in the workspace with 400 naming it', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ linkId: 'lnk_doesnotexist000000' }, 'linkId'],
        [{ linkId: otherObjects.links[0] }, 'linkId'],
        [{ linkId: deletedLink }, 'linkId'],
        [{ campaignId: 'cmp_doesnotexist000000' }, 'campaignId'],
        [{ campaignId: otherObjects.campaigns[0] }, 'campaignId'],
        [{ qrCodeId: 'qr_doesnotexist000000' }, 'qrCodeId'],
        [{ qrCodeId: Object.keys(otherObjects.qrs)[0] }, 'qrCodeId'],
        [{ linkId: L1(), campaignId: otherObjects.campaigns[0] }, 'campaignId'],
      ];
      const before = await countRows('conversions', main.workspaceId);
      const otherBefore = await countRows('conversions', other.workspaceId);
      for (const [refs, field] of cases) {
        const res = await record({ eventType: 'purchase', ...refs });
        expect(res.status, `${JSON.stringify(refs)}: ${res.text}`).toBe(400);
        expect(res.body.field, JSON.stringify(refs)).toBe(field);
        // The message quotes the id sent: a blank one reads as one, not as a gap.
        expect(res.body.error, JSON.stringify(refs)).toContain(`${field} "${refs[field]}" is not a`);
      }
      expect((await record({ eventType: 'purchase', linkId: ' ' })).body.error).toBe(
        'linkId " " is not a link of this workspace',
      );
      expect(await countRows('conversions', main.workspaceId)).toBe(before);
      expect(await countRows('conversions', other.workspaceId)).toBe(otherBefore);
    });

    it("attributes a QR code's conversion to the QR code's link", async () => {
      const q1 = qrOf(0)();
      const alone = await record({ eventType: 'signup', qrCodeId: q1 });
      expect(alone.status, alone.text).toBe(201);
      expect(alone.body.data).toMatchObject({ qrCodeId: q1, linkId: L1(), campaignId: null });
      expect((await knex()('conversions').where({ id: alone.body.data.id }).first()).link_id).toBe(L1());
      const withItsLink = await record({
        eventType: 'signup',
        qrCodeId: q1,
        linkId: L1(),
        campaignId: mainObjects.campaigns[0],
      });
      expect(withItsLink.status, withItsLink.text).toBe(201);
      expect(withItsLink.body.data).toMatchObject({ qrCodeId: q1, linkId: L1(), campaignId: mainObjects.campaigns[0] });
      // A linkId that is not the QR code's link contradicts the attribution.
      const contradicting = await record({ eventType: 'signup', qrCodeId: q1, linkId: L2() });
      expect(contradicting.status).toBe(400);
      expect(contradicting.body.field).toBe('linkId');
    });

    it('stores a value in integer minor units of an ISO 4217 currency', async () => {
      for (const value of [
        { amountMinor: 4990, currency: 'EUR' },
        { amountMinor: 0, currency: 'USD' },
        { amountMinor: 1500, currency: 'JPY' },
      ]) {
        const res = await record({ eventType: 'purchase', value });
        expect(res.status, res.text).toBe(201);
        expect(res.body.data.value).toEqual(value);
        const row = await knex()('conversions').where({ id: res.body.data.id }).first();
        expect([Number(row.amount_minor), row.currency]).toEqual([value.amountMinor, value.currency]);
      }
    });

    it.each([
      ['an unknown currency code', { amountMinor: 100, currency: 'QQQ' }],
      ['a lower-case currency', { amountMinor: 100, currency: 'eur' }],
      ['a four-letter currency', { amountMinor: 100, currency: 'EURO' }],
      ['a negative amount', { amountMinor: -1, currency: 'EUR' }],
      ['a fractional amount', { amountMinor: 12.5, currency: 'EUR' }],
      ['an amount as a string', { amountMinor: '100', currency: 'EUR' }],
      ['no currency', { amountMinor: 100 }],
      ['no amount', { currency: 'EUR' }],
      ['a bare number', 4990],
      ['an unknown key in value', { amountMinor: 100, currency: 'EUR', tax: 5 }],
    ])('refuses %s as value with 400 and records nothing', async (_t, value) => {
      const before = await countRows('conversions', main.workspaceId);
      const res = await record({ eventType: 'purchase', value });
      expect(res.status, res.text).toBe(400);
      expect(String(res.body.field)).toMatch(/^value/);
      expect(await countRows('conversions', main.workspaceId)).toBe(before);
    });

    it('stores metadata and never returns it', async () => {
      const metadata = { orderId: '10482', note: LEAK, nested: { a: [1, 2, { b: 'ü' }] } };
      const res = await record({ eventType: 'purchase', linkId: L1(), metadata });
      expect(res.status, res.text).toBe(201);
      expect(res.text).not.toContain(LEAK);
      expect(res.text).not.toContain('10482');
      expect(res.text).not.toContain('metadata');
      const row = await knex()('conversions').where({ id: res.body.data.id }).first();
      expect(JSON.parse(row.metadata)).toEqual(metadata);
      // Nor does the summary (the goal report and list are checked in goals.test.ts).
      const summary = await server.request('GET', '/api/v1/conversions', { key });
      expect(summary.status).toBe(200);
      expect(summary.text).not.toContain(LEAK);
      expect(summary.text).not.toContain('10482');
    });

    it('accepts metadata of exactly 4 KiB of UTF-8 JSON and refuses one byte more', async () => {
      // {"k":"..."} is 8 bytes around the string.
      const exact = await record({ eventType: 'lead', metadata: { k: 'a'.repeat(4096 - 8) } });
      expect(exact.status, exact.text).toBe(201);
      const before = await countRows('conversions', main.workspaceId);
      const over = await record({ eventType: 'lead', metadata: { k: 'a'.repeat(4096 - 7) } });
      expect(over.status).toBe(400);
      expect(over.body.field).toBe('metadata');
      // Bytes, not characters: 2045 two-byte characters are 4098 bytes.
      const multibyte = await record({ eventType: 'lead', metadata: { k: 'é'.repeat(2045) } });
      expect(multibyte.status).toBe(400);
      expect(multibyte.body.field).toBe('metadata');
      const multibyteExact = await record({ eventType: 'lead', metadata: { k: 'é'.repeat(2044) } });
      expect(multibyteExact.status, multibyteExact.text).toBe(201);
      expect(await countRows('conversions', main.workspaceId)).toBe(before + 1);
    });

    it.each([[['a', 'b']], ['text'], [42]])('refuses metadata %j that is not an object', async (metadata) => {
      const res = await record({ eventType: 'lead', metadata });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('metadata');
    });

    it('takes an explicit occurredAt with an offset and returns it in UTC', async () => {
      const at = midnight(Date.now() - 3 * DAY) + 10 * HOUR + 123;
      const local = new Date(at + 2 * HOUR).toISOString().replace('Z', '+02:00');
      const res = await record({ eventType: 'booking', occurredAt: local });
      expect(res.status, res.text).toBe(201);
      expect(res.body.data.occurredAt).toBe(iso(at));
      expect(Number((await knex()('conversions').where({ id: res.body.data.id }).first()).occurred_at)).toBe(at);
    });

    describe('Idempotency-Key', () => {
      it('returns the first response for a repeat with the same body, even with keys in another order, and records nothing new', async () => {
        const idem = { 'idempotency-key': `order-${Date.now()}-a` };
        const body = {
          eventType: 'purchase',
          linkId: L1(),
          campaignId: mainObjects.campaigns[0],
          value: { amountMinor: 4990, currency: 'EUR' },
          metadata: { orderId: 'A1', lines: [1, 2] },
        };
        const first = await record(body, { headers: idem });
        expect(first.status, first.text).toBe(201);
        const rows = await countRows('conversions', main.workspaceId);
        const daily = await dailyTotal(main.workspaceId);

        const reordered = {
          metadata: { lines: [1, 2], orderId: 'A1' },
          value: { currency: 'EUR', amountMinor: 4990 },
          campaignId: mainObjects.campaigns[0],
          linkId: L1(),
          eventType: 'purchase',
        };
        const again = await record(reordered, { headers: idem });
        expect(again.status, again.text).toBe(201);
        expect(again.body).toEqual(first.body);
        // Whitespace does not matter either.
        const spaced = await server.request('POST', '/api/v1/conversions', {
          key,
          rawBody: JSON.stringify(body, null, 4),
          headers: { ...idem, 'content-type': 'application/json' },
        });
        expect(spaced.status, spaced.text).toBe(201);
        expect(spaced.body).toEqual(first.body);

        expect(await countRows('conversions', main.workspaceId)).toBe(rows);
        expect(await dailyTotal(main.workspaceId)).toBe(daily);
      });

      it('returns the first occurredAt for a repeat of a body without occurredAt', async () => {
        const idem = { 'idempotency-key': `signup-${Date.now()}` };
        const first = await record({ eventType: 'signup' }, { headers: idem });
        await new Promise((r) => setTimeout(r, 20));
        const again = await record({ eventType: 'signup' }, { headers: idem });
        expect(again.status).toBe(201);
        expect(again.body).toEqual(first.body);
      });

      it('answers 409 for the same key with another body and records nothing', async () => {
        const idem = { 'idempotency-key': `order-${Date.now()}-b` };
        const first = await record(
          { eventType: 'purchase', value: { amountMinor: 100, currency: 'EUR' } },
          { headers: idem },
        );
        expect(first.status).toBe(201);
        const rows = await countRows('conversions', main.workspaceId);
        const daily = await dailyTotal(main.workspaceId);
        for (const body of [
          { eventType: 'purchase', value: { amountMinor: 101, currency: 'EUR' } },
          { eventType: 'purchase', value: { amountMinor: 100, currency: 'USD' } },
          { eventType: 'purchase' },
          { eventType: 'purchase', value: { amountMinor: 100, currency: 'EUR' }, metadata: { x: 1 } },
        ]) {
          const res = await record(body, { headers: idem });
          expect(res.status, JSON.stringify(body)).toBe(409);
          expect(typeof res.body.error).toBe('string');
        }
        expect(await countRows('conversions', main.workspaceId)).toBe(rows);
        expect(await dailyTotal(main.workspaceId)).toBe(daily);
      });

      it('scopes keys to the workspace: the same key and body in two workspaces record twice', async () => {
        const idem = { 'idempotency-key': `shared-${Date.now()}` };
        const body = { eventType: 'download' };
        const a = await record(body, { headers: idem });
        const b = await record(body, { headers: idem, key: await freshKey(other) });
        expect([a.status, b.status]).toEqual([201, 201]);
        expect(a.body.data.id).not.toBe(b.body.data.id);
        expect(
          await knex()('conversions').where({ id: a.body.data.id, workspace_id: main.workspaceId }).first(),
        ).toBeTruthy();
        expect(
          await knex()('conversions').where({ id: b.body.data.id, workspace_id: other.workspaceId }).first(),
        ).toBeTruthy();
      });

      it('remembers a key for 24 hours: after that the same key and body record again', async () => {
        const idem = { 'idempotency-key': `expiring-${Date.now()}` };
        const first = await record({ eventType: 'lead' }, { headers: idem });
        expect(first.status).toBe(201);
        await knex()('idempotency_keys')
          .where({ workspace_id: main.workspaceId, key: idem['idempotency-key'] })
          .update({ created_at: Date.now() - 25 * HOUR });
        const rows = await countRows('conversions', main.workspaceId);
        const later = await record({ eventType: 'lead' }, { headers: idem });
        expect(later.status, later.text).toBe(201);
        expect(later.body.data.id).not.toBe(first.body.data.id);
        expect(await countRows('conversions', main.workspaceId)).toBe(rows + 1);
        // ... and the new response is the one remembered now.
        const again = await record({ eventType: 'lead' }, { headers: idem });
        expect(again.body.data.id).toBe(later.body.data.id);
      });

      it('refuses a key longer than 255 characters with 400', async () => {
        const res = await record({ eventType: 'lead' }, { headers: { 'idempotency-key': 'k'.repeat(256) } });
        expect(res.status).toBe(400);
        expect((await record({ eventType: 'lead' }, { headers: { 'idempotency-key': 'k'.repeat(255) } })).status).toBe(
          201,
        );
      });

      it('records exactly one conversion for concurrent identical requests with one key', async () => {
        const lone = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
        const k = await freshKey(lone);
        const idem = { 'idempotency-key': 'concurrent-1' };
        const body = { eventType: 'purchase', value: { amountMinor: 999, currency: 'USD' }, metadata: { m: 1 } };
        const results = await Promise.all(Array.from({ length: 10 }, () => record(body, { key: k, headers: idem })));
        const statuses = results.map((r) => r.status);
        // A repeat either gets the first response or, while the first is still being processed, 409.
        for (const s of statuses) expect([201, 409]).toContain(s);
        const ok = results.filter((r) => r.status === 201);
        expect(ok.length).toBeGreaterThanOrEqual(1);
        expect(new Set(ok.map((r) => r.body.data.id)).size).toBe(1);
        expect(await countRows('conversions', lone.workspaceId)).toBe(1);
        expect(await dailyTotal(lone.workspaceId)).toBe(1);
        const row = await knex()('conversions').where({ workspace_id: lone.workspaceId }).first();
        expect(row.id).toBe(ok[0].body.data.id);
        // And afterwards every repeat gets the first response.
        const later = await record(body, { key: k, headers: idem });
        expect(later.status).toBe(201);
        expect(later.body.data.id).toBe(row.id);
      });
    });

    it('needs the scope conversions:write (403 without it, nothing recorded)', async () => {
      const before = await countRows('conversions', main.workspaceId);
      for (const scopes of [['conversions:read'], ['links:read', 'links:write', 'analytics:read']] as Scope[][]) {
        const res = await record({ eventType: 'purchase' }, { key: await freshKey(main, scopes) });
        expect(res.status, res.text).toBe(403);
      }
      expect(await countRows('conversions', main.workspaceId)).toBe(before);
      const writeOnly = await freshKey(main, ['conversions:write']);
      expect((await record({ eventType: 'purchase' }, { key: writeOnly })).status).toBe(201);
      // ... and reading needs conversions:read.
      expect((await server.request('GET', '/api/v1/conversions', { key: writeOnly })).status).toBe(403);
    });
  });

  it('answers 503 with code conversions_unavailable when FEATURE_CONVERSIONS is off', async () => {
    const off = await startTestServer(engine, { env: { FEATURE_CONVERSIONS: 'off' } });
    try {
      const s = await seedWorkspace(off.services.db.knex, { scopes: DATA_SCOPES });
      const post = await off.request('POST', '/api/v1/conversions', { key: s.key, body: { eventType: 'purchase' } });
      expect(post.status, post.text).toBe(503);
      expect(post.body).toMatchObject({ code: 'conversions_unavailable', error: expect.any(String) });
      const get = await off.request('GET', '/api/v1/conversions', { key: s.key });
      expect(get.status).toBe(503);
      expect(get.body.code).toBe('conversions_unavailable');
      const withKey = await off.request('POST', '/api/v1/conversions', {
        key: s.key,
        body: { eventType: 'purchase' },
        headers: { 'idempotency-key': 'k1' },
      });
      expect(withKey.status).toBe(503);
      expect(Number((await off.services.db.knex('conversions').count({ c: '*' }))[0].c)).toBe(0);
    } finally {
      await off.stop();
    }
  });

  // -------------------------------------------------------------------------------------------
  describe('GET /api/v1/conversions against a recount of a seeded data set', () => {
    let data: Seeded;
    let otherWs: Seeded;
    let objects: Objects;
    let otherObjects: Objects;
    let convs: RConversion[] = [];
    let clicks: RClick[] = [];
    let key: string;
    let T: number;
    // The windows, fixed once T is known.
    const W: Record<'mid' | 'midnight' | 'long100' | 'gap' | 'sameDay', Win> = {} as any;

    // The summary through the package's client (shortlink/client), its query typed by the contract.
    const get = async (params: Record<string, string | undefined>, k = key) => {
      const query = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
      const res = await asResponse(
        apiClient(server, k, { retries: 0 }).GET('/api/v1/conversions', { params: { query: query as never } }),
      );
      expect(res.text).not.toContain(LEAK);
      return res;
    };
    const windowParams = (w: Win) => ({ from: iso(w.from), to: iso(w.to) });
    const filterParams = (f: Filters) => ({
      eventType: f.eventType,
      customName: f.customName,
      linkId: f.linkId,
      campaignId: f.campaignId,
      qrCodeId: f.qrCodeId,
    });

    /** The API's summary against the recount over the window it reports. */
    async function expectRecount(
      params: Record<string, string | undefined>,
      f: Filters,
      window?: Win,
      workspaceId = data.workspaceId,
    ) {
      const res = await get({ ...params, ...filterParams(f) });
      expect(res.status, res.text).toBe(200);
      const { windowFrom, windowTo, ...figures } = res.body.data;
      const w = { from: Date.parse(windowFrom), to: Date.parse(windowTo) };
      if (window) expect(w).toEqual(window);
      const expected = recountSummary(workspaceId, convs, clicks, w, f, Date.now());
      expect(normalizeValues(figures), `filters ${JSON.stringify(f)} over [${windowFrom}, ${windowTo})`).toEqual(
        normalizeValues(expected),
      );
      return { res, expected };
    }

    beforeAll(async () => {
      data = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
      otherWs = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
      objects = await createObjects(server, data, { links: 5, campaigns: 3, qrOn: [0, 0, 1, 2] });
      otherObjects = await createObjects(server, otherWs, { links: 2, campaigns: 1, qrOn: [0] });
      T = Date.now();
      W.mid = {
        from: midnight(T - 20 * DAY) + 13 * HOUR + 37 * MINUTE + 12_345,
        to: midnight(T - 3 * DAY) + 5 * HOUR + 2 * MINUTE + 3_456,
      };
      W.midnight = { from: midnight(T - 45 * DAY), to: midnight(T - 10 * DAY) };
      W.long100 = { from: midnight(T - 100 * DAY) + 3 * HOUR, to: midnight(T - DAY) + 18 * HOUR };
      W.gap = { from: T - 65 * DAY, to: T - 61 * DAY };
      W.sameDay = { from: midnight(T - 7 * DAY) + 2 * HOUR, to: midnight(T - 7 * DAY) + 20 * HOUR };

      const r = rng(20261122);
      const planned: PlannedConversion[] = [];
      const ageAt = (maxDays: number) => T - Math.floor(2 * MINUTE + r.next() * (maxDays * DAY - 2 * MINUTE));
      for (let i = 0; i < 260; i++) planned.push(randomConversion(r, objects, ageAt(120)));
      // Exactly on the edges of every window, and one millisecond inside or outside them.
      for (const w of Object.values(W))
        for (const at of [w.from - 1, w.from, w.to - 1, w.to]) planned.push(randomConversion(r, objects, at));
      for (let i = 0; i < 8; i++)
        planned.push(randomConversion(r, objects, W.gap.from + Math.floor(r.next() * (W.gap.to - W.gap.from))));
      // Probes for the edge semantics.
      const probe = (name: string, at: number, extra: Record<string, unknown> = {}): PlannedConversion => ({
        body: { eventType: 'custom', customName: name, occurredAt: iso(at), ...extra },
        expected: {
          workspaceId: data.workspaceId,
          eventType: 'custom',
          customName: name,
          linkId: null,
          campaignId: null,
          qrCodeId: null,
          value: null,
          occurredAt: at,
        },
      });
      planned.push(
        probe('mid_from', W.mid.from),
        probe('mid_to', W.mid.to),
        probe('mid_last', W.mid.to - 1),
        probe('mid_before', W.mid.from - 1),
      );
      planned.push(probe('midnight_from', W.midnight.from), probe('midnight_to', W.midnight.to));

      // Clicks: none at all in the workspace around the gap window; none older than 88 days
      // on a partial day of a window (raw events of those are gone after retention).
      const noClicks = (t: number) => t >= T - 66 * DAY && t < T - 60 * DAY;
      const oldOnEdgeDay = (t: number) => t < T - 88 * DAY && dayOf(t) === dayOf(W.long100.from);
      const times: number[] = [];
      while (times.length < 800) {
        const t = ageAt(120);
        if (!noClicks(t) && !oldOnEdgeDay(t)) times.push(t);
      }
      for (const w of [W.mid, W.midnight, W.sameDay]) times.push(w.from - 1, w.from, w.from, w.to - 1, w.to, w.to);
      times.push(W.long100.to - 1, W.long100.to);
      clicks = randomClicks(r, objects, times);

      const otherPlanned: PlannedConversion[] = [];
      for (let i = 0; i < 60; i++) otherPlanned.push(randomConversion(r, otherObjects, ageAt(120)));
      for (const w of Object.values(W)) otherPlanned.push(randomConversion(r, otherObjects, w.from));
      // The other workspace has clicks everywhere, the gap included.
      const otherClicks = randomClicks(
        r,
        otherObjects,
        Array.from({ length: 300 }, () => ageAt(120)).filter((t) => !oldOnEdgeDay(t)),
      );
      otherClicks.push(
        ...randomClicks(
          r,
          otherObjects,
          Array.from({ length: 20 }, () => W.gap.from + Math.floor(r.next() * (W.gap.to - W.gap.from))),
        ),
      );

      convs = [
        ...(await postConversions(server, data, planned)),
        ...(await postConversions(server, otherWs, otherPlanned)),
      ];
      clicks = [...clicks, ...otherClicks];
      await insertClicks(knex(), clicks, T - 88 * DAY);
      // A link deleted since keeps its history.
      const del = await server.request('DELETE', `/api/v1/links/${objects.links[4]}`, { key: await freshKey(data) });
      expect(del.status).toBe(200);
    }, 180_000);

    beforeEach(async () => {
      key = await freshKey(data);
    });

    it('seeds a data set rich enough to prove something', () => {
      const s = recountSummary(data.workspaceId, convs, clicks, W.long100, {}, T);
      expect(s.total).toBeGreaterThan(150);
      expect(s.unattributedConversions).toBeGreaterThan(3);
      expect(s.byEventType.filter((e) => e.eventType === 'custom').length).toBeGreaterThanOrEqual(3);
      expect(s.value.map((v) => v.currency)).toEqual(['EUR', 'JPY', 'USD']);
      expect(s.byLink.length).toBe(5);
      expect(s.byQr.length).toBe(4);
      expect(s.byCampaign.length).toBe(3);
      expect(s.rate.reason).toBe('beyond_click_retention');
      const mid = recountSummary(data.workspaceId, convs, clicks, W.mid, {}, T);
      expect(mid.total).toBeGreaterThan(25);
      expect(mid.rate.supported).toBe(true);
      expect(mid.byLink.filter((l) => l.rate.supported).length).toBeGreaterThanOrEqual(3);
      expect(mid.value.length).toBeGreaterThanOrEqual(2);
      expect(convs.filter((c) => c.value === null && c.workspaceId === data.workspaceId).length).toBeGreaterThan(50);
      expect(convs.some((c) => c.value?.amountMinor === 0)).toBe(true);
      expect(recountSummary(data.workspaceId, convs, clicks, W.gap, {}, T).total).toBeGreaterThan(5);
      expect(recountSummary(data.workspaceId, convs, clicks, W.gap, {}, T).rate.reason).toBe('no_clicks_in_window');
      expect(s.byEventType.length).toBeGreaterThanOrEqual(7);
    });

    it('defaults to the last 30 days and matches the recount', async () => {
      const before = Date.now();
      const { res } = await expectRecount({}, {});
      const after = Date.now();
      const to = Date.parse(res.body.data.windowTo);
      expect(to).toBeGreaterThanOrEqual(before - 1);
      expect(to).toBeLessThanOrEqual(after + 1);
      expect(to - Date.parse(res.body.data.windowFrom)).toBe(30 * DAY);
      expect(res.body.data.unavailable).toBe(false);
      expect(res.body.data.rate.supported).toBe(true);
      // from alone: to defaults to now; to alone: from defaults to 30 days before it.
      const toOnly = await get({ to: iso(W.mid.to) });
      expect(toOnly.body.data.windowFrom).toBe(iso(W.mid.to - 30 * DAY));
      await expectRecount({ to: iso(W.mid.to) }, {}, { from: W.mid.to - 30 * DAY, to: W.mid.to });
      const fromOnly = await get({ from: iso(W.mid.from) });
      expect(Date.parse(fromOnly.body.data.windowTo)).toBeGreaterThanOrEqual(after);
    });

    it('matches the recount over a window with edges in the middle of days (given with an offset)', async () => {
      const withOffset = new Date(W.mid.from + 2 * HOUR).toISOString().replace('Z', '+02:00');
      await expectRecount({ from: withOffset, to: iso(W.mid.to) }, {}, W.mid);
    });

    it('matches the recount over a window exactly on UTC midnights', async () => {
      await expectRecount(windowParams(W.midnight), {}, W.midnight);
    });

    it('matches the recount over a window inside one day', async () => {
      await expectRecount(windowParams(W.sameDay), {}, W.sameDay);
    });

    it('matches the recount over 100 days, where every rate is beyond_click_retention', async () => {
      const { res } = await expectRecount(windowParams(W.long100), {}, W.long100);
      const d = res.body.data;
      expect(d.rate).toMatchObject({ supported: false, rate: null, reason: 'beyond_click_retention' });
      expect(d.rate.clicks).toBeGreaterThan(0);
      for (const e of [...d.byLink, ...d.byQr])
        expect(e.rate).toMatchObject({ supported: false, rate: null, reason: 'beyond_click_retention' });
      expect(d.unavailable).toBe(false);
    });

    it('matches the recount over a window without clicks: no_clicks_in_window, never a zero rate', async () => {
      const { res } = await expectRecount(windowParams(W.gap), {}, W.gap);
      const d = res.body.data;
      expect(d.total).toBeGreaterThan(0);
      expect(d.rate).toEqual({
        supported: false,
        conversions: d.attributedConversions,
        clicks: 0,
        rate: null,
        reason: 'no_clicks_in_window',
      });
      for (const e of d.byLink)
        expect(e.rate).toMatchObject({ supported: false, clicks: 0, rate: null, reason: 'no_clicks_in_window' });
    });

    it('counts a conversion at exactly from and none at exactly to', async () => {
      const at = async (customName: string, w: Win) => (await get({ ...windowParams(w), customName })).body.data.total;
      expect(await at('mid_from', W.mid)).toBe(1);
      expect(await at('mid_before', W.mid)).toBe(0);
      expect(await at('mid_last', W.mid)).toBe(1);
      expect(await at('mid_to', W.mid)).toBe(0);
      expect(await at('midnight_from', W.midnight)).toBe(1);
      expect(await at('midnight_to', W.midnight)).toBe(0);
      // The next window starts where this one ends and counts it.
      expect(await at('mid_to', { from: W.mid.to, to: W.mid.to + HOUR })).toBe(1);
      expect(await at('midnight_to', { from: W.midnight.to, to: W.midnight.to + DAY })).toBe(1);
      // from equal to to is an empty window.
      const empty = await get({ from: iso(W.mid.from), to: iso(W.mid.from) });
      expect(empty.status).toBe(200);
      expect(empty.body.data).toMatchObject({
        total: 0,
        byEventType: [],
        byLink: [],
        byCampaign: [],
        byQr: [],
        value: [],
      });
    });

    const filterCases = (): Array<[string, Filters]> => {
      const [L1, L2, L3, , L5] = objects.links;
      const [C1, C2, C3] = objects.campaigns;
      const qrs = Object.keys(objects.qrs);
      return [
        ['eventType purchase', { eventType: 'purchase' }],
        ['eventType signup', { eventType: 'signup' }],
        ['eventType custom', { eventType: 'custom' }],
        ['customName webinar', { customName: 'webinar' }],
        ['customName of 40 characters', { customName: 'x'.repeat(40) }],
        ['eventType custom and customName', { eventType: 'custom', customName: 'trial_start' }],
        ['linkId', { linkId: L1 }],
        ['linkId of a link deleted since', { linkId: L5 }],
        ['campaignId', { campaignId: C1 }],
        ['qrCodeId', { qrCodeId: qrs[0] }],
        ['qrCodeId of another link', { qrCodeId: qrs[2] }],
        ['linkId and eventType', { linkId: L1, eventType: 'purchase' }],
        ['linkId and its qrCodeId', { linkId: L1, qrCodeId: qrs[1] }],
        ['linkId and a foreign qrCodeId', { linkId: L3, qrCodeId: qrs[0] }],
        ['campaignId and qrCodeId', { campaignId: C2, qrCodeId: qrs[2] }],
        ['linkId, campaignId and eventType', { linkId: L2, campaignId: C1, eventType: 'signup' }],
        ['campaignId and customName', { campaignId: C3, customName: 'newsletter_optin' }],
        ['eventType and campaignId', { eventType: 'purchase', campaignId: C2 }],
        ['an unknown linkId', { linkId: 'lnk_unknown0000000000' }],
        ['an unknown customName', { customName: 'nobody_sends_this' }],
      ];
    };

    it('matches the recount for every filter and combination over a window with edges mid-day', async () => {
      for (const [, f] of filterCases()) await expectRecount(windowParams(W.mid), f, W.mid);
    });
    it('matches the recount for every filter and combination over UTC midnights', async () => {
      for (const [, f] of filterCases()) await expectRecount(windowParams(W.midnight), f, W.midnight);
    });
    it('matches the recount for every filter and combination over 100 days', async () => {
      for (const [, f] of filterCases()) await expectRecount(windowParams(W.long100), f, W.long100);
    });

    it("never shows another workspace's data, not even through its ids", async () => {
      const mine = await expectRecount(windowParams(W.mid), {}, W.mid);
      // Another workspace's link, campaign and QR code ids yield zero counts - and no clicks.
      const foreign: Filters[] = [
        { linkId: otherObjects.links[0] },
        { campaignId: otherObjects.campaigns[0] },
        { qrCodeId: Object.keys(otherObjects.qrs)[0] },
      ];
      for (const f of foreign) {
        for (const w of [W.mid, W.midnight]) {
          const { res } = await expectRecount(windowParams(w), f, w);
          expect(res.body.data.total).toBe(0);
          // A link's or QR code's rate counts its own clicks: here none may come from the other workspace.
          if (!f.campaignId)
            expect(res.body.data.rate.clicks, `clicks of another workspace leaked through ${JSON.stringify(f)}`).toBe(
              0,
            );
        }
      }
      // The other workspace's own key sees its own data only.
      const otherKey = await freshKey(otherWs);
      const res = await get(windowParams(W.mid), otherKey);
      const theirs = recountSummary(otherWs.workspaceId, convs, clicks, W.mid, {}, Date.now());
      const { windowFrom: _f, windowTo: _t, ...figures } = res.body.data;
      expect(normalizeValues(figures)).toEqual(normalizeValues(theirs));
      expect(theirs.total).not.toBe(mine.expected.total);
      // No parameter changes the workspace.
      const sneaky = await get({ ...windowParams(W.mid), workspaceId: otherWs.workspaceId });
      if (sneaky.status === 200) expect(sneaky.body.data).toEqual(mine.res.body.data);
      else expect(sneaky.status).toBe(400);
    });

    it('reports unavailable for a window starting more than 400 days ago (400 days long)', async () => {
      const now = Date.now();
      const w = { from: now - 400 * DAY - HOUR, to: now - HOUR };
      const { res } = await expectRecount(windowParams(w), {}, w);
      expect(res.body.data.unavailable).toBe(true);
      expect(res.body.data.rate.reason).toBe('beyond_click_retention');
      const recent = { from: now - 399 * DAY, to: now };
      const r2 = await expectRecount(windowParams(recent), {}, recent);
      expect(r2.res.body.data.unavailable).toBe(false);
    });

    it('leaves the rate undefined with clicks_unavailable, and the conversions standing, when clicks cannot be read', async () => {
      const before = await get(windowParams(W.mid));
      expect(before.body.data.rate.supported).toBe(true);
      // The daily click counts are gone for a moment (a broken migration, a restore in progress).
      await knex().schema.renameTable('link_daily_clicks', 'link_daily_clicks_away');
      try {
        const res = await get(windowParams(W.mid));
        expect(res.status).toBe(200);
        expect(res.body.data.rate).toEqual({
          supported: false,
          conversions: before.body.data.rate.conversions,
          clicks: 0,
          rate: null,
          reason: 'clicks_unavailable',
        });
        expect(res.body.data.total).toBe(before.body.data.total);
        expect(res.body.data.byLink.every((l: any) => l.rate.reason === 'clicks_unavailable')).toBe(true);
      } finally {
        await knex().schema.renameTable('link_daily_clicks_away', 'link_daily_clicks');
      }
    });

    describe('window and filter validation', () => {
      it.each([
        ['a window over 400 days', 'from', () => ({ from: iso(W.mid.to - 400 * DAY - 1), to: iso(W.mid.to) })],
        ['a window of 401 days', 'from', () => ({ from: iso(W.mid.to - 401 * DAY), to: iso(W.mid.to) })],
        ['from alone more than 400 days ago', 'from', () => ({ from: iso(Date.now() - 401 * DAY) })],
        ['from after to', 'from', () => ({ from: iso(W.mid.to + 1), to: iso(W.mid.to) })],
        ['a malformed from', 'from', () => ({ from: 'yesterday' })],
        ['a from without a zone', 'from', () => ({ from: '2026-01-01T00:00:00' })],
        ['a from on a day that does not exist', 'from', () => ({ from: '2026-02-30T00:00:00Z' })],
        ['a malformed to', 'to', () => ({ to: 'now' })],
        ['a to that is a bare number', 'to', () => ({ to: '1700000000000' })],
        ['a customName of 41 characters', 'customName', () => ({ customName: 'n'.repeat(41) })],
        ['an empty customName', 'customName', () => ({ customName: '' })],
        ['customName with another eventType', 'customName', () => ({ customName: 'webinar', eventType: 'purchase' })],
        ['an unknown eventType', 'eventType', () => ({ eventType: 'clicks' })],
      ])('refuses %s with 400 and field %s', async (_t, field, params) => {
        const res = await get(params());
        expect(res.status, res.text).toBe(400);
        expect(res.body.field).toBe(field);
        expect(typeof res.body.error).toBe('string');
      });

      it('accepts exactly 400 days and does not clamp a longer window', async () => {
        const w = { from: W.mid.to - 400 * DAY, to: W.mid.to };
        await expectRecount(windowParams(w), {}, w);
      });
    });

    it('counts clicks and QR scans written by real redirects', async () => {
      // A fresh workspace so the data set above stays as seeded.
      const fresh = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
      const o = await createObjects(server, fresh, { links: 1, campaigns: 0, qrOn: [0] });
      const link = (await knex()('links').where({ id: o.links[0] }).first()) as { slug: string };
      const qr = (await knex()('qr_codes')
        .where({ id: Object.keys(o.qrs)[0] })
        .first()) as { code: string };
      const ua = {
        'user-agent':
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      };
      for (let i = 0; i < 3; i++)
        expect((await server.request('GET', `/${link.slug}`, { headers: ua })).status).toBe(302);
      for (let i = 0; i < 2; i++)
        expect([301, 302]).toContain((await server.request('GET', `/qr/${qr.code}`, { headers: ua })).status);
      await server.clicks.flush();
      const k = await freshKey(fresh);
      for (const body of [
        { eventType: 'purchase', linkId: o.links[0] },
        { eventType: 'signup', qrCodeId: Object.keys(o.qrs)[0] },
      ]) {
        expect((await server.request('POST', '/api/v1/conversions', { key: k, body })).status).toBe(201);
      }
      const res = await get({ from: iso(Date.now() - HOUR), to: iso(Date.now() + MINUTE) }, k);
      expect(res.status).toBe(200);
      const d = res.body.data;
      expect(d.rate).toEqual({ supported: true, conversions: 2, clicks: 5, rate: 2 / 5 });
      expect(d.byLink).toEqual([
        {
          id: o.links[0],
          conversions: 2,
          value: [],
          rate: { supported: true, conversions: 2, clicks: 5, rate: 2 / 5 },
        },
      ]);
      expect(d.byQr).toEqual([
        {
          id: Object.keys(o.qrs)[0],
          conversions: 1,
          value: [],
          rate: { supported: true, conversions: 1, clicks: 2, rate: 1 / 2 },
        },
      ]);
    });
  });
});
