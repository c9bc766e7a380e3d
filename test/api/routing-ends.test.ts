// Routing's other ends, through real visits on every engine: a split settled by its conversion
// rate, and /robots.txt on a custom domain, which lists that domain's indexable links only.
import { describe, expect, it } from 'vitest';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { testEngines } from '../support/databases';
import { DATA_SCOPES, serverWithOwner } from '../support/seed';

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe.each(testEngines())('routing ends on %s', (engine) => {
  const suite = serverWithOwner(engine, { env: { TRUST_PROXY: '1' } }, DATA_SCOPES);
  const api = (method: string, path: string, body?: unknown) =>
    suite.server.request(method, path, { key: suite.owner.key, body });
  const knex = () => suite.server.services.db.knex;
  let n = 0;
  const newLink = async (extra: object = {}) => {
    const slug = `e${++n}-${engine.replace(/\W/g, '')}`;
    const res = await api('POST', '/api/v1/links', { url: 'https://example.com/home', slug, ...extra });
    expect(res.status).toBe(201);
    return res.body.data as { id: string; slug: string };
  };
  const visit = (path: string, headers: Record<string, string> = {}) =>
    suite.server.request('GET', path, { headers: { 'user-agent': CHROME_WINDOWS, ...headers } });

  it('settles a split by conversion rate, not by clicks, when its metric is conversions', async () => {
    const link = await newLink();
    const res = await api('PUT', `/api/v1/links/${link.id}/routing`, {
      split: {
        variants: [
          { url: 'https://example.com/a', weight: 50 },
          { url: 'https://example.com/b', weight: 50 },
        ],
        endsAt: new Date(Date.now() + 2000).toISOString(),
        metric: 'conversions',
      },
      clickIdParam: 'sl_click',
    });
    expect(res.status).toBe(200);
    const [a, b] = res.body.data.split.variants as Array<{ id: string; url: string }>;
    const ids = new Map<string, string[]>([
      [a.url, []],
      [b.url, []],
    ]);
    for (let i = 0; i < 30; i++) {
      const location = new URL(String((await visit(`/${link.slug}`)).headers.location));
      ids.get(`${location.origin}${location.pathname}`)!.push(location.searchParams.get('sl_click')!);
    }
    const clicksA = ids.get(a.url)!.length;
    // The variant with fewer clicks (b on a tie, which clicks would give to a) converts every
    // click, the other none: only the conversion rate makes it the winner.
    const converted = clicksA < ids.get(b.url)!.length ? a : b;
    expect(ids.get(converted.url)!.length).toBeGreaterThan(0);
    for (const clickId of ids.get(converted.url)!) {
      const conversion = await api('POST', '/api/v1/conversions', { eventType: 'signup', clickId });
      expect(conversion.status).toBe(201);
    }
    await suite.server.clicks.flush();
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(res.body.data.split.endsAt) - Date.now() + 50)));
    const other = converted.id === a.id ? b : a;
    for (let i = 0; i < 5; i++) {
      const after = await visit(`/${link.slug}`, { cookie: `sl_v=${link.id}.${other.id}` });
      expect(new URL(String(after.headers.location)).pathname).toBe(new URL(converted.url).pathname);
    }
    const report = await api('GET', `/api/v1/links/${link.id}/routing/report`);
    expect(report.body.data.split.winnerId).toBe(converted.id);
  });

  it("answers /robots.txt on a custom domain with that domain's indexable links only", async () => {
    const host = `r${Date.now()}-${engine.replace(/\W/g, '')}.example.com`;
    const domainId = await addDomain(knex(), suite.owner.workspaceId, host);
    await setDomainStatus(knex(), domainId, 'ACTIVE');
    const onDomain = await newLink({ domainId });
    const hiddenOnDomain = await newLink({ domainId });
    const shared = await newLink();
    for (const id of [onDomain.id, shared.id]) {
      expect((await api('PUT', `/api/v1/links/${id}/routing`, { indexable: true })).status).toBe(200);
    }
    const robots = await visit('/robots.txt', { host });
    expect(robots.status).toBe(200);
    expect(robots.headers['content-type']).toMatch(/^text\/plain/);
    expect(robots.text).toContain(`Allow: /${onDomain.slug}$`);
    expect(robots.text).not.toContain(hiddenOnDomain.slug);
    expect(robots.text).not.toContain(shared.slug);
    expect(robots.text.trim().split('\n').at(-1)).toBe('Disallow: /');
    const sharedRobots = await visit('/robots.txt');
    expect(sharedRobots.text).toContain(`Allow: /${shared.slug}$`);
    expect(sharedRobots.text).not.toContain(onDomain.slug);
    // A disabled domain's links are not served, and neither is its list.
    await setDomainStatus(knex(), domainId, 'DISABLED');
    await suite.server.changes.poll();
    const disabled = await visit('/robots.txt', { host });
    expect(disabled.text ?? '').not.toContain(onDomain.slug);
  });
});
