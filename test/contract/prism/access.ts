// Keys, plans, scopes and the rate limit, on every operation that takes a key: the 401, 403
// and 429 the interface gives each of them, through the proxy (a missing Authorization header
// is refused by Prism itself, so the server's answer to it is checked directly).
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as goalsRepo from '../../../src/db/repos/goals';
import { createKey, revokeKey } from '../../../src/db/repos/api-keys';
import { SCOPES, type Scope } from '../../../src/domain/access';
import { declaredStatuses, PRISM_ERROR, SPEC_PATH } from '../../support/prism';
import { seedWorkspace } from '../../support/seed';
import { API_SCOPES, call, json, type Call, type ContractContext } from './context';
import { goalDefinition } from '../../support/stored-rows';
import { createQrCode, createTag } from '../../../src/db/repos/workspace-objects';

/** Real objects of the caller's workspace, so that a call that got past the key check would succeed. */
export interface Ids {
  workspaceId: string;
  linkId: string;
  goalId: string;
  webhookA: string;
  webhookB: string;
  /** A tag and a QR code of the workspace (ids that do not exist where none is given). */
  tagId?: string;
  qrCodeId?: string;
}

/** Every operation that takes a key: the scope it needs and a valid request for it. */
export const KEYED: Record<string, { scope: Scope; call: (ids: Ids) => Call }> = {
  listLinks: { scope: 'links:read', call: () => call('GET', '/api/v1/links?limit=1') },
  createLink: { scope: 'links:write', call: () => json('POST', '/api/v1/links', { url: 'https://example.com/auth' }) },
  getLink: { scope: 'links:read', call: (i) => call('GET', `/api/v1/links/${i.linkId}`) },
  updateLink: { scope: 'links:write', call: (i) => json('PATCH', `/api/v1/links/${i.linkId}`, { title: 'auth' }) },
  deleteLink: { scope: 'links:write', call: (i) => call('DELETE', `/api/v1/links/${i.linkId}`) },
  createLinksBulk: {
    scope: 'links:write',
    call: () => json('POST', '/api/v1/links/bulk', { links: [{ url: 'https://example.com/auth' }] }),
  },
  updateLinksBulk: {
    scope: 'links:write',
    call: (i) => json('PATCH', '/api/v1/links/bulk', { ids: [i.linkId], changes: { title: 'auth' } }),
  },
  deleteLinksBulk: { scope: 'links:write', call: (i) => call('DELETE', `/api/v1/links/bulk?ids=${i.linkId}`) },
  getLinkRouting: { scope: 'links:read', call: (i) => call('GET', `/api/v1/links/${i.linkId}/routing`) },
  setLinkRouting: {
    scope: 'links:write',
    call: (i) => json('PUT', `/api/v1/links/${i.linkId}/routing`, { forwardQuery: true }),
  },
  tryLinkRouting: { scope: 'links:read', call: (i) => json('POST', `/api/v1/links/${i.linkId}/routing/trial`, {}) },
  getLinkRoutingReport: { scope: 'links:read', call: (i) => call('GET', `/api/v1/links/${i.linkId}/routing/report`) },
  getConversionSummary: {
    scope: 'conversions:read',
    call: () => call('GET', '/api/v1/conversions?eventType=purchase'),
  },
  recordConversion: {
    scope: 'conversions:write',
    call: () => json('POST', '/api/v1/conversions', { eventType: 'signup' }),
  },
  listGoals: { scope: 'conversions:read', call: () => call('GET', '/api/v1/goals?status=ACTIVE') },
  getGoalReport: { scope: 'conversions:read', call: (i) => call('GET', `/api/v1/goals/${i.goalId}/report`) },
  createWebhook: {
    scope: 'webhooks:write',
    call: (i) =>
      json('POST', '/api/webhooks', {
        workspaceId: i.workspaceId,
        url: 'https://hooks.example.com/auth',
        events: ['link.created'],
      }),
  },
  listWebhooks: { scope: 'webhooks:read', call: () => call('GET', '/api/webhooks') },
  updateWebhook: {
    scope: 'webhooks:write',
    call: (i) => json('PATCH', `/api/webhooks/${i.webhookA}`, { enabled: false }),
  },
  deleteWebhook: { scope: 'webhooks:write', call: (i) => call('DELETE', `/api/webhooks/${i.webhookA}`) },
  createWebhookV1: {
    scope: 'webhooks:write',
    call: () =>
      json('POST', '/api/v1/webhooks', {
        url: 'https://hooks.example.com/auth-b',
        events: ['link.clicked'],
        secret: 'sixteen-chars-or-more',
      }),
  },
  listWebhooksV1: { scope: 'webhooks:read', call: () => call('GET', '/api/v1/webhooks') },
  deleteWebhookV1: { scope: 'webhooks:write', call: (i) => call('DELETE', `/api/v1/webhooks/${i.webhookB}`) },
  listTags: { scope: 'links:read', call: () => call('GET', '/api/v1/tags') },
  createTag: { scope: 'links:write', call: () => json('POST', '/api/v1/tags', { name: 'auth' }) },
  updateTag: {
    scope: 'links:write',
    call: (i) => json('PATCH', `/api/v1/tags/${i.tagId ?? 'tag_x'}`, { color: '#123456' }),
  },
  deleteTag: { scope: 'links:write', call: (i) => call('DELETE', `/api/v1/tags/${i.tagId ?? 'tag_x'}`) },
  listQrCodes: { scope: 'links:read', call: () => call('GET', '/api/v1/qr-codes?limit=1') },
  createQrCode: { scope: 'links:write', call: (i) => json('POST', '/api/v1/qr-codes', { linkId: i.linkId }) },
  getQrCode: { scope: 'links:read', call: (i) => call('GET', `/api/v1/qr-codes/${i.qrCodeId ?? 'qr_x'}`) },
  deleteQrCode: { scope: 'links:write', call: (i) => call('DELETE', `/api/v1/qr-codes/${i.qrCodeId ?? 'qr_x'}`) },
  listDomains: { scope: 'links:read', call: () => call('GET', '/api/v1/domains') },
};
export const KEYED_OPS = Object.keys(KEYED);

/** Creates one object of each kind in the workspace (straight on the server: not contract checks). */
export async function seedIds(
  ctx: ContractContext,
  who: { workspaceId: string; key: string } = ctx.owner,
): Promise<Ids> {
  const server = ctx.main.server;
  const linkId = (await ctx.makeLink({ url: 'https://example.com/ids' }, who.key)).id;
  const goal = await goalsRepo.createGoal(
    ctx.knex(),
    who.workspaceId,
    goalDefinition({ name: 'Signups', type: 'signup' }),
  );
  const a = await server.request('POST', '/api/webhooks', {
    key: who.key,
    body: { workspaceId: who.workspaceId, url: 'https://hooks.example.com/ids', events: ['link.created'] },
  });
  const b = await server.request('POST', '/api/v1/webhooks', {
    key: who.key,
    body: { url: 'https://hooks.example.com/ids-b', events: ['link.created'], secret: 'sixteen-chars-or-more' },
  });
  expect([a.status, b.status], `${a.text} ${b.text}`).toEqual([201, 201]);
  const tagId = await createTag(ctx.knex(), who.workspaceId, `ids ${Date.now()} ${Math.random()}`, '#123456');
  const qrCodeId = (await createQrCode(ctx.knex(), who.workspaceId, linkId)).id;
  return {
    workspaceId: who.workspaceId,
    linkId,
    goalId: goal.id,
    webhookA: a.body.data.id,
    webhookB: b.body.id,
    tagId,
    qrCodeId,
  };
}

export function accessSuites(ctx: ContractContext) {
  describe('keys, plans, scopes and the rate limit, on every operation that takes a key', () => {
    let ids: Ids;
    beforeAll(async () => {
      ids = await seedIds(ctx);
    });
    const valid = (op: string) => KEYED[op].call(ids);

    it('KEYED lists exactly the operations the document secures with a key, with their scope', () => {
      const doc = JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8'));
      const secured: Record<string, string[]> = {};
      for (const item of Object.values<any>(doc.paths)) {
        for (const op of Object.values<any>(item)) {
          const security = op?.security ?? doc.security;
          if (op?.operationId && security.length)
            secured[op.operationId] = security.flatMap((s: any) => s.bearerAuth ?? []);
        }
      }
      expect(Object.fromEntries(KEYED_OPS.map((op) => [op, [KEYED[op].scope]]))).toEqual(secured);
      expect([...declaredStatuses().keys()].filter((op) => !KEYED[op]).sort()).toEqual([
        'askCertificate',
        'followShortLink',
        'getEventSchema',
        'getHealth',
        'getMetrics',
        'getReadiness',
        'getRoot',
        'scanQrCode',
        'submitLinkPassword',
      ]);
    });

    // Every path id has minLength 1: Prism refuses an empty one (what a client sends for an id of
    // ''), and the server, where an empty segment names no route, answers 404.
    const EMPTY: Ids = { workspaceId: '', linkId: '', goalId: '', webhookA: '', webhookB: '', tagId: '', qrCodeId: '' };
    it.each(KEYED_OPS.filter((op) => /\/\/|\/$/.test(KEYED[op].call(EMPTY).path.split('?')[0])))(
      '%s: an empty path id (Prism refuses it with 422; the server answers 404)',
      async (op) => {
        const { direct } = await ctx.refusedByPrism(op, KEYED[op].call(EMPTY), 422, 404);
        expect(direct.body.error).toBeTruthy();
      },
    );

    it.each(KEYED_OPS)('%s: 401 for an unknown, a malformed, a revoked, an expired and a free-plan key', async (op) => {
      await ctx.viaPrism(op, valid(op), 401, `mk_${'0'.repeat(64)}`);
      await ctx.viaPrism(op, valid(op), 401, 'not-a-key');
      const revoked = await createKey(ctx.knex(), ctx.owner.workspaceId, ctx.owner.userId, API_SCOPES, null);
      await revokeKey(ctx.knex(), revoked.id);
      expect((await ctx.viaPrism(op, valid(op), 401, revoked.key)).body.error).toMatch(/revoked/);
      const expired = await createKey(
        ctx.knex(),
        ctx.owner.workspaceId,
        ctx.owner.userId,
        API_SCOPES,
        Date.now() - 1000,
      );
      expect((await ctx.viaPrism(op, valid(op), 401, expired.key)).body.error).toMatch(/expired/);
      const free = await seedWorkspace(ctx.knex(), { plan: 'free', scopes: API_SCOPES });
      expect((await ctx.viaPrism(op, valid(op), 401, free.key)).body.error).toMatch(/paid plan/);
    });

    it.each(KEYED_OPS)(
      '%s: 401 without Authorization (Prism refuses it itself; the server answer is checked directly)',
      async (op) => {
        const { proxied } = await ctx.refusedByPrism(op, valid(op), 401, 401, null);
        expect(proxied.body.type).toBe(`${PRISM_ERROR}UNAUTHORIZED`);
      },
    );

    it.each(KEYED_OPS)('%s: 403 for a key with every scope but its own, and for a pro-plan workspace', async (op) => {
      const others = SCOPES.filter((s) => s !== KEYED[op].scope);
      const res = await ctx.viaPrism(op, valid(op), 403, await ctx.freshKey(others));
      expect(res.body.error).toContain(KEYED[op].scope);
      const pro = await seedWorkspace(ctx.knex(), { plan: 'pro', scopes: API_SCOPES });
      const proRes = await ctx.viaPrism(op, valid(op), 403, pro.key);
      expect(proRes.body.error).toMatch(/\bpro\b/);
    });

    describe('429', () => {
      // One key spent for all operations: the limit is per key and shared by every endpoint.
      // The window is fixed (60 s from the first request): a key older than 30 s is replaced.
      let spent: { key: string; at: number } | undefined;
      async function spentKey(): Promise<string> {
        if (!spent || Date.now() - spent.at > 30_000) {
          const key = await ctx.freshKey(API_SCOPES);
          const at = Date.now();
          for (let batch = 0; batch < 3; batch++) {
            const answers = await Promise.all(
              Array.from({ length: 20 }, () => ctx.main.server.request('GET', '/api/v1/links?limit=1', { key })),
            );
            expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
          }
          spent = { key, at };
        }
        return spent.key;
      }

      it.each(KEYED_OPS)(
        '%s: 429 with X-RateLimit-* and Retry-After once the key has spent 60 requests',
        async (op) => {
          const res = await ctx.viaPrism(op, valid(op), 429, await spentKey());
          expect(res.body.error).toMatch(/rate limit/i);
          expect(res.headers['x-ratelimit-limit']).toBe('60');
          expect(res.headers['x-ratelimit-remaining']).toBe('0');
          const reset = Number(res.headers['x-ratelimit-reset']);
          expect(reset).toBeGreaterThanOrEqual(1);
          expect(reset).toBeLessThanOrEqual(60);
          expect(res.headers['retry-after']).toBe(String(reset));
        },
      );
    });
  });
}
