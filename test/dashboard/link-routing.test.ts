// A link's routing through the dashboard API over HTTPS on every engine: the defaults of a new
// link, a whole document replaced and read back, the API's 400 naming the field with nothing
// changed, the roles of the link's PATCH (an ANALYST reads and tries a visit but cannot replace),
// another workspace's link as 404 for every operation, "Try a visit" and the report by route, and
// a change the next visit follows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { startWithTeams, type Team } from '../support/dashboard';
import type { TestServer } from '../support/server';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

const DOCUMENT = {
  rules: [
    { conditions: [{ type: 'os', value: 'ios' }], url: 'https://apps.apple.com/app/id123456789' },
    {
      conditions: [
        { type: 'query', name: 'ref' },
        { type: 'device', value: 'desktop' },
      ],
      url: 'https://partners.example.com/welcome',
    },
  ],
  split: {
    variants: [
      { url: 'https://example.com/launch-a', weight: 60 },
      { url: 'https://example.com/launch-b', weight: 40 },
    ],
    endsAt: null,
    metric: 'conversions',
  },
  forwardQuery: false,
  indexable: true,
  clickIdParam: 'sl_click',
};

describe.each(testEngines())('a link’s routing in the dashboard on %s', (engine) => {
  let server: TestServer, team: Team, other: Team, base: string, otherBase: string;
  let linkId: string, otherLinkId: string, slug: string;
  const routing = (who: Team['owner'], id = linkId, at = base) => who.request('GET', `${at}/links/${id}/routing`);

  beforeAll(async () => {
    ({ server, team, other, base, otherBase } = await startWithTeams(engine));
    slug = `routed-${engine}`;
    const made = await team.member.request('POST', `${base}/links`, {
      body: { url: 'https://example.com/launch', slug },
    });
    expect(made.status, made.text).toBe(201);
    linkId = made.body.data.id;
    otherLinkId = (
      await other.member.request('POST', `${otherBase}/links`, { body: { url: 'https://example.com/other' } })
    ).body.data.id;
  });
  afterAll(async () => server?.stop());

  it('answers every default for a new link, to any role', async () => {
    const res = await routing(team.analyst);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      data: { rules: [], split: null, forwardQuery: true, indexable: false, clickIdParam: null },
    });
  });

  it('replaces the whole routing for a MEMBER and reads it back with the ids it gave', async () => {
    const put = await team.member.request('PUT', `${base}/links/${linkId}/routing`, { body: DOCUMENT });
    expect(put.status, put.text).toBe(200);
    const stored = put.body.data;
    expect(stored.rules.map((r: { url: string }) => r.url)).toEqual(DOCUMENT.rules.map((r) => r.url));
    expect(stored.rules[1].conditions).toEqual(DOCUMENT.rules[1].conditions);
    for (const r of stored.rules) expect(r.id).toMatch(/^rul_/);
    expect(stored.split.variants.map((v: { weight: number }) => v.weight)).toEqual([60, 40]);
    for (const v of stored.split.variants) expect(v.id).toMatch(/^var_/);
    expect(stored).toMatchObject({ forwardQuery: false, indexable: true, clickIdParam: 'sl_click' });
    expect((await routing(team.analyst)).body).toEqual({ data: stored });

    // The next visit follows it: an iPhone goes to the first rule's URL.
    const visit = await server.request('GET', `/${slug}`, { headers: { 'user-agent': IPHONE } });
    const location = new URL(visit.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe('https://apps.apple.com/app/id123456789');
    expect([...location.searchParams.keys()]).toEqual(['sl_click']);
  });

  it('refuses a bad document with 400 naming the field, and changes nothing', async () => {
    const before = (await routing(team.owner)).body;
    const bad = structuredClone(DOCUMENT);
    bad.rules[1].conditions[1] = { type: 'device', value: 'television' };
    const res = await team.admin.request('PUT', `${base}/links/${linkId}/routing`, { body: bad });
    expect(res.status, res.text).toBe(400);
    // The service names positions with dots (rules.1.conditions.1.value); the contract's text
    // writes them with brackets. The screen reads either.
    expect(res.body.field).toMatch(/^rules(\.1|\[1\])\.conditions(\.1|\[1\])\.value$/);
    expect(res.body.error).toEqual(expect.any(String));
    const weights = structuredClone(DOCUMENT);
    weights.split.variants[1].weight = 30;
    const sum = await team.owner.request('PUT', `${base}/links/${linkId}/routing`, { body: weights });
    expect(sum.status, sum.text).toBe(400);
    expect(sum.body.field).toMatch(/^split\.variants/);
    expect((await routing(team.owner)).body).toEqual(before);
  });

  it('lets an ANALYST read, try a visit and read the report, but not replace the routing (403)', async () => {
    const before = (await routing(team.owner)).body;
    const put = await team.analyst.request('PUT', `${base}/links/${linkId}/routing`, { body: { rules: [] } });
    expect(put.status, put.text).toBe(403);
    expect((await routing(team.owner)).body).toEqual(before);

    const tried = await team.analyst.request('POST', `${base}/links/${linkId}/routing/trial`, {
      body: { userAgent: WINDOWS, query: 'ref=news' },
    });
    expect(tried.status, tried.text).toBe(200);
    expect(tried.body.data.url).toBe('https://partners.example.com/welcome');
    expect(tried.body.data.served).toEqual({ kind: 'rule', id: before.data.rules[1].id });
    expect(tried.body.data.reasons.length).toBeGreaterThan(0);

    const report = await team.analyst.request('GET', `${base}/links/${linkId}/routing/report`);
    expect(report.status, report.text).toBe(200);
    const kinds = report.body.data.routes.map((r: { kind: string }) => r.kind);
    expect(kinds).toContain('link');
    expect(kinds.filter((k: string) => k === 'rule')).toHaveLength(2);
    expect(report.body.data.split.variants.map((v: { id: string }) => v.id)).toEqual(
      before.data.split.variants.map((v: { id: string }) => v.id),
    );
  });

  it("answers 404 for another workspace's link, whichever side asks", async () => {
    const asks = (who: Team['owner'], at: string, id: string) => [
      who.request('GET', `${at}/links/${id}/routing`),
      who.request('PUT', `${at}/links/${id}/routing`, { body: { rules: [] } }),
      who.request('POST', `${at}/links/${id}/routing/trial`, { body: {} }),
      who.request('GET', `${at}/links/${id}/routing/report`),
    ];
    const answers = await Promise.all([
      ...asks(team.owner, base, otherLinkId),
      ...asks(other.owner, otherBase, linkId),
      ...asks(team.owner, base, 'lnk_unknown'),
    ]);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 404));
    // The other workspace's link kept its defaults.
    expect((await routing(other.analyst, otherLinkId, otherBase)).body.data.rules).toEqual([]);
  });
});
