// Shared reports through HTTPS on every engine: a report of each kind (conversions, a goal, a
// link's or a bio page's analytics) whose shared read equals the dashboard's own figures for the
// window it says it used; the screens' rules and messages for params, each kind refusing the
// others'; visibility (PRIVATE, deleted, an old token: the same 404 at once; the page's status and
// robots rules); a new link; passwords (401, throttled to 429, a cookie scoped to the report, a new
// password or link asking again); roles, anti-forgery, other workspaces for every operation of
// the Reports tag; plan gates; the figures reused for at most a minute and never past a change.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPlan } from '../../src/db/repos/workspaces';
import { DAY_MS } from '../../src/domain/conversions';
import { SharedFigures, findSharedReport } from '../../src/http/dashboard/shared-reports';
import { projectPath } from '../../src/platform/project-root';
import { testEngines } from '../support/databases';
import { seedTeam, serverWithTeam, startWithTeams, type Team } from '../support/dashboard';
import { openDocument } from '../support/fuzz-openapi';
import type { TestResponse, TestServer } from '../support/server';
import { dataKey } from '../support/seed';

const dashboard = openDocument('dashboard.json');
/** A person's browser: the only views a page's analytics count. */
const PERSON =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

describe.each(testEngines())('shared reports on %s', (engine) => {
  let server: TestServer, team: Team, other: Team, base: string;
  let key: string;
  let linkId: string;
  let goalId: string;
  let pageId: string;
  const knex = () => server.services.db.knex;
  const handle = `acme-reports-${engine}`;
  const visit = (path: string) => server.request('GET', path, { headers: { 'user-agent': PERSON } });

  beforeAll(async () => {
    expect(fs.existsSync(projectPath('dist/web/index.html')), 'dist/web is built at install (npm run build:web)').toBe(
      true,
    );
    ({ server, team, other, base } = await startWithTeams(engine));
    key = await dataKey(knex(), team.workspaceId, team.people.owner.userId);
    linkId = (
      await server.request('POST', '/api/v1/links', {
        key,
        body: { url: 'https://example.com/pricing', slug: `pricing-${engine}`, title: 'Pricing page' },
      })
    ).body.data.id;
    goalId = (
      await team.member.request('POST', `${base}/goals`, {
        body: { name: 'Purchases', type: 'purchase', targetCount: 10 },
      })
    ).body.data.id;
    for (const body of [
      { eventType: 'purchase', linkId, value: { amountMinor: 4_900, currency: 'EUR' } },
      { eventType: 'purchase', value: { amountMinor: 1_000, currency: 'USD' } },
      { eventType: 'signup', linkId },
    ]) {
      expect((await server.request('POST', '/api/v1/conversions', { key, body })).status).toBe(201);
    }
    // A published bio page with two views and a followed link block; then a draft title not
    // published yet, which a shared report does not show.
    const page = (
      await team.member.request('POST', `${base}/pages`, {
        body: { handle, title: 'Acme Outdoor', blocks: [{ type: 'link', text: 'Pricing', linkId }] },
      })
    ).body.data;
    pageId = page.id;
    expect((await team.member.request('POST', `${base}/pages/${pageId}/publish`)).status).toBe(200);
    expect((await visit(`/@${handle}`)).status).toBe(200);
    expect((await visit(`/@${handle}`)).status).toBe(200);
    expect((await visit(`/@${handle}/${page.blocks[0].id}`)).status).toBe(302);
    await server.clicks.flush();
    expect(
      (await team.member.request('PATCH', `${base}/pages/${pageId}`, { body: { title: 'Acme Outdoor (draft)' } }))
        .status,
    ).toBe(200);
  });
  afterAll(async () => server?.stop());

  const make = (body: Record<string, unknown>, who = team.member) =>
    who.request('POST', `${base}/reports`, {
      body: { kind: 'CONVERSIONS', title: 'Last month', params: { window: { lastDays: 30 } }, ...body },
    });
  const patch = (id: string, body: Record<string, unknown>) =>
    team.member.request('PATCH', `${base}/reports/${id}`, { body });
  /** The public read, as a signed-out browser makes it. */
  const read = (token: string, cookie?: string) =>
    server.request('GET', `/app/api/shared/${token}`, { headers: cookie ? { cookie } : {} });
  const unlock = (token: string, password: string, headers: Record<string, string> = {}) =>
    server.request('POST', `/app/api/shared/${token}/unlock`, { body: { password }, headers });
  const pageOf = (token: string) => server.request('GET', `/app/shared/${token}`);
  const cookieOf = (res: TestResponse) => String(res.headers['set-cookie']).split(';')[0];

  it('makes a report of each kind; anyone with its URL reads the same figures the dashboard shows for the window it used', async () => {
    const conv = await make({
      title: '  Purchases, last 30 days ',
      visibility: 'UNLISTED',
      params: { window: { lastDays: 30 }, eventType: 'purchase' },
    });
    expect(conv.status).toBe(201);
    expect(conv.body.data).toMatchObject({
      kind: 'CONVERSIONS',
      title: 'Purchases, last 30 days',
      visibility: 'UNLISTED',
      hasPassword: false,
      createdBy: team.people.member.userId,
    });
    expect(conv.body.data.url).toMatch(/^https:\/\/localhost:8443\/app\/shared\/[A-Za-z0-9_-]{43}$/);
    const shared = await read(tokenOf(conv.body.data.url));
    expect(shared.status).toBe(200);
    expect(shared.headers['x-robots-tag']).toBe('noindex');
    expect(shared.body).toMatchObject({
      title: 'Purchases, last 30 days',
      kind: 'CONVERSIONS',
      window: { lastDays: 30 },
    });
    // "Last 30 days" as the Conversions screen reads it: 30 UTC days ending with today.
    const tomorrow = (Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS;
    expect(shared.body.window).toEqual({
      from: new Date(tomorrow - 30 * DAY_MS).toISOString(),
      to: new Date(tomorrow).toISOString(),
      lastDays: 30,
    });
    const screen = await team.analyst.request(
      'GET',
      `${base}/conversions?from=${shared.body.window.from}&to=${shared.body.window.to}&eventType=purchase`,
    );
    expect(shared.body.conversions).toEqual(screen.body);
    expect(shared.body.conversions.data.total).toBe(2);
    expect(shared.body.goal).toBeUndefined();

    const goal = await make({
      kind: 'GOAL',
      title: 'Purchases goal',
      visibility: 'PUBLIC',
      params: { window: { lastDays: 7 }, goalId },
    });
    expect(goal.status).toBe(201);
    const goalRead = (await read(tokenOf(goal.body.data.url))).body;
    // A goal's "Last 7 days" is the 7 × 24 hours up to the minute of reading, as its screen reads it.
    expect(Date.parse(goalRead.window.to) - Date.parse(goalRead.window.from)).toBe(7 * DAY_MS);
    expect(Math.abs(Date.parse(goalRead.window.to) - Date.now())).toBeLessThanOrEqual(60_000);
    const goalScreen = await team.analyst.request(
      'GET',
      `${base}/goals/${goalId}/report?from=${goalRead.window.from}&to=${goalRead.window.to}`,
    );
    expect(goalRead.goal).toEqual(goalScreen.body);
    expect(goalRead.goal.data.conversions).toBe(2);

    const today = isoDay(Date.now());
    const from = isoDay(Date.now() - 9 * DAY_MS);
    const link = await make({
      kind: 'LINK',
      title: 'Pricing clicks',
      visibility: 'UNLISTED',
      params: { window: { from, to: today }, linkId },
    });
    expect(link.status).toBe(201);
    const linkRead = (await read(tokenOf(link.body.data.url))).body;
    expect(linkRead.window).toEqual({
      from: `${from}T00:00:00.000Z`,
      to: new Date(Date.parse(`${today}T00:00:00Z`) + DAY_MS).toISOString(),
      lastDays: null,
    });
    const linkScreen = await team.analyst.request('GET', `${base}/links/${linkId}/analytics?from=${from}&to=${today}`);
    expect(linkRead.link).toEqual({
      slug: `pricing-${engine}`,
      shortUrl: `https://localhost:8443/pricing-${engine}`,
      title: 'Pricing page',
      analytics: linkScreen.body,
    });

    const page = await make({
      kind: 'PAGE',
      title: `@${handle} analytics, last 7 days`,
      visibility: 'UNLISTED',
      params: { window: { lastDays: 7 }, pageId },
    });
    expect(page.status).toBe(201);
    expect(page.body.data).toMatchObject({ kind: 'PAGE', params: { window: { lastDays: 7 }, pageId } });
    const pageRead = (await read(tokenOf(page.body.data.url))).body;
    // "Last 7 days" as a page's analytics read it: 7 UTC days ending with today.
    expect(pageRead.window).toEqual({
      from: new Date(tomorrow - 7 * DAY_MS).toISOString(),
      to: new Date(tomorrow).toISOString(),
      lastDays: 7,
    });
    const pageScreen = await team.analyst.request(
      'GET',
      `${base}/pages/${pageId}/analytics?from=${isoDay(tomorrow - 7 * DAY_MS)}&to=${isoDay(tomorrow - DAY_MS)}`,
    );
    expect(pageScreen.status).toBe(200);
    expect(pageRead.page).toEqual({
      handle,
      url: `https://localhost:8443/@${handle}`,
      // The title visitors see, not the draft's.
      title: 'Acme Outdoor',
      analytics: pageScreen.body,
    });
    expect(pageRead.page.analytics.totals).toEqual({ views: 2, clicks: 1 });
    expect(pageRead.page.analytics.series).toHaveLength(7);
    expect(pageRead.link).toBeUndefined();

    // Nothing of the workspace beyond the report: not its id, name, plan or people.
    const workspace = (await team.owner.request('GET', base)).body.data;
    for (const res of [
      shared,
      await read(tokenOf(goal.body.data.url)),
      await read(tokenOf(link.body.data.url)),
      await read(tokenOf(page.body.data.url)),
    ]) {
      for (const secret of [
        team.workspaceId,
        workspace.name,
        ...Object.values(team.people).flatMap((p) => [p.email, p.userId]),
      ]) {
        expect(res.text, secret).not.toContain(secret);
      }
      expect(res.text).not.toMatch(/"plan"|growth/);
    }
    // Listed for every role, newest first.
    const list = (await team.analyst.request('GET', `${base}/reports`)).body.data.map((r: any) => r.id);
    expect(list.slice(0, 4)).toEqual([page.body.data.id, link.body.data.id, goal.body.data.id, conv.body.data.id]);
  });

  it("checks params with the screens' rules and messages, naming the field, and makes nothing", async () => {
    const before = (await team.owner.request('GET', `${base}/reports`)).body.data.length;
    const today = isoDay(Date.now());
    const apiMessage = (
      await server.request('GET', '/api/v1/conversions?eventType=purchase&customName=webinar', { key })
    ).body.error;
    const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
      [
        { params: { window: { from: '2024-01-01', to: '2025-06-01' } } },
        400,
        'params.window.from',
        /^The window may not exceed 400 days$/,
      ],
      [
        { params: { window: { from: today, to: isoDay(Date.now() - DAY_MS) } } },
        400,
        'params.window.from',
        /^from must not be after to$/,
      ],
      [
        { params: { window: { lastDays: 30 }, eventType: 'purchase', customName: 'webinar' } },
        400,
        'params.customName',
        new RegExp(`^${apiMessage}$`),
      ],
      [{ params: { window: { lastDays: 30 }, goalId } }, 400, 'params.goalId', /does not go with a CONVERSIONS report/],
      [
        { kind: 'GOAL', params: { window: { lastDays: 30 } } },
        400,
        'params.goalId',
        /^params\.goalId is required when kind is GOAL$/,
      ],
      [
        { kind: 'LINK', params: { window: { lastDays: 30 }, linkId, eventType: 'signup' } },
        400,
        'params.eventType',
        /does not go with a LINK report/,
      ],
      [
        { kind: 'PAGE', params: { window: { lastDays: 30 } } },
        400,
        'params.pageId',
        /^params\.pageId is required when kind is PAGE$/,
      ],
      // Every kind refuses the params of the others, naming them.
      [
        { kind: 'PAGE', params: { window: { lastDays: 30 }, pageId, linkId } },
        400,
        'params.linkId',
        /^params\.linkId does not go with a PAGE report; it takes window, pageId$/,
      ],
      [
        { kind: 'PAGE', params: { window: { lastDays: 30 }, pageId, goalId } },
        400,
        'params.goalId',
        /^params\.goalId does not go with a PAGE report; it takes window, pageId$/,
      ],
      [
        { kind: 'PAGE', params: { window: { lastDays: 30 }, pageId, eventType: 'lead' } },
        400,
        'params.eventType',
        /^params\.eventType does not go with a PAGE report; it takes window, pageId$/,
      ],
      [
        { kind: 'LINK', params: { window: { lastDays: 30 }, linkId, pageId } },
        400,
        'params.pageId',
        /^params\.pageId does not go with a LINK report; it takes window, linkId$/,
      ],
      [
        { kind: 'GOAL', params: { window: { lastDays: 30 }, goalId, pageId } },
        400,
        'params.pageId',
        /^params\.pageId does not go with a GOAL report; it takes window, goalId$/,
      ],
      [
        { params: { window: { lastDays: 30 }, pageId } },
        400,
        'params.pageId',
        /^params\.pageId does not go with a CONVERSIONS report/,
      ],
      [{ title: '   ' }, 400, 'title', /title must be 1 to 200 characters/],
    ];
    for (const [body, status, field, message] of cases) {
      const res = await make(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body, JSON.stringify(body)).toMatchObject({ field });
      expect(res.body.error).toMatch(message);
    }
    // The contract's own checks: a window of 401 days, an unknown kind or visibility.
    for (const body of [
      { params: { window: { lastDays: 401 } } },
      { kind: 'TAG' },
      { visibility: 'SECRET' },
      { params: { window: { lastDays: 7, from: today } } },
    ]) {
      const res = await make(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
    // Another workspace's goal, link or page is not found, as on their screens; so is a deleted page.
    const theirLink = (
      await other.member.request('POST', `/workspaces/${other.workspaceId}/links`, {
        body: { url: 'https://example.com/theirs' },
      })
    ).body.data.id;
    const theirGoal = (
      await other.member.request('POST', `/workspaces/${other.workspaceId}/goals`, {
        body: { name: 'Theirs', type: 'lead' },
      })
    ).body.data.id;
    expect((await make({ kind: 'GOAL', params: { window: { lastDays: 30 }, goalId: theirGoal } })).status).toBe(404);
    expect((await make({ kind: 'LINK', params: { window: { lastDays: 30 }, linkId: theirLink } })).status).toBe(404);
    const theirPage = (
      await other.member.request('POST', `/workspaces/${other.workspaceId}/pages`, {
        body: { handle: `theirs-${engine}`, title: 'Theirs' },
      })
    ).body.data.id;
    const theirs = await make({ kind: 'PAGE', params: { window: { lastDays: 30 }, pageId: theirPage } });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toBe('Page not found');
    const gonePage = (
      await team.member.request('POST', `${base}/pages`, { body: { handle: `gone-${engine}`, title: 'Gone' } })
    ).body.data.id;
    expect((await team.owner.request('DELETE', `${base}/pages/${gonePage}`)).status).toBe(204);
    expect((await make({ kind: 'PAGE', params: { window: { lastDays: 30 }, pageId: gonePage } })).status).toBe(404);
    // Only editors make one, as every report.
    expect((await make({ kind: 'PAGE', params: { window: { lastDays: 30 }, pageId } }, team.analyst)).status).toBe(403);
    expect((await team.owner.request('GET', `${base}/reports`)).body.data.length).toBe(before);
    // A change is checked the same way, and changes nothing when refused.
    const id = (await make({})).body.data.id;
    const refused = await patch(id, { params: { window: { lastDays: 7 }, linkId: 'x', goalId } });
    expect(refused.status).toBe(400);
    expect((await team.owner.request('GET', `${base}/reports/${id}`)).body.data.params).toEqual({
      window: { lastDays: 30 },
    });
    expect((await patch(id, {})).status).toBe(400);
    // A change's params take the union of every kind's, so the report's kind decides: a PAGE
    // report refuses another kind's param, needs its page, and finds only the workspace's.
    const pageReport = (await make({ kind: 'PAGE', params: { window: { lastDays: 7 }, pageId } })).body.data.id;
    for (const [params, field, message] of [
      [
        { window: { lastDays: 7 }, pageId, goalId },
        'params.goalId',
        /does not go with a PAGE report; it takes window, pageId$/,
      ],
      [{ window: { lastDays: 7 }, linkId }, 'params.linkId', /does not go with a PAGE report/],
      [{ window: { lastDays: 7 } }, 'params.pageId', /^params\.pageId is required for a PAGE report$/],
    ] as const) {
      const res = await patch(pageReport, { params });
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.body.field).toBe(field);
      expect(res.body.error).toMatch(message);
    }
    const linkChanged = await patch(id, { params: { window: { lastDays: 7 }, pageId } });
    expect(linkChanged.status).toBe(400);
    expect(linkChanged.body.field).toBe('params.pageId');
    expect((await patch(pageReport, { params: { window: { lastDays: 7 }, pageId: theirPage } })).status).toBe(404);
    expect((await team.owner.request('GET', `${base}/reports/${pageReport}`)).body.data.params).toEqual({
      window: { lastDays: 7 },
      pageId,
    });
    expect(
      (await patch(pageReport, { params: { window: { from: '2026-01-01', to: '2026-01-31' }, pageId } })).status,
    ).toBe(200);
  });

  it('PRIVATE and unknown tokens answer the same 404 at once; the page answers 404 too, and noindex unless PUBLIC without a password', async () => {
    const made = (await make({ title: 'Visibility' })).body.data;
    expect(made.visibility).toBe('PRIVATE');
    expect(made.url).toBeNull();
    const shared = (await patch(made.id, { visibility: 'UNLISTED' })).body.data;
    const token = tokenOf(shared.url);
    expect((await read(token)).status).toBe(200);
    const unlisted = await pageOf(token);
    expect(unlisted.status).toBe(200);
    expect(unlisted.headers['content-type']).toMatch(/text\/html/);
    expect(unlisted.headers['x-robots-tag']).toBe('noindex');
    expect(unlisted.text).toContain('<meta name="robots" content="noindex">');

    expect((await patch(made.id, { visibility: 'PUBLIC' })).body.data.url).toBe(shared.url);
    const pub = await pageOf(token);
    expect(pub.status).toBe(200);
    expect(pub.headers['x-robots-tag']).toBeUndefined();
    expect(pub.text).not.toContain('name="robots"');

    expect((await patch(made.id, { visibility: 'PRIVATE' })).body.data.url).toBeNull();
    const gone = await read(token);
    const unknown = await read('A'.repeat(43));
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual(unknown.body);
    expect((await pageOf(token)).status).toBe(404);
    expect((await pageOf(token)).headers['x-robots-tag']).toBe('noindex');
    expect((await unlock(token, 'anything')).status).toBe(404);
    // Shared again, it has the same address until a new one is issued.
    expect((await patch(made.id, { visibility: 'UNLISTED' })).body.data.url).toBe(shared.url);
    expect((await read(token)).status).toBe(200);
  });

  it('a new link stops the old one at once; a deleted report answers 404 at once', async () => {
    const made = (await make({ title: 'Rotated', visibility: 'PUBLIC' })).body.data;
    const old = tokenOf(made.url);
    expect((await read(old)).status).toBe(200);
    const renewed = await team.member.request('POST', `${base}/reports/${made.id}/token`);
    expect(renewed.status).toBe(200);
    expect(renewed.body.data.visibility).toBe('PUBLIC');
    expect(renewed.body.data.url).not.toBe(made.url);
    expect((await read(old)).status).toBe(404);
    expect((await pageOf(old)).status).toBe(404);
    const fresh = tokenOf(renewed.body.data.url);
    expect((await read(fresh)).status).toBe(200);

    expect((await team.member.request('DELETE', `${base}/reports/${made.id}`)).status).toBe(204);
    expect((await read(fresh)).status).toBe(404);
    expect((await pageOf(fresh)).status).toBe(404);
    expect((await team.member.request('GET', `${base}/reports/${made.id}`)).status).toBe(404);
    expect((await team.member.request('DELETE', `${base}/reports/${made.id}`)).status).toBe(404);
    expect(await knex()('reports').where({ id: made.id }).first()).toBeUndefined();
  });

  it('a password: 401 until given, wrong ones throttled to 429, the right one a cookie for this report only; a new password or link asks again', async () => {
    const made = (await make({ title: 'Protected', visibility: 'PUBLIC', password: 'open sesame' })).body.data;
    expect(made.hasPassword).toBe(true);
    expect(JSON.stringify(made)).not.toContain('open sesame');
    expect((await knex()('reports').where({ id: made.id }).first()).password_hash).toMatch(/^scrypt\$/);
    const token = tokenOf(made.url);
    const locked = await read(token);
    expect(locked.status).toBe(401);
    expect(locked.body).toEqual({ error: 'This report is protected by a password' });
    // A protected report is never indexed, even PUBLIC; its page still opens (it asks for the password).
    const page = await pageOf(token);
    expect(page.status).toBe(200);
    expect(page.headers['x-robots-tag']).toBe('noindex');

    const wrong = await unlock(token, 'open sesamE');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('That password is not correct');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect((await unlock(token, 'open sesame', { origin: 'https://attacker.example' })).status).toBe(403);
    const right = await unlock(token, 'open sesame');
    expect(right.status).toBe(204);
    const setCookie = String(right.headers['set-cookie']);
    expect(setCookie).toMatch(
      new RegExp(`^sl_report=[^;]+; Path=/app/api/shared/${token}; HttpOnly; Secure; SameSite=Strict; Max-Age=43200$`),
    );
    const cookie = cookieOf(right);
    expect((await read(token, cookie)).status).toBe(200);
    // The cookie opens this report only.
    const another = (await make({ title: 'Protected too', visibility: 'UNLISTED', password: 'open sesame' })).body.data;
    expect((await read(tokenOf(another.url), cookie)).status).toBe(401);
    // A new password, then a new link, each make the reader give it again.
    await patch(made.id, { password: 'new secret' });
    expect((await read(token, cookie)).status).toBe(401);
    const again = cookieOf(await unlock(token, 'new secret'));
    expect((await read(token, again)).status).toBe(200);
    const renewed = (await team.member.request('POST', `${base}/reports/${made.id}/token`)).body.data;
    const newToken = tokenOf(renewed.url);
    expect((await read(newToken, again)).status).toBe(401);
    // Removing the password opens it to anyone with the URL.
    expect((await patch(made.id, { password: null })).body.data.hasPassword).toBe(false);
    expect((await read(newToken)).status).toBe(200);
    expect((await unlock(newToken, 'whatever')).status).toBe(204);
  });

  it('wrong passwords: five per report and client in 15 minutes, then 429 with Retry-After; a right one does not count', async () => {
    const made = (await make({ title: 'Throttled', visibility: 'UNLISTED', password: 'the right one' })).body.data;
    const token = tokenOf(made.url);
    for (let i = 0; i < 4; i++) expect((await unlock(token, `wrong ${i}`)).status).toBe(401);
    expect((await unlock(token, 'the right one')).status).toBe(204);
    expect((await unlock(token, 'wrong 5')).status).toBe(401);
    const throttled = await unlock(token, 'wrong 6');
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(60);
    expect(throttled.body.error).toMatch(/^Too many wrong passwords\. Try again in \d+ minutes\.$/);
    // Even the right password waits now; another report's allowance is its own.
    expect((await unlock(token, 'the right one')).status).toBe(429);
    const elsewhere = (await make({ title: 'Not throttled', visibility: 'UNLISTED', password: 'the right one' })).body
      .data;
    expect((await unlock(tokenOf(elsewhere.url), 'the right one')).status).toBe(204);
  });

  it('the figures are reused for at most a minute, and never past a change of the report', async () => {
    const made = (
      await make({ title: 'Cached', visibility: 'UNLISTED', params: { window: { lastDays: 30 }, eventType: 'lead' } })
    ).body.data;
    const token = tokenOf(made.url);
    const first = (await read(token)).body;
    expect(first.conversions.data.total).toBe(0);
    expect(
      (await server.request('POST', '/api/v1/conversions', { key, body: { eventType: 'lead', linkId } })).status,
    ).toBe(201);
    const cached = (await read(token)).body;
    expect(cached.generatedAt).toBe(first.generatedAt);
    expect(cached.conversions.data.total).toBe(0);
    // PRIVATE at once, whatever is cached; shared again, computed afresh.
    await patch(made.id, { visibility: 'PRIVATE' });
    expect((await read(token)).status).toBe(404);
    await patch(made.id, { visibility: 'UNLISTED' });
    const fresh = (await read(token)).body;
    expect(fresh.conversions.data.total).toBe(1);
    expect(Date.parse(fresh.generatedAt)).toBeGreaterThanOrEqual(Date.parse(first.generatedAt));
    // A title is read from the report every time.
    await patch(made.id, { title: 'Cached, renamed' });
    expect((await read(token)).body.title).toBe('Cached, renamed');
    // After 60 seconds an entry is computed again.
    const cache = new SharedFigures(server.services);
    const found = (await findSharedReport(server.services, token))!;
    const now = Date.now();
    const a = await cache.get(found, now);
    expect(await cache.get(found, now + 59_999)).toBe(a);
    const b = await cache.get(found, now + 60_000);
    expect(b).not.toBe(a);
    expect(b.generatedAt).toBe(new Date(now + 60_000).toISOString());
  });

  it('a LINK report whose link was deleted answers 404 with its reason; an API key never opens a shared report', async () => {
    const doomed = (await server.request('POST', '/api/v1/links', { key, body: { url: 'https://example.com/doomed' } }))
      .body.data.id;
    const made = (
      await make({
        kind: 'LINK',
        title: 'Doomed',
        visibility: 'UNLISTED',
        params: { window: { lastDays: 7 }, linkId: doomed },
      })
    ).body.data;
    const token = tokenOf(made.url);
    // (Not read before: figures already computed would be reused for up to a minute.)
    expect((await server.request('DELETE', `/api/v1/links/${doomed}`, { key })).status).toBe(200);
    const res = await read(token);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('The link of this report no longer exists');
    const withKey = await server.request('GET', `/app/api/shared/${token}`, { key });
    expect(withKey.status).toBe(401);
  });

  it("a PAGE report whose page was deleted answers 404 with its reason, as the page's own screen does", async () => {
    const doomed = (
      await team.member.request('POST', `${base}/pages`, { body: { handle: `doomed-${engine}`, title: 'Doomed' } })
    ).body.data.id;
    const made = (
      await make({
        kind: 'PAGE',
        title: 'Doomed page',
        visibility: 'PUBLIC',
        params: { window: { lastDays: 30 }, pageId: doomed },
      })
    ).body.data;
    const token = tokenOf(made.url);
    // (Not read before: figures already computed would be reused for up to a minute.)
    expect((await team.owner.request('DELETE', `${base}/pages/${doomed}`)).status).toBe(204);
    expect((await team.analyst.request('GET', `${base}/pages/${doomed}/analytics`)).status).toBe(404);
    const res = await read(token);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('The page of this report no longer exists');
  });

  it('a plan without conversions: 403 naming the plan for CONVERSIONS and GOAL reports, and their URLs answer 404 until the plan has them again', async () => {
    const pro = await seedTeam(server, 'pro');
    const proBase = `/workspaces/${pro.workspaceId}`;
    const refused = await pro.member.request('POST', `${proBase}/reports`, {
      body: { kind: 'CONVERSIONS', title: 'No', params: { window: { lastDays: 7 } } },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/pro plan/);
    const proLink = (await pro.member.request('POST', `${proBase}/links`, { body: { url: 'https://example.com/pro' } }))
      .body.data.id;
    const linkReport = await pro.member.request('POST', `${proBase}/reports`, {
      body: {
        kind: 'LINK',
        title: 'Clicks',
        visibility: 'UNLISTED',
        params: { window: { lastDays: 7 }, linkId: proLink },
      },
    });
    expect(linkReport.status).toBe(201);
    expect((await read(tokenOf(linkReport.body.data.url))).status).toBe(200);
    // A page's analytics, as a link's, are read on every plan.
    const proPage = (
      await pro.member.request('POST', `${proBase}/pages`, { body: { handle: `pro-${engine}`, title: 'Pro' } })
    ).body.data.id;
    const pageReport = await pro.member.request('POST', `${proBase}/reports`, {
      body: {
        kind: 'PAGE',
        title: 'Views',
        visibility: 'UNLISTED',
        params: { window: { lastDays: 7 }, pageId: proPage },
      },
    });
    expect(pageReport.status).toBe(201);
    const proRead = await read(tokenOf(pageReport.body.data.url));
    expect(proRead.status).toBe(200);
    expect(proRead.body.page.analytics.pageId).toBe(proPage);

    const made = (await make({ title: 'Lapsing', visibility: 'PUBLIC' })).body.data;
    const token = tokenOf(made.url);
    await setPlan(knex(), team.workspaceId, 'pro');
    try {
      expect((await read(token)).status).toBe(404);
      expect((await pageOf(token)).status).toBe(404);
      // Listed still, and made PRIVATE or renamed without the plan; shared again only with it.
      expect((await team.member.request('GET', `${base}/reports`)).body.data.map((r: any) => r.id)).toContain(made.id);
      expect((await patch(made.id, { title: 'Lapsed' })).status).toBe(200);
      expect((await patch(made.id, { visibility: 'UNLISTED' })).status).toBe(403);
    } finally {
      await setPlan(knex(), team.workspaceId, 'growth');
    }
    expect((await read(token)).status).toBe(200);
  });

  it("every Reports operation: an ANALYST reads but changes nothing, a change needs the anti-forgery token, and another workspace's report is not found", async () => {
    const made = (await make({ title: 'Ours', visibility: 'UNLISTED' })).body.data;
    const ops = dashboard
      .operations()
      .filter((o) => o.op.tags?.includes('Reports') && o.path.includes('{workspaceId}'));
    expect(ops.map((o) => o.operationId).sort()).toEqual([
      'createDashboardReport',
      'deleteDashboardReport',
      'getDashboardReport',
      'listDashboardReports',
      'renewDashboardReportToken',
      'updateDashboardReport',
    ]);
    const bodies: Record<string, unknown> = {
      createDashboardReport: { kind: 'CONVERSIONS', title: 'Sneaky', params: { window: { lastDays: 7 } } },
      updateDashboardReport: { title: 'Taken', visibility: 'PUBLIC' },
    };
    const pathOf = (path: string, workspaceId: string) =>
      path.replace('{workspaceId}', workspaceId).replace('{reportId}', made.id);
    for (const op of ops) {
      const body = bodies[op.operationId];
      const changes = op.method !== 'GET';
      const analyst = await team.analyst.request(op.method, pathOf(op.path, team.workspaceId), { body });
      expect(analyst.status, `${op.operationId} as ANALYST`).toBe(changes ? 403 : 200);
      if (changes) expect(analyst.body.error).toMatch(/ANALYST/);
      if (changes) {
        const forged = await team.owner.request(op.method, pathOf(op.path, team.workspaceId), { body, csrf: null });
        expect(forged.status, `${op.operationId} without the token`).toBe(403);
        expect(forged.body.error).toMatch(/anti-forgery/);
      }
      // Another workspace's people, through their own workspace's path and through ours.
      const theirs = await other.owner.request(op.method, pathOf(op.path, other.workspaceId), { body });
      if (op.path.includes('{reportId}')) expect(theirs.status, `${op.operationId} through their workspace`).toBe(404);
      expect(
        (await other.owner.request(op.method, pathOf(op.path, team.workspaceId), { body })).status,
        `${op.operationId} through ours`,
      ).toBe(404);
    }
    // Nothing changed, and their list never shows it.
    const after = (await team.owner.request('GET', `${base}/reports/${made.id}`)).body.data;
    expect(after).toMatchObject({ title: 'Ours', visibility: 'UNLISTED', url: made.url });
    expect(
      (await other.owner.request('GET', `/workspaces/${other.workspaceId}/reports`)).body.data.map((r: any) => r.id),
    ).not.toContain(made.id);
    expect((await read(tokenOf(made.url))).status).toBe(200);
  });
});

describe.each(testEngines())('shared reports on a deployment without conversions, %s', (engine) => {
  const fixture = serverWithTeam(engine, { env: { FEATURE_CONVERSIONS: 'off' } });

  it('answers 503 with its code for CONVERSIONS and GOAL reports; LINK and PAGE reports are made and read', async () => {
    const { server, team } = fixture;
    const base = `/workspaces/${team.workspaceId}`;
    const conv = await team.owner.request('POST', `${base}/reports`, {
      body: { kind: 'CONVERSIONS', title: 'No', params: { window: { lastDays: 7 } } },
    });
    expect(conv.status).toBe(503);
    expect(conv.body.code).toBe('conversions_unavailable');
    const goal = await team.owner.request('POST', `${base}/reports`, {
      body: { kind: 'GOAL', title: 'No', params: { window: { lastDays: 7 }, goalId: 'goal_x' } },
    });
    expect(goal.status).toBe(503);
    expect(goal.body.code).toBe('goals_unavailable');
    const linkId = (await team.owner.request('POST', `${base}/links`, { body: { url: 'https://example.com/x' } })).body
      .data.id;
    const made = await team.owner.request('POST', `${base}/reports`, {
      body: { kind: 'LINK', title: 'Clicks', visibility: 'UNLISTED', params: { window: { lastDays: 7 }, linkId } },
    });
    expect(made.status).toBe(201);
    expect((await server.request('GET', `/app/api/shared/${tokenOf(made.body.data.url)}`)).status).toBe(200);
    const pageId = (
      await team.owner.request('POST', `${base}/pages`, { body: { handle: `nofeature-${engine}`, title: 'Acme' } })
    ).body.data.id;
    const pageMade = await team.owner.request('POST', `${base}/reports`, {
      body: { kind: 'PAGE', title: 'Views', visibility: 'UNLISTED', params: { window: { lastDays: 7 }, pageId } },
    });
    expect(pageMade.status).toBe(201);
    expect((await server.request('GET', `/app/api/shared/${tokenOf(pageMade.body.data.url)}`)).status).toBe(200);
  });
});
