// Tags, QR codes and custom domains (listTags ... listDomains) through the proxy: every success
// shape and every error status their descriptions give. Keys, plans, scopes and the rate limit are
// in ./access.ts; the plain-HTTP 400 in ./deployment.ts.
import { describe, expect, it } from 'vitest';
import { addDomain } from '../../../src/db/repos/domains';
import { seedWorkspace } from '../../support/seed';
import { API_SCOPES, BIG, call, json, type ContractContext } from './context';

export function workspaceObjectSuites(ctx: ContractContext) {
  const tag = async (name: string) => {
    const res = await ctx.main.server.request('POST', '/api/v1/tags', { key: ctx.owner.key, body: { name } });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  };
  const qrCode = async (linkId: string) => {
    const res = await ctx.main.server.request('POST', '/api/v1/qr-codes', { key: ctx.owner.key, body: { linkId } });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  };

  describe('tags', () => {
    it('listTags 200, createTag 201 and 409 for a name the workspace has, 413 over 64 KiB', async () => {
      const made = await ctx.viaPrism('createTag', json('POST', '/api/v1/tags', { name: `prism ${ctx.engine}` }), 201);
      expect(made.body.data).toEqual({
        id: expect.stringMatching(/^tag_/),
        name: `prism ${ctx.engine}`,
        color: '#6b7280',
      });
      const list = await ctx.viaPrism('listTags', call('GET', '/api/v1/tags'), 200);
      expect(list.body.data.map((t: any) => t.id)).toContain(made.body.data.id);
      const taken = await ctx.viaPrism('createTag', json('POST', '/api/v1/tags', { name: `prism ${ctx.engine}` }), 409);
      expect(taken.body.error).toContain('already exists');
      // A name at most 100 characters long: the schema refuses the body before its size.
      const { direct } = await ctx.refusedByPrism('createTag', json('POST', '/api/v1/tags', { name: BIG }), 422, 413);
      expect(direct.body.error).toBeTruthy();
    });

    it('updateTag 200, 409 for a taken name, 404 for another workspace, 413 over 64 KiB', async () => {
      const mine = await tag(`rename ${Date.now()}`);
      const other = await tag(`taken ${Date.now()}`);
      const path = `/api/v1/tags/${mine.id}`;
      const res = await ctx.viaPrism('updateTag', json('PATCH', path, { color: '#ff00ff' }), 200);
      expect(res.body.data).toEqual({ ...mine, color: '#ff00ff' });
      await ctx.viaPrism('updateTag', json('PATCH', path, { name: other.name }), 409);
      const stranger = await seedWorkspace(ctx.knex(), { scopes: API_SCOPES });
      await ctx.viaPrism('updateTag', json('PATCH', path, { color: '#000000' }), 404, stranger.key);
      await ctx.refusedByPrism('updateTag', json('PATCH', path, { name: BIG }), 422, 413);
    });

    it('deleteTag 204, then 404', async () => {
      const doomed = await tag(`delete ${Date.now()}`);
      const res = await ctx.viaPrism('deleteTag', call('DELETE', `/api/v1/tags/${doomed.id}`), 204);
      expect(res.text).toBe('');
      await ctx.viaPrism('deleteTag', call('DELETE', `/api/v1/tags/${doomed.id}`), 404);
    });
  });

  describe('QR codes', () => {
    it('createQrCode 201, 404 for a link of another workspace, 413 over 64 KiB', async () => {
      const link = await ctx.makeLink({ url: 'https://example.com/prism-qr' });
      const made = await ctx.viaPrism('createQrCode', json('POST', '/api/v1/qr-codes', { linkId: link.id }), 201);
      expect(made.body.data).toMatchObject({ linkId: link.id, url: expect.stringContaining('/qr/') });
      const stranger = await seedWorkspace(ctx.knex(), { scopes: API_SCOPES });
      await ctx.viaPrism('createQrCode', json('POST', '/api/v1/qr-codes', { linkId: link.id }), 404, stranger.key);
      await ctx.viaPrism('createQrCode', json('POST', '/api/v1/qr-codes', { linkId: BIG }), 413);
    });

    it('listQrCodes 200 (a page, filtered by link); 400 for limit=101 (Prism refuses it with 422)', async () => {
      const link = await ctx.makeLink({ url: 'https://example.com/prism-qr-list' });
      const qr = await qrCode(link.id);
      const page = await ctx.viaPrism('listQrCodes', call('GET', `/api/v1/qr-codes?linkId=${link.id}&limit=5`), 200);
      expect(page.body).toEqual({ data: [qr], meta: { page: 1, limit: 5, total: 1 } });
      const { direct } = await ctx.refusedByPrism('listQrCodes', call('GET', '/api/v1/qr-codes?limit=101'), 422, 400);
      expect(direct.body.field).toBe('limit');
    });

    it('getQrCode 200 and 404; deleteQrCode 204, then 404', async () => {
      const link = await ctx.makeLink({ url: 'https://example.com/prism-qr-get' });
      const qr = await qrCode(link.id);
      const got = await ctx.viaPrism('getQrCode', call('GET', `/api/v1/qr-codes/${qr.id}`), 200);
      expect(got.body.data).toEqual(qr);
      await ctx.viaPrism('deleteQrCode', call('DELETE', `/api/v1/qr-codes/${qr.id}`), 204);
      await ctx.viaPrism('getQrCode', call('GET', `/api/v1/qr-codes/${qr.id}`), 404);
      await ctx.viaPrism('deleteQrCode', call('DELETE', `/api/v1/qr-codes/${qr.id}`), 404);
    });
  });

  describe('domains', () => {
    it("listDomains 200 with the workspace's domains", async () => {
      const host = `prism-${ctx.engine}-${Date.now()}.example.com`;
      const id = await addDomain(ctx.knex(), ctx.owner.workspaceId, host);
      const res = await ctx.viaPrism('listDomains', call('GET', '/api/v1/domains'), 200);
      expect(res.body.data).toContainEqual({ id, host, status: 'PENDING', verifiedAt: null });
    });
  });
}
