// The answers that depend on how the service is deployed, from a second server and proxy: plain
// HTTP behind a proxy (TLS=off, TRUST_PROXY=1), conversion tracking and goals switched off,
// both webhook variants switched off; and, last, a database that can no longer be read.
//
// A request carrying `X-Forwarded-Proto: https` (Prism forwards the client's headers) counts as
// HTTPS there; one without it arrived over plain HTTP and gets the API's 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractChecks, startContractTarget, type ContractChecks, type ContractTarget } from '../../support/prism';
import { seedWorkspace, type Seeded } from '../../support/seed';
import type { RequestOptions } from '../../support/server';
import { KEYED, KEYED_OPS, type Ids } from './access';
import { API_SCOPES, call, SHORT_HOST, type Call, type ContractContext } from './context';
import { submit, visit } from './visitors';

const WEBHOOK_OPS = [
  'createWebhook',
  'listWebhooks',
  'updateWebhook',
  'deleteWebhook',
  'createWebhookV1',
  'listWebhooksV1',
  'deleteWebhookV1',
];

/** The call with extra options (a key, headers) merged in. */
const withOpts = (c: Call, extra: RequestOptions): Call => ({
  ...c,
  opts: { ...c.opts, ...extra, headers: { ...c.opts?.headers, ...extra.headers } },
});
const overHttps = (c: Call, key?: string) =>
  withOpts(c, { ...(key ? { key } : {}), headers: { 'x-forwarded-proto': 'https' } });

export function deploymentSuites(ctx: ContractContext) {
  describe('a deployment over plain HTTP behind a proxy, with conversions, goals and both webhook variants switched off', () => {
    let d: ContractTarget;
    let check: ContractChecks;
    let owner: Seeded;
    // Ids that do not exist on this server: every answer below comes before any lookup.
    const ids: Ids = { workspaceId: 'ws_x', linkId: 'lnk_x', goalId: 'goal_x', webhookA: 'whk_a', webhookB: 'whk_b' };

    beforeAll(async () => {
      d = await startContractTarget(ctx.engine, {
        env: {
          TLS: 'off',
          TRUST_PROXY: '1',
          SHORT_DOMAIN: SHORT_HOST,
          FEATURE_CONVERSIONS: 'off',
          FEATURE_GOALS: 'off',
          WEBHOOK_VARIANTS: '',
        },
      });
      check = contractChecks(() => d, ctx.coverage);
      owner = await seedWorkspace(d.server.services.db.knex, { scopes: API_SCOPES });
    });
    afterAll(async () => {
      await d?.stop();
    });

    it.each([...KEYED_OPS, 'getEventSchema'])('%s: 400 for a request that arrived over plain HTTP', async (op) => {
      const c =
        op === 'getEventSchema'
          ? call('GET', '/api/public/events/schema')
          : withOpts(KEYED[op].call(ids), { key: owner.key });
      const res = await check.viaPrism(op, c, 400);
      expect(res.body.error).toMatch(/HTTPS is required/);
    });

    it('the probes answer over plain HTTP as well', async () => {
      expect((await check.viaPrism('getHealth', call('GET', '/healthz'), 200)).body).toEqual({ status: 'ok' });
      expect((await check.viaPrism('getReadiness', call('GET', '/readyz'), 200)).body).toEqual({ status: 'ready' });
    });

    // No METRICS_TOKEN here: /metrics answers loopback clients, as the trusted proxy saw them.
    it('getMetrics: 403 for a client the trusted proxy saw elsewhere, 200 over plain HTTP for a loopback one', async () => {
      const refused = await check.viaPrism(
        'getMetrics',
        call('GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.9' } }),
        403,
      );
      expect(refused.body.error).toMatch(/loopback/);
      expect((await check.viaPrism('getMetrics', call('GET', '/metrics'), 200)).text).toContain(
        'shortlink_click_backlog',
      );
    });

    // No TLS_ASK_TOKEN here: a front end on this machine asks, over plain HTTP.
    it('askCertificate: 403 for a client the trusted proxy saw elsewhere, 200 over plain HTTP for a loopback one', async () => {
      const ask = (headers: Record<string, string> = {}) => call('GET', `/tls/ask?domain=${SHORT_HOST}`, { headers });
      const refused = await check.viaPrism('askCertificate', ask({ 'x-forwarded-for': '203.0.113.9' }), 403);
      expect(refused.body.error).toMatch(/loopback/);
      expect((await check.viaPrism('askCertificate', ask(), 200)).body).toEqual({ domain: SHORT_HOST, kind: 'short' });
    });

    it.each([
      ['getConversionSummary', 'conversions_unavailable'],
      ['recordConversion', 'conversions_unavailable'],
      ['listGoals', 'goals_unavailable'],
      ['getGoalReport', 'goals_unavailable'],
    ])('%s: 503 with code %s', async (op, code) => {
      const res = await check.viaPrism(op, overHttps(KEYED[op].call(ids), owner.key), 503);
      expect(res.body).toEqual({ error: expect.any(String), code });
    });

    it.each([...WEBHOOK_OPS, 'getEventSchema'])('%s: 404, its variant being switched off', async (op) => {
      const c = op === 'getEventSchema' ? call('GET', '/api/public/events/schema') : KEYED[op].call(ids);
      const res = await check.viaPrism(op, overHttps(c, owner.key), 404);
      expect(res.body.error).toMatch(/variant/i);
    });

    // Last: this server's database can no longer be read. The redirect store keeps its own
    // connections (an open file on SQLite), so its reads are made to fail by dropping the tables
    // they read (dropping the whole Postgres database would terminate the store's idle pool
    // connections, which src/db/redirect-store.ts does not survive); the API's connections are
    // closed. On SQLite only the QR path is provoked: there a failed read on the slug path
    // throws out of the request handler (see the guard in prism.test.ts).
    describe('when the database cannot be read', () => {
      beforeAll(async () => {
        const knex = d.server.services.db.knex;
        if (ctx.engine === 'postgres') await knex.raw('DROP TABLE qr_codes, links CASCADE');
        else {
          await knex.raw('PRAGMA foreign_keys = OFF');
          await knex.raw('DROP TABLE qr_codes');
          await knex.raw('DROP TABLE links');
        }
        await knex.destroy();
      });

      it('scanQrCode: 503, the temporarily-unavailable page', async () => {
        const res = await check.viaPrism('scanQrCode', visit('/qr/anycode'), 503);
        expect(res.text).toContain('Temporarily unavailable');
        expect(res.text).not.toContain('no link at this address');
      });

      // On SQLite the store answers synchronously, so the failed read throws inside the request
      // handler; it must still be the 503 page, not a crash of the process.
      it('followShortLink and submitLinkPassword: 503, the temporarily-unavailable page', async () => {
        expect((await check.viaPrism('followShortLink', visit('/any-slug'), 503)).text).toContain(
          'Temporarily unavailable',
        );
        const res = await check.viaPrism('submitLinkPassword', submit('/any-slug', { csrf: 'x', password: 'y' }), 503);
        expect(res.text).toContain('Temporarily unavailable');
      });

      it('getReadiness: 503 { error } without a code', async () => {
        const res = await check.viaPrism('getReadiness', call('GET', '/readyz'), 503);
        expect(res.body).toEqual({ error: expect.any(String) });
      });

      // The key cannot be read: that says nothing about the key, so the answer is the server's
      // 500, never the 401 of a missing, invalid, revoked, expired or free-plan key (a client
      // would drop a good key).
      it('an API request while the database is unreachable is a 500, not a 401', async () => {
        const c = overHttps(KEYED.listLinks.call(ids), owner.key);
        expect((await d.prism.request(c.method, c.path, c.opts)).status).toBe(500);
      });
    });
  });
}
