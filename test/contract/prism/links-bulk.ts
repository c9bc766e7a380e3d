// The bulk links operations (createLinksBulk, updateLinksBulk, deleteLinksBulk) through the proxy:
// the 200 with a result per item, and every error status the document gives them. Keys, plans,
// scopes and the rate limit are in ./access.ts.
import { describe, expect, it } from 'vitest';
import { seedMemberKey, seedWorkspace } from '../../support/seed';
import type { Call, ContractContext } from './context';

const PATH = '/api/v1/links/bulk';

export function linkBulkSuites(ctx: ContractContext) {
  const post = (body: unknown, headers?: Record<string, string>): Call => ({
    method: 'POST',
    path: PATH,
    opts: { body, headers },
  });
  const patch = (body: unknown): Call => ({ method: 'PATCH', path: PATH, opts: { body } });

  describe('createLinksBulk', () => {
    it('200: a result per item, created and refused, in order', async () => {
      const slug = `bulk-prism-${ctx.engine}`;
      const res = await ctx.viaPrism(
        'createLinksBulk',
        post({
          links: [
            { url: 'https://example.com/b1', slug, colour: 'red' },
            { url: 'ftp://example.com' },
            { url: 'https://example.com/b3', slug },
          ],
        }),
        200,
      );
      expect(res.body.data.map((r: any) => r.status)).toEqual([201, 400, 409]);
      expect(res.body.data[0].meta).toEqual({ ignoredFields: ['colour'] });
      expect(res.body.data[1].field).toBe('url');
    });

    it('400 for 101 items (Prism refuses it with 422; the server answer is checked directly)', async () => {
      const links = Array.from({ length: 101 }, () => ({ url: 'https://example.com' }));
      const { direct } = await ctx.refusedByPrism('createLinksBulk', post({ links }), 422, 400);
      expect(direct.body.field).toBe('links');
    });

    it('409 for an Idempotency-Key reused with another body; the same body replays', async () => {
      const key = `bulk-prism-${ctx.engine}-${Date.now()}`;
      const first = await ctx.viaPrism(
        'createLinksBulk',
        post({ links: [{ url: 'https://example.com/i' }] }, { 'Idempotency-Key': key }),
        200,
      );
      const again = await ctx.viaPrism(
        'createLinksBulk',
        post({ links: [{ url: 'https://example.com/i' }] }, { 'Idempotency-Key': key }),
        200,
      );
      expect(again.body).toEqual(first.body);
      const other = await ctx.viaPrism(
        'createLinksBulk',
        post({ links: [{ url: 'https://example.com/other' }] }, { 'Idempotency-Key': key }),
        409,
      );
      expect(other.body.error).toMatch(/Idempotency-Key/);
    });

    it('413 for a body over 1 MiB', async () => {
      const res = await ctx.viaPrism(
        'createLinksBulk',
        post({ links: [{ url: 'https://example.com', title: 'x'.repeat(1_100_000) }] }),
        413,
      );
      expect(res.body.error).toBe('Request body exceeds 1 MiB');
    });
  });

  describe('updateLinksBulk', () => {
    it('200: each id changed, or its 404', async () => {
      const made = await ctx.makeLink({ url: 'https://example.com/u' });
      const res = await ctx.viaPrism(
        'updateLinksBulk',
        patch({ ids: [made.id, 'lnk_missing'], changes: { status: 'DISABLED' } }),
        200,
      );
      expect(res.body.data.map((r: any) => r.status)).toEqual([200, 404]);
      expect(res.body.data[0].data.status).toBe('DISABLED');
    });

    it('400 for slug in changes (Prism refuses it with 422; the server answer is checked directly)', async () => {
      const made = await ctx.makeLink({ url: 'https://example.com/s' });
      const { direct } = await ctx.refusedByPrism(
        'updateLinksBulk',
        patch({ ids: [made.id], changes: { slug: 'shared' } }),
        422,
        400,
      );
      expect(direct.body.field).toBe('changes.slug');
    });

    it('403 for a key whose owner became an ANALYST', async () => {
      const mine = await seedWorkspace(ctx.knex());
      const analyst = await seedMemberKey(ctx.knex(), mine.workspaceId, 'ANALYST');
      const res = await ctx.viaPrism('updateLinksBulk', patch({ ids: ['lnk_x'], changes: {} }), 403, analyst.key);
      expect(res.body.error).toMatch(/ANALYST/);
    });

    it('413 for a body over 1 MiB', async () => {
      await ctx.viaPrism('updateLinksBulk', patch({ ids: ['lnk_x'], changes: { title: 'x'.repeat(1_100_000) } }), 413);
    });
  });

  describe('deleteLinksBulk', () => {
    it('200: each id deleted, or its 404', async () => {
      const made = await ctx.makeLink({ url: 'https://example.com/d' });
      const res = await ctx.viaPrism(
        'deleteLinksBulk',
        { method: 'DELETE', path: `${PATH}?ids=${made.id},${made.id}` },
        200,
      );
      expect(res.body.data.map((r: any) => r.status)).toEqual([200, 404]);
    });

    it('400 for an empty id among the ids', async () => {
      const res = await ctx.viaPrism('deleteLinksBulk', { method: 'DELETE', path: `${PATH}?ids=a,,b` }, 400);
      expect(res.body.field).toBe('ids');
    });
  });
}
