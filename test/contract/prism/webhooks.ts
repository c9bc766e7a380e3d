// Webhook subscriptions of both variants and the public event catalog through the proxy:
// Variant A (createWebhook, listWebhooks, updateWebhook, deleteWebhook, getEventSchema) and
// Variant B (createWebhookV1, listWebhooksV1, deleteWebhookV1). Keys, plans, scopes and the
// rate limit are in ./access.ts; the switched-off variants' 404 and the plain-HTTP 400 in
// ./deployment.ts. The test server runs no delivery worker: nothing is sent to these URLs.
import { beforeEach, describe, expect, it } from 'vitest';
import { seedWorkspace, type Seeded } from '../../support/seed';
import { SECRET_B, subscriptionBodyA, subscriptionBodyB } from '../../support/subscriptions';
import { API_SCOPES, BIG, call, json, type ContractContext } from './context';

/** Over 64 KiB of JSON and valid against the schemas (duplicates count once): the server's 413, through Prism. */
const MANY = (name: string) => Array(8000).fill(name);

export function webhookSuites(ctx: ContractContext) {
  describe('webhook subscriptions', () => {
    // Each test works in a workspace of its own, so that lists are exact.
    let mine: Seeded;
    beforeEach(async () => {
      if (ctx.main) mine = await seedWorkspace(ctx.knex(), { scopes: API_SCOPES });
    });
    const bodyA = (extra: object = {}) => subscriptionBodyA(mine.workspaceId, extra);
    const bodyB = subscriptionBodyB;
    const createA = (body: unknown) => json('POST', '/api/webhooks', body);
    const updateA = (id: string, body: unknown) => json('PATCH', `/api/webhooks/${id}`, body);
    const createB = (body: unknown) => json('POST', '/api/v1/webhooks', body);
    /** Made straight on the server (not a contract check). */
    const madeA = async (extra: object = {}, key = mine.key) => {
      const res = await ctx.main.server.request('POST', '/api/webhooks', { key, body: bodyA(extra) });
      expect(res.status, res.text).toBe(201);
      return res.body.data;
    };
    const madeB = async (extra: object = {}, key = mine.key) => {
      const res = await ctx.main.server.request('POST', '/api/v1/webhooks', { key, body: bodyB(extra) });
      expect(res.status, res.text).toBe(201);
      return res.body;
    };

    describe('createWebhook (Variant A)', () => {
      it('201 with the generated secret shown once, enabled, duplicates counted once', async () => {
        const res = await ctx.viaPrism(
          'createWebhook',
          createA(bodyA({ events: ['link.created', 'conversion.created', 'link.created'] })),
          201,
          mine.key,
        );
        expect(res.body).toEqual({
          success: true,
          data: {
            id: expect.stringMatching(/^whk_/),
            url: 'https://hooks.example.com/a',
            events: ['link.created', 'conversion.created'],
            secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/),
            enabled: true,
            createdAt: expect.any(String),
          },
        });
      });

      // Allowed by WebhookCreateA's schema, refused by the URL parser: forwarded by Prism.
      it('400 for an https URL without a host (through Prism), naming it', async () => {
        const res = await ctx.viaPrism('createWebhook', createA(bodyA({ url: 'https://' })), 400, mine.key);
        expect(res.body.field).toBe('url');
        expect(res.body.error).toMatch(/absolute https URL/);
      });

      // The scheme is the schema's: Prism refuses, and the server's own answer names the field.
      it.each([
        ['a plain http URL', { url: 'http://hooks.example.com/a' }],
        ['a URL that is not absolute', { url: 'hooks.example.com/a' }],
      ])('400 for %s (Prism refuses it with 422; the server names it)', async (_what, extra) => {
        const { direct } = await ctx.refusedByPrism('createWebhook', createA(bodyA(extra)), 422, 400, mine.key);
        expect(direct.body).toEqual({
          error: 'url must be an absolute https URL; plain http URLs are refused',
          field: 'url',
        });
      });

      // The events enum (the Variant A catalogue): Prism refuses what the server refuses, and the
      // server's own answer still names every refused name, as retired or unknown.
      it.each([
        ['a retired event name', { events: ['link.created', 'click.recorded'] }, /retired[^.]*click\.recorded/],
        ['the other retired event name', { events: ['subscription.updated'] }, /retired[^.]*subscription\.updated/],
        ['an unknown event name', { events: ['link.exploded'] }, /unknown[^.]*link\.exploded/],
        ['a Variant B event name', { events: ['link.clicked'] }, /unknown[^.]*link\.clicked/],
        [
          'retired and unknown names together',
          { events: ['click.recorded', 'link.exploded', 'link.created'] },
          /retired[^.]*click\.recorded.*unknown[^.]*link\.exploded/,
        ],
      ])('400 for %s (Prism refuses it with 422; the server names it)', async (_what, extra, message) => {
        const { direct } = await ctx.refusedByPrism('createWebhook', createA(bodyA(extra)), 422, 400, mine.key);
        expect(direct.body.field).toBe('events');
        expect(direct.body.error).toMatch(message);
      });

      // Forbidden by WebhookCreateA's schema: Prism refuses, the server is checked directly.
      it.each([
        ['no events', { workspaceId: 'ws_x', url: 'https://hooks.example.com/a' }, 'events'],
        ['an empty events list', { events: [] }, 'events'],
        ['an empty url', { url: '' }, 'url'],
        ['an unknown field', { secret: 'mine' }, 'secret'],
        ['events not an array', { events: 'link.created' }, 'events'],
      ])(
        '400 for %s (Prism refuses it with 422; the server answer is checked directly)',
        async (_what, extra, field) => {
          const body = 'workspaceId' in extra ? extra : bodyA(extra);
          const { direct } = await ctx.refusedByPrism('createWebhook', createA(body), 422, 400, mine.key);
          expect(direct.body.field).toBe(field);
        },
      );

      it('400 without a body (Prism refuses it with 422)', async () => {
        await ctx.refusedByPrism('createWebhook', call('POST', '/api/webhooks'), 422, 400, mine.key);
      });

      it("404 for another workspace's id and an unknown one; nothing is created", async () => {
        const other = await seedWorkspace(ctx.knex());
        await ctx.viaPrism('createWebhook', createA(bodyA({ workspaceId: other.workspaceId })), 404, mine.key);
        await ctx.viaPrism('createWebhook', createA(bodyA({ workspaceId: 'ws_unknown' })), 404, mine.key);
        expect((await ctx.main.server.request('GET', '/api/webhooks', { key: mine.key })).body.data).toEqual([]);
      });

      it('413 for a body over 64 KiB', async () => {
        await ctx.viaPrism('createWebhook', createA(bodyA({ events: MANY('link.created') })), 413, mine.key);
        // An event name of 70,000 characters is not a Variant A name: Prism refuses it before the size matters.
        await ctx.refusedByPrism('createWebhook', createA(bodyA({ events: [BIG] })), 422, 413, mine.key);
      });
    });

    describe('listWebhooks (Variant A)', () => {
      it('200 newest first, without secrets and without Variant B subscriptions; empty for a new workspace', async () => {
        expect((await ctx.viaPrism('listWebhooks', call('GET', '/api/webhooks'), 200, mine.key)).body).toEqual({
          success: true,
          data: [],
        });
        const first = await madeA({ url: 'https://hooks.example.com/first' });
        await new Promise((r) => setTimeout(r, 5));
        const second = await madeA({ url: 'https://hooks.example.com/second', events: ['report.shared'] });
        await madeB();
        const res = await ctx.viaPrism('listWebhooks', call('GET', '/api/webhooks'), 200, mine.key);
        const strip = ({ secret: _secret, ...rest }: any) => rest;
        expect(res.body).toEqual({ success: true, data: [strip(second), strip(first)] });
      });
    });

    describe('updateWebhook (Variant A)', () => {
      it('200 changing the fields sent, and for an empty body', async () => {
        const made = await madeA();
        const paused = await ctx.viaPrism('updateWebhook', updateA(made.id, { enabled: false }), 200, mine.key);
        expect(paused.body).toEqual({
          success: true,
          data: { id: made.id, url: made.url, events: made.events, enabled: false, createdAt: made.createdAt },
        });
        const moved = await ctx.viaPrism(
          'updateWebhook',
          updateA(made.id, { url: 'https://hooks.example.com/moved', events: ['domain.verified'], enabled: true }),
          200,
          mine.key,
        );
        expect(moved.body.data).toEqual({
          id: made.id,
          url: 'https://hooks.example.com/moved',
          events: ['domain.verified'],
          enabled: true,
          createdAt: made.createdAt,
        });
        const same = await ctx.viaPrism('updateWebhook', updateA(made.id, {}), 200, mine.key);
        expect(same.body).toEqual(moved.body);
      });

      it('400 for a plain http URL (Prism refuses it with 422; the server names it)', async () => {
        const made = await madeA();
        const { direct } = await ctx.refusedByPrism(
          'updateWebhook',
          updateA(made.id, { url: 'http://hooks.example.com/a' }),
          422,
          400,
          mine.key,
        );
        expect(direct.body.field).toBe('url');
      });

      it.each([
        ['a retired event name', { events: ['subscription.updated'] }, 'events'],
        ['an unknown event name', { events: ['link.created', 'nope.never'] }, 'events'],
        ['the secret (an unknown field)', { secret: 'mine' }, 'secret'],
        ['an empty events list', { events: [] }, 'events'],
        ['enabled not a boolean', { enabled: 'no' }, 'enabled'],
      ])(
        '400 for %s (Prism refuses it with 422; the server answer is checked directly)',
        async (_what, body, field) => {
          const made = await madeA();
          const { direct } = await ctx.refusedByPrism('updateWebhook', updateA(made.id, body), 422, 400, mine.key);
          expect(direct.body.field).toBe(field);
        },
      );

      it('400 without a body (Prism refuses it with 422)', async () => {
        const made = await madeA();
        await ctx.refusedByPrism('updateWebhook', call('PATCH', `/api/webhooks/${made.id}`), 422, 400, mine.key);
      });

      it("404 for an unknown id, a Variant B subscription, another workspace's and a deleted one", async () => {
        await ctx.viaPrism('updateWebhook', updateA('whk_unknown', { enabled: false }), 404, mine.key);
        await ctx.viaPrism('updateWebhook', updateA((await madeB()).id, { enabled: false }), 404, mine.key);
        const other = await seedWorkspace(ctx.knex(), { scopes: API_SCOPES });
        const theirs = await madeA({ workspaceId: other.workspaceId }, other.key);
        await ctx.viaPrism('updateWebhook', updateA(theirs.id, { enabled: false }), 404, mine.key);
        const gone = await madeA();
        expect((await ctx.main.server.request('DELETE', `/api/webhooks/${gone.id}`, { key: mine.key })).status).toBe(
          200,
        );
        await ctx.viaPrism('updateWebhook', updateA(gone.id, { enabled: false }), 404, mine.key);
      });

      it('413 for a body over 64 KiB', async () => {
        const made = await madeA();
        await ctx.viaPrism('updateWebhook', updateA(made.id, { events: MANY('link.deleted') }), 413, mine.key);
      });
    });

    describe('deleteWebhook (Variant A)', () => {
      const del = (id: string) => call('DELETE', `/api/webhooks/${id}`);

      it('200 { success: true }; then it is gone and a second DELETE is 404', async () => {
        const made = await madeA();
        expect((await ctx.viaPrism('deleteWebhook', del(made.id), 200, mine.key)).body).toEqual({ success: true });
        expect((await ctx.main.server.request('GET', '/api/webhooks', { key: mine.key })).body.data).toEqual([]);
        await ctx.viaPrism('deleteWebhook', del(made.id), 404, mine.key);
      });

      it("404 for an unknown id, a Variant B subscription and another workspace's", async () => {
        await ctx.viaPrism('deleteWebhook', del('whk_unknown'), 404, mine.key);
        await ctx.viaPrism('deleteWebhook', del((await madeB()).id), 404, mine.key);
        const other = await seedWorkspace(ctx.knex(), { scopes: API_SCOPES });
        await ctx.viaPrism(
          'deleteWebhook',
          del((await madeA({ workspaceId: other.workspaceId }, other.key)).id),
          404,
          mine.key,
        );
      });
    });

    describe('getEventSchema (Variant A)', () => {
      it('200 without a key, and a key sent is ignored', async () => {
        const res = await ctx.viaPrism('getEventSchema', call('GET', '/api/public/events/schema'), 200, null);
        const names = res.body.events.map((e: any) => e.name);
        expect(names).toEqual(
          expect.arrayContaining([
            'link.created',
            'link.updated',
            'link.deleted',
            'report.shared',
            'conversion.created',
          ]),
        );
        expect(names).not.toContain('click.recorded');
        expect(res.body.retired).toEqual([{ name: 'click.recorded' }, { name: 'subscription.updated' }]);
        const created = res.body.events.find((e: any) => e.name === 'link.created');
        expect(created.payload).toMatchObject({ type: 'object', additionalProperties: false });
        expect(created.payload.required).toEqual(
          expect.arrayContaining(['id', 'workspaceId', 'slug', 'domain', 'destinationUrl', 'title']),
        );
        const withKey = await ctx.viaPrism(
          'getEventSchema',
          call('GET', '/api/public/events/schema'),
          200,
          `mk_${'0'.repeat(64)}`,
        );
        expect(withKey.body).toEqual(res.body);
      });
    });

    describe('createWebhookV1 (Variant B)', () => {
      it('201 with the subscription itself, active, without the secret', async () => {
        const res = await ctx.viaPrism(
          'createWebhookV1',
          createB(bodyB({ events: ['link.clicked', 'qr.scanned', 'link.clicked'] })),
          201,
          mine.key,
        );
        expect(res.body).toEqual({
          id: expect.stringMatching(/^whk_/),
          url: 'https://hooks.example.com/b',
          events: ['link.clicked', 'qr.scanned'],
          active: true,
          created_at: expect.any(String),
        });
        expect(res.text).not.toContain(SECRET_B);
      });

      it('400 for a plain http URL (Prism refuses it with 422; the server names it)', async () => {
        const { direct } = await ctx.refusedByPrism(
          'createWebhookV1',
          createB(bodyB({ url: 'http://hooks.example.com/b' })),
          422,
          400,
          mine.key,
        );
        expect(direct.body.field).toBe('url');
        expect(direct.body.error).toMatch(/https/);
      });

      // The events enum (the Variant B catalogue): Prism refuses what the server refuses.
      it.each([
        ['an unknown event name', { events: ['link.exploded'] }, /unknown[^.]*link\.exploded/],
        ['a Variant A event name', { events: ['conversion.created'] }, /unknown[^.]*conversion\.created/],
        ['a retired Variant A name', { events: ['link.clicked', 'click.recorded'] }, /unknown[^.]*click\.recorded/],
      ])('400 for %s (Prism refuses it with 422; the server names it)', async (_what, extra, message) => {
        const { direct } = await ctx.refusedByPrism('createWebhookV1', createB(bodyB(extra)), 422, 400, mine.key);
        expect(direct.body.field).toBe('events');
        expect(direct.body.error).toMatch(message);
      });

      it.each([
        ['a secret under 16 characters', { secret: 'x'.repeat(15) }, 'secret'],
        ['no secret', { secret: undefined }, 'secret'],
        ['an unknown field', { active: false }, 'active'],
        ['an empty events list', { events: [] }, 'events'],
      ])(
        '400 for %s (Prism refuses it with 422; the server answer is checked directly)',
        async (_what, extra, field) => {
          const { direct } = await ctx.refusedByPrism('createWebhookV1', createB(bodyB(extra)), 422, 400, mine.key);
          expect(direct.body.field).toBe(field);
        },
      );

      it('413 for a body over 64 KiB', async () => {
        await ctx.viaPrism('createWebhookV1', createB(bodyB({ events: MANY('qr.scanned') })), 413, mine.key);
      });
    });

    describe('listWebhooksV1 (Variant B)', () => {
      it('200 newest first, without secrets and without Variant A subscriptions; empty for a new workspace', async () => {
        expect((await ctx.viaPrism('listWebhooksV1', call('GET', '/api/v1/webhooks'), 200, mine.key)).body).toEqual({
          data: [],
        });
        const first = await madeB({ url: 'https://hooks.example.com/first' });
        await new Promise((r) => setTimeout(r, 5));
        const second = await madeB({ events: ['page.viewed'] });
        await madeA();
        const res = await ctx.viaPrism('listWebhooksV1', call('GET', '/api/v1/webhooks'), 200, mine.key);
        expect(res.body).toEqual({ data: [second, first] });
        expect(res.text).not.toContain(SECRET_B);
      });
    });

    describe('deleteWebhookV1 (Variant B)', () => {
      const del = (id: string) => call('DELETE', `/api/v1/webhooks/${id}`);

      it('204 with no body; then it is gone and a second DELETE is 404', async () => {
        const made = await madeB();
        const res = await ctx.viaPrism('deleteWebhookV1', del(made.id), 204, mine.key);
        expect(res.text).toBe('');
        expect((await ctx.main.server.request('GET', '/api/v1/webhooks', { key: mine.key })).body.data).toEqual([]);
        await ctx.viaPrism('deleteWebhookV1', del(made.id), 404, mine.key);
      });

      it("404 for an unknown id, a Variant A subscription and another workspace's", async () => {
        await ctx.viaPrism('deleteWebhookV1', del('whk_unknown'), 404, mine.key);
        await ctx.viaPrism('deleteWebhookV1', del((await madeA()).id), 404, mine.key);
        const other = await seedWorkspace(ctx.knex(), { scopes: API_SCOPES });
        await ctx.viaPrism('deleteWebhookV1', del((await madeB({}, other.key)).id), 404, mine.key);
      });
    });
  });
}
