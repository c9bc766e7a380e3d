// Goals in the dashboard API, through HTTPS on every engine: made and changed with the command
// line's rules (messages naming the JSON fields), definitionVersion rising only when matching
// changes, pause / archive / reactivate, the report equal to GET /api/v1/goals/{id}/report and
// moving when a conversion is recorded through /api/v1/conversions; roles, plans, another
// workspace's goals and scope objects, a deployment without goals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { seedTeam, serverWithTeam, startWithTeams, type Team } from '../support/dashboard';
import type { TestServer } from '../support/server';
import { dataKey } from '../support/seed';

describe.each(testEngines())('dashboard goals on %s', (engine) => {
  let server: TestServer, team: Team, other: Team, base: string;
  let key: string;
  let linkId: string;
  let otherLinkId: string;
  const knex = () => server.services.db.knex;

  beforeAll(async () => {
    ({ server, team, other, base } = await startWithTeams(engine));
    key = await dataKey(knex(), team.workspaceId, team.people.owner.userId);
    const made = await team.member.request('POST', `${base}/links`, { body: { url: 'https://example.com/pricing' } });
    linkId = made.body.data.id;
    otherLinkId = (
      await other.member.request('POST', `/workspaces/${other.workspaceId}/links`, {
        body: { url: 'https://example.com/x' },
      })
    ).body.data.id;
  });
  afterAll(async () => server?.stop());

  const goal = (body: Record<string, unknown>) =>
    team.member.request('POST', `${base}/goals`, { body: { name: 'Trials', type: 'signup', ...body } });

  it('makes a goal, lists it, and its report moves when a conversion is recorded through the API', async () => {
    const made = await goal({
      name: '  Pricing purchases ',
      type: 'purchase',
      linkId,
      targetCount: 2,
      targetValueMinor: 10_000,
      targetCurrency: 'eur',
    });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({
      name: 'Pricing purchases',
      type: 'purchase',
      linkId,
      targetCount: 2,
      targetValueMinor: 10_000,
      targetCurrency: 'EUR',
      status: 'ACTIVE',
      definitionVersion: 1,
    });
    const id = made.body.data.id;
    expect((await team.analyst.request('GET', `${base}/goals`)).body.data.map((g: any) => g.id)).toContain(id);
    const report = async () => (await team.analyst.request('GET', `${base}/goals/${id}/report`)).body;
    expect((await report()).data).toMatchObject({ conversions: 0, countProgress: { target: 2, current: 0 } });
    const recorded = await server.request('POST', '/api/v1/conversions', {
      key,
      body: { eventType: 'purchase', linkId, value: { amountMinor: 6_000, currency: 'EUR' } },
    });
    expect(recorded.status).toBe(201);
    const after = await report();
    expect(after.data).toMatchObject({
      conversions: 1,
      countProgress: { target: 2, current: 1 },
      valueProgress: { currency: 'EUR', target: 10_000, current: 6_000 },
    });
    // The same report as the public API's, for the same window.
    const window = `from=${new Date(Date.now() - 86_400_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
    const api = await server.request('GET', `/api/v1/goals/${id}/report?${window}`, { key });
    expect((await team.analyst.request('GET', `${base}/goals/${id}/report?${window}`)).body).toEqual(api.body);
  });

  it('refuses what the command line refuses, naming the field, and makes nothing', async () => {
    const before = (await team.owner.request('GET', `${base}/goals`)).body.data.length;
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ name: '   ' }, 'name', /name must be 1 to 200 characters/],
      [{ customName: 'webinar' }, 'customName', /customName goes with type custom/],
      [{ linkId, campaignId: 'cmp_x' }, 'campaignId', /at most one of linkId, qrCodeId, campaignId/],
      [{ targetValueMinor: 500 }, 'targetCurrency', /targetValueMinor and targetCurrency go together/],
      [{ targetValueMinor: 500, targetCurrency: 'EURO' }, 'targetCurrency', /ISO 4217/],
      [
        { windowStart: '2026-03-01T00:00:00Z', windowEnd: '2026-02-01T00:00:00Z' },
        'windowEnd',
        /windowEnd must be after windowStart/,
      ],
      [{ windowStart: 'yesterday' }, 'windowStart', /windowStart/],
    ];
    for (const [body, field, message] of cases) {
      const res = await goal(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body, JSON.stringify(body)).toMatchObject({ field });
      expect(res.body.error).toMatch(message);
    }
    // The contract's own checks: an unknown type, a count below 1.
    expect((await goal({ type: 'visit' })).status).toBe(400);
    expect((await goal({ targetCount: 0 })).status).toBe(400);
    // Another workspace's link is not found.
    const theirs = await goal({ linkId: otherLinkId });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toBe(`link "${otherLinkId}" not found in workspace ${team.workspaceId}`);
    expect((await team.owner.request('GET', `${base}/goals`)).body.data.length).toBe(before);
  });

  it('raises definitionVersion only for a change of matching; pauses, archives and reactivates', async () => {
    const id = (await goal({ name: 'Webinar sign-ups', type: 'custom', customName: 'webinar' })).body.data.id;
    const patch = (body: Record<string, unknown>) => team.admin.request('PATCH', `${base}/goals/${id}`, { body });
    expect((await patch({ name: 'Webinar seats' })).body.data).toMatchObject({
      name: 'Webinar seats',
      definitionVersion: 1,
    });
    expect((await patch({ targetCount: 50 })).body.data).toMatchObject({ targetCount: 50, definitionVersion: 1 });
    expect((await patch({ customName: 'webinar-2' })).body.data).toMatchObject({
      customName: 'webinar-2',
      definitionVersion: 2,
    });
    // Setting a scope; then clearing it with null.
    expect((await patch({ linkId })).body.data).toMatchObject({ linkId, definitionVersion: 3 });
    expect((await patch({ linkId: null })).body.data).toMatchObject({ linkId: null, definitionVersion: 4 });
    // A type other than custom clears the custom name.
    expect((await patch({ type: 'lead' })).body.data).toMatchObject({ type: 'lead', customName: null });
    expect((await patch({})).status).toBe(400);

    const status = (s: string) => team.member.request('POST', `${base}/goals/${id}/status`, { body: { status: s } });
    expect((await status('PAUSED')).body.data).toMatchObject({ status: 'PAUSED', archivedAt: null });
    const archived = (await status('ARCHIVED')).body.data;
    expect(archived.status).toBe('ARCHIVED');
    expect(archived.archivedAt).not.toBeNull();
    expect((await team.member.request('GET', `${base}/goals?status=ARCHIVED`)).body.data.map((g: any) => g.id)).toEqual(
      [id],
    );
    expect(
      (await team.member.request('GET', `${base}/goals?status=ACTIVE`)).body.data.map((g: any) => g.id),
    ).not.toContain(id);
    expect((await status('ACTIVE')).body.data).toMatchObject({ status: 'ACTIVE', archivedAt: null });
    expect((await status('DONE')).status).toBe(400);
  });

  it('an ANALYST reads goals and reports but changes nothing; another workspace sees none of them', async () => {
    const id = (await goal({ name: 'Leads', type: 'lead' })).body.data.id;
    const res = await team.analyst.request('POST', `${base}/goals`, { body: { name: 'No', type: 'lead' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/ANALYST/);
    expect((await team.analyst.request('PATCH', `${base}/goals/${id}`, { body: { name: 'No' } })).status).toBe(403);
    expect(
      (await team.analyst.request('POST', `${base}/goals/${id}/status`, { body: { status: 'PAUSED' } })).status,
    ).toBe(403);
    expect((await team.analyst.request('GET', `${base}/goals/${id}/report`)).status).toBe(200);
    // Another workspace's people: their own workspace's path gives 404 for this goal.
    const theirs = `/workspaces/${other.workspaceId}`;
    expect((await other.owner.request('GET', `${theirs}/goals/${id}/report`)).status).toBe(404);
    expect((await other.owner.request('PATCH', `${theirs}/goals/${id}`, { body: { name: 'Taken' } })).status).toBe(404);
    expect(
      (await other.owner.request('POST', `${theirs}/goals/${id}/status`, { body: { status: 'PAUSED' } })).status,
    ).toBe(404);
    expect((await other.owner.request('GET', `${theirs}/goals`)).body.data.map((g: any) => g.id)).not.toContain(id);
    // And this workspace's path is not theirs to open.
    expect((await other.owner.request('GET', `${base}/goals`)).status).toBe(404);
  });

  it('a plan without goals answers 403 naming the plan; a report window over 400 days 400 with its field', async () => {
    const pro = await seedTeam(server, 'pro');
    const res = await pro.owner.request('GET', `/workspaces/${pro.workspaceId}/goals`);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/pro plan/);
    const id = (await goal({ name: 'Window', type: 'lead' })).body.data.id;
    const wide = await team.owner.request(
      'GET',
      `${base}/goals/${id}/report?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z`,
    );
    expect(wide.status).toBe(400);
    expect(wide.body.field).toBeDefined();
  });
});

describe.each(testEngines())('dashboard goals on a deployment without goals, %s', (engine) => {
  const fixture = serverWithTeam(engine, { env: { FEATURE_GOALS: 'off' } });

  it('answers 503 goals_unavailable', async () => {
    const { team } = fixture;
    const res = await team.owner.request('GET', `/workspaces/${team.workspaceId}/goals`);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('goals_unavailable');
  });
});
