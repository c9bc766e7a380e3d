// Conversions and goals (getConversionSummary, recordConversion, listGoals, getGoalReport)
// through the proxy: the success shapes with every breakdown filled, and every error status.
// Keys, plans, scopes and the rate limit are in ./access.ts; the feature-off 503 and the
// plain-HTTP 400 in ./deployment.ts.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as goalsRepo from '../../../src/db/repos/goals';
import { createCampaign, createQrCode } from '../../../src/db/repos/workspace-objects';
import { seedWorkspace, type Seeded } from '../../support/seed';
import { API_SCOPES, BIG, call, json, PERSON, SHORT_HOST, textPlain, type ContractContext } from './context';
import { goalDefinition } from '../../support/stored-rows';

const DAY = 86_400_000;
const iso = (t: number) => new Date(t).toISOString();
const query = (params: Record<string, string>) => new URLSearchParams(params).toString();

type GoalInput = Partial<goalsRepo.GoalDefinition> & Pick<goalsRepo.GoalDefinition, 'type'>;

export function conversionSuites(ctx: ContractContext) {
  describe('conversions and goals', () => {
    // A shop: two links (the first clicked twice by people), a campaign, a QR code on the first
    // link, and four conversions: one per kind of attribution.
    let shop: Seeded;
    let key: string;
    const L: string[] = [];
    let campaign: string;
    let qr: string;
    const conversionsOf = (body: object, k = key) =>
      ctx.main.server.request('POST', '/api/v1/conversions', { key: k, body });
    const makeGoal = (workspaceId: string, def: GoalInput) =>
      goalsRepo.createGoal(ctx.knex(), workspaceId, goalDefinition({ name: `${def.type} goal`, ...def }));

    beforeAll(async () => {
      shop = await seedWorkspace(ctx.knex(), { scopes: API_SCOPES });
      for (const n of [1, 2])
        L.push((await ctx.makeLink({ url: `https://example.com/shop/${n}`, slug: `shop-${n}` }, shop.key)).id);
      campaign = await createCampaign(ctx.knex(), shop.workspaceId, 'Spring');
      qr = (await createQrCode(ctx.knex(), shop.workspaceId, L[0])).id;
      for (let i = 0; i < 2; i++) {
        const visit = await ctx.directly(
          'followShortLink',
          call('GET', '/shop-1', { headers: { host: SHORT_HOST, 'user-agent': PERSON } }),
          302,
          null,
        );
        expect(visit.headers.location).toBe('https://example.com/shop/1');
      }
      await ctx.main.server.clicks.flush();
      const planned = [
        { eventType: 'purchase', linkId: L[0], campaignId: campaign, value: { amountMinor: 4990, currency: 'EUR' } },
        { eventType: 'purchase', linkId: L[1], value: { amountMinor: 1000, currency: 'USD' } },
        { eventType: 'signup', qrCodeId: qr },
        { eventType: 'custom', customName: 'newsletter' },
      ];
      for (const body of planned) expect((await conversionsOf(body, shop.key)).status).toBe(201);
    });
    beforeEach(async () => {
      if (shop) key = await ctx.freshKey(API_SCOPES, shop);
    });

    describe('getConversionSummary', () => {
      const summary = (params: Record<string, string> = {}) =>
        call('GET', `/api/v1/conversions${Object.keys(params).length ? `?${query(params)}` : ''}`);

      it('200 for the default window, every breakdown filled and rates where clicks were counted', async () => {
        const res = await ctx.viaPrism('getConversionSummary', summary(), 200, key);
        const d = res.body.data;
        expect(Date.parse(d.windowTo) - Date.parse(d.windowFrom)).toBe(30 * DAY);
        expect(d).toMatchObject({ total: 4, attributedConversions: 3, unattributedConversions: 1, unavailable: false });
        expect(d.byEventType).toHaveLength(3);
        expect(d.byEventType).toEqual(
          expect.arrayContaining([
            { eventType: 'purchase', label: 'Purchase', conversions: 2 },
            { eventType: 'signup', label: 'Sign-up', conversions: 1 },
            { eventType: 'custom', label: 'newsletter', conversions: 1 },
          ]),
        );
        expect(d.byLink).toHaveLength(2);
        expect(d.byLink).toEqual(
          expect.arrayContaining([
            {
              id: L[0],
              conversions: 2,
              value: [{ currency: 'EUR', valueMinor: 4990, conversions: 1 }],
              rate: { supported: true, conversions: 2, clicks: 2, rate: 1 },
            },
            {
              id: L[1],
              conversions: 1,
              value: [{ currency: 'USD', valueMinor: 1000, conversions: 1 }],
              rate: { supported: false, conversions: 1, clicks: 0, rate: null, reason: 'no_clicks_in_window' },
            },
          ]),
        );
        expect(d.byCampaign).toEqual([
          { id: campaign, conversions: 1, value: [{ currency: 'EUR', valueMinor: 4990, conversions: 1 }] },
        ]);
        expect(d.byQr).toEqual([
          {
            id: qr,
            conversions: 1,
            value: [],
            rate: { supported: false, conversions: 1, clicks: 0, rate: null, reason: 'no_clicks_in_window' },
          },
        ]);
        expect(d.value).toEqual(
          expect.arrayContaining([
            { currency: 'EUR', valueMinor: 4990, conversions: 1 },
            { currency: 'USD', valueMinor: 1000, conversions: 1 },
          ]),
        );
        expect(d.rate).toEqual({ supported: true, conversions: 3, clicks: 2, rate: 1.5 });
      });

      it('200 narrowed by each filter', async () => {
        const total = async (params: Record<string, string>) =>
          (await ctx.viaPrism('getConversionSummary', summary(params), 200, key)).body.data.total;
        expect(await total({ eventType: 'purchase' })).toBe(2);
        expect(await total({ eventType: 'custom', customName: 'newsletter' })).toBe(1);
        expect(await total({ customName: 'other' })).toBe(0);
        expect(await total({ linkId: L[0] })).toBe(2);
        expect(await total({ campaignId: campaign })).toBe(1);
        expect(await total({ qrCodeId: qr })).toBe(1);
        expect(await total({ linkId: 'lnk_unknown' })).toBe(0);
      });

      it('200 for an empty workspace, and for windows past click and conversion retention', async () => {
        const empty = await seedWorkspace(ctx.knex(), { scopes: API_SCOPES });
        const res = await ctx.viaPrism('getConversionSummary', summary(), 200, empty.key);
        expect(res.body.data).toMatchObject({
          total: 0,
          attributedConversions: 0,
          unattributedConversions: 0,
          byEventType: [],
          byLink: [],
          byCampaign: [],
          byQr: [],
          value: [],
          rate: { supported: false, conversions: 0, clicks: 0, rate: null, reason: 'no_clicks_in_window' },
          unavailable: false,
        });
        const now = Date.now();
        const old = await ctx.viaPrism(
          'getConversionSummary',
          summary({ from: iso(now - 100 * DAY), to: iso(now) }),
          200,
          key,
        );
        expect(old.body.data).toMatchObject({
          total: 4,
          unavailable: false,
          rate: { supported: false, rate: null, reason: 'beyond_click_retention' },
        });
        const past = await ctx.viaPrism(
          'getConversionSummary',
          summary({ from: iso(now - 410 * DAY), to: iso(now - 10 * DAY) }),
          200,
          key,
        );
        expect(past.body.data).toMatchObject({ total: 0, unavailable: true });
      });

      // Allowed by the parameter schemas, refused by the operation's rules: forwarded by Prism.
      it.each([
        ['from after to', { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'from'],
        ['a window over 400 days', { from: '2024-01-01T00:00:00Z', to: '2025-03-01T00:00:00Z' }, 'from'],
        ['customName with another eventType', { eventType: 'purchase', customName: 'newsletter' }, 'customName'],
      ])('400 for %s (through Prism), with field', async (_what, params, field) => {
        const res = await ctx.viaPrism('getConversionSummary', summary(params), 400, key);
        expect(res.body.field).toBe(field);
      });

      // Forbidden by the parameter schemas: Prism refuses, the server is checked directly.
      it.each([
        ['from not a date-time', { from: 'yesterday' }, 'from'],
        ['to not a date-time', { to: '2026-13-01' }, 'to'],
        ['an unknown eventType', { eventType: 'visit' }, 'eventType'],
        ['customName over 40 characters', { customName: 'n'.repeat(41) }, 'customName'],
      ])(
        '400 for %s (Prism refuses it with 422; the server answer is checked directly), with field',
        async (_what, params, field) => {
          const { direct } = await ctx.refusedByPrism('getConversionSummary', summary(params), 422, 400, key);
          expect(direct.body.field).toBe(field);
        },
      );
    });

    describe('recordConversion', () => {
      const record = (body: unknown, headers: Record<string, string> = {}) => ({
        ...json('POST', '/api/v1/conversions', body),
        opts: { body, headers },
      });

      it('201 with only eventType: unattributed, no value', async () => {
        const res = await ctx.viaPrism('recordConversion', record({ eventType: 'lead' }), 201, key);
        expect(res.body).toEqual({
          data: {
            id: expect.stringMatching(/^cnv_/),
            eventType: 'lead',
            customName: null,
            linkId: null,
            campaignId: null,
            qrCodeId: null,
            value: null,
            occurredAt: expect.any(String),
            createdAt: expect.any(String),
          },
        });
      });

      it('201 with every field; metadata is never returned', async () => {
        const occurredAt = new Date(Date.now() - 3_600_000);
        const res = await ctx.viaPrism(
          'recordConversion',
          record({
            eventType: 'purchase',
            linkId: L[1],
            campaignId: campaign,
            value: { amountMinor: 0, currency: 'JPY' },
            metadata: { orderId: 'SECRET-ORDER', lines: [1, 2] },
            occurredAt: occurredAt.toISOString().replace('Z', '+00:00'),
          }),
          201,
          key,
        );
        expect(res.body.data).toMatchObject({
          eventType: 'purchase',
          customName: null,
          linkId: L[1],
          campaignId: campaign,
          qrCodeId: null,
          value: { amountMinor: 0, currency: 'JPY' },
          occurredAt: occurredAt.toISOString(),
        });
        expect(res.text).not.toContain('SECRET-ORDER');
      });

      it('201 for a custom event named by a QR code: attributed to its link', async () => {
        const res = await ctx.viaPrism(
          'recordConversion',
          record({ eventType: 'custom', customName: 'x'.repeat(40), qrCodeId: qr }),
          201,
          key,
        );
        expect(res.body.data).toMatchObject({
          eventType: 'custom',
          customName: 'x'.repeat(40),
          qrCodeId: qr,
          linkId: L[0],
        });
      });

      it('201 again for a repeated Idempotency-Key with the same body; 409 with another body', async () => {
        const idem = { 'idempotency-key': `order-${Date.now()}` };
        const first = await ctx.viaPrism(
          'recordConversion',
          record({ eventType: 'purchase', value: { amountMinor: 100, currency: 'EUR' } }, idem),
          201,
          key,
        );
        const again = await ctx.viaPrism(
          'recordConversion',
          record({ value: { currency: 'EUR', amountMinor: 100 }, eventType: 'purchase' }, idem),
          201,
          key,
        );
        expect(again.body).toEqual(first.body);
        const other = await ctx.viaPrism(
          'recordConversion',
          record({ eventType: 'purchase', value: { amountMinor: 101, currency: 'EUR' } }, idem),
          409,
          key,
        );
        expect(other.body.error).toMatch(/Idempotency-Key/);
      });

      // Allowed by ConversionCreate's schema, refused by the operation's rules: forwarded by Prism.
      it.each([
        [
          'a currency that is not ISO 4217',
          { eventType: 'purchase', value: { amountMinor: 1, currency: 'XYZ' } },
          'value.currency',
        ],
        ['metadata over 4 KiB', { eventType: 'signup', metadata: { pad: 'm'.repeat(4100) } }, 'metadata'],
        ['occurredAt in the future', { eventType: 'signup', occurredAt: iso(Date.now() + DAY) }, 'occurredAt'],
        [
          'occurredAt past conversion retention',
          { eventType: 'signup', occurredAt: iso(Date.now() - 401 * DAY) },
          'occurredAt',
        ],
        ['an unknown linkId', { eventType: 'signup', linkId: 'lnk_unknown' }, 'linkId'],
        ['an unknown campaignId', { eventType: 'signup', campaignId: 'cmp_unknown' }, 'campaignId'],
        ['an unknown qrCodeId', { eventType: 'signup', qrCodeId: 'qr_unknown' }, 'qrCodeId'],
      ])('400 for %s (through Prism), naming the field', async (_what, body, field) => {
        const res = await ctx.viaPrism('recordConversion', record(body), 400, key);
        expect(res.body.field).toBe(field);
      });

      it("400 for a linkId that is not the QR code's link, and for another workspace's link (through Prism)", async () => {
        expect(
          (
            await ctx.viaPrism(
              'recordConversion',
              record({ eventType: 'signup', qrCodeId: qr, linkId: L[1] }),
              400,
              key,
            )
          ).body.field,
        ).toBe('linkId');
        const theirs = await ctx.makeLink({ url: 'https://example.com/theirs' });
        expect(
          (await ctx.viaPrism('recordConversion', record({ eventType: 'signup', linkId: theirs.id }), 400, key)).body
            .field,
        ).toBe('linkId');
      });

      // ConversionCreate's if/then/else: Prism refuses what the server refuses, in the server's words.
      it.each([
        ['custom without customName', { eventType: 'custom' }, /customName is required when eventType is custom/],
        [
          'customName with another eventType',
          { eventType: 'signup', customName: 'x' },
          /customName is only allowed when eventType is custom/,
        ],
        [
          'customName with purchase and a value',
          { eventType: 'purchase', customName: 'x', value: { amountMinor: 1, currency: 'EUR' } },
          /only allowed/,
        ],
      ])('400 for %s (Prism refuses it with 422; the server names customName)', async (_what, body, message) => {
        const { direct } = await ctx.refusedByPrism('recordConversion', record(body), 422, 400, key);
        expect(direct.body.field).toBe('customName');
        expect(direct.body.error).toMatch(message);
      });

      // Forbidden by ConversionCreate's schema (or not JSON at all): Prism refuses, the server is checked directly.
      it.each([
        ['no eventType', { linkId: 'lnk_x' }, 'eventType'],
        ['an unknown eventType', { eventType: 'visit' }, 'eventType'],
        ['an unknown field', { eventType: 'signup', visitorId: 'v1' }, 'visitorId'],
        [
          'a negative amountMinor',
          { eventType: 'purchase', value: { amountMinor: -1, currency: 'EUR' } },
          'value.amountMinor',
        ],
        [
          'a fractional amountMinor',
          { eventType: 'purchase', value: { amountMinor: 1.5, currency: 'EUR' } },
          'value.amountMinor',
        ],
        [
          'a lower-case currency',
          { eventType: 'purchase', value: { amountMinor: 1, currency: 'eur' } },
          'value.currency',
        ],
        ['customName over 40 characters', { eventType: 'custom', customName: 'x'.repeat(41) }, 'customName'],
        ['occurredAt not a date-time', { eventType: 'signup', occurredAt: 'now' }, 'occurredAt'],
        ['metadata not an object', { eventType: 'signup', metadata: 'x' }, 'metadata'],
        ['a body that is an array', [{ eventType: 'signup' }], undefined],
      ])(
        '400 for %s (Prism refuses it with 422; the server answer is checked directly)',
        async (_what, body, field) => {
          const { direct } = await ctx.refusedByPrism('recordConversion', record(body), 422, 400, key);
          if (field) expect(direct.body.field).toBe(field);
        },
      );

      it('400 without a body and for a text/plain body (Prism refuses both with 422)', async () => {
        await ctx.refusedByPrism('recordConversion', call('POST', '/api/v1/conversions'), 422, 400, key);
        await ctx.refusedByPrism(
          'recordConversion',
          textPlain('POST', '/api/v1/conversions', 'eventType=signup'),
          422,
          400,
          key,
        );
      });

      it("400 for malformed JSON (Prism's own body parser refuses it with 400 invalid_json)", async () => {
        const bad = call('POST', '/api/v1/conversions', {
          rawBody: '{"eventType": ',
          headers: { 'content-type': 'application/json' },
        });
        const { proxied } = await ctx.refusedByPrism('recordConversion', bad, 400, 400, key);
        expect(proxied.body.error.code).toBe('invalid_json');
      });

      it('413 for a body over 64 KiB', async () => {
        await ctx.viaPrism('recordConversion', record({ eventType: 'signup', metadata: { pad: BIG } }), 413, key);
      });
    });

    describe('listGoals', () => {
      it('200 newest first, filtered by status; another value is ignored; another workspace sees none', async () => {
        const mine = await seedWorkspace(ctx.knex(), { scopes: API_SCOPES });
        const link = await ctx.makeLink({ url: 'https://example.com/goal' }, mine.key);
        const a = await makeGoal(mine.workspaceId, {
          name: 'Revenue',
          type: 'purchase',
          link_id: link.id,
          target_count: 10,
          target_value_minor: 50000,
          target_currency: 'EUR',
        });
        const b = await makeGoal(mine.workspaceId, {
          name: 'Newsletter',
          type: 'custom',
          custom_name: 'newsletter',
          window_start: Date.parse('2026-01-01T00:00:00Z'),
        });
        const c = await makeGoal(mine.workspaceId, { name: 'Leads', type: 'lead' });
        await goalsRepo.setGoalStatus(ctx.knex(), b.id, 'PAUSED');
        await goalsRepo.setGoalStatus(ctx.knex(), c.id, 'ARCHIVED');
        const list = (q = '') => call('GET', `/api/v1/goals${q}`);
        const all = await ctx.viaPrism('listGoals', list(), 200, mine.key);
        expect(all.body.data.map((g: any) => g.id)).toEqual([c.id, b.id, a.id]);
        expect(all.body.data[2]).toEqual({
          id: a.id,
          workspaceId: mine.workspaceId,
          name: 'Revenue',
          type: 'purchase',
          customName: null,
          linkId: link.id,
          qrCodeId: null,
          campaignId: null,
          targetCount: 10,
          targetValueMinor: 50000,
          targetCurrency: 'EUR',
          windowStart: null,
          windowEnd: null,
          status: 'ACTIVE',
          archivedAt: null,
          definitionVersion: 1,
          definitionUpdatedAt: iso(a.definition_updated_at),
          createdAt: iso(a.created_at),
          updatedAt: iso(a.updated_at),
        });
        expect(all.body.data[1]).toMatchObject({
          status: 'PAUSED',
          customName: 'newsletter',
          windowStart: '2026-01-01T00:00:00.000Z',
          archivedAt: null,
        });
        expect(all.body.data[0]).toMatchObject({ status: 'ARCHIVED', archivedAt: expect.any(String) });
        for (const [status, id] of [
          ['ACTIVE', a.id],
          ['PAUSED', b.id],
          ['ARCHIVED', c.id],
        ]) {
          expect(
            (await ctx.viaPrism('listGoals', list(`?status=${status}`), 200, mine.key)).body.data.map((g: any) => g.id),
          ).toEqual([id]);
        }
        expect((await ctx.viaPrism('listGoals', list('?status=DONE'), 200, mine.key)).body.data).toHaveLength(3);
        expect((await ctx.viaPrism('listGoals', list(), 200, key)).body.data).toEqual([]);
      });
    });

    describe('getGoalReport', () => {
      const report = (id: string, params: Record<string, string> = {}) =>
        call('GET', `/api/v1/goals/${id}/report${Object.keys(params).length ? `?${query(params)}` : ''}`);

      it('200 for a scoped goal with count and value targets, narrowed by its own window', async () => {
        const start = Date.now() - 10 * DAY;
        const goal = await makeGoal(shop.workspaceId, {
          name: 'Spring revenue',
          type: 'purchase',
          link_id: L[0],
          target_count: 1,
          target_value_minor: 10000,
          target_currency: 'EUR',
          window_start: start,
        });
        const res = await ctx.viaPrism('getGoalReport', report(goal.id), 200, key);
        expect(res.body.goal).toEqual({ id: goal.id, name: 'Spring revenue', type: 'purchase' });
        const d = res.body.data;
        expect(d.window).toMatchObject({ from: iso(start), narrowedByGoal: true, disjoint: false });
        expect(d).toMatchObject({
          goalId: goal.id,
          conversions: 1,
          value: [{ currency: 'EUR', valueMinor: 4990, conversions: 1 }],
          unattributedConversions: 0,
          unattributedIncluded: false,
          countProgress: { target: 1, current: 1, ratio: 1, reached: true },
          valueProgress: { currency: 'EUR', target: 10000, current: 4990, ratio: 0.499, reached: false },
          rate: { supported: true, conversions: 1, clicks: 2, rate: 0.5 },
          definition: { version: 1, updatedAt: iso(goal.definition_updated_at) },
          completeness: { windowTruncatedByRetention: false, scopeObjectMissing: false },
        });
      });

      it('200 for an unscoped custom goal over a requested window: unattributed conversions included', async () => {
        const goal = await makeGoal(shop.workspaceId, { type: 'custom', custom_name: 'newsletter' });
        const now = Date.now();
        const res = await ctx.viaPrism(
          'getGoalReport',
          report(goal.id, { from: iso(now - DAY), to: iso(now + 60_000) }),
          200,
          key,
        );
        expect(res.body.data).toMatchObject({
          window: { from: iso(now - DAY), to: iso(now + 60_000), narrowedByGoal: false, disjoint: false },
          conversions: 1,
          value: [],
          unattributedConversions: 1,
          unattributedIncluded: true,
          countProgress: null,
          valueProgress: null,
        });
      });

      it("200 for a window disjoint from the goal's, a window past retention, and a goal whose link was deleted", async () => {
        const now = Date.now();
        const ended = await makeGoal(shop.workspaceId, {
          type: 'signup',
          window_start: now - 300 * DAY,
          window_end: now - 200 * DAY,
        });
        const disjoint = await ctx.viaPrism('getGoalReport', report(ended.id), 200, key);
        expect(disjoint.body.data).toMatchObject({ conversions: 0, window: { narrowedByGoal: true, disjoint: true } });
        const everything = await makeGoal(shop.workspaceId, { type: 'purchase' });
        const old = await ctx.viaPrism(
          'getGoalReport',
          report(everything.id, { from: iso(now - 410 * DAY), to: iso(now - 20 * DAY) }),
          200,
          key,
        );
        expect(old.body.data).toMatchObject({
          conversions: 0,
          completeness: { windowTruncatedByRetention: true, scopeObjectMissing: false },
        });
        const doomed = await ctx.makeLink({ url: 'https://example.com/doomed' }, shop.key);
        const orphan = await makeGoal(shop.workspaceId, { type: 'lead', link_id: doomed.id });
        expect((await ctx.main.server.request('DELETE', `/api/v1/links/${doomed.id}`, { key: shop.key })).status).toBe(
          200,
        );
        const missing = await ctx.viaPrism('getGoalReport', report(orphan.id), 200, key);
        expect(missing.body.data.completeness).toEqual({ windowTruncatedByRetention: false, scopeObjectMissing: true });
      });

      it('400 for from after to and a window over 400 days (through Prism), with field from', async () => {
        const goal = await makeGoal(shop.workspaceId, { type: 'signup' });
        for (const params of [
          { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
          { from: '2024-01-01T00:00:00Z', to: '2025-03-01T00:00:00Z' },
        ]) {
          expect((await ctx.viaPrism('getGoalReport', report(goal.id, params), 400, key)).body.field).toBe('from');
        }
      });

      it('400 for from or to not a date-time (Prism refuses it with 422; the server answer is checked directly)', async () => {
        const goal = await makeGoal(shop.workspaceId, { type: 'signup' });
        expect(
          (await ctx.refusedByPrism('getGoalReport', report(goal.id, { from: 'last week' }), 422, 400, key)).direct.body
            .field,
        ).toBe('from');
        expect(
          (await ctx.refusedByPrism('getGoalReport', report(goal.id, { to: 'now' }), 422, 400, key)).direct.body.field,
        ).toBe('to');
      });

      it("404 for an unknown goal and another workspace's goal", async () => {
        await ctx.viaPrism('getGoalReport', report('goal_unknown'), 404, key);
        const theirs = await makeGoal(ctx.owner.workspaceId, { type: 'signup' });
        await ctx.viaPrism('getGoalReport', report(theirs.id), 404, key);
        expect(
          (await ctx.main.server.request('GET', `/api/v1/goals/${theirs.id}/report`, { key: ctx.owner.key })).status,
        ).toBe(200);
      });
    });
  });
}
