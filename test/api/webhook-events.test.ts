// Events go into the webhook outbox (webhook_deliveries) in the transaction of the change that
// causes them, as one row per subscribed subscription, with each variant's `data` object exactly
// as its AsyncAPI schema says (closed). Through HTTPS on every database engine.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Scope } from '../../src/domain/access';
import { SPIKE_WINDOW_MS, GEO_WINDOW_MS, windowStartOf } from '../../src/domain/analytics-alerts';
import * as linksRepo from '../../src/db/repos/links';
import { createKey } from '../../src/db/repos/api-keys';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { createQrCode, createTag } from '../../src/db/repos/workspace-objects';
import { eventCatalog, type Variant } from '../../src/webhooks/catalog';
import { serviceEvent } from '../../src/domain/events';
import { domainVerified } from '../../src/webhooks/domain-events';
import { policyDisabled } from '../../src/webhooks/link-events';
import { testEngines } from '../support/databases';
import { seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

const SCOPES: Scope[] = ['links:read', 'links:write', 'webhooks:read', 'webhooks:write', 'conversions:write'];
const SHORT_DOMAIN = 'localhost:8443';
const PERSON =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

interface DeliveryRow {
  id: string;
  subscription_id: string;
  workspace_id: string;
  variant: Variant;
  event_id: string;
  event_type: string;
  request_id: string | null;
  occurred_at: number;
  data: string;
  status: string;
  attempts: number;
  next_attempt_at: number;
}

/** Every row's data must validate against its variant's AsyncAPI data schema (closed). */
function expectContractData(row: DeliveryRow): Record<string, any> {
  const schema = eventCatalog(row.variant).dataSchema(row.event_type);
  expect(schema, `${row.variant} ${row.event_type}`).toBeDefined();
  const data = JSON.parse(row.data);
  const validate = ajv.compile(schema!);
  expect(validate(data), `${row.variant} ${row.event_type}: ${JSON.stringify(validate.errors)}`).toBe(true);
  expect(Object.keys(data).sort()).toEqual(Object.keys((schema as any).properties).sort());
  return data;
}

describe.each(testEngines())('webhook events on %s', (engine) => {
  let server: TestServer;
  let owner: Seeded;
  let other: Seeded;
  /** Subscriptions of the owner's workspace. */
  const subs = { allA: '', allB: '', disabledA: '', disabledB: '', deletedOnlyA: '', deletedB: '' };
  let theirs = '';
  const knex = () => server.services.db.knex;

  const _deliveries = async (where: Partial<DeliveryRow> = {}): Promise<DeliveryRow[]> =>
    (await knex()('webhook_deliveries').where(where).orderBy('seq')) as DeliveryRow[];
  const count = async () => Number((await knex()('webhook_deliveries').count({ n: '*' }))[0].n);
  /** Runs `cause` and returns the delivery rows it wrote. */
  async function written(cause: () => Promise<unknown>): Promise<DeliveryRow[]> {
    const before = Number((await knex()('webhook_deliveries').max({ m: 'seq' }))[0].m ?? 0);
    await cause();
    return (await knex()('webhook_deliveries').where('seq', '>', before).orderBy('seq')) as DeliveryRow[];
  }
  const bySubscription = (rows: DeliveryRow[], id: string) => rows.filter((r) => r.subscription_id === id);

  const api = (method: string, path: string, body?: object) => server.request(method, path, { key: owner.key, body });
  const createLink = async (body: object) => {
    const res = await api('POST', '/api/v1/links', body);
    expect(res.status, res.text).toBe(201);
    return res;
  };

  /** The common checks: the subscribed enabled subscriptions got the event, no one else did. */
  function expectFanOut(rows: DeliveryRow[], type: string, variants: Variant[], requestId: string | null) {
    const expected = variants.map((v) => (v === 'A' ? subs.allA : subs.allB)).sort();
    expect(rows.map((r) => r.subscription_id).sort(), type).toEqual(expected);
    for (const row of rows) {
      expect(row.event_type).toBe(type);
      expect(row.variant).toBe(row.subscription_id === subs.allA ? 'A' : 'B');
      expect(row.workspace_id).toBe(owner.workspaceId);
      expect(row.request_id).toBe(requestId);
      expect(row.status).toBe('PENDING');
      expect(Number(row.attempts)).toBe(0);
      expect(row.id).toMatch(/^dlv_/);
      expect(row.event_id).toMatch(/^evt_/);
      expect(Number(row.next_attempt_at)).toBeLessThanOrEqual(Date.now());
      expect(Number(row.occurred_at)).toBeGreaterThan(0);
      expectContractData(row);
    }
    // One event: the rows of its subscriptions share its id.
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(rows.length ? 1 : 0);
  }
  const dataOf = (rows: DeliveryRow[], variant: Variant) => JSON.parse(rows.find((r) => r.variant === variant)!.data);

  beforeAll(async () => {
    // TRUST_PROXY lets the test tell the visitor's country (cf-ipcountry) as a CDN would.
    server = await startTestServer(engine, { env: { TRUST_PROXY: '1' } });
    // The outbox rows are what this file checks; sending them is test/webhooks' subject.
    await server.webhooks.stop();
    owner = await seedWorkspace(knex(), { scopes: SCOPES });
    other = await seedWorkspace(knex(), { scopes: SCOPES });
    const all = (v: Variant) => eventCatalog(v).events.map((e) => e.name);
    const makeA = async (events: string[], key = owner.key, workspaceId = owner.workspaceId) => {
      const res = await server.request('POST', '/api/webhooks', {
        key,
        body: { workspaceId, url: 'https://hooks.example.com/a', events },
      });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const makeB = async (events: string[]) => {
      const res = await api('POST', '/api/v1/webhooks', {
        url: 'https://hooks.example.com/b',
        events,
        secret: 'x'.repeat(24),
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    subs.allA = await makeA(all('A'));
    subs.allB = await makeB(all('B'));
    subs.disabledA = await makeA(all('A'));
    expect((await api('PATCH', `/api/webhooks/${subs.disabledA}`, { enabled: false })).status).toBe(200);
    subs.disabledB = await makeB(all('B'));
    await knex()('webhook_subscriptions').where({ id: subs.disabledB }).update({ enabled: false });
    subs.deletedOnlyA = await makeA(['link.deleted']);
    subs.deletedB = await makeB(all('B'));
    expect((await api('DELETE', `/api/v1/webhooks/${subs.deletedB}`)).status).toBe(204);
    theirs = await makeA(all('A'), other.key, other.workspaceId);
  });
  beforeEach(async () => {
    owner = { ...owner, ...(await createKey(knex(), owner.workspaceId, owner.userId, SCOPES, null)) };
  });
  afterAll(async () => server?.stop());

  describe('link.created', () => {
    it('writes one row per subscribed subscription with the request id and the contract data of each variant', async () => {
      const tag = await createTag(knex(), owner.workspaceId, `spring-${engine}`, '#00ff00');
      let res: any;
      const rows = await written(async () => {
        res = await createLink({
          url: 'https://shop.example.com/spring?utm_source=x',
          slug: `spring-${engine}`,
          title: 'Spring',
          tagIds: [tag],
        });
      });
      expectFanOut(rows, 'link.created', ['A', 'B'], res.headers['x-service-request-id']);
      const link = res.body.data;
      expect(dataOf(rows, 'A')).toEqual({
        id: link.id,
        workspaceId: owner.workspaceId,
        slug: link.slug,
        domain: SHORT_DOMAIN,
        destinationUrl: 'https://shop.example.com/spring?utm_source=x',
        title: 'Spring',
      });
      expect(dataOf(rows, 'B')).toEqual({
        link_id: link.id,
        slug: link.slug,
        url: 'https://shop.example.com/spring?utm_source=x',
        short_url: `https://${SHORT_DOMAIN}/${link.slug}`,
        domain: SHORT_DOMAIN,
        tags: [`spring-${engine}`],
        created_by: owner.userId,
      });
      expect(bySubscription(rows, subs.deletedOnlyA)).toEqual([]);
      expect(bySubscription(rows, theirs)).toEqual([]);
    });

    it('names the custom domain a link lives on', async () => {
      const host = `go-${engine}-${Date.now()}.example.com`;
      const domainId = await addDomain(knex(), owner.workspaceId, host);
      await setDomainStatus(knex(), domainId, 'ACTIVE');
      const rows = await written(() => createLink({ url: 'https://example.com/custom', slug: 'promo', domainId }));
      expectFanOut(rows, 'link.created', ['A', 'B'], rows[0].request_id);
      expect(dataOf(rows, 'A').domain).toBe(host);
      expect(dataOf(rows, 'B')).toMatchObject({ domain: host, short_url: `https://${host}/promo` });
    });

    it('writes nothing when the create fails (409 taken slug, 400)', async () => {
      await createLink({ url: 'https://example.com', slug: `taken-${engine}` });
      const before = await count();
      const taken = await api('POST', '/api/v1/links', { url: 'https://example.com/2', slug: `taken-${engine}` });
      expect(taken.status).toBe(409);
      const bad = await api('POST', '/api/v1/links', { url: 'ftp://example.com' });
      expect(bad.status).toBe(400);
      expect(await count()).toBe(before);
    });

    it('rolls the deliveries back with the change when the transaction fails after the event', async () => {
      const before = await count();
      const row = {
        ...(await knex()('links').where({ workspace_id: owner.workspaceId }).first()),
        id: 'lnk_rollback',
        slug: `rollback-${engine}`,
      };
      delete row.seq;
      await expect(
        knex().transaction(async (trx) => {
          await linksRepo.insertLink(trx, row, [], async () => [
            serviceEvent('link.deleted', {
              workspaceId: owner.workspaceId,
              occurredAt: Date.now(),
              subject: { id: row.id, slug: row.slug, domain: SHORT_DOMAIN },
            }),
          ]);
          expect(Number((await trx('webhook_deliveries').count({ n: '*' }))[0].n)).toBeGreaterThan(before);
          throw new Error('the change fails after its event was written');
        }),
      ).rejects.toThrow(/fails after/);
      expect(await count()).toBe(before);
      expect(await knex()('links').where({ id: 'lnk_rollback' }).first()).toBeUndefined();
    });
  });

  describe('link.updated', () => {
    it('names exactly the changed fields, in contract order, with the link after the change', async () => {
      const link = (await createLink({ url: 'https://example.com/u1', title: 'Old' })).body.data;
      let res: any;
      const rows = await written(async () => {
        res = await api('PATCH', `/api/v1/links/${link.id}`, {
          title: 'New',
          url: 'https://example.com/u2',
          redirectType: 'TEMPORARY',
          slug: link.slug,
        });
      });
      expect(res.status).toBe(200);
      expectFanOut(rows, 'link.updated', ['A', 'B'], res.headers['x-service-request-id']);
      expect(dataOf(rows, 'A')).toEqual({
        id: link.id,
        workspaceId: owner.workspaceId,
        slug: link.slug,
        domain: SHORT_DOMAIN,
        destinationUrl: 'https://example.com/u2',
        title: 'New',
        changedFields: ['url', 'title'],
        updatedAt: res.body.data.updatedAt,
      });
      expect(dataOf(rows, 'B')).toEqual({
        link_id: link.id,
        slug: link.slug,
        url: 'https://example.com/u2',
        short_url: `https://${SHORT_DOMAIN}/${link.slug}`,
        domain: SHORT_DOMAIN,
        changed_fields: ['url', 'title'],
      });
    });

    it('sends nothing for a PATCH that changes no value', async () => {
      const tag = await createTag(knex(), owner.workspaceId, `same-${engine}`, '#000000');
      const link = (
        await createLink({ url: 'https://example.com/same', title: 'Same', tagIds: [tag], password: 'open-sesame' })
      ).body.data;
      const rows = await written(async () => {
        const res = await api('PATCH', `/api/v1/links/${link.id}`, {
          url: 'https://example.com/same',
          title: '  Same ',
          status: 'ACTIVE',
          tagIds: [tag, tag],
          password: 'open-sesame',
          neverExpires: true,
          expiresAt: null,
          clickLimit: null,
          previewTitle: null,
        });
        expect(res.status).toBe(200);
        expect((await api('PATCH', `/api/v1/links/${link.id}`, {})).status).toBe(200);
      });
      expect(rows).toEqual([]);
    });

    it('reports expiry, password, tags and status changes by their PATCH names', async () => {
      const tag = await createTag(knex(), owner.workspaceId, `t-${engine}`, '#111111');
      const link = (
        await createLink({ url: 'https://example.com/x', expiresAt: new Date(Date.now() + 86_400_000).toISOString() })
      ).body.data;
      const changed = async (body: object) => {
        const rows = await written(async () =>
          expect((await api('PATCH', `/api/v1/links/${link.id}`, body)).status).toBe(200),
        );
        expectFanOut(rows, 'link.updated', ['A', 'B'], rows[0]?.request_id ?? null);
        expect(dataOf(rows, 'B').changed_fields).toEqual(dataOf(rows, 'A').changedFields);
        return dataOf(rows, 'A').changedFields;
      };
      expect(await changed({ neverExpires: true })).toEqual(['expiresAt', 'neverExpires']);
      expect(await changed({ password: 'secret-1', tagIds: [tag] })).toEqual(['password', 'tagIds']);
      expect(await changed({ password: 'secret-2' })).toEqual(['password']);
      expect(await changed({ status: 'DISABLED', previewTitle: 'Hi' })).toEqual(['status', 'previewTitle']);
    });

    it('sends link.updated [status] on an operator policy disable, once', async () => {
      const link = (await createLink({ url: 'https://example.com/policy' })).body.data;
      const rows = await written(() =>
        linksRepo.setPolicyDisabled(
          knex(),
          link.id,
          policyDisabled({ shortDomain: SHORT_DOMAIN, requestId: 'cli-run-1' }),
        ),
      );
      expectFanOut(rows, 'link.updated', ['A', 'B'], 'cli-run-1');
      expect(dataOf(rows, 'A')).toMatchObject({ id: link.id, changedFields: ['status'] });
      expect(dataOf(rows, 'B')).toMatchObject({ link_id: link.id, changed_fields: ['status'] });
      const current = await knex()('links').where({ id: link.id }).first();
      expect(dataOf(rows, 'A').updatedAt).toBe(new Date(Number(current.updated_at)).toISOString());
      expect(
        await written(() =>
          linksRepo.setPolicyDisabled(knex(), link.id, policyDisabled({ shortDomain: SHORT_DOMAIN })),
        ),
      ).toEqual([]);
    });
  });

  describe('link.deleted', () => {
    it('writes the deletion for every subscription naming it, including a link.deleted-only one', async () => {
      const link = (await createLink({ url: 'https://example.com/gone' })).body.data;
      let res: any;
      const rows = await written(async () => {
        res = await api('DELETE', `/api/v1/links/${link.id}`);
      });
      expect(res.status).toBe(200);
      const onlyDeleted = bySubscription(rows, subs.deletedOnlyA);
      expect(onlyDeleted).toHaveLength(1);
      expectFanOut(
        rows.filter((r) => r.subscription_id !== subs.deletedOnlyA),
        'link.deleted',
        ['A', 'B'],
        res.headers['x-service-request-id'],
      );
      expect(onlyDeleted[0].event_id).toBe(rows[0].event_id);
      expect(JSON.parse(onlyDeleted[0].data)).toEqual({
        id: link.id,
        workspaceId: owner.workspaceId,
        slug: link.slug,
        domain: SHORT_DOMAIN,
      });
      expect(dataOf(rows, 'B')).toEqual({
        link_id: link.id,
        slug: link.slug,
        short_url: `https://${SHORT_DOMAIN}/${link.slug}`,
        domain: SHORT_DOMAIN,
      });
      expect(
        await written(async () => expect((await api('DELETE', `/api/v1/links/${link.id}`)).status).toBe(404)),
      ).toEqual([]);
    });
  });

  describe('domain.verified', () => {
    it('is sent when a domain becomes verified, again after a disable, not for a repeated verify', async () => {
      const host = `verified-${engine}-${Date.now()}.example.com`;
      const domainId = await addDomain(knex(), owner.workspaceId, host);
      const rows = await written(() => setDomainStatus(knex(), domainId, 'ACTIVE', domainVerified('cli-run-2')));
      expectFanOut(rows, 'domain.verified', ['A', 'B'], 'cli-run-2');
      const verifiedAt = new Date(
        Number((await knex()('domains').where({ id: domainId }).first()).verified_at),
      ).toISOString();
      expect(dataOf(rows, 'A')).toEqual({ id: domainId, workspaceId: owner.workspaceId, host, verifiedAt });
      expect(dataOf(rows, 'B')).toEqual({ domain_id: domainId, domain: host, verified_at: verifiedAt });
      expect(await written(() => setDomainStatus(knex(), domainId, 'ACTIVE', domainVerified()))).toEqual([]);
      expect(await written(() => setDomainStatus(knex(), domainId, 'DISABLED'))).toEqual([]);
      await new Promise((r) => setTimeout(r, 3));
      const again = await written(() => setDomainStatus(knex(), domainId, 'ACTIVE', domainVerified()));
      expectFanOut(again, 'domain.verified', ['A', 'B'], null);
      expect(dataOf(again, 'A').verifiedAt > verifiedAt).toBe(true);
    });
  });

  describe('conversion.created', () => {
    it('is written for Variant A only, with the request id, and validates against the contract', async () => {
      const link = (await createLink({ url: 'https://example.com/buy' })).body.data;
      let res: any;
      const rows = await written(async () => {
        res = await api('POST', '/api/v1/conversions', {
          eventType: 'purchase',
          linkId: link.id,
          value: { amountMinor: 4999, currency: 'EUR' },
          metadata: { order: 'o-1' },
        });
      });
      expect(res.status, res.text).toBe(201);
      expectFanOut(rows, 'conversion.created', ['A'], res.headers['x-service-request-id']);
      expect(dataOf(rows, 'A')).toMatchObject({
        id: res.body.data.id,
        workspaceId: owner.workspaceId,
        eventType: 'purchase',
        customName: null,
        linkId: link.id,
        campaignId: null,
        qrCodeId: null,
        value: { amountMinor: 4999, currency: 'EUR' },
      });
      expect(rows[0].data).not.toContain('o-1');
    });
  });

  describe('clicks', () => {
    it('a click writes link.clicked (Variant B only), a QR scan writes qr.scanned instead; no IP address', async () => {
      const link = (await createLink({ url: 'https://example.com/visited', slug: `visited-${engine}` })).body.data;
      const qr = await createQrCode(knex(), owner.workspaceId, link.id);
      const rows = await written(async () => {
        const click = await server.request('GET', `/${link.slug}`, {
          headers: {
            'user-agent': PERSON,
            referer: 'https://news.example.org/story?id=1',
            'cf-ipcountry': 'DE',
            'x-forwarded-for': '203.0.113.9',
          },
        });
        expect(click.status).toBe(302);
        const scan = await server.request('GET', `/qr/${qr.code}`, { headers: { 'user-agent': PERSON } });
        expect(scan.status).toBe(302);
        await server.clicks.flush();
      });
      expect(rows.map((r) => r.event_type)).toEqual(['link.clicked', 'qr.scanned']);
      for (const row of rows) {
        expect(row.subscription_id).toBe(subs.allB);
        expect(row.request_id).toBeNull();
        expectContractData(row);
        expect(row.data).not.toContain('203.0.113.9');
        expect(row.data).not.toContain('127.0.0.1');
      }
      expect(new Set(rows.map((r) => r.event_id)).size).toBe(2);
      expect(JSON.parse(rows[0].data)).toEqual({
        link_id: link.id,
        slug: link.slug,
        url: 'https://example.com/visited',
        short_url: `https://${SHORT_DOMAIN}/${link.slug}`,
        referrer: 'news.example.org',
        country: 'DE',
        city: null,
        device: 'mobile',
        browser: 'Mobile Safari',
        os: 'iOS',
      });
      expect(JSON.parse(rows[1].data)).toMatchObject({
        qr_code_id: qr.id,
        link_id: link.id,
        referrer: null,
        country: null,
      });
      const clickAt = Number((await knex()('clicks').where({ link_id: link.id }).orderBy('id').first()).occurred_at);
      expect(Number(rows[0].occurred_at)).toBe(clickAt);
    });
  });

  describe('traffic alerts (Variant A)', () => {
    const record = (link: { id: string }, at: number, n: number, country?: string) => {
      for (let i = 0; i < n; i++) {
        server.clicks.record({
          linkId: link.id,
          workspaceId: owner.workspaceId,
          qrCodeId: null,
          at: at + i,
          referer: undefined,
          country,
          userAgent: PERSON,
          address: undefined,
          route: null,
        });
      }
    };
    const alerts = (rows: DeliveryRow[], type: string, linkId: string) =>
      rows.filter((r) => r.event_type === type && JSON.parse(r.data).linkId === linkId);

    it('analytics.spike: 50 clicks in a closed 5-minute window over a quiet hour, once an hour', async () => {
      const link = (await createLink({ url: 'https://example.com/spike' })).body.data;
      // The last window that closed well before now, so it is settled.
      const windowStart = windowStartOf(Date.now() - 10_000, SPIKE_WINDOW_MS) - SPIKE_WINDOW_MS;
      const rows = await written(async () => {
        record(link, windowStart - 30 * 60_000, 3);
        record(link, windowStart + 1_000, 50);
        await server.clicks.flush();
      });
      const spikes = alerts(rows, 'analytics.spike', link.id);
      expectFanOut(spikes, 'analytics.spike', ['A'], null);
      expect(JSON.parse(spikes[0].data)).toEqual({
        workspaceId: owner.workspaceId,
        linkId: link.id,
        slug: link.slug,
        windowStart: new Date(windowStart).toISOString(),
        windowEnd: new Date(windowStart + SPIKE_WINDOW_MS).toISOString(),
        clicks: 50,
        baseline: 1,
        ratio: 50,
      });
      expect(
        rows.filter((r) => r.event_type === 'link.clicked' && JSON.parse(r.data).link_id === link.id),
      ).toHaveLength(53);
      // More clicks in the same hour: no second spike.
      const later = await written(async () => {
        record(link, windowStart + 2_000, 60);
        await server.clicks.flush();
      });
      expect(alerts(later, 'analytics.spike', link.id)).toEqual([]);
    });

    it("analytics.spike: the window's clicks count across countries (50 = 20 DE + 20 FR + 10 unknown)", async () => {
      const link = (await createLink({ url: 'https://example.com/spike-countries' })).body.data;
      const windowStart = windowStartOf(Date.now() - 10_000, SPIKE_WINDOW_MS) - SPIKE_WINDOW_MS;
      const rows = await written(async () => {
        record(link, windowStart + 1_000, 20, 'DE');
        record(link, windowStart + 2_000, 20, 'FR');
        record(link, windowStart + 3_000, 10);
        await server.clicks.flush();
      });
      const spikes = alerts(rows, 'analytics.spike', link.id);
      expect(spikes).toHaveLength(1);
      expect(JSON.parse(spikes[0].data)).toMatchObject({ clicks: 50, baseline: 1, ratio: 50 });
    });

    it('analytics.spike: found among more links than one pre-check query reads (250 quieter links sort first)', async () => {
      const link = (await createLink({ url: 'https://example.com/spike-crowd' })).body.data;
      const windowStart = windowStartOf(Date.now() - 10_000, SPIKE_WINDOW_MS) - SPIKE_WINDOW_MS;
      const rows = await written(async () => {
        // Ids that sort before any generated one ('!' < '0'), so the spiking link is read by a
        // later batch of the pre-check; they are not links, so they raise nothing themselves.
        for (let i = 0; i < 250; i++) record({ id: `lnk_!quiet${String(i).padStart(3, '0')}` }, windowStart + 1_000, 2);
        record(link, windowStart + 2_000, 50);
        await server.clicks.flush();
      });
      const spikes = rows.filter((r) => r.event_type === 'analytics.spike');
      expect(spikes.map((r) => JSON.parse(r.data).linkId)).toEqual([link.id]);
    });

    it('analytics.spike: 49 clicks in the window send nothing', async () => {
      const link = (await createLink({ url: 'https://example.com/calm' })).body.data;
      const windowStart = windowStartOf(Date.now() - 10_000, SPIKE_WINDOW_MS) - SPIKE_WINDOW_MS;
      const rows = await written(async () => {
        record(link, windowStart + 1_000, 49);
        await server.clicks.flush();
      });
      expect(alerts(rows, 'analytics.spike', link.id)).toEqual([]);
    });

    it('analytics.geo_anomaly: a country unseen in 7 days of history takes most of a closed hour', async () => {
      const link = (await createLink({ url: 'https://example.com/geo' })).body.data;
      const windowStart = windowStartOf(Date.now() - 10_000, GEO_WINDOW_MS) - GEO_WINDOW_MS;
      const rows = await written(async () => {
        record(link, windowStart - 2 * 86_400_000, 120, 'US');
        record(link, windowStart + 60_000, 45, 'BR');
        record(link, windowStart + 120_000, 10, 'US');
        record(link, windowStart + 180_000, 5);
        await server.clicks.flush();
      });
      const geo = alerts(rows, 'analytics.geo_anomaly', link.id);
      expectFanOut(geo, 'analytics.geo_anomaly', ['A'], null);
      expect(JSON.parse(geo[0].data)).toEqual({
        workspaceId: owner.workspaceId,
        linkId: link.id,
        slug: link.slug,
        windowStart: new Date(windowStart).toISOString(),
        windowEnd: new Date(windowStart + GEO_WINDOW_MS).toISOString(),
        country: 'BR',
        clicks: 60,
        share: 0.75,
        baselineShare: 0,
      });
    });

    it('click windows are kept only for workspaces that want alerts; subscribing rebuilds them from the raw clicks before it', async () => {
      const late = await seedWorkspace(knex(), { scopes: SCOPES });
      const lateApi = (method: string, path: string, body?: object) =>
        server.request(method, path, { key: late.key, body });
      const created = await lateApi('POST', '/api/v1/links', { url: 'https://example.com/steady' });
      expect(created.status, created.text).toBe(201);
      const link = created.body.data;
      const recordLate = (at: number, n: number) => {
        for (let i = 0; i < n; i++) {
          server.clicks.record({
            linkId: link.id,
            workspaceId: late.workspaceId,
            qrCodeId: null,
            at: at + i,
            referer: undefined,
            country: 'DE',
            userAgent: PERSON,
            address: undefined,
            route: null,
          });
        }
      };
      const windows = async () =>
        (
          await knex()('link_click_windows')
            .where({ link_id: link.id })
            .orderBy('window_start')
            .select('window_start', 'clicks')
        ).map((r) => [(Number(r.window_start) - windowStart) / SPIKE_WINDOW_MS, Number(r.clicks)]);
      const subscribe = async (events: string[]) => {
        const res = await lateApi('POST', '/api/webhooks', {
          workspaceId: late.workspaceId,
          url: 'https://hooks.example.com/late',
          events,
        });
        expect(res.status, res.text).toBe(201);
        return res.body.data.id as string;
      };
      // A steady link: 20 clicks in each of the twelve windows before a closed window.
      const windowStart = windowStartOf(Date.now() - 10_000, SPIKE_WINDOW_MS) - SPIKE_WINDOW_MS;
      for (let w = 12; w >= 1; w--) recordLate(windowStart - w * SPIKE_WINDOW_MS, 20);
      await server.clicks.flush();
      expect(Number((await knex()('clicks').where({ link_id: link.id }).count({ n: '*' }))[0].n)).toBe(240);
      expect(await windows()).toEqual([]);

      // A subscription that names no alert changes nothing; one that does rebuilds the windows.
      const plain = await subscribe(['link.created']);
      expect(await windows()).toEqual([]);
      const steady = Array.from({ length: 12 }, (_, i) => [i - 12, 20]);
      const geo = await subscribe(['analytics.geo_anomaly']);
      expect(await windows()).toEqual(steady);

      // Unsubscribed: clicks are no longer counted in windows...
      expect((await lateApi('DELETE', `/api/webhooks/${geo}`)).status).toBe(200);
      recordLate(windowStart - SPIKE_WINDOW_MS + 100, 5);
      await server.clicks.flush();
      expect(await windows()).toEqual(steady);
      // ...until a change to a subscription makes the workspace want alerts again.
      expect((await lateApi('PATCH', `/api/webhooks/${plain}`, { events: ['analytics.spike'] })).status).toBe(200);
      expect(await windows()).toEqual([...steady.slice(0, 11), [-1, 25]]);

      // 60 clicks over a baseline of about 20 a window is no spike; counted from an empty history
      // (a baseline of 1) it would be one.
      const rows = await written(async () => {
        recordLate(windowStart + 1_000, 60);
        await server.clicks.flush();
      });
      expect(await windows()).toEqual([...steady.slice(0, 11), [-1, 25], [0, 60]]);
      expect(rows.filter((r) => r.event_type === 'analytics.spike')).toEqual([]);
    });

    it("analytics.geo_anomaly: the hour's clicks add up across its 5-minute windows (none of which has 50)", async () => {
      const link = (await createLink({ url: 'https://example.com/geo-spread' })).body.data;
      const windowStart = windowStartOf(Date.now() - 10_000, GEO_WINDOW_MS) - GEO_WINDOW_MS;
      const rows = await written(async () => {
        record(link, windowStart - 2 * 86_400_000, 120, 'US');
        for (let k = 0; k < 9; k++) record(link, windowStart + k * SPIKE_WINDOW_MS + 1_000, 5, 'BR');
        record(link, windowStart + 10 * SPIKE_WINDOW_MS, 10, 'US');
        record(link, windowStart + 11 * SPIKE_WINDOW_MS, 5);
        await server.clicks.flush();
      });
      const geo = alerts(rows, 'analytics.geo_anomaly', link.id);
      expect(geo).toHaveLength(1);
      expect(JSON.parse(geo[0].data)).toMatchObject({ country: 'BR', clicks: 60, share: 0.75, baselineShare: 0 });
    });

    it('analytics.geo_anomaly: a link without 7 days of history sends nothing', async () => {
      const link = (await createLink({ url: 'https://example.com/new-geo' })).body.data;
      const windowStart = windowStartOf(Date.now() - 10_000, GEO_WINDOW_MS) - GEO_WINDOW_MS;
      const rows = await written(async () => {
        record(link, windowStart + 60_000, 60, 'BR');
        await server.clicks.flush();
      });
      expect(alerts(rows, 'analytics.geo_anomaly', link.id)).toEqual([]);
    });
  });

  // (page.published, page.viewed and report.shared have their own causes and tests:
  // test/webhooks/page-events.test.ts, test/webhooks/report-shared.test.ts.)
  it("delivers nothing to disabled, deleted or another workspace's subscriptions", async () => {
    const none = await knex()('webhook_deliveries').whereIn('subscription_id', [
      subs.disabledA,
      subs.disabledB,
      subs.deletedB,
      theirs,
    ]);
    expect(none).toEqual([]);
  });
});
