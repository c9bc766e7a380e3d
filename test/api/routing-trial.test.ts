// "Try a visit" (POST /api/v1/links/{id}/routing/trial) and the real redirect agree: generated
// routings and visits, each visit made both ways, on every engine.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { dataKey, serverWithOwner } from '../support/seed';
import { IPHONE_USER_AGENT } from '../support/user-agents';

const AGENTS = [
  IPHONE_USER_AGENT,
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
];
const LANGUAGES = ['en-US,en;q=0.9', 'fr-FR,fr;q=0.9,en;q=0.5', 'de;q=0.4, es', ''];
const COUNTRIES = ['US', 'FR', 'DE', ''];
const ADDRESSES = ['203.0.113.9', '198.51.100.20', '2001:db8::7'];
const QUERIES = ['', 'ref=mail', 'ref=ads&beta', 'utm_source=x'];
const HOUR = 3_600_000;

const condition = fc.oneof(
  fc.record({ type: fc.constant('device'), value: fc.constantFrom('mobile', 'tablet', 'desktop') }),
  fc.record({ type: fc.constant('os'), value: fc.constantFrom('ios', 'android', 'windows', 'macos', 'linux') }),
  fc.record({ type: fc.constant('browser'), value: fc.constantFrom('chrome', 'safari', 'firefox', 'edge') }),
  fc.record({ type: fc.constant('language'), value: fc.constantFrom('en', 'fr', 'es', 'de') }),
  fc.record({ type: fc.constant('country'), value: fc.constantFrom('US', 'FR', 'DE') }),
  fc.record({ type: fc.constant('query'), name: fc.constant('ref'), value: fc.constantFrom('mail', 'ads') }),
  fc.record({ type: fc.constant('query'), name: fc.constantFrom('beta', 'ref') }),
  fc.record({ type: fc.constant('ip'), value: fc.constantFrom('203.0.113.0/24', '2001:db8::/32', '198.51.100.20') }),
  fc.record({
    type: fc.constantFrom('after', 'before'),
    value: fc.constantFrom(-HOUR, HOUR).map((d) => new Date(Date.now() + d).toISOString()),
  }),
);
const routing = fc.record({
  rules: fc.array(fc.record({ conditions: fc.array(condition, { minLength: 1, maxLength: 3 }), url: fc.webUrl() }), {
    maxLength: 5,
  }),
  forwardQuery: fc.boolean(),
});
const visit = fc.record({
  userAgent: fc.constantFrom(...AGENTS),
  language: fc.constantFrom(...LANGUAGES),
  country: fc.constantFrom(...COUNTRIES),
  ip: fc.constantFrom(...ADDRESSES),
  query: fc.constantFrom(...QUERIES),
});

describe.each(testEngines())('"Try a visit" and the redirect on %s', (engine) => {
  const suite = serverWithOwner(engine, { env: { TRUST_PROXY: '1' } }, ['links:read', 'links:write']);
  let n = 0;

  it('send generated visits to the same destination', async () => {
    await fc.assert(
      fc.asyncProperty(routing, fc.array(visit, { minLength: 1, maxLength: 4 }), async (doc, visits) => {
        // A key per run: each has its own requests-a-minute budget.
        const key = await dataKey(suite.server.services.db.knex, suite.owner.workspaceId, suite.owner.userId);
        const created = await suite.server.request('POST', '/api/v1/links', {
          key,
          body: { url: 'https://example.com/own?x=1', slug: `trial-${++n}` },
        });
        const link = created.body.data;
        const put = await suite.server.request('PUT', `/api/v1/links/${link.id}/routing`, { key, body: doc });
        expect(put.status, put.text).toBe(200);
        for (const v of visits) {
          const headers: Record<string, string> = { 'user-agent': v.userAgent, 'x-forwarded-for': v.ip };
          if (v.language) headers['accept-language'] = v.language;
          if (v.country) headers['cf-ipcountry'] = v.country;
          const real = await suite.server.request('GET', `/${link.slug}${v.query ? `?${v.query}` : ''}`, { headers });
          const trial = await suite.server.request('POST', `/api/v1/links/${link.id}/routing/trial`, {
            key,
            body: {
              userAgent: v.userAgent,
              ip: v.ip,
              ...(v.language ? { language: v.language } : {}),
              ...(v.country ? { country: v.country } : {}),
              ...(v.query ? { query: v.query } : {}),
            },
          });
          expect(trial.status, trial.text).toBe(200);
          expect(real.headers.location, JSON.stringify({ doc, v, reasons: trial.body.data.reasons })).toBe(
            trial.body.data.url,
          );
        }
      }),
      { numRuns: 25, seed: Number(process.env.FUZZ_SEED) || undefined },
    );
  });
});
