// Where a visitor goes (openapi/paths/api_v1_links_id_routing*.yaml), through real HTTPS visits
// on every engine: each condition type, the split, query forwarding, indexing, click ids.
import { describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { DATA_SCOPES, seedMemberKey, seedWorkspace, serverWithOwner } from '../support/seed';
import { IPHONE_USER_AGENT } from '../support/user-agents';

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const ANDROID_SAMSUNG =
  'Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Safari/537.36';
const CRAWLER = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';

describe.each(testEngines())('link routing on %s', (engine) => {
  const suite = serverWithOwner(engine, { env: { TRUST_PROXY: '1' } }, DATA_SCOPES);
  const api = (method: string, path: string, body?: unknown, key = suite.owner.key) =>
    suite.server.request(method, path, { key, body });
  let n = 0;
  const newLink = async (url = 'https://example.com/home') => {
    const res = await api('POST', '/api/v1/links', { url, slug: `r${++n}-${engine.replace(/\W/g, '')}` });
    expect(res.status).toBe(201);
    return res.body.data as { id: string; slug: string };
  };
  const put = (id: string, body: unknown, key?: string) => api('PUT', `/api/v1/links/${id}/routing`, body, key);
  const visit = (slug: string, headers: Record<string, string> = {}, query = '') =>
    suite.server.request('GET', `/${slug}${query}`, { headers: { 'user-agent': CHROME_WINDOWS, ...headers } });
  const rule = (type: string, value: string, url: string) => ({ conditions: [{ type, value }], url });

  it('a new link has every default, and another workspace cannot read it', async () => {
    const link = await newLink();
    const res = await api('GET', `/api/v1/links/${link.id}/routing`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ rules: [], split: null, forwardQuery: true, indexable: false, clickIdParam: null });
    const other = await seedWorkspace(suite.server.services.db.knex);
    expect((await api('GET', `/api/v1/links/${link.id}/routing`, undefined, other.key)).status).toBe(404);
    expect((await put(link.id, { rules: [] }, other.key)).status).toBe(404);
  });

  it('routes by device, OS and browser from the User-Agent', async () => {
    const link = await newLink();
    const res = await put(link.id, {
      rules: [
        rule('os', 'ios', 'https://apps.apple.com/app/id1'),
        rule('device', 'tablet', 'https://example.com/tablet'),
        rule('browser', 'chrome', 'https://example.com/chrome'),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.rules.map((r: { id: string }) => r.id)).toEqual([
      expect.stringMatching(/^rul_/),
      expect.stringMatching(/^rul_/),
      expect.stringMatching(/^rul_/),
    ]);
    expect((await visit(link.slug, { 'user-agent': IPHONE_USER_AGENT })).headers.location).toBe(
      'https://apps.apple.com/app/id1',
    );
    expect((await visit(link.slug, { 'user-agent': ANDROID_SAMSUNG })).headers.location).toBe(
      'https://example.com/tablet',
    );
    expect((await visit(link.slug)).headers.location).toBe('https://example.com/chrome');
    const firefox = 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0';
    expect((await visit(link.slug, { 'user-agent': firefox })).headers.location).toBe('https://example.com/home');
  });

  it('routes by preferred language, country, query, client address and time', async () => {
    const link = await newLink();
    const hour = 3_600_000;
    const res = await put(link.id, {
      rules: [
        rule('language', 'fr', 'https://example.com/fr'),
        rule('country', 'de', 'https://example.com/de'),
        { conditions: [{ type: 'query', name: 'ref', value: 'mail' }], url: 'https://example.com/mail' },
        { conditions: [{ type: 'query', name: 'beta' }], url: 'https://example.com/beta' },
        rule('ip', '203.0.113.0/24', 'https://example.com/office'),
        {
          conditions: [
            { type: 'after', value: new Date(Date.now() - hour).toISOString() },
            { type: 'before', value: new Date(Date.now() - hour / 2).toISOString() },
          ],
          url: 'https://example.com/past-window',
        },
        rule('before', new Date(Date.now() + hour).toISOString(), 'https://example.com/until-later'),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.rules[1].conditions[0].value).toBe('DE');
    const at = async (headers: Record<string, string>, query = '') =>
      (await visit(link.slug, headers, query)).headers.location;
    // The most preferred language counts, by q-value: English first here.
    expect(await at({ 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8' })).toBe('https://example.com/fr');
    expect(await at({ 'accept-language': 'fr;q=0.5, en;q=0.9' })).toBe('https://example.com/until-later');
    expect(await at({ 'cf-ipcountry': 'DE' })).toBe('https://example.com/de');
    expect(await at({}, '?ref=mail')).toBe('https://example.com/mail?ref=mail');
    expect(await at({}, '?ref=other')).toBe('https://example.com/until-later?ref=other');
    expect(await at({}, '?beta')).toBe('https://example.com/beta?beta');
    expect(await at({ 'x-forwarded-for': '203.0.113.77' })).toBe('https://example.com/office');
    expect(await at({ 'x-forwarded-for': '198.51.100.1' })).toBe('https://example.com/until-later');
  });

  it('routes by the country and city of the client address, through the IP-location data', async () => {
    const link = await newLink();
    const res = await put(link.id, {
      rules: [rule('city', 'london', 'https://example.com/london'), rule('country', 'FR', 'https://example.com/fr')],
    });
    expect(res.status).toBe(200);
    const from = async (address: string, headers: Record<string, string> = {}) =>
      (await visit(link.slug, { 'x-forwarded-for': address, ...headers })).headers.location;
    const located = suite.server.services.geo!;
    expect(located.locate('81.2.69.160')).toMatchObject({ country: 'GB', city: 'London' });
    expect(await from('81.2.69.160')).toBe('https://example.com/london');
    expect(located.locate('212.27.48.10')?.country).toBe('FR');
    expect(await from('212.27.48.10')).toBe('https://example.com/fr');
    // A trusted proxy's country wins over the address's.
    expect(await from('212.27.48.10', { 'cf-ipcountry': 'US' })).toBe('https://example.com/home');
    expect(await from('10.0.0.1')).toBe('https://example.com/home');
  });

  it('refuses a bad document with 400 naming the field, and changes nothing', async () => {
    const link = await newLink();
    const good = { rules: [rule('os', 'ios', 'https://example.com/ios')] };
    expect((await put(link.id, good)).status).toBe(200);
    const bad: Array<[unknown, string]> = [
      [
        { rules: [{ conditions: [{ type: 'planet', value: 'mars' }], url: 'https://e.com' }] },
        'rules.0.conditions.0.type',
      ],
      [{ rules: [rule('os', 'beos', 'https://e.com')] }, 'rules.0.conditions.0.value'],
      [{ rules: [rule('country', 'XY', 'https://e.com')] }, 'rules.0.conditions.0.value'],
      [{ rules: [rule('language', 'en-US', 'https://e.com')] }, 'rules.0.conditions.0.value'],
      [{ rules: [rule('ip', '300.1.1.1', 'https://e.com')] }, 'rules.0.conditions.0.value'],
      [{ rules: [rule('after', 'soon', 'https://e.com')] }, 'rules.0.conditions.0.value'],
      [{ rules: [rule('city', 'Xyzzyville', 'https://e.com')] }, 'rules.0.conditions.0.value'],
      [{ rules: [rule('os', 'ios', 'javascript:alert(1)')] }, 'rules.0.url'],
      [{ rules: [{ conditions: [], url: 'https://e.com' }] }, 'rules.0.conditions'],
      [{ rules: Array.from({ length: 21 }, () => rule('os', 'ios', 'https://e.com')) }, 'rules'],
      [{ rules: [{ id: 'rul_notmine', ...rule('os', 'ios', 'https://e.com') }] }, 'rules.0.id'],
      [
        {
          split: {
            variants: [
              { url: 'https://e.com/a', weight: 50 },
              { url: 'https://e.com/b', weight: 40 },
            ],
          },
        },
        'split.variants',
      ],
      [{ split: { variants: [{ url: 'https://e.com/a', weight: 100 }] } }, 'split.variants'],
      [{ clickIdParam: 'a b' }, 'clickIdParam'],
      [{ colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of bad) {
      const res = await put(link.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, field).toEqual(expect.any(String));
      expect(res.body.field ?? res.body.error, JSON.stringify(body)).toContain(field);
    }
    const after = await api('GET', `/api/v1/links/${link.id}/routing`);
    expect(after.body.data.rules).toHaveLength(1);
    expect(after.body.data.rules[0].url).toBe('https://example.com/ios');
  });

  it('keeps the role rules of PATCH: an ANALYST may read but not change', async () => {
    const link = await newLink();
    const knex = suite.server.services.db.knex;
    const analyst = await seedMemberKey(knex, suite.owner.workspaceId, 'ANALYST', ['links:read', 'links:write']);
    expect((await api('GET', `/api/v1/links/${link.id}/routing`, undefined, analyst.key)).status).toBe(200);
    const res = await put(link.id, { indexable: true }, analyst.key);
    expect(res.status).toBe(403);
    expect((await api('GET', `/api/v1/links/${link.id}/routing`)).body.data.indexable).toBe(false);
  });

  it('forwards the visit query; the destination keeps its own values and fragment', async () => {
    const link = await newLink('https://example.com/p?utm_source=site&x=1#top');
    expect((await visit(link.slug, {}, '?utm_source=news&utm_medium=mail&q=a%20b')).headers.location).toBe(
      'https://example.com/p?utm_source=site&x=1&utm_medium=mail&q=a%20b#top',
    );
    expect((await put(link.id, { forwardQuery: false })).status).toBe(200);
    expect((await visit(link.slug, {}, '?utm_medium=mail')).headers.location).toBe(
      'https://example.com/p?utm_source=site&x=1#top',
    );
  });

  it('marks redirects noindex unless indexable, and robots.txt allows exactly the indexable links', async () => {
    const shown = await newLink();
    const hidden = await newLink();
    expect((await visit(hidden.slug)).headers['x-robots-tag']).toBe('noindex');
    expect((await put(shown.id, { indexable: true })).status).toBe(200);
    const res = await visit(shown.slug);
    expect(res.status).toBe(302);
    expect(res.headers['x-robots-tag']).toBeUndefined();
    const robots = await suite.server.request('GET', '/robots.txt');
    expect(robots.status).toBe(200);
    expect(robots.headers['content-type']).toMatch(/^text\/plain/);
    expect(robots.text).toContain(`Allow: /${shown.slug}$`);
    expect(robots.text).not.toContain(hidden.slug);
    expect(robots.text.trim().split('\n').at(-1)).toBe('Disallow: /');
    expect((await put(shown.id, { indexable: false })).status).toBe(200);
    expect((await suite.server.request('GET', '/robots.txt')).text).not.toContain(shown.slug);
  });

  it('splits visitors by weight, keeps each on the variant first served, and bots get no cookie', async () => {
    const link = await newLink();
    const res = await put(link.id, {
      split: {
        variants: [
          { url: 'https://example.com/a', weight: 70 },
          { url: 'https://example.com/b', weight: 30 },
        ],
      },
    });
    expect(res.status).toBe(200);
    const [a, b] = res.body.data.split.variants;
    expect(res.body.data.split).toMatchObject({ endsAt: null, metric: 'clicks' });
    const first = await visit(link.slug);
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toMatch(
      new RegExp(
        // Without an end, the variant is kept 180 days (RoutingSplit.yaml).
        `^sl_v=${link.id}\\.(${a.id}|${b.id}); Path=/${link.slug}; Max-Age=${180 * 24 * 3600}; HttpOnly; Secure; SameSite=Lax$`,
      ),
    );
    const held = cookie.split(';')[0];
    for (let i = 0; i < 10; i++) {
      const again = await visit(link.slug, { cookie: `other=1; ${held}` });
      expect(again.headers.location).toBe(first.headers.location);
      expect(again.headers['set-cookie']).toBeUndefined();
    }
    let toA = 0;
    const visits = 300;
    for (let i = 0; i < visits; i++) if ((await visit(link.slug)).headers.location === 'https://example.com/a') toA++;
    // 70% of 300: a binomial's 4.5 standard deviations either side.
    expect(toA).toBeGreaterThan(210 - 36);
    expect(toA).toBeLessThan(210 + 36);
  });

  it("scopes each split cookie to the path visited, and counts an end's seconds down", async () => {
    const link = await newLink();
    const endsAt = new Date(Date.now() + 3600_000).toISOString();
    const res = await put(link.id, {
      split: {
        variants: [
          { url: 'https://example.com/a', weight: 50 },
          { url: 'https://example.com/b', weight: 50 },
        ],
        endsAt,
      },
    });
    expect(res.status).toBe(200);
    // The redirect keeps a variant's last cookie: each visit must still get its own path's.
    const paths = [
      link.slug,
      link.slug.toUpperCase(),
      link.slug,
      `%${link.slug.charCodeAt(0).toString(16)}${link.slug.slice(1)}`,
    ];
    for (let i = 0; i < 12; i++) {
      const path = paths[i % paths.length];
      const cookie = String((await visit(path)).headers['set-cookie']);
      const wanted = path.includes('%') ? '/' : `/${path}`;
      expect(cookie).toContain(`; Path=${wanted}; `);
      // With an end, the attributes after Max-Age are those of a split without one.
      expect(cookie).toMatch(/; Max-Age=\d+; HttpOnly; Secure; SameSite=Lax$/);
      const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)?.[1]);
      expect(maxAge).toBeGreaterThan(3500);
      expect(maxAge).toBeLessThanOrEqual(3600);
    }
    const maxAgeNow = async () =>
      Number(/Max-Age=(\d+)/.exec(String((await visit(link.slug)).headers['set-cookie']))?.[1]);
    const before = await maxAgeNow();
    await new Promise((r) => setTimeout(r, 2100));
    expect(await maxAgeNow()).toBeLessThanOrEqual(before - 2);
  });

  it('serves the winner by clicks to everyone once the split ends', async () => {
    const link = await newLink();
    const res = await put(link.id, {
      split: {
        variants: [
          { url: 'https://example.com/a', weight: 50 },
          { url: 'https://example.com/b', weight: 50 },
        ],
        endsAt: new Date(Date.now() + 1500).toISOString(),
        metric: 'clicks',
      },
    });
    const [a, b] = res.body.data.split.variants;
    let toA = 0;
    for (let i = 0; i < 40; i++) if ((await visit(link.slug)).headers.location === a.url) toA++;
    await suite.server.clicks.flush();
    // Ties go to the earlier variant.
    const leader = toA >= 20 ? a : b;
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(res.body.data.split.endsAt) - Date.now() + 50)));
    for (let i = 0; i < 5; i++) {
      // A visitor holding the other variant gets the winner too.
      const other = leader.id === a.id ? b : a;
      const after = await visit(link.slug, { cookie: `sl_v=${link.id}.${other.id}` });
      expect(after.headers.location).toBe(leader.url);
    }
    const report = await api('GET', `/api/v1/links/${link.id}/routing/report`);
    expect(report.status).toBe(200);
    expect(report.body.data.split.winnerId).toBe(leader.id);
    const tally = report.body.data.split.variants;
    expect(
      tally.map((v: { clicks: number }) => v.clicks).reduce((x: number, y: number) => x + y),
    ).toBeGreaterThanOrEqual(40);
  });

  it('adds a click id that attributes a conversion to the link and the rule that served it', async () => {
    const link = await newLink();
    const other = await newLink();
    const set = await put(link.id, {
      rules: [rule('os', 'ios', 'https://example.com/ios?a=1')],
      clickIdParam: 'sl_click',
    });
    const ruleId = set.body.data.rules[0].id;
    const res = await visit(link.slug, { 'user-agent': IPHONE_USER_AGENT }, '?sl_click=forged');
    const location = new URL(res.headers.location as string);
    expect(location.origin + location.pathname).toBe('https://example.com/ios');
    expect(location.searchParams.get('a')).toBe('1');
    const clickId = location.searchParams.getAll('sl_click');
    expect(clickId).toHaveLength(1);
    expect(clickId[0]).not.toBe('forged');
    // A crawler's redirect is no click: no id.
    const bot = await visit(link.slug, { 'user-agent': CRAWLER });
    expect(bot.headers.location).not.toContain('sl_click=');

    const convert = (body: object) => api('POST', '/api/v1/conversions', { eventType: 'signup', ...body });
    const ok = await convert({ clickId: clickId[0] });
    expect(ok.status).toBe(201);
    expect(ok.body.data.linkId).toBe(link.id);
    const conflict = await convert({ clickId: clickId[0], linkId: other.id });
    expect(conflict.status).toBe(400);
    expect(conflict.body.field).toBe('clickId');
    const [payload, , nonce] = clickId[0].split('.');
    const forged = await convert({ clickId: `${payload}.AAAAAAAAAAAAAAAAAAAAAA.${nonce}` });
    expect(forged.status).toBe(400);
    expect(forged.body.field).toBe('clickId');
    const stranger = await seedWorkspace(suite.server.services.db.knex);
    const foreign = await suite.server.request('POST', '/api/v1/conversions', {
      key: (await seedMemberKey(suite.server.services.db.knex, stranger.workspaceId, 'OWNER', DATA_SCOPES)).key,
      body: { eventType: 'signup', clickId: clickId[0] },
    });
    expect(foreign.status).toBe(400);

    await suite.server.clicks.flush();
    const report = await api('GET', `/api/v1/links/${link.id}/routing/report`);
    const served = report.body.data.routes.find((r: { id: string | null }) => r.id === ruleId);
    expect(served).toMatchObject({ kind: 'rule', clicks: 1, conversions: 1 });
  });

  it('"Try a visit" explains the choice the redirect makes', async () => {
    const link = await newLink();
    await put(link.id, { rules: [rule('os', 'android', 'https://example.com/android')] });
    const res = await api('POST', `/api/v1/links/${link.id}/routing/trial`, {
      userAgent: IPHONE_USER_AGENT,
      country: 'fr',
      language: 'fr-FR,fr;q=0.9',
      query: 'utm_source=news',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      url: 'https://example.com/home?utm_source=news',
      served: { kind: 'link', id: null },
      visitor: { device: 'mobile', os: 'ios', browser: 'safari', language: 'fr', country: 'FR' },
    });
    expect(res.body.data.reasons[0]).toMatch(/^Rule 1 does not match: OS is android: no \(visit: ios\)/);
    for (const [field, value] of [
      ['ip', 'not-an-ip'],
      ['country', 'Narnia'],
      ['at', 'tomorrow'],
    ]) {
      const bad = await api('POST', `/api/v1/links/${link.id}/routing/trial`, { [field]: value });
      expect(bad.status).toBe(400);
      expect(bad.body.field).toBe(field);
    }
  });
});
