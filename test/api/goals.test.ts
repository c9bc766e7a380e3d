// Goals through HTTPS on every database engine: GET /api/v1/goals and GET /api/v1/goals/{id}/report,
// every report checked figure by figure against an independent in-memory recount
// (test/support/recount.ts) of a seeded random data set. Goals are made as an operator makes
// them: with `shortlink goal create|update|set-status`, or straight through the repository.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as goalsRepo from '../../src/db/repos/goals';
import { createKey } from '../../src/db/repos/api-keys';
import type { Scope } from '../../src/domain/access';
import { expectJsonLine, runCli } from '../support/cli';
import { testEngines } from '../support/databases';
import {
  createObjects,
  DATA_SCOPES,
  DAY,
  dayOf,
  goalMatches,
  HOUR,
  insertClicks,
  midnight,
  MINUTE,
  normalizeValues,
  postConversions,
  randomClicks,
  randomConversion,
  recountGoal,
  rng,
  type EventType,
  type Objects,
  type PlannedConversion,
  type RClick,
  type RConversion,
  type RGoal,
  type Win,
} from '../support/recount';
import { seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';
import { goalDefinition } from '../support/stored-rows';

const iso = (t: number) => new Date(t).toISOString();
const isoOrNull = (t: number | null) => (t === null ? null : iso(t));
const LEAK = 'METADATA-MUST-NOT-LEAK';

type GoalInput = Partial<Omit<goalsRepo.GoalDefinition, 'type'>> & { type: EventType; name?: string };

/** A repository row as the recount's goal: its definition, figures as numbers. */
const toRGoal = (row: goalsRepo.GoalRow): RGoal => ({
  id: row.id,
  workspaceId: row.workspace_id,
  type: row.type,
  customName: row.custom_name,
  linkId: row.link_id,
  qrCodeId: row.qr_code_id,
  campaignId: row.campaign_id,
  targetCount: row.target_count === null ? null : Number(row.target_count),
  targetValueMinor: row.target_value_minor === null ? null : Number(row.target_value_minor),
  targetCurrency: row.target_currency,
  windowStart: row.window_start === null ? null : Number(row.window_start),
  windowEnd: row.window_end === null ? null : Number(row.window_end),
});

/** The Goal object GET /api/v1/goals must show for a repository row. */
function expectedGoal(row: goalsRepo.GoalRow) {
  const definition = toRGoal(row);
  return {
    ...definition,
    name: row.name,
    windowStart: isoOrNull(definition.windowStart),
    windowEnd: isoOrNull(definition.windowEnd),
    status: row.status,
    archivedAt: row.archived_at === null ? null : iso(Number(row.archived_at)),
    definitionVersion: Number(row.definition_version),
    definitionUpdatedAt: iso(Number(row.definition_updated_at)),
    createdAt: iso(Number(row.created_at)),
    updatedAt: iso(Number(row.updated_at)),
  };
}

describe.each(testEngines())('goals API on %s', (engine) => {
  let server: TestServer;
  let data: Seeded;
  let otherWs: Seeded;
  let objects: Objects;
  let otherObjects: Objects;
  let convs: RConversion[] = [];
  let clicks: RClick[] = [];
  let key: string;
  let T: number;
  const W: Record<'mid' | 'midnight' | 'long100' | 'sameDay', Win> = {} as any;
  // Objects deleted by the tests (the goals measuring them report scopeObjectMissing).
  const deleted = new Set<string>();

  const knex = () => server.services.db.knex;
  const freshKey = async (s: Seeded, scopes: Scope[] = DATA_SCOPES) =>
    (await createKey(knex(), s.workspaceId, s.userId, scopes, null)).key;
  const cli = (args: string[]) =>
    runCli(args, { DATABASE_URL: server.database.url, DATA_DIR: server.dataDir, LOG_LEVEL: 'silent' });
  const goalRow = async (id: string) => (await goalsRepo.getGoal(knex(), id))!;
  const makeGoal = async (input: GoalInput, workspaceId = data.workspaceId) =>
    goalsRepo.createGoal(knex(), workspaceId, {
      name: input.name ?? `${input.type} goal`,
      type: input.type,
      custom_name: input.custom_name ?? null,
      link_id: input.link_id ?? null,
      qr_code_id: input.qr_code_id ?? null,
      campaign_id: input.campaign_id ?? null,
      target_count: input.target_count ?? null,
      target_value_minor: input.target_value_minor ?? null,
      target_currency: input.target_currency ?? null,
      window_start: input.window_start ?? null,
      window_end: input.window_end ?? null,
    });

  const report = async (id: string, w?: Win, k = key) => {
    const q = w ? `?${new URLSearchParams({ from: iso(w.from), to: iso(w.to) })}` : '';
    const res = await server.request('GET', `/api/v1/goals/${id}/report${q}`, { key: k });
    expect(res.text).not.toContain(LEAK);
    return res;
  };

  /** The API's report of goal `id` against the recount over `requested` (default: the last 30 days as the API reports them). */
  async function expectReport(id: string, requested?: Win) {
    const row = await goalRow(id);
    const g = toRGoal(row);
    const res = await report(id, requested);
    expect(res.status, res.text).toBe(200);
    let req = requested;
    if (!req) {
      // Only used for goals without their own window: the measured window is the requested one.
      expect(g.windowStart === null && g.windowEnd === null).toBe(true);
      req = { from: Date.parse(res.body.data.window.from), to: Date.parse(res.body.data.window.to) };
      expect(req.to - req.from).toBe(30 * DAY);
      expect(Math.abs(req.to - Date.now())).toBeLessThan(30_000);
    }
    const missing = [g.linkId, g.qrCodeId, g.campaignId].some((x) => x !== null && deleted.has(x));
    const expected = {
      goal: { id: row.id, name: row.name, type: row.type },
      data: {
        ...recountGoal(g, convs, clicks, req, Date.now(), missing),
        definition: { version: Number(row.definition_version), updatedAt: iso(Number(row.definition_updated_at)) },
      },
    };
    expect(normalizeValues(res.body), `goal ${JSON.stringify(g)} over [${iso(req.from)}, ${iso(req.to)})`).toEqual(
      normalizeValues(expected),
    );
    return { res, expected };
  }

  beforeAll(async () => {
    server = await startTestServer(engine);
    data = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
    otherWs = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
    objects = await createObjects(server, data, { links: 5, campaigns: 3, qrOn: [0, 1, 1] });
    otherObjects = await createObjects(server, otherWs, { links: 1, campaigns: 1, qrOn: [0] });
    T = Date.now();
    W.mid = {
      from: midnight(T - 20 * DAY) + 13 * HOUR + 37 * MINUTE + 12_345,
      to: midnight(T - 3 * DAY) + 5 * HOUR + 2 * MINUTE + 3_456,
    };
    W.midnight = { from: midnight(T - 45 * DAY), to: midnight(T - 10 * DAY) };
    W.long100 = { from: midnight(T - 100 * DAY) + 3 * HOUR, to: midnight(T - DAY) + 18 * HOUR };
    W.sameDay = { from: midnight(T - 7 * DAY) + 2 * HOUR, to: midnight(T - 7 * DAY) + 20 * HOUR };

    const r = rng(4242);
    const ageAt = (maxDays: number) => T - Math.floor(2 * MINUTE + r.next() * (maxDays * DAY - 2 * MINUTE));
    const planned: PlannedConversion[] = [];
    for (let i = 0; i < 240; i++) planned.push(randomConversion(r, objects, ageAt(120)));
    for (const w of Object.values(W))
      for (const at of [w.from - 1, w.from, w.to - 1, w.to]) planned.push(randomConversion(r, objects, at));
    // Campaign conversions with and without a link, in every window.
    const [C1] = objects.campaigns;
    for (let i = 0; i < 6; i++) {
      const at = ageAt(25);
      planned.push({
        body: { eventType: 'lead', campaignId: C1, occurredAt: iso(at) },
        expected: {
          workspaceId: data.workspaceId,
          eventType: 'lead',
          customName: null,
          linkId: null,
          campaignId: C1,
          qrCodeId: null,
          value: null,
          occurredAt: at,
        },
      });
      planned.push({
        body: {
          eventType: 'lead',
          campaignId: C1,
          linkId: objects.links[1],
          occurredAt: iso(at),
          value: { amountMinor: 1000, currency: 'EUR' },
        },
        expected: {
          workspaceId: data.workspaceId,
          eventType: 'lead',
          customName: null,
          linkId: objects.links[1],
          campaignId: C1,
          qrCodeId: null,
          value: { amountMinor: 1000, currency: 'EUR' },
          occurredAt: at,
        },
      });
    }
    const oldOnEdgeDay = (t: number) => t < T - 88 * DAY && dayOf(t) === dayOf(W.long100.from);
    const times = Array.from({ length: 700 }, () => ageAt(120)).filter((t) => !oldOnEdgeDay(t));
    for (const w of [W.mid, W.midnight, W.sameDay]) times.push(w.from - 1, w.from, w.to - 1, w.to);
    clicks = randomClicks(r, objects, times);
    const otherPlanned = Array.from({ length: 40 }, () => randomConversion(r, otherObjects, ageAt(60)));
    const otherClicks = randomClicks(
      r,
      otherObjects,
      Array.from({ length: 200 }, () => ageAt(80)),
    );

    convs = [
      ...(await postConversions(server, data, planned)),
      ...(await postConversions(server, otherWs, otherPlanned)),
    ];
    clicks = [...clicks, ...otherClicks];
    await insertClicks(knex(), clicks, T - 88 * DAY);
  }, 180_000);
  afterAll(async () => server?.stop());
  // A fresh key per test: each key has its own 60-requests-a-minute budget.
  beforeEach(async () => {
    key = await freshKey(data);
  });

  // -------------------------------------------------------------------------------------------
  describe('GET /api/v1/goals', () => {
    it("lists the workspace's goals newest first with every field, never another workspace's", async () => {
      const listed = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
      const o = await createObjects(server, listed, { links: 1, campaigns: 1, qrOn: [0] });
      const rows: goalsRepo.GoalRow[] = [];
      const defs: GoalInput[] = [
        {
          type: 'purchase',
          name: 'Spring sale revenue',
          link_id: o.links[0],
          target_count: 100,
          target_value_minor: 500_000,
          target_currency: 'EUR',
          window_start: midnight(T - 10 * DAY),
          window_end: midnight(T + 20 * DAY),
        },
        { type: 'custom', name: 'Newsletter', custom_name: 'newsletter_optin' },
        { type: 'custom', name: 'Any custom' },
        { type: 'signup', name: 'QR sign-ups', qr_code_id: Object.keys(o.qrs)[0], target_count: 5 },
        { type: 'lead', name: 'Campaign leads', campaign_id: o.campaigns[0], window_start: T - 5 * DAY },
      ];
      for (const d of defs) {
        rows.push(await makeGoal(d, listed.workspaceId));
        await new Promise((r) => setTimeout(r, 5));
      }
      await makeGoal({ type: 'purchase', name: 'Not yours' }, otherWs.workspaceId);
      const k = await freshKey(listed);
      const res = await server.request('GET', '/api/v1/goals', { key: k });
      expect(res.status, res.text).toBe(200);
      const expected = await Promise.all([...rows].reverse().map(async (r) => expectedGoal(await goalRow(r.id))));
      expect(res.body).toEqual({ data: expected });
      expect(res.body.data[0]).toMatchObject({
        name: 'Campaign leads',
        status: 'ACTIVE',
        archivedAt: null,
        definitionVersion: 1,
        windowEnd: null,
      });
      expect(res.body.data[4]).toMatchObject({
        targetCurrency: 'EUR',
        targetValueMinor: 500_000,
        windowStart: iso(midnight(T - 10 * DAY)),
      });
    });

    it('filters by status and ignores any other status value', async () => {
      const listed = await seedWorkspace(knex(), { scopes: DATA_SCOPES });
      const active = await makeGoal({ type: 'purchase', name: 'active' }, listed.workspaceId);
      await new Promise((r) => setTimeout(r, 3));
      const paused = await makeGoal({ type: 'signup', name: 'paused' }, listed.workspaceId);
      await new Promise((r) => setTimeout(r, 3));
      const archived = await makeGoal({ type: 'lead', name: 'archived' }, listed.workspaceId);
      for (const [id, status] of [
        [paused.id, 'PAUSED'],
        [archived.id, 'ARCHIVED'],
      ]) {
        expectJsonLine([], await cli(['goal', 'set-status', '--id', id, '--status', status]), [
          'id',
          'definitionVersion',
        ]);
      }
      const k = await freshKey(listed);
      const ids = async (status?: string) => {
        const res = await server.request(
          'GET',
          `/api/v1/goals${status === undefined ? '' : `?status=${encodeURIComponent(status)}`}`,
          { key: k },
        );
        expect(res.status, res.text).toBe(200);
        return res.body.data.map((g: any) => g.id);
      };
      expect(await ids('ACTIVE')).toEqual([active.id]);
      expect(await ids('PAUSED')).toEqual([paused.id]);
      expect(await ids('ARCHIVED')).toEqual([archived.id]);
      for (const other of [undefined, 'DELETED', 'paused', '', 'ACTIVE,PAUSED']) {
        expect(await ids(other), `status=${other}`).toEqual([archived.id, paused.id, active.id]);
      }
      const res = await server.request('GET', '/api/v1/goals?status=ARCHIVED', { key: k });
      expect(res.body.data[0].status).toBe('ARCHIVED');
      expect(Date.parse(res.body.data[0].archivedAt)).toBeGreaterThan(T);
      const p = await server.request('GET', '/api/v1/goals?status=PAUSED', { key: k });
      expect(p.body.data[0]).toMatchObject({ status: 'PAUSED', archivedAt: null, definitionVersion: 1 });
    });

    it('needs conversions:read', async () => {
      for (const scopes of [['conversions:write'], ['links:read', 'analytics:read']] as Scope[][]) {
        const k = await freshKey(data, scopes);
        expect((await server.request('GET', '/api/v1/goals', { key: k })).status).toBe(403);
      }
      const g = await makeGoal({ type: 'purchase' });
      const k = await freshKey(data, ['conversions:write']);
      expect((await report(g.id, undefined, k)).status).toBe(403);
      expect((await report(g.id, undefined, await freshKey(data, ['conversions:read']))).status).toBe(200);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('GET /api/v1/goals/{id}/report against the recount', () => {
    const G: Record<string, goalsRepo.GoalRow> = {};
    const CG: Record<string, goalsRepo.GoalRow> = {};
    beforeAll(async () => {
      const [L1, , L3] = objects.links;
      const [C1, C2] = objects.campaigns;
      const [Q1, Q2] = Object.keys(objects.qrs);
      G.purchaseAll = await makeGoal({
        type: 'purchase',
        target_count: 10,
        target_value_minor: 50_000,
        target_currency: 'EUR',
      });
      G.purchaseL1 = await makeGoal({
        type: 'purchase',
        link_id: L1,
        target_count: 1000,
        target_value_minor: 100,
        target_currency: 'JPY',
      });
      G.customWebinar = await makeGoal({ type: 'custom', custom_name: 'webinar' });
      G.customAll = await makeGoal({ type: 'custom' });
      G.signupQ1 = await makeGoal({ type: 'signup', qr_code_id: Q1, target_value_minor: 0, target_currency: 'USD' });
      G.purchaseQ2 = await makeGoal({ type: 'purchase', qr_code_id: Q2, target_count: 1 });
      // Campaign goals have their own test below: conversions naming a campaign but no link are unattributed.
      CG.leadC1 = await makeGoal({ type: 'lead', campaign_id: C1, target_count: 3 });
      CG.purchaseC2 = await makeGoal({
        type: 'purchase',
        campaign_id: C2,
        target_value_minor: 5000,
        target_currency: 'USD',
      });
      G.bookingL3 = await makeGoal({ type: 'booking', link_id: L3 });
      G.downloadAll = await makeGoal({ type: 'download', target_count: 2 });
      G.signupAll = await makeGoal({ type: 'signup' });
      G.leadAll = await makeGoal({ type: 'lead' });
    });

    const windows = () => [W.mid, W.midnight, W.sameDay, W.long100];

    it('matches the recount for every goal over the default window', async () => {
      for (const g of Object.values(G)) await expectReport(g.id);
    });
    it('matches the recount for every goal over mid-day, midnight, same-day and 100-day windows', async () => {
      for (const g of Object.values(G)) for (const w of windows()) await expectReport(g.id, w);
    });

    it('counts one conversion for every goal it matches', async () => {
      const both = convs.filter((c) => goalMatches(toRGoal(G.purchaseAll), c) && goalMatches(toRGoal(G.purchaseL1), c));
      expect(both.length).toBeGreaterThan(0);
      const all = (await expectReport(G.purchaseAll.id, W.long100)).res.body.data;
      const l1 = (await expectReport(G.purchaseL1.id, W.long100)).res.body.data;
      const q2 = (await expectReport(G.purchaseQ2.id, W.long100)).res.body.data;
      expect(l1.conversions).toBeGreaterThan(0);
      expect(q2.conversions).toBeGreaterThan(0);
      expect(all.conversions).toBeGreaterThanOrEqual(l1.conversions);
      // Reports are not workspace totals.
      const summary = await server.request(
        'GET',
        `/api/v1/conversions?${new URLSearchParams({ from: iso(W.long100.from), to: iso(W.long100.to), eventType: 'purchase' })}`,
        { key },
      );
      expect(summary.body.data.total).toBe(all.conversions);
    });

    it('includes unattributed conversions only for goals without a scope', async () => {
      const all = (await expectReport(G.leadAll.id, W.long100)).res.body.data;
      expect(all.unattributedIncluded).toBe(true);
      expect(all.unattributedConversions).toBeGreaterThan(0);
      for (const g of [G.purchaseL1, G.signupQ1, G.bookingL3]) {
        const d = (await expectReport(g.id, W.long100)).res.body.data;
        expect(d.unattributedIncluded).toBe(false);
        expect(d.unattributedConversions).toBe(0);
      }
    });

    it('counts for a campaign goal only the conversions of the campaign that name a link (a scoped goal never counts unattributed ones)', async () => {
      const C1 = objects.campaigns[0];
      const inLong = (c: RConversion) => c.occurredAt >= W.long100.from && c.occurredAt < W.long100.to;
      const linkless = convs.filter(
        (c) => c.campaignId === C1 && c.eventType === 'lead' && c.linkId === null && inLong(c),
      );
      const linked = convs.filter(
        (c) => c.campaignId === C1 && c.eventType === 'lead' && c.linkId !== null && inLong(c),
      );
      expect(linkless.length).toBeGreaterThan(0);
      expect(linked.length).toBeGreaterThan(0);
      // The response must be consistent with itself: unattributedIncluded false and
      // unattributedConversions 0 mean the link-less conversions are not in `conversions`.
      const res = await report(CG.leadC1.id, W.long100);
      expect(res.body.data).toMatchObject({ unattributedIncluded: false, unattributedConversions: 0 });
      expect(res.body.data.conversions, 'a campaign goal counted conversions that named no link').toBe(linked.length);
      for (const g of Object.values(CG)) for (const w of [W.mid, W.long100]) await expectReport(g.id, w);
      await expectReport(CG.purchaseC2.id);
    });

    it('reports countProgress and valueProgress', async () => {
      const count = (await expectReport(G.downloadAll.id, W.long100)).res.body.data.countProgress;
      expect(count.target).toBe(2);
      expect(count.ratio).toBe(count.current / 2);
      expect(count.reached).toBe(count.current >= 2);
      const zeroTarget = (await expectReport(G.signupQ1.id, W.mid)).res.body.data;
      expect(zeroTarget.countProgress).toBeNull();
      expect(zeroTarget.valueProgress).toMatchObject({ currency: 'USD', target: 0, ratio: 1, reached: true });
      const none = (await expectReport(G.customAll.id, W.mid)).res.body.data;
      expect(none.countProgress).toBeNull();
      expect(none.valueProgress).toBeNull();
      // The value target is measured in its own currency only.
      const eur = (await expectReport(G.purchaseAll.id, W.long100)).res.body.data;
      expect(eur.valueProgress.current).toBe(eur.value.find((v: any) => v.currency === 'EUR').valueMinor);
      expect(eur.value.length).toBe(3);
    });

    it("intersects the requested window with the goal's own window", async () => {
      const inside = { from: W.mid.from + 2 * DAY + 7 * HOUR, to: W.mid.to - DAY - 13 * MINUTE };
      const narrowed = await makeGoal({ type: 'purchase', window_start: inside.from, window_end: inside.to });
      const r1 = (await expectReport(narrowed.id, W.mid)).res.body.data;
      expect(r1.window).toEqual({ from: iso(inside.from), to: iso(inside.to), narrowedByGoal: true, disjoint: false });
      // Cut on one side only.
      const startOnly = await makeGoal({ type: 'purchase', window_start: inside.from });
      expect((await expectReport(startOnly.id, W.mid)).res.body.data.window).toEqual({
        from: iso(inside.from),
        to: iso(W.mid.to),
        narrowedByGoal: true,
        disjoint: false,
      });
      // A goal window covering the requested one does not narrow it.
      const wide = await makeGoal({ type: 'purchase', window_start: W.long100.from, window_end: T + DAY });
      expect((await expectReport(wide.id, W.mid)).res.body.data.window).toEqual({
        from: iso(W.mid.from),
        to: iso(W.mid.to),
        narrowedByGoal: false,
        disjoint: false,
      });
      // With the default window too.
      const recent = await makeGoal({
        type: 'purchase',
        window_start: midnight(T - 12 * DAY) + 5 * HOUR,
        window_end: midnight(T - 2 * DAY),
      });
      const res = await report(recent.id);
      expect(res.body.data.window).toEqual({
        from: iso(midnight(T - 12 * DAY) + 5 * HOUR),
        to: iso(midnight(T - 2 * DAY)),
        narrowedByGoal: true,
        disjoint: false,
      });
      await expectReport(recent.id, { from: Date.now() - 30 * DAY, to: Date.now() });
    });

    it('reports a disjoint window with every count 0 and the requested window echoed', async () => {
      const old = await makeGoal({
        type: 'purchase',
        window_start: T - 200 * DAY,
        window_end: T - 150 * DAY,
        target_count: 1,
        target_value_minor: 10,
        target_currency: 'EUR',
      });
      const { res } = await expectReport(old.id, W.mid);
      expect(res.body.data).toMatchObject({
        window: { from: iso(W.mid.from), to: iso(W.mid.to), narrowedByGoal: true, disjoint: true },
        conversions: 0,
        value: [],
        unattributedConversions: 0,
        countProgress: { target: 1, current: 0, ratio: 0, reached: false },
        valueProgress: { currency: 'EUR', target: 10, current: 0, ratio: 0, reached: false },
        rate: { supported: false, conversions: 0, clicks: 0, rate: null },
      });
      // Touching windows do not overlap: [a, b) and [b, c).
      const touching = await makeGoal({ type: 'purchase', window_end: W.mid.from });
      expect((await expectReport(touching.id, W.mid)).res.body.data.window.disjoint).toBe(true);
      const touchingAfter = await makeGoal({ type: 'purchase', window_start: W.mid.to });
      expect((await expectReport(touchingAfter.id, W.mid)).res.body.data.window.disjoint).toBe(true);
    });

    it('reports windowTruncatedByRetention when the window reaches past 400 days', async () => {
      const now = Date.now();
      const w = { from: now - 400 * DAY - HOUR, to: now - HOUR };
      const unbounded = (await expectReport(G.purchaseAll.id, w)).res.body.data;
      expect(unbounded.completeness.windowTruncatedByRetention).toBe(true);
      expect(unbounded.rate.reason).toBe('beyond_click_retention');
      const bounded = await makeGoal({ type: 'purchase', window_start: T - 100 * DAY });
      const b = (await expectReport(bounded.id, w)).res.body.data;
      expect(b.completeness.windowTruncatedByRetention).toBe(false);
      expect(b.window.narrowedByGoal).toBe(true);
      expect(
        (await expectReport(G.purchaseAll.id, W.long100)).res.body.data.completeness.windowTruncatedByRetention,
      ).toBe(false);
    });

    it('reports scopeObjectMissing once the link, QR code or campaign is gone, and keeps counting its history', async () => {
      const [, , , L4] = objects.links;
      const [, , C3] = objects.campaigns;
      const Q3 = Object.keys(objects.qrs)[2];
      const byLink = await makeGoal({ type: 'purchase', link_id: L4 });
      const byQr = await makeGoal({ type: 'signup', qr_code_id: Q3 });
      const byCampaign = await makeGoal({ type: 'purchase', campaign_id: C3 });
      // (Campaign goals' counts are checked in the test above; here only their completeness.)
      const completeness = async (g: goalsRepo.GoalRow) =>
        g.campaign_id
          ? (await report(g.id, W.long100)).body.data.completeness
          : (await expectReport(g.id, W.long100)).res.body.data.completeness;
      for (const g of [byLink, byQr, byCampaign]) expect((await completeness(g)).scopeObjectMissing).toBe(false);
      const before = (await report(byLink.id, W.long100)).body.data.conversions;
      expect(before).toBeGreaterThan(0);
      const del = await server.request('DELETE', `/api/v1/links/${L4}`, { key });
      expect(del.status, del.text).toBe(200);
      deleted.add(L4);
      // QR codes and campaigns are removed in the dashboard: their rows get deleted_at.
      await knex()('qr_codes').where({ id: Q3 }).update({ deleted_at: Date.now() });
      deleted.add(Q3);
      await knex()('campaigns').where({ id: C3 }).update({ deleted_at: Date.now() });
      deleted.add(C3);
      for (const g of [byLink, byQr, byCampaign]) expect((await completeness(g)).scopeObjectMissing).toBe(true);
      expect((await report(byLink.id, W.long100)).body.data.conversions).toBe(before);
      // Goals measuring something else are not affected.
      expect((await expectReport(G.purchaseL1.id, W.long100)).res.body.data.completeness.scopeObjectMissing).toBe(
        false,
      );
    });

    it("answers 404 for another workspace's goal and for an unknown id", async () => {
      const theirs = await makeGoal({ type: 'purchase' }, otherWs.workspaceId);
      for (const id of [theirs.id, 'goal_doesnotexist0000000', G.purchaseAll.id.toUpperCase()]) {
        const res = await report(id);
        expect(res.status, id).toBe(404);
        expect(typeof res.body.error).toBe('string');
      }
      // The owner sees it.
      expect((await report(theirs.id, undefined, await freshKey(otherWs))).status).toBe(200);
    });

    it.each([
      ['a window over 400 days', 'from', () => ({ from: iso(W.mid.to - 400 * DAY - 1), to: iso(W.mid.to) })],
      ['from after to', 'from', () => ({ from: iso(W.mid.to + 1), to: iso(W.mid.to) })],
      ['a malformed from', 'from', () => ({ from: 'last week' })],
      ['a malformed to', 'to', () => ({ to: '2026-13-01T00:00:00Z' })],
    ])('refuses %s with 400 and field %s', async (_t, field, params) => {
      const res = await server.request(
        'GET',
        `/api/v1/goals/${G.purchaseAll.id}/report?${new URLSearchParams(params())}`,
        { key },
      );
      expect(res.status, res.text).toBe(400);
      expect(res.body.field).toBe(field);
    });

    it('accepts exactly 400 days', async () => {
      await expectReport(G.customAll.id, { from: W.mid.to - 400 * DAY, to: W.mid.to });
    });

    it('never returns metadata, in the list or in a report', async () => {
      expect(convs.length).toBeGreaterThan(200);
      const list = await server.request('GET', '/api/v1/goals', { key });
      expect(list.status).toBe(200);
      expect(list.text).not.toContain(LEAK);
      expect(list.text).not.toContain('orderId');
      const rep = await report(G.purchaseAll.id, W.long100);
      expect(rep.text).not.toContain('orderId');
    });
  });

  // -------------------------------------------------------------------------------------------
  it('raises definition.version when `goal update` changes what matches, and matches retroactively', async () => {
    const [L1] = objects.links;
    const [Q1] = Object.keys(objects.qrs);
    const out = (args: string[], keys: string[]) => cli(args).then((r) => expectJsonLine(args, r, keys));
    const { id } = await out(
      ['goal', 'create', '--workspace', data.workspaceId, '--name', 'Chain', '--type', 'purchase', '--link', L1],
      ['id'],
    );
    let version = 1;
    const check = async (expectedVersion: number) => {
      expect(version).toBe(expectedVersion);
      const row = await goalRow(id);
      expect(Number(row.definition_version)).toBe(expectedVersion);
      const { res } = await expectReport(id, W.long100);
      expect(res.body.data.definition.version).toBe(expectedVersion);
      return res.body.data;
    };
    const update = async (flags: string[], bumps: boolean) => {
      const before = await goalRow(id);
      const res = await out(['goal', 'update', '--id', id, ...flags], ['id', 'definitionVersion']);
      if (bumps) version++;
      expect(res, flags.join(' ')).toEqual({ id, definitionVersion: version });
      const after = await goalRow(id);
      if (bumps) expect(Number(after.definition_updated_at)).toBeGreaterThan(Number(before.definition_updated_at));
      else expect(Number(after.definition_updated_at), flags.join(' ')).toBe(Number(before.definition_updated_at));
      expect(Number(after.updated_at)).toBeGreaterThanOrEqual(Number(before.updated_at));
    };

    const v1 = await check(1);
    expect(v1.conversions).toBeGreaterThan(0);
    // Name and targets do not decide matching.
    await update(
      ['--name', 'Chain renamed', '--target-count', '3', '--target-value-minor', '1000', '--target-currency', 'EUR'],
      false,
    );
    const stillV1 = await check(1);
    expect(stillV1.conversions).toBe(v1.conversions);
    expect(stillV1.countProgress).toMatchObject({ target: 3 });
    // The type does: the report now counts the past sign-ups on L1.
    await update(['--type', 'signup'], true);
    const v2 = await check(2);
    expect(v2.conversions).toBe(
      convs.filter(
        (c) =>
          c.eventType === 'signup' && c.linkId === L1 && c.occurredAt >= W.long100.from && c.occurredAt < W.long100.to,
      ).length,
    );
    // The same value again changes nothing.
    await update(['--type', 'signup'], false);
    // The scope does (the rest of the bump rules are in test/cli/goals-cli.test.ts).
    await update(['--qr', Q1], true);
    const v3 = await check(3);
    expect((await goalRow(id)).link_id).toBeNull();
    expect(v3.unattributedIncluded).toBe(false);
    // So does the window, and the report is narrowed by it.
    await update(['--window-start', iso(W.mid.from), '--window-end', iso(W.mid.to)], true);
    const v4 = await check(4);
    expect(v4.window).toMatchObject({ from: iso(W.mid.from), to: iso(W.mid.to), narrowedByGoal: true });
    // And the custom name.
    await update(['--type', 'custom', '--custom-name', 'trial_start'], true);
    await check(5);
    // Status is not part of the definition either.
    expect(
      expectJsonLine([], await cli(['goal', 'set-status', '--id', id, '--status', 'PAUSED']), [
        'id',
        'definitionVersion',
      ]),
    ).toEqual({ id, definitionVersion: 5 });
    const listed = await server.request('GET', '/api/v1/goals?status=PAUSED', { key });
    expect(listed.body.data.find((g: any) => g.id === id)).toEqual(expectedGoal(await goalRow(id)));
    expect(listed.body.data.find((g: any) => g.id === id)).toMatchObject({
      name: 'Chain renamed',
      definitionVersion: 5,
      type: 'custom',
      customName: 'trial_start',
      qrCodeId: Q1,
      linkId: null,
    });
    await check(5);
  }, 120_000);

  it('answers 503 goals_unavailable when FEATURE_GOALS or FEATURE_CONVERSIONS is off', async () => {
    for (const env of [{ FEATURE_GOALS: 'off' }, { FEATURE_CONVERSIONS: 'off' }] as Record<string, string>[]) {
      const off = await startTestServer(engine, { env });
      try {
        const s = await seedWorkspace(off.services.db.knex, { scopes: DATA_SCOPES });
        const g = await goalsRepo.createGoal(
          off.services.db.knex,
          s.workspaceId,
          goalDefinition({ name: 'g', type: 'purchase' }),
        );
        for (const path of ['/api/v1/goals', `/api/v1/goals/${g.id}/report`]) {
          const res = await off.request('GET', path, { key: s.key });
          expect(res.status, `${JSON.stringify(env)} ${path}`).toBe(503);
          expect(res.body).toMatchObject({ code: 'goals_unavailable', error: expect.any(String) });
        }
        // Without goals, conversions still work.
        const conv = await off.request('GET', '/api/v1/conversions', { key: s.key });
        expect(conv.status).toBe('FEATURE_GOALS' in env ? 200 : 503);
      } finally {
        await off.stop();
      }
    }
  });
});
