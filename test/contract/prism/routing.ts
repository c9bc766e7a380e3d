// The routing operations (getLinkRouting, setLinkRouting, tryLinkRouting, getLinkRoutingReport)
// through the proxy: every success shape and error status the document gives them. Keys, plans,
// scopes and the rate limit are in ./access.ts; the plain-HTTP 400 in ./deployment.ts.
import { describe, expect, it } from 'vitest';
import { seedMemberKey, seedWorkspace } from '../../support/seed';
import { BIG, call, json, type ContractContext } from './context';

export function routingSuites(ctx: ContractContext) {
  const path = (id: string, tail = '') => `/api/v1/links/${id}/routing${tail}`;

  describe('getLinkRouting and setLinkRouting', () => {
    it('200: the defaults, a document stored with its ids, and read back', async () => {
      const link = await ctx.makeLink({ url: 'https://example.com/routing' });
      const read = await ctx.viaPrism('getLinkRouting', call('GET', path(link.id)), 200);
      expect(read.body.data).toEqual({
        rules: [],
        split: null,
        forwardQuery: true,
        indexable: false,
        clickIdParam: null,
      });
      const doc = {
        rules: [{ conditions: [{ type: 'os', value: 'ios' }], url: 'https://apps.apple.com/app/id1' }],
        split: {
          variants: [
            { url: 'https://example.com/a', weight: 60 },
            { url: 'https://example.com/b', weight: 40 },
          ],
          endsAt: '2030-01-01T00:00:00Z',
          metric: 'conversions',
        },
        clickIdParam: 'sl_click',
      };
      const set = await ctx.viaPrism('setLinkRouting', json('PUT', path(link.id), doc), 200);
      expect(set.body.data.split.endsAt).toBe('2030-01-01T00:00:00.000Z');
      expect((await ctx.viaPrism('getLinkRouting', call('GET', path(link.id)), 200)).body.data).toEqual(set.body.data);
    });

    it('400 naming the field for a document the schema allows and the rules refuse', async () => {
      const link = await ctx.makeLink({ url: 'https://example.com/routing-400' });
      const res = await ctx.viaPrism(
        'setLinkRouting',
        json('PUT', path(link.id), { rules: [{ conditions: [{ type: 'os', value: 'beos' }], url: 'https://e.com' }] }),
        400,
      );
      expect(res.body.field).toBe('rules.0.conditions.0.value');
    });

    it('400 for an unknown key and an unknown condition type (Prism refuses them with 422)', async () => {
      const link = await ctx.makeLink({ url: 'https://example.com/routing-422' });
      const unknown = await ctx.refusedByPrism(
        'setLinkRouting',
        json('PUT', path(link.id), { colour: 'red' }),
        422,
        400,
      );
      expect(unknown.direct.body.error).toMatch(/colour/);
      const type = await ctx.refusedByPrism(
        'setLinkRouting',
        json('PUT', path(link.id), { rules: [{ conditions: [{ type: 'planet', value: 'x' }], url: 'https://e.com' }] }),
        422,
        400,
      );
      expect(type.direct.body.field).toBe('rules.0.conditions.0.type');
    });

    it('403 for an ANALYST, 404 for another workspace, a missing or a deleted link, 413 over 64 KiB', async () => {
      const link = await ctx.makeLink({ url: 'https://example.com/routing-4xx' });
      const analyst = await seedMemberKey(ctx.knex(), ctx.owner.workspaceId, 'ANALYST', ['links:read', 'links:write']);
      await ctx.viaPrism('setLinkRouting', json('PUT', path(link.id), { indexable: true }), 403, analyst.key);
      const theirs = await seedWorkspace(ctx.knex());
      await ctx.viaPrism('getLinkRouting', call('GET', path(link.id)), 404, theirs.key);
      await ctx.viaPrism('setLinkRouting', json('PUT', path('lnk_missing'), {}), 404);
      const gone = await ctx.makeLink({ url: 'https://example.com/routing-gone' });
      await ctx.main.server.request('DELETE', `/api/v1/links/${gone.id}`, { key: ctx.owner.key });
      await ctx.viaPrism('getLinkRouting', call('GET', path(gone.id)), 404);
      await ctx.viaPrism(
        'setLinkRouting',
        json('PUT', path(link.id), {
          rules: [{ conditions: [{ type: 'os', value: 'ios' }], url: `https://e.com/${BIG}` }],
        }),
        413,
      );
    });
  });

  describe('tryLinkRouting and getLinkRoutingReport', () => {
    it('200: a trial and a report; 400 for a bad trial value; 413 over 64 KiB; 404 for another workspace', async () => {
      const link = await ctx.makeLink({ url: 'https://example.com/trial' });
      const trial = await ctx.viaPrism('tryLinkRouting', json('POST', path(link.id, '/trial'), { query: 'a=1' }), 200);
      expect(trial.body.data).toMatchObject({
        url: 'https://example.com/trial?a=1',
        served: { kind: 'link', id: null },
      });
      const bad = await ctx.viaPrism('tryLinkRouting', json('POST', path(link.id, '/trial'), { ip: 'nope' }), 400);
      expect(bad.body.field).toBe('ip');
      const report = await ctx.viaPrism('getLinkRoutingReport', call('GET', path(link.id, '/report')), 200);
      expect(report.body.data).toEqual({
        routes: [{ kind: 'link', id: null, url: 'https://example.com/trial', clicks: 0, conversions: 0 }],
        split: null,
      });
      await ctx.viaPrism('tryLinkRouting', json('POST', path(link.id, '/trial'), { ip: BIG }), 413);
      const theirs = await seedWorkspace(ctx.knex());
      await ctx.viaPrism('tryLinkRouting', json('POST', path(link.id, '/trial'), {}), 404, theirs.key);
      await ctx.viaPrism('getLinkRoutingReport', call('GET', path(link.id, '/report')), 404, theirs.key);
    });
  });
}
