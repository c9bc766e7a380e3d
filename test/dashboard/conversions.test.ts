// The dashboard's Conversions read through HTTPS on every engine: its `data` is exactly what
// GET /api/v1/conversions answers for the same query (every filter, alone and combined, windows
// of whole days, odd hours, one day, empty, 400 days), its `series` puts each conversion recorded
// through /api/v1/conversions on its UTC day and adds up to the total, its `names` name this
// workspace's links, campaigns and QR codes only; bad input gets the API's 400 and field; another
// workspace's ids count nothing, as in the API; every role reads, nothing else opens it; a plan
// without conversions 403, a deployment without them 503. Every answer is checked against the
// dashboard contract (SHORTLINK_VALIDATE_RESPONSES, vitest.config.ts) and here once more by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createQrCode } from '../../src/db/repos/workspace-objects';
import { DASHBOARD_API, seedTeam, serverWithTeam, startWithTeams, type Team } from '../support/dashboard';
import { testEngines } from '../support/databases';
import { openDocument } from '../support/fuzz-openapi';
import {
  DAY,
  dayOf,
  HOUR,
  insertClicks,
  keyRing,
  matchesFilters,
  midnight,
  MINUTE,
  postConversions,
  randomClicks,
  randomConversion,
  rng,
  type Filters,
  type Objects,
  type PlannedConversion,
  type RClick,
  type RConversion,
  type Win,
  valueEntriesOf,
} from '../support/recount';
import type { TestServer } from '../support/server';

const iso = (t: number) => new Date(t).toISOString();
const dashboard = openDocument('dashboard.json');
const operation = dashboard.operations().find((o) => o.operationId === 'getDashboardConversions')!;

describe.each(testEngines())('dashboard conversions on %s', (engine) => {
  let server: TestServer, team: Team, other: Team, base: string;
  let objects: Objects;
  let otherObjects: Objects;
  let convs: RConversion[];
  let clicks: RClick[];
  let apiKey: () => Promise<string>;
  const T = Date.now();
  const knex = () => server.services.db.knex;

  /** Links, campaigns and QR codes made as people make them: links through the API, the rest as the command line does. */
  async function objectsOf(
    t: Awaited<ReturnType<typeof seedTeam>>,
    links: number,
    campaigns: number,
    qrOn: number[],
  ): Promise<Objects> {
    const key = keyRing(knex, t.workspaceId, t.people.owner.userId);
    const ids: string[] = [];
    for (let i = 0; i < links; i++) {
      const res = await server.request('POST', '/api/v1/links', {
        key: await key(),
        body: { url: `https://example.com/landing/${i}`, slug: `${engine}-${t.workspaceId.slice(-6)}-${i}` },
      });
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.data.id);
    }
    const cmps: string[] = [];
    for (let i = 0; i < campaigns; i++) cmps.push(await createCampaign(knex(), t.workspaceId, `Campaign ${i}`));
    const qrs: Record<string, string> = {};
    for (const i of qrOn) qrs[(await createQrCode(knex(), t.workspaceId, ids[i])).id] = ids[i];
    return { workspaceId: t.workspaceId, links: ids, campaigns: cmps, qrs };
  }

  beforeAll(async () => {
    ({ server, team, other, base } = await startWithTeams(engine));
    apiKey = keyRing(knex, team.workspaceId, team.people.owner.userId);
    objects = await objectsOf(team, 4, 2, [0, 1]);
    otherObjects = await objectsOf(other, 1, 1, [0]);

    // Conversions over the last 100 days, more of them in the last two, and on the edges of
    // today and yesterday; recorded through the API, as a partner's server records them.
    const r = rng(2311);
    const planned: PlannedConversion[] = [];
    const at = (maxAgeMs: number) => T - Math.floor(r.next() * maxAgeMs);
    for (let i = 0; i < 70; i++) planned.push(randomConversion(r, objects, at(100 * DAY)));
    for (let i = 0; i < 20; i++) planned.push(randomConversion(r, objects, at(2 * DAY)));
    for (const t of [midnight(T), midnight(T) - 1, midnight(T) - DAY, midnight(T) - DAY - 1, T - MINUTE])
      planned.push(randomConversion(r, objects, t));
    const otherPlanned = Array.from({ length: 15 }, () => randomConversion(r, otherObjects, at(30 * DAY)));
    convs = [
      ...(await postConversions(server, { workspaceId: team.workspaceId, userId: team.people.owner.userId }, planned)),
    ];
    await postConversions(server, { workspaceId: other.workspaceId, userId: other.people.owner.userId }, otherPlanned);
    // Clicks on the first three links (the fourth has conversions and none), the last 60 days.
    clicks = randomClicks(
      r,
      { ...objects, links: objects.links.slice(0, 3) },
      Array.from({ length: 150 }, () => at(60 * DAY)),
    );
    await insertClicks(knex(), clicks, T - 88 * DAY);
  }, 180_000);
  afterAll(async () => server?.stop());

  const query = (w: Win | null, f: Filters & Record<string, string | undefined>) => {
    const q = new URLSearchParams();
    if (w) {
      q.set('from', iso(w.from));
      q.set('to', iso(w.to));
    }
    for (const [k, v] of Object.entries(f)) if (v !== undefined) q.set(k, v);
    return q.toString();
  };
  const both = async (q: string, who = team.analyst) => {
    const [dash, api] = [
      await who.request('GET', `${base}/conversions?${q}`),
      await server.request('GET', `/api/v1/conversions?${q}`, { key: await apiKey() }),
    ];
    expect(dashboard.checkResponse(operation, dash), q).toEqual([]);
    return { dash, api };
  };

  /** What the series must be: every recorded conversion the filters select, on its UTC day. */
  function expectedSeries(w: Win, f: Filters) {
    const inScope = convs.filter((c) => c.occurredAt >= w.from && c.occurredAt < w.to && matchesFilters(c, f));
    const days: Array<{
      day: string;
      conversions: number;
      value: Array<{ currency: string; valueMinor: number; conversions: number }>;
    }> = [];
    if (w.from >= w.to) return days;
    for (let d = dayOf(w.from); d <= Math.ceil(w.to / DAY) - 1; d++) {
      const on = inScope.filter((c) => dayOf(c.occurredAt) === d);
      days.push({ day: iso(d * DAY).slice(0, 10), conversions: on.length, value: valueEntriesOf(on) });
    }
    return days;
  }

  const WINDOWS: Record<string, () => Win> = {
    last30: () => ({ from: T - 30 * DAY, to: T + MINUTE }),
    wholeDays: () => ({ from: midnight(T) - 14 * DAY, to: midnight(T) + DAY }),
    oddHours: () => ({ from: midnight(T) - 20 * DAY + 7 * HOUR, to: midnight(T) - DAY + 13 * HOUR }),
    oneDay: () => ({ from: midnight(T) - DAY + 2 * HOUR, to: midnight(T) - DAY + 20 * HOUR }),
    acrossMidnight: () => ({ from: midnight(T) - 3 * HOUR, to: T + MINUTE }),
    long120: () => ({ from: T - 120 * DAY, to: T + MINUTE }),
    days400: () => ({ from: T + MINUTE - 400 * DAY, to: T + MINUTE }),
    empty: () => ({ from: T - DAY, to: T - DAY }),
  };
  const FILTERS: Record<string, () => Filters> = {
    none: () => ({}),
    purchase: () => ({ eventType: 'purchase' }),
    custom: () => ({ eventType: 'custom' }),
    customName: () => ({ customName: 'webinar' }),
    customWithName: () => ({ eventType: 'custom', customName: 'webinar' }),
    link: () => ({ linkId: objects.links[0] }),
    linkWithoutClicks: () => ({ linkId: objects.links[3] }),
    campaign: () => ({ campaignId: objects.campaigns[0] }),
    qr: () => ({ qrCodeId: Object.keys(objects.qrs)[0] }),
    linkAndType: () => ({ linkId: objects.links[1], eventType: 'purchase' }),
    campaignAndQr: () => ({ campaignId: objects.campaigns[1], qrCodeId: Object.keys(objects.qrs)[1] }),
    typeAndCampaign: () => ({ eventType: 'signup', campaignId: objects.campaigns[0] }),
    linkAndQr: () => ({ linkId: objects.links[0], qrCodeId: Object.keys(objects.qrs)[0] }),
  };

  it('records a data set rich enough to prove something', async () => {
    const { dash } = await both(query(WINDOWS.long120(), {}));
    const d = dash.body.data;
    expect(d.total).toBe(convs.length);
    expect(d.unattributedConversions).toBeGreaterThan(5);
    expect(d.byLink.length).toBe(4);
    expect(d.byCampaign.length).toBe(2);
    expect(d.byQr.length).toBe(2);
    expect(d.value.length).toBeGreaterThanOrEqual(2);
    expect(d.rate.reason).toBe('beyond_click_retention');
    const recent = (await both(query(WINDOWS.last30(), {}))).dash.body.data;
    expect(recent.rate.supported).toBe(true);
    expect(recent.byLink.find((l: any) => l.id === objects.links[3])?.rate.reason).toBe('no_clicks_in_window');
    expect(recent.byLink.filter((l: any) => l.rate.supported).length).toBeGreaterThanOrEqual(2);
  });

  for (const [fname, filters] of Object.entries(FILTERS)) {
    it(`with filter ${fname}: the API's summary over every window, and each conversion on its day`, async () => {
      for (const [wname, windowOf] of Object.entries(WINDOWS)) {
        const w = windowOf();
        const f = filters();
        const { dash, api } = await both(query(w, f as Record<string, string>));
        const at = `${fname} over ${wname}`;
        expect(dash.status, `${at}: ${dash.text}`).toBe(200);
        expect(api.status, at).toBe(200);
        expect(dash.body.data, at).toEqual(api.body.data);
        expect(dash.body.series, at).toEqual(expectedSeries(w, f));
        expect(
          dash.body.series.reduce((n: number, d: any) => n + d.conversions, 0),
          at,
        ).toBe(dash.body.data.total);
        // Values per currency add up too.
        const summed = new Map<string, number>();
        for (const d of dash.body.series)
          for (const v of d.value) summed.set(v.currency, (summed.get(v.currency) ?? 0) + v.valueMinor);
        expect(Object.fromEntries(summed), at).toEqual(
          Object.fromEntries(dash.body.data.value.map((v: any) => [v.currency, v.valueMinor])),
        );
      }
    }, 120_000);
  }

  it('defaults to the last 30 days, as the API does', async () => {
    const { dash, api } = await both('');
    const { windowFrom, windowTo, ...rest } = dash.body.data;
    const { windowFrom: apiFrom, windowTo: apiTo, ...apiRest } = api.body.data;
    expect(rest).toEqual(apiRest);
    expect(Date.parse(windowTo) - Date.parse(windowFrom)).toBe(30 * DAY);
    expect(Math.abs(Date.parse(windowTo) - Date.parse(apiTo))).toBeLessThan(10_000);
    expect(dash.body.series.length).toBeGreaterThanOrEqual(30);
    expect(dash.body.series.at(-1).day).toBe(iso(Date.parse(windowTo) - 1).slice(0, 10));
  });

  it("names this workspace's links, campaigns and QR codes (a deleted link too), and nothing of another", async () => {
    const deleted = objects.links[2];
    expect((await team.admin.request('DELETE', `${base}/links/${deleted}`)).status).toBe(204);
    const { dash } = await both(query(WINDOWS.long120(), {}));
    const { names, data } = dash.body;
    expect(names.links.map((l: any) => l.id).sort()).toEqual(data.byLink.map((l: any) => l.id).sort());
    const first = (await team.owner.request('GET', `${base}/links/${objects.links[0]}`)).body.data;
    expect(names.links.find((l: any) => l.id === objects.links[0])).toEqual({
      id: first.id,
      slug: first.slug,
      shortUrl: first.shortUrl,
      title: null,
      deleted: false,
    });
    expect(names.links.find((l: any) => l.id === deleted)).toMatchObject({ deleted: true });
    expect(names.campaigns).toEqual(
      expect.arrayContaining([
        { id: objects.campaigns[0], name: 'Campaign 0' },
        { id: objects.campaigns[1], name: 'Campaign 1' },
      ]),
    );
    const [qr0] = Object.keys(objects.qrs);
    expect(names.qrCodes.find((q: any) => q.id === qr0)).toMatchObject({
      linkId: objects.links[0],
      slug: first.slug,
      shortUrl: first.shortUrl,
      deleted: false,
    });
    // A filter's id is named even when nothing converted in the window.
    const empty = await both(query(WINDOWS.empty(), { linkId: objects.links[1], campaignId: objects.campaigns[1] }));
    expect(empty.dash.body.names.links.map((l: any) => l.id)).toEqual([objects.links[1]]);
    expect(empty.dash.body.names.campaigns.map((c: any) => c.id)).toEqual([objects.campaigns[1]]);
  });

  it("another workspace's ids count nothing, as in the API, and are never named", async () => {
    const theirs = {
      linkId: otherObjects.links[0],
      campaignId: otherObjects.campaigns[0],
      qrCodeId: Object.keys(otherObjects.qrs)[0],
    };
    for (const f of [
      { linkId: theirs.linkId },
      { campaignId: theirs.campaignId },
      { qrCodeId: theirs.qrCodeId },
      theirs,
      { linkId: 'lnk_nowhere' },
    ]) {
      const { dash, api } = await both(query(WINDOWS.last30(), f));
      expect(dash.status).toBe(200);
      expect(dash.body.data).toEqual(api.body.data);
      expect(dash.body.data.total).toBe(0);
      expect(dash.body.series.every((d: any) => d.conversions === 0)).toBe(true);
      expect(dash.body.names).toEqual({ links: [], campaigns: [], qrCodes: [] });
      for (const id of [...Object.values(theirs), other.workspaceId]) expect(dash.text).not.toContain(id);
    }
    // And the other workspace's people cannot open this one.
    expect((await other.owner.request('GET', `${base}/conversions`)).status).toBe(404);
  });

  it.each([
    ['a window over 400 days', () => ({ from: iso(T - 400 * DAY - 1), to: iso(T) })],
    ['from alone more than 400 days ago', () => ({ from: iso(T - 401 * DAY) })],
    ['from after to', () => ({ from: iso(T + 1), to: iso(T) })],
    ['a malformed from', () => ({ from: 'yesterday' })],
    ['a from without a zone', () => ({ from: '2026-01-01T00:00:00' })],
    ['a malformed to', () => ({ to: 'now' })],
    ['a customName of 41 characters', () => ({ customName: 'n'.repeat(41) })],
    ['an empty customName', () => ({ customName: '' })],
    ['customName with another eventType', () => ({ customName: 'webinar', eventType: 'purchase' })],
    ['an unknown eventType', () => ({ eventType: 'clicks' })],
  ])('refuses %s with the 400 and field the API gives', async (_t, params) => {
    const q = new URLSearchParams(params()).toString();
    const { dash, api } = await both(q);
    expect(api.status).toBe(400);
    expect(dash.status, dash.text).toBe(400);
    expect(dash.body).toEqual(api.body);
    expect(Object.keys(dash.body).sort()).toEqual(['error', 'field']);
    expect(typeof dash.body.field).toBe('string');
  });

  it('every role reads it; no session, an API key, another method or another workspace do not', async () => {
    for (const who of [team.owner, team.admin, team.member, team.analyst])
      expect((await who.request('GET', `${base}/conversions`)).status).toBe(200);
    expect((await server.request('GET', `${DASHBOARD_API}${base}/conversions`)).status).toBe(401);
    expect((await server.request('GET', `${DASHBOARD_API}${base}/conversions`, { key: await apiKey() })).status).toBe(
      401,
    );
    // A read needs no anti-forgery token; a change to this path does not exist, with or without one.
    expect(
      (await team.owner.request('GET', `${base}/conversions`, { headers: { origin: 'https://attacker.example' } }))
        .status,
    ).toBe(200);
    const post = await team.owner.request('POST', `${base}/conversions`, { body: { eventType: 'lead' } });
    expect(post.status).toBe(405);
    expect(
      (await team.owner.request('POST', `${base}/conversions`, { body: { eventType: 'lead' }, csrf: null })).status,
    ).toBeGreaterThanOrEqual(403);
    expect((await team.owner.request('GET', `/workspaces/ws_nowhere/conversions`)).status).toBe(404);
    expect((await team.owner.request('GET', `/workspaces/${other.workspaceId}/conversions`)).status).toBe(404);
  });

  it('a plan without conversions answers 403 naming the plan', async () => {
    for (const plan of ['pro', 'free'] as const) {
      const t = await seedTeam(server, plan);
      const res = await t.analyst.request('GET', `/workspaces/${t.workspaceId}/conversions`);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatch(new RegExp(`${plan} plan`));
    }
  });
});

describe.each(testEngines())('dashboard conversions on a deployment without conversion tracking, %s', (engine) => {
  const fixture = serverWithTeam(engine, { env: { FEATURE_CONVERSIONS: 'off' } });

  it('answers 503 conversions_unavailable, as the API does', async () => {
    const { team } = fixture;
    const res = await team.analyst.request('GET', `/workspaces/${team.workspaceId}/conversions`);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('conversions_unavailable');
    // Documented for the operation, in the Error schema (the checker also flags every 5xx, as the fuzzer wants).
    expect(dashboard.checkResponse(operation, res).filter((p) => !p.startsWith('5xx'))).toEqual([]);
  });
});
