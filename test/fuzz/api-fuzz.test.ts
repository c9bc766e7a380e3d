// A fuzzer driven by generated/openapi.json, on every database engine: for every operation of
// the document fast-check generates valid requests (from the request and parameter schemas,
// naming objects that exist) and subtly invalid ones (schema, transport, auth, cross-workspace,
// id and unicode mutations), sends them over real HTTPS with many in flight, and asserts:
//   - no 5xx, ever, and no broken connection;
//   - every answer has a status documented for its operation, and each plan gets what it must
//     (a valid request succeeds, an invalid one fails with the documented status);
//   - every non-2xx answer of an /api route is exactly `{ error, field?, code? }`;
//   - every 2xx answer validates against the operation's response schema (Ajv 2020-12);
//   - no answer shows one workspace another workspace's ids;
//   - afterwards the database holds exactly what the successful responses created: links,
//     conversions, webhook subscriptions and idempotency keys per workspace, nothing for the
//     workspaces whose requests all failed, and the objects only failing requests touched are
//     unchanged.
// FUZZ_SEED reproduces a run; FUZZ_REQUESTS sets the number of plans per engine.
import fs from 'node:fs';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/domain/access';
import { addMember, createWorkspace, setPlan } from '../../src/db/repos/workspaces';
import { createKey, revokeKey } from '../../src/db/repos/api-keys';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { createCampaign, createQrCode, createTag } from '../../src/db/repos/workspace-objects';
import * as goalsRepo from '../../src/db/repos/goals';
import { setPolicyDisabled } from '../../src/db/repos/links';
import { policyDisabled } from '../../src/webhooks/link-events';
import { eventCatalog } from '../../src/webhooks/catalog';
import { testEngines } from '../support/databases';
import { FuzzClient, KeyPool, type RawRequest, type RawResponse } from '../support/fuzz-client';
import { DAY, malformedAuthorizations, paramValid, Ref, validAgainst } from '../support/fuzz-gen';
import { checkResponse, operations, type Operation } from '../support/fuzz-openapi';
import { planArbitrary, type BodySpec, type Expect, type PathValue, type Plan } from '../support/fuzz-plans';
import { hostImage } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';
import { goalDefinition } from '../support/stored-rows';

// At least 20,000 requests per run, spread over the engines (10,000 each with SQLite and Postgres).
const REQUESTS_PER_ENGINE = Number(process.env.FUZZ_REQUESTS ?? Math.ceil(20_000 / testEngines().length));
const IN_FLIGHT = 16;
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ALL_SCOPES = [...SCOPES] as Scope[];
const OPS = operations();
const OP = new Map(OPS.map((o) => [o.operationId, o]));
const ID_PATTERN = /^(lnk|whk|cnv|goal|gol|qr|cmp|tag|dom|ws|usr|key)_[a-z0-9]{6,}$/;

type WsName = 'main' | 'hooks' | 'other' | 'noscope' | 'pro' | 'free' | 'freeWasPaid' | 'revoked' | 'expired';
const WS_NAMES: WsName[] = ['main', 'hooks', 'other', 'noscope', 'pro', 'free', 'freeWasPaid', 'revoked', 'expired'];

interface Failure {
  engine: string;
  op: string;
  category: string;
  mutation: string;
  request: string;
  status: number;
  problems: string[];
  response: string;
}

/** Encodes like encodeURIComponent, but lone surrogates too (as their WTF-8 bytes). */
function encodeLoose(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (
      c >= 0xd800 &&
      c <= 0xdbff &&
      i + 1 < s.length &&
      s.charCodeAt(i + 1) >= 0xdc00 &&
      s.charCodeAt(i + 1) <= 0xdfff
    ) {
      out += encodeURIComponent(s.slice(i, i + 2));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [
        `%${(0xe0 | (c >> 12)).toString(16)}`,
        `%${(0x80 | ((c >> 6) & 0x3f)).toString(16)}`,
        `%${(0x80 | (c & 0x3f)).toString(16)}`,
      ]
        .join('')
        .toUpperCase();
    } else out += encodeURIComponent(s[i]);
  }
  return out;
}

// Totals over every engine, printed when the file is done.
const totals = { requests: 0, ms: 0, byStatus: new Map<number, number>() };
afterAll(() => {
  if (!totals.requests) return;
  const table = [...totals.byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
  console.log(
    `[fuzz total] ${totals.requests} requests over ${testEngines().join(' and ')} in ${(totals.ms / 1000).toFixed(1)} s; by status: ${table}`,
  );
});

describe.each(testEngines())('OpenAPI-driven fuzzing on %s', (engine) => {
  let server: TestServer;
  let client: FuzzClient;
  const knex = (): Knex => server.services.db.knex;

  // ---- the world: workspaces, keys, objects ----------------------------------------------------
  const wsIds = {} as Record<WsName, string>;
  /** Images the main workspace hosts (previewImage must name one). */
  const previewImages: string[] = [];
  const users = {} as Record<WsName, string>;
  const pools = new Map<string, Array<Record<string, string>>>();
  const idOwner = new Map<string, WsName>();
  const keyPools = {} as Record<'main' | 'hooks' | 'other' | 'pro', KeyPool>;
  const noScopePools = new Map<string, KeyPool>();
  const fixedKeys = {} as Record<'revoked' | 'expired' | 'free' | 'freeWasPaid', string[]>;
  const linkPasswords = new Map<string, string>();
  // What successful responses created, per workspace.
  const created = {
    links: new Map<WsName, Set<string>>(),
    linksDeleted: new Map<WsName, Set<string>>(),
    conversions: new Map<WsName, Set<string>>(),
    hooks: new Map<WsName, Set<string>>(),
    hooksDeleted: new Map<WsName, Set<string>>(),
    idempotencyKeys: new Map<WsName, Set<string>>(),
  };
  const note = (m: Map<WsName, Set<string>>, w: WsName, id: string) => {
    if (!m.has(w)) m.set(w, new Set());
    m.get(w)!.add(id);
  };
  const pool = (name: string) => {
    if (!pools.has(name)) pools.set(name, []);
    return pools.get(name)!;
  };
  const add = (name: string, item: Record<string, string>, owner?: WsName) => {
    pool(name).push(item);
    if (owner) idOwner.set(item.id, owner);
  };
  let controlSnapshot: Record<string, unknown> = {};

  // ---- results ---------------------------------------------------------------------------------
  const statusCounts = new Map<number, number>();
  const byOp = new Map<string, Map<number, number>>();
  const byCategory = new Map<string, number>();
  const byExpectation = new Map<string, number>();
  const failures: Failure[] = [];
  let requestsSent = 0;
  let runMs = 0;

  async function seedKey(w: WsName, scopes: Scope[] = ALL_SCOPES, expiresAt: number | null = null) {
    return (await createKey(knex(), wsIds[w], users[w], scopes, expiresAt)).key;
  }

  /** A setup request with a fresh-enough key of the workspace (keys are rotated by their pool). */
  async function api(method: string, path: string, w: 'main' | 'hooks' | 'other', body?: unknown) {
    const res = await server.request(method, path, { key: await keyPools[w].take(), body });
    if (res.status >= 300) throw new Error(`setup ${method} ${path} answered ${res.status}: ${res.text}`);
    return res.body;
  }

  beforeAll(async () => {
    server = await startTestServer(engine);
    client = new FuzzClient(server.url, server.ca, IN_FLIGHT);
    const plans: Record<WsName, 'growth' | 'business' | 'pro' | 'free'> = {
      main: 'growth',
      hooks: 'business',
      other: 'growth',
      noscope: 'growth',
      pro: 'pro',
      free: 'free',
      freeWasPaid: 'growth',
      revoked: 'growth',
      expired: 'business',
    };
    for (const w of WS_NAMES) {
      wsIds[w] = await createWorkspace(knex(), `Fuzz ${w}`, plans[w]);
      users[w] = await addMember(knex(), wsIds[w], `fuzz-${w}-${randomBytes(4).toString('hex')}@example.com`, 'OWNER');
      idOwner.set(wsIds[w], w);
      add(`ws:${w}`, { id: wsIds[w] });
    }
    keyPools.main = new KeyPool(knex, wsIds.main, users.main, ALL_SCOPES);
    keyPools.hooks = new KeyPool(knex, wsIds.hooks, users.hooks, ALL_SCOPES);
    keyPools.other = new KeyPool(knex, wsIds.other, users.other, ALL_SCOPES);
    keyPools.pro = new KeyPool(knex, wsIds.pro, users.pro, ALL_SCOPES);
    for (const s of ALL_SCOPES)
      noScopePools.set(
        s,
        new KeyPool(
          knex,
          wsIds.noscope,
          users.noscope,
          ALL_SCOPES.filter((x) => x !== s),
        ),
      );
    fixedKeys.revoked = [];
    for (let i = 0; i < 3; i++) {
      const k = await createKey(knex(), wsIds.revoked, users.revoked, ALL_SCOPES, null);
      await revokeKey(knex(), k.id);
      fixedKeys.revoked.push(k.key);
    }
    fixedKeys.expired = [
      await seedKey('expired', ALL_SCOPES, Date.now() - 1000),
      await seedKey('expired', ALL_SCOPES, Date.now() - 400 * DAY),
      await seedKey('expired', ALL_SCOPES, 1),
    ];
    fixedKeys.free = [await seedKey('free'), await seedKey('free')];
    fixedKeys.freeWasPaid = [await seedKey('freeWasPaid'), await seedKey('freeWasPaid')];
    await setPlan(knex(), wsIds.freeWasPaid, 'free');

    // Objects of the main (links, conversions, goals), hooks (webhooks) and other workspaces.
    for (const w of ['main', 'other'] as const) {
      for (let i = 0; i < (w === 'main' ? 5 : 2); i++)
        add(`tag:${w}`, { id: await createTag(knex(), wsIds[w], `tag ${i}`, '#22c55e') }, w);
      for (let i = 0; i < 3; i++)
        add(`campaign:${w}`, { id: await createCampaign(knex(), wsIds[w], `campaign ${i}`) }, w);
      const host = w === 'main' ? 'go.fuzz.test' : 'other.fuzz.test';
      const dom = await addDomain(knex(), wsIds[w], host);
      await setDomainStatus(knex(), dom, 'ACTIVE');
      add(`domain:${w}`, { id: dom, host }, w);
    }
    add('domain:pending', { id: await addDomain(knex(), wsIds.main, 'pending.fuzz.test') }, 'main');
    for (const ext of ['.png', '.JPG', '.webp'])
      previewImages.push(await hostImage(knex(), wsIds.main, server.services.config.assetBaseUrl, ext));

    const mainKey = 'main' as const;
    const otherKey = 'other' as const;
    const hooksKey = 'hooks' as const;
    const link = async (w: 'main' | 'other', key: 'main' | 'other', body: object) => {
      const d = (await api('POST', '/api/v1/links', key, body)).data;
      note(created.links, w, d.id);
      idOwner.set(d.id, w);
      return d;
    };
    const past = (days: number) => new Date(Date.now() - days * DAY).toISOString();
    const future = (days: number) => new Date(Date.now() + days * DAY).toISOString();
    const visitBodies: Array<[object, string?]> = [
      [{ url: 'https://example.com/plain' }],
      [{ url: 'https://example.com/permanent', redirectType: 'PERMANENT' }],
      [{ url: 'https://example.com/protected', password: 'fuzz-pass-1' }, 'fuzz-pass-1'],
      [
        { url: 'https://example.com/protected-permanent', password: 'pässwörd 🔑', redirectType: 'PERMANENT' },
        'pässwörd 🔑',
      ],
      [{ url: 'https://example.com/protected-custom', password: 'fuzz-pass-3', domainId: 'DOMAIN' }, 'fuzz-pass-3'],
      [{ url: 'https://example.com/expired', expiresAt: past(1), expiredUrl: 'https://example.org/expired' }],
      [{ url: 'https://example.com/expired-plain', expiresAt: past(1) }],
      [{ url: 'https://example.com/not-yet', startAt: future(10) }],
      [{ url: 'https://example.com/ended', startAt: past(10), endAt: past(5) }],
      [{ url: 'https://example.com/limited', clickLimit: 1 }],
      [{ url: 'https://example.com/custom-domain', domainId: pool('domain:main')[0].id }],
      [{ url: 'https://example.com/preview' }],
      [{ url: 'https://example.com/disabled' }],
      [{ url: 'https://example.com/policy' }],
      [
        {
          url: 'https://example.com/tagged',
          tagIds: pool('tag:main')
            .slice(0, 2)
            .map((t) => t.id),
        },
      ],
    ];
    const visit: Array<Record<string, string>> = [];
    for (const [template, password] of visitBodies) {
      const body: any = { ...template };
      if (body.domainId === 'DOMAIN') body.domainId = pool('domain:main')[0].id;
      const d = await link('main', mainKey, body);
      const item = { id: d.id, slug: d.slug, host: body.domainId ? 'go.fuzz.test' : '', url: body.url };
      visit.push(item);
      add('link:visit', item);
      add('link:stable', item);
      if (password) {
        linkPasswords.set(d.id, password);
        add('link:protected', item);
      }
    }
    const visitOf = (path: string) => visit.find((v) => v.url === `https://example.com/${path}`)!;
    await api('PATCH', `/api/v1/links/${visitOf('preview').id}`, mainKey, {
      previewTitle: 'Preview',
      previewDescription: 'A card',
      previewImage: previewImages[0],
    });
    await api('PATCH', `/api/v1/links/${visitOf('disabled').id}`, mainKey, { status: 'DISABLED' });
    await setPolicyDisabled(
      knex(),
      visitOf('policy').id,
      policyDisabled({ shortDomain: server.services.config.shortDomain }),
    );
    add('link:policy', visitOf('policy'));
    for (let i = 0; i < 10; i++) {
      const d = await link('main', mainKey, { url: `https://example.com/mutable/${i}`, title: `Mutable ${i}` });
      add('link:mutable', { id: d.id, slug: d.slug });
      add('link:stable', { id: d.id, slug: d.slug });
    }
    for (let i = 0; i < 25; i++) {
      const d = await link('main', mainKey, { url: `https://example.com/deletable/${i}` });
      add('link:deletable', { id: d.id, slug: d.slug });
    }
    for (let i = 0; i < 5; i++) {
      const d = await link('main', mainKey, {
        url: `https://example.com/control/${i}`,
        title: `Control ${i}`,
        tagIds: [pool('tag:main')[0].id],
        clickLimit: 100,
      });
      add('link:control', { id: d.id, slug: d.slug });
    }
    for (let i = 0; i < 3; i++) {
      const d = await link('main', mainKey, { url: `https://example.com/deleted/${i}` });
      await api('DELETE', `/api/v1/links/${d.id}`, mainKey);
      note(created.linksDeleted, 'main', d.id);
      add('link:deleted', { id: d.id, slug: d.slug });
      add('link:deletedslug', { id: d.id, slug: d.slug });
    }
    for (let i = 0; i < 5; i++) {
      const d = await link('other', otherKey, {
        url: `https://example.com/other/${i}`,
        tagIds: [pool('tag:other')[0].id],
      });
      add('link:other', { id: d.id, slug: d.slug });
    }
    for (const w of ['main', 'other'] as const) {
      const linksOf =
        w === 'main'
          ? ['plain', 'permanent', 'protected', 'expired', 'limited'].map(visitOf)
          : pool('link:other').slice(0, 2);
      for (const l of linksOf) {
        const qr = await createQrCode(knex(), wsIds[w], l.id);
        add(`qr:${w}`, { id: qr.id, code: qr.code, linkId: l.id }, w);
      }
    }
    // Tags and QR codes the tag and QR code operations change and delete (fuzz-plans.ts).
    for (const [name, n] of [
      ['tag:mutable', 3],
      ['tag:deletable', 10],
      ['tag:control', 2],
    ] as const)
      for (let i = 0; i < n; i++)
        add(name, { id: await createTag(knex(), wsIds.main, `${name} ${i}`, '#123456') }, 'main');
    for (const [name, links, n] of [
      ['qr:deletable', 'link:stable', 10],
      ['qr:control', 'link:control', 2],
    ] as const)
      for (let i = 0; i < n; i++) {
        const linkId = pool(links)[i % pool(links).length].id;
        const qr = await createQrCode(knex(), wsIds.main, linkId);
        add(name, { id: qr.id, code: qr.code, linkId }, 'main');
      }
    const goalDefs: Array<Partial<goalsRepo.GoalDefinition>> = [
      { type: 'purchase', target_count: 10, target_value_minor: 100_000, target_currency: 'EUR' },
      { type: 'custom', custom_name: 'fuzz_custom', target_count: 1 },
      { type: 'signup', link_id: pool('link:stable')[0].id },
      { type: 'lead', qr_code_id: pool('qr:main')[0].id },
      {
        type: 'booking',
        campaign_id: pool('campaign:main')[0].id,
        window_start: Date.now() - 30 * DAY,
        window_end: Date.now() + 30 * DAY,
      },
      { type: 'download', window_start: Date.now() - 600 * DAY, window_end: Date.now() - 500 * DAY },
      { type: 'purchase', link_id: pool('link:deleted')[0].id },
    ];
    for (const w of ['main', 'other'] as const) {
      for (const [i, def] of goalDefs.entries()) {
        if (w === 'other' && i > 1) break;
        const row = await goalsRepo.createGoal(
          knex(),
          wsIds[w],
          goalDefinition({ name: `Goal ${i}`, type: 'purchase', ...def }),
        );
        add(`goal:${w}`, { id: row.id }, w);
        if (i === 1) await goalsRepo.setGoalStatus(knex(), row.id, 'ARCHIVED');
      }
    }
    for (const [w, key] of [
      ['main', mainKey],
      ['other', otherKey],
    ] as const) {
      const linkId = (w === 'main' ? pool('link:stable') : pool('link:other'))[0].id;
      for (const body of [
        { eventType: 'purchase', linkId, value: { amountMinor: 4990, currency: 'EUR' } },
        { eventType: 'signup' },
        { eventType: 'custom', customName: 'fuzz_custom', campaignId: pool(`campaign:${w}`)[0].id },
      ]) {
        const d = (await api('POST', '/api/v1/conversions', key, body)).data;
        note(created.conversions, w, d.id);
        idOwner.set(d.id, w);
      }
    }
    const hook = async (w: 'hooks' | 'other', key: 'hooks' | 'other', variant: 'A' | 'B', poolName: string) => {
      const body =
        variant === 'A'
          ? {
              workspaceId: wsIds[w],
              url: 'https://hooks.example.com/fuzz',
              events: ['link.created', 'domain.verified'],
            }
          : { url: 'https://hooks.example.com/fuzz-b', events: ['link.clicked'], secret: 'a-secret-of-sixteen+' };
      const res = await api('POST', variant === 'A' ? '/api/webhooks' : '/api/v1/webhooks', key, body);
      const id = variant === 'A' ? res.data.id : res.id;
      note(created.hooks, w, id);
      add(poolName, { id }, w);
      return id;
    };
    for (let i = 0; i < 5; i++) await hook('hooks', hooksKey, 'A', 'hookA:mutable');
    for (let i = 0; i < 10; i++) await hook('hooks', hooksKey, 'A', 'hookA:deletable');
    for (let i = 0; i < 3; i++) await hook('hooks', hooksKey, 'A', 'hookA:control');
    for (let i = 0; i < 10; i++) await hook('hooks', hooksKey, 'B', 'hookB:deletable');
    for (let i = 0; i < 3; i++) await hook('hooks', hooksKey, 'B', 'hookB:control');
    for (const v of ['A', 'B'] as const) {
      for (let i = 0; i < 2; i++) {
        const id = await hook('hooks', hooksKey, v, `hook${v}:deleted`);
        await api('DELETE', `${v === 'A' ? '/api/webhooks' : '/api/v1/webhooks'}/${id}`, hooksKey);
        note(created.hooksDeleted, 'hooks', id);
      }
      for (let i = 0; i < 2; i++) await hook('other', otherKey, v, `hook${v}:other`);
    }
    controlSnapshot = await snapshotControlled();
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  /** Rows only failing requests may touch: control objects and everything of the other workspace. */
  async function snapshotControlled(): Promise<Record<string, unknown>> {
    const k = knex();
    const linkIds = [...pool('link:control'), ...pool('link:other'), ...pool('link:policy')].map((l) => l.id);
    const hookIds = [
      ...pool('hookA:control'),
      ...pool('hookB:control'),
      ...pool('hookA:other'),
      ...pool('hookB:other'),
    ].map((h) => h.id);
    // Visits may count clicks on the other workspace's links; everything else must stay as it was.
    const links = (await k('links').whereIn('id', linkIds).orderBy('id')).map(({ clicks: _c, ...row }: any) => row);
    const linkTags = await k('link_tags').whereIn('link_id', linkIds).orderBy(['link_id', 'tag_id']);
    const controlTags = await k('tags')
      .whereIn(
        'id',
        pool('tag:control').map((t) => t.id),
      )
      .orderBy('id');
    const controlQrCodes = await k('qr_codes')
      .whereIn(
        'id',
        pool('qr:control').map((q) => q.id),
      )
      .orderBy('id');
    const hooks = await k('webhook_subscriptions').whereIn('id', hookIds).orderBy('id');
    const other = wsIds.other;
    const tables = await Promise.all(
      ['conversions', 'goals', 'tags', 'domains', 'campaigns', 'qr_codes', 'idempotency_keys'].map((t) =>
        k(t)
          .where({ workspace_id: other })
          .orderBy(t === 'idempotency_keys' ? 'key' : 'id'),
      ),
    );
    const rows: Record<string, unknown> = {};
    const keep = (table: string, list: any[], key: (r: any) => string) => {
      for (const r of list)
        rows[`${table}:${key(r)}`] = JSON.parse(JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
    };
    keep('links', links, (r) => r.id);
    keep('link_tags', linkTags, (r) => `${r.link_id}/${r.tag_id}`);
    keep('webhook_subscriptions', hooks, (r) => r.id);
    keep('tags', controlTags, (r) => r.id);
    keep('qr_codes', controlQrCodes, (r) => r.id);
    ['conversions', 'goals', 'tags', 'domains', 'campaigns', 'qr_codes', 'idempotency_keys'].forEach((t, i) =>
      keep(t, tables[i], (r) => r.id ?? r.key),
    );
    return rows;
  }

  // ---- sending one plan ------------------------------------------------------------------------

  function workspaceOf(op: Operation): 'main' | 'hooks' | null {
    if (op.scopes === null) return null;
    return op.scopes.some((s) => s.startsWith('webhooks:')) ? 'hooks' : 'main';
  }

  /** A Ref's item, or undefined when the pool is empty; `take` removes it from its pool. */
  function lookup(r: Ref, take = false): Record<string, string> | undefined {
    const p = pool(r.pool);
    if (!p.length) return undefined;
    const i = r.pick % p.length;
    return take ? p.splice(i, 1)[0] : p[i];
  }
  const fieldOf = (item: Record<string, string>, field: string) =>
    field.startsWith('code') ? item.code + field.slice(4) : item[field];

  function resolve(v: unknown): unknown {
    if (v instanceof Ref) {
      const item = lookup(v);
      return item ? fieldOf(item, v.field) : `${v.pool.split(':')[0]}_pool_empty`;
    }
    if (Array.isArray(v)) return v.map(resolve);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
    return v;
  }

  function serialize(
    body: BodySpec | undefined,
    resolved: unknown,
  ): { data?: string | Buffer; headers: Record<string, string>; chunked?: boolean; parsed?: unknown } {
    if (!body) return { headers: {} };
    if (body.kind === 'raw') {
      const headers: Record<string, string> = {};
      if (body.contentType) headers['content-type'] = body.contentType;
      if (body.contentEncoding) headers['content-encoding'] = body.contentEncoding;
      return { data: body.data, headers, chunked: body.chunked };
    }
    if (body.kind === 'form') {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(resolved as Record<string, unknown>)) form.set(k, String(v));
      return { data: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    }
    let text = JSON.stringify(resolved) ?? 'null';
    if (body.protoKey)
      text = text === '{}' ? '{"__proto__":{"polluted":true}}' : text.replace(/^\{/, '{"__proto__":{"polluted":true},');
    if (body.bom) text = `\uFEFF${text}`;
    if (body.padTo && Buffer.byteLength(text) < body.padTo) text += ' '.repeat(body.padTo - Buffer.byteLength(text));
    const headers: Record<string, string> = {};
    if (body.contentType !== null) headers['content-type'] = body.contentType ?? 'application/json';
    let data: string | Buffer = text;
    if (body.encoding) {
      data = body.encoding === 'gzip' ? zlib.gzipSync(text) : zlib.deflateSync(text);
      headers['content-encoding'] = body.encoding;
    }
    if (body.fakeEncoding) headers['content-encoding'] = body.fakeEncoding;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.bom ? text.slice(1) : text);
    } catch {
      parsed = undefined;
    }
    return { data, headers, chunked: body.chunked, parsed };
  }

  /** Whether the request as sent is valid against the document (body schema, query and header parameters). */
  function requestValid(
    op: Operation,
    parsedBody: unknown,
    hasBody: boolean,
    query: Array<[string, string]>,
    headers: Record<string, string>,
  ): boolean {
    if (op.requestSchema) {
      if (!hasBody) return !op.requestBodyRequired;
      if (!validAgainst(op.requestSchema, parsedBody)) return false;
    }
    // An unrecognised query parameter is a 400 (BadRequest: "a missing, malformed or unrecognised field or parameter").
    const known = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name as string));
    if (op.isApi && query.some(([k]) => !known.has(k))) return false;
    for (const p of op.parameters) {
      if (p.in === 'query') {
        const values = query.filter(([k]) => k === p.name).map(([, v]) => v);
        if (!values.length) {
          if (p.required) return false;
          continue;
        }
        if (!paramValid(p.schema ?? {}, values.length === 1 ? values[0] : values)) return false;
      } else if (p.in === 'header') {
        const v = Object.entries(headers).find(([k]) => k.toLowerCase() === p.name.toLowerCase())?.[1];
        if (v === undefined) {
          if (p.required) return false;
          continue;
        }
        // HTTP strips the whitespace around a header value before anyone validates it.
        if (!paramValid(p.schema ?? {}, v.trim())) return false;
      }
    }
    return true;
  }

  async function authHeaders(
    plan: Plan,
    op: Operation,
  ): Promise<{ headers: Record<string, string>; query: Array<[string, string]>; keyWs: WsName | null }> {
    const own = workspaceOf(op);
    const ownPool = () => keyPools[own ?? 'main'];
    const a = plan.auth;
    switch (a.kind) {
      case 'own':
        return own
          ? { headers: { authorization: `Bearer ${await ownPool().take()}` }, query: [], keyWs: own }
          : { headers: {}, query: [], keyWs: null };
      case 'none':
        return { headers: {}, query: [], keyWs: null };
      case 'malformed': {
        const variants = malformedAuthorizations(await ownPool().take());
        return { headers: { authorization: variants[a.variant % variants.length][1] }, query: [], keyWs: null };
      }
      case 'header': {
        const key = await ownPool().take();
        if (a.name === 'Authorization-Query') return { headers: {}, query: [['api_key', key]], keyWs: null };
        if (a.name === 'Cookie') return { headers: { cookie: `api_key=${key}; token=${key}` }, query: [], keyWs: null };
        return { headers: { [a.name.toLowerCase()]: key }, query: [], keyWs: null };
      }
      case 'pool': {
        const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
        switch (a.pool) {
          case 'other':
            return { headers: { authorization: `Bearer ${await keyPools.other.take()}` }, query: [], keyWs: 'other' };
          case 'pro':
            return { headers: { authorization: `Bearer ${await keyPools.pro.take()}` }, query: [], keyWs: 'pro' };
          case 'noscope': {
            const scope = (op.scopes ?? ['links:read'])[0];
            return {
              headers: { authorization: `Bearer ${await noScopePools.get(scope)!.take()}` },
              query: [],
              keyWs: 'noscope',
            };
          }
          case 'unknown':
            return {
              headers: { authorization: `Bearer mk_${randomBytes(32).toString('hex')}` },
              query: [],
              keyWs: null,
            };
          case 'free-was-paid':
            return {
              headers: { authorization: `Bearer ${pick(fixedKeys.freeWasPaid)}` },
              query: [],
              keyWs: 'freeWasPaid',
            };
          default:
            return { headers: { authorization: `Bearer ${pick(fixedKeys[a.pool])}` }, query: [], keyWs: a.pool };
        }
      }
    }
  }

  function expectationProblems(op: Operation, expect: Expect, res: RawResponse): string[] {
    const success = [...op.responses.keys()].filter((s) => s >= 200 && s < 300);
    if (expect.kind === 'ok' && !success.includes(res.status) && !expect.allow.includes(res.status)) {
      return [`a valid request got ${res.status} (expected ${[...success, ...expect.allow].join(' or ')})`];
    }
    if (expect.kind === 'fail' && !expect.statuses.includes(res.status)) {
      return [`an invalid request got ${res.status} (expected ${expect.statuses.join(' or ')})`];
    }
    return [];
  }

  function leaks(body: unknown, keyWs: WsName): string[] {
    const found: string[] = [];
    const walk = (v: unknown) => {
      if (typeof v === 'string') {
        if (ID_PATTERN.test(v)) {
          const owner = idOwner.get(v);
          if (owner && owner !== keyWs) found.push(`${v} of workspace ${owner} shown to a key of ${keyWs}`);
        }
      } else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(body);
    return found;
  }

  function record(op: Operation, plan: Plan, res: RawResponse, extra: string[], request: RawRequest) {
    requestsSent++;
    statusCounts.set(res.status, (statusCounts.get(res.status) ?? 0) + 1);
    if (!byOp.has(op.operationId)) byOp.set(op.operationId, new Map());
    const m = byOp.get(op.operationId)!;
    m.set(res.status, (m.get(res.status) ?? 0) + 1);
    byCategory.set(plan.category, (byCategory.get(plan.category) ?? 0) + 1);
    const problems = [
      ...(res.transportError ? [`transport error: ${res.transportError}`] : checkResponse(op, res)),
      ...extra,
    ];
    if (problems.length) {
      const body =
        request.body === undefined
          ? ''
          : Buffer.isBuffer(request.body)
            ? `<${request.body.length} bytes>`
            : request.body.length > 300
              ? `${request.body.slice(0, 300)}...<${request.body.length} chars>`
              : request.body;
      failures.push({
        engine,
        op: op.operationId,
        category: plan.category,
        mutation: plan.mutation,
        request: `${request.method} ${request.path.length > 200 ? `${request.path.slice(0, 200)}...` : request.path} ${JSON.stringify(Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k, String(v).slice(0, 80)])))} ${body}`,
        status: res.status,
        problems,
        response: res.text.slice(0, 300),
      });
    }
  }

  async function send(
    op: Operation,
    plan: Plan,
    request: RawRequest,
    extra: (res: RawResponse) => string[] = () => [],
  ) {
    const res = await client.send(request);
    record(op, plan, res, extra(res), request);
    return res;
  }

  /** GET the password form, then POST it with the link's password (or a wrong one). */
  async function unlockFlow(
    op: Operation,
    plan: Plan,
    slugPath: string,
    host: string | undefined,
    linkId: string | undefined,
  ) {
    const follow = OP.get('followShortLink')!;
    const headers: Record<string, string> = { 'user-agent': 'Mozilla/5.0 Firefox/128.0', ...(host ? { host } : {}) };
    const form = await send(follow, plan, { method: 'GET', path: slugPath, headers });
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? 'none';
    const cookie = /sl_csrf=([^;]+)/.exec(String(form.headers['set-cookie'] ?? ''))?.[1] ?? 'none';
    const password = (linkId && linkPasswords.get(linkId)) ?? 'not-the-password';
    const body = new URLSearchParams({ csrf, password: Math.random() < 0.8 ? password : 'wrong-password' }).toString();
    await send(op, plan, {
      method: 'POST',
      path: slugPath,
      headers: { ...headers, cookie: `sl_csrf=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
  }

  async function execute(plan: Plan) {
    const op = OP.get(plan.op)!;
    const auth = await authHeaders(plan, op);
    const query: Array<[string, string]> = [
      ...plan.query.map(([k, v]) => [k, String(resolve(v))] as [string, string]),
      ...auth.query,
    ];
    const planHeaders = Object.fromEntries(
      Object.entries(resolve(plan.headers) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
    );
    const resolvedBody =
      plan.body?.kind === 'json'
        ? resolve(plan.body.value)
        : plan.body?.kind === 'form'
          ? resolve(plan.body.fields)
          : undefined;
    const ser = serialize(plan.body, resolvedBody);

    let expect: Expect = plan.expect;
    let pathParams = plan.pathParams;
    let consumes = plan.consumes;
    if (expect.kind === 'by-schema') {
      const sentBody = plan.body?.kind === 'json' ? ser.parsed : plan.body?.kind === 'raw' ? undefined : undefined;
      const valid =
        plan.body?.kind !== 'raw' && requestValid(op, sentBody, plan.body !== undefined, query, planHeaders);
      if (!valid) expect = { kind: 'fail', statuses: [400] };
      else {
        expect = expect.alsoOk
          ? {
              kind: 'ok',
              allow:
                op.operationId === 'recordConversion' ||
                op.operationId === 'createLinksBulk' ||
                op.operationId.endsWith('Link')
                  ? [409]
                  : [],
            }
          : { kind: 'any' };
        if (plan.control && plan.validPathParams) {
          pathParams = plan.validPathParams;
          consumes = plan.consumesIfValid;
        }
      }
    }

    // The path: Refs to live objects (taken out of their pool by a delete), raw segments, strings.
    let host: string | undefined;
    let targetId: string | undefined;
    let taken: { pool: string; item: Record<string, string> } | undefined;
    let path = op.path;
    for (const [name, value] of Object.entries(pathParams) as Array<[string, PathValue]>) {
      let segment: string;
      if (value instanceof Ref) {
        const item = lookup(value, !!consumes);
        if (item && consumes) taken = { pool: value.pool, item };
        if (!item) {
          // Nothing left to delete: the request names an unknown id and must get 404.
          segment = `${value.pool.split(':')[0]}_exhausted`;
          if (expect.kind === 'ok') expect = { kind: 'fail', statuses: [404] };
        } else {
          const v = fieldOf(item, value.field);
          segment = encodeLoose(v);
          host = item.host || undefined;
          targetId = item.id;
        }
      } else if (typeof value === 'string') segment = encodeLoose(value);
      else segment = value.raw;
      path = path.replace(`{${name}}`, segment);
    }
    const qs = query.map(([k, v]) => `${encodeLoose(k)}=${encodeLoose(v)}`).join('&');
    const fullPath = qs ? `${path}?${qs}` : path;

    if (plan.body?.kind === 'form' && plan.body.flow === 'unlock') {
      await unlockFlow(op, plan, fullPath, host, targetId);
      return;
    }
    const headers: Record<string, string> = { ...planHeaders, ...ser.headers, ...auth.headers };
    if (host && op.scopes === null) headers.host = host;
    const request: RawRequest = {
      method: op.method,
      path: fullPath,
      headers,
      body: ser.data,
      chunked: ser.chunked,
      // Bodies the server refuses before reading them may end the connection.
      fresh: ser.data !== undefined && Buffer.byteLength(ser.data) > 65_536,
    };
    const keyWs = auth.keyWs;
    byExpectation.set(expect.kind, (byExpectation.get(expect.kind) ?? 0) + 1);
    const res = await send(op, plan, request, (r) => {
      const extra = expectationProblems(op, expect, r);
      if (r.status >= 200 && r.status < 300 && op.isApi && keyWs) extra.push(...leaks(r.body, keyWs));
      if (op.operationId === 'createLink' && r.status === 201 && ser.parsed && typeof ser.parsed === 'object') {
        const known = new Set(Object.keys(op.requestSchema.properties));
        const unknown = Object.keys(ser.parsed)
          .filter((k) => !known.has(k))
          .sort();
        const named = [...(r.body?.meta?.ignoredFields ?? [])].sort();
        if (JSON.stringify(unknown) !== JSON.stringify(named))
          extra.push(
            `meta.ignoredFields ${JSON.stringify(named)} does not name the unrecognised keys ${JSON.stringify(unknown)}`,
          );
      }
      if (
        (op.operationId === 'getConversionSummary' || op.operationId === 'getGoalReport') &&
        r.status === 400 &&
        typeof r.body?.field !== 'string'
      ) {
        extra.push('a validation error of this endpoint must carry field naming the offending query parameter');
      }
      return extra;
    });

    // Bookkeeping: what the successful responses created and deleted.
    const ok = res.status >= 200 && res.status < 300;
    if (taken && !ok) pool(taken.pool).push(taken.item);
    if (!ok || !keyWs) return;
    switch (op.operationId) {
      case 'createLink':
        note(created.links, keyWs, res.body.data.id);
        idOwner.set(res.body.data.id, keyWs);
        if (keyWs === 'main') add('link:deletable', { id: res.body.data.id, slug: res.body.data.slug });
        break;
      case 'createLinksBulk':
        for (const item of res.body.data) {
          if (item.status !== 201) continue;
          note(created.links, keyWs, item.data.id);
          idOwner.set(item.data.id, keyWs);
          if (keyWs === 'main') add('link:deletable', { id: item.data.id, slug: item.data.slug });
        }
        {
          const idem = Object.entries(headers).find(([k]) => k.toLowerCase() === 'idempotency-key')?.[1];
          if (idem !== undefined)
            note(created.idempotencyKeys, keyWs, Buffer.from(idem.trim(), 'utf8').toString('latin1'));
        }
        break;
      case 'deleteLinksBulk':
        for (const item of res.body.data) {
          if (item.status !== 200 && item.status !== 207) continue;
          note(created.linksDeleted, keyWs, item.data.id);
          add('link:deleted', { id: item.data.id });
        }
        break;
      case 'deleteLink':
        note(created.linksDeleted, keyWs, targetId!);
        add('link:deleted', { id: targetId! });
        break;
      case 'recordConversion':
        note(created.conversions, keyWs, res.body.data.id);
        idOwner.set(res.body.data.id, keyWs);
        {
          const idem = Object.entries(headers).find(([k]) => k.toLowerCase() === 'idempotency-key')?.[1];
          // Header bytes are read as latin1 by the server; the client wrote the value as UTF-8.
          if (idem !== undefined)
            note(created.idempotencyKeys, keyWs, Buffer.from(idem.trim(), 'utf8').toString('latin1'));
        }
        break;
      case 'createWebhook':
      case 'createWebhookV1': {
        const id = op.operationId === 'createWebhook' ? res.body.data.id : res.body.id;
        note(created.hooks, keyWs, id);
        idOwner.set(id, keyWs);
        if (keyWs === 'hooks') add(op.operationId === 'createWebhook' ? 'hookA:deletable' : 'hookB:deletable', { id });
        break;
      }
      case 'createTag':
        if (keyWs === 'main') add('tag:deletable', { id: res.body.data.id });
        break;
      case 'deleteTag':
        add('tag:deleted', { id: targetId! });
        break;
      case 'createQrCode':
        if (keyWs === 'main') add('qr:deletable', { id: res.body.data.id, code: '', linkId: res.body.data.linkId });
        break;
      case 'deleteQrCode':
        add('qr:deleted', { id: targetId! });
        break;
      case 'deleteWebhook':
      case 'deleteWebhookV1':
        note(created.hooksDeleted, keyWs, targetId!);
        add(op.operationId === 'deleteWebhook' ? 'hookA:deleted' : 'hookB:deleted', { id: targetId! });
        break;
    }
  }

  it(`sends ${REQUESTS_PER_ENGINE} generated requests: no 5xx, documented statuses and shapes, valid 2xx bodies, no leaks`, async () => {
    const world = {
      previewImages,
      eventsA: eventCatalog('A').events.map((e) => e.name),
      retiredA: eventCatalog('A').retired.map((e) => e.name),
      eventsB: eventCatalog('B').events.map((e) => e.name),
      now: Date.now(),
    };
    const plans = fc.sample(planArbitrary(OPS, world), {
      numRuns: REQUESTS_PER_ENGINE,
      seed: SEED + (engine === 'sqlite' ? 0 : 1),
    });
    const covered = new Set(plans.map((p) => p.op));
    expect(
      OPS.map((o) => o.operationId).filter((id) => !covered.has(id)),
      'operations the fuzzer never sent',
    ).toEqual([]);
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < plans.length) {
          const plan = plans[next++];
          try {
            await execute(plan);
          } catch (err) {
            // A harness error is reported like a failing answer; the other requests go on.
            failures.push({
              engine,
              op: plan.op,
              category: plan.category,
              mutation: plan.mutation,
              request: JSON.stringify(plan).slice(0, 300),
              status: -2,
              problems: [`harness error: ${(err as Error).stack}`],
              response: '',
            });
          }
        }
      }),
    );
    runMs = Date.now() - started;
    totals.requests += requestsSent;
    totals.ms += runMs;
    for (const [st, n] of statusCounts) totals.byStatus.set(st, (totals.byStatus.get(st) ?? 0) + n);

    const table = [...statusCounts.entries()]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
    const perOp = [...byOp.entries()]
      .map(
        ([id, m]) =>
          `  ${id.padEnd(22)} ${[...m.entries()]
            .sort(([a], [b]) => a - b)
            .map(([s, n]) => `${s}:${n}`)
            .join(' ')}`,
      )
      .join('\n');
    const keysMinted = [...Object.values(keyPools), ...noScopePools.values()].reduce((n, p) => n + p.minted, 0);
    console.log(
      `\n[fuzz ${engine}] seed ${SEED}: ${requestsSent} requests in ${(runMs / 1000).toFixed(1)} s (${Math.round(requestsSent / (runMs / 1000))}/s), ${keysMinted} keys minted\n` +
        `[fuzz ${engine}] by status: ${table}\n[fuzz ${engine}] by category: ${[...byCategory.entries()].map(([c, n]) => `${c}: ${n}`).join(', ')}\n` +
        `[fuzz ${engine}] by expectation: ${[...byExpectation.entries()].map(([c, n]) => `${c}: ${n}`).join(', ')}\n` +
        `[fuzz ${engine}] by operation:\n${perOp}\n`,
    );
    const groups = new Map<string, { count: number; example: Failure }>();
    for (const f of failures) {
      const sig = `${f.op} | ${f.mutation.replace(/:.*/, '')} | ${f.problems.map((p) => p.replace(/\d{2,}/g, 'N').slice(0, 100)).join(' / ')}`;
      const g = groups.get(sig);
      if (g) g.count++;
      else groups.set(sig, { count: 1, example: f });
    }
    const report = [...groups.entries()]
      .map(
        ([sig, g]) =>
          `${g.count}x ${sig}\n    e.g. [${g.example.category}/${g.example.mutation}] ${g.example.request}\n    -> ${g.example.status} ${g.example.response}`,
      )
      .join('\n');
    if (failures.length)
      console.log(`[fuzz ${engine}] ${failures.length} failing answers in ${groups.size} groups:\n${report}\n`);
    if (process.env.FUZZ_REPORT) fs.writeFileSync(`${process.env.FUZZ_REPORT}.${engine}.txt`, report);
    expect(requestsSent).toBeGreaterThanOrEqual(REQUESTS_PER_ENGINE);
    expect(failures.length, `failing answers:\n${report}`).toBe(0);
  }, 400_000);

  it('leaves in the database exactly what the successful responses created, and nothing of failed requests', async () => {
    // Let in-flight background work (click flushes) settle before reading.
    await new Promise((r) => setTimeout(r, 300));
    const k = knex();
    const problems: string[] = [];
    const same = (what: string, w: WsName, actual: string[], expected: Set<string> | undefined) => {
      const exp = [...(expected ?? [])].sort();
      const act = [...actual].sort();
      if (JSON.stringify(exp) !== JSON.stringify(act)) {
        const extra = act.filter((x) => !exp.includes(x));
        const missing = exp.filter((x) => !act.includes(x));
        problems.push(
          `${what} of workspace ${w}: ${act.length} in the database, ${exp.length} from successful responses; unexpected ${JSON.stringify(extra.slice(0, 5))}, missing ${JSON.stringify(missing.slice(0, 5))}`,
        );
      }
    };
    const counts: string[] = [];
    for (const w of WS_NAMES) {
      const id = wsIds[w];
      const links = await k('links').where({ workspace_id: id }).select('id', 'deleted_at');
      const conversions = await k('conversions').where({ workspace_id: id }).select('id');
      const hooks = await k('webhook_subscriptions').where({ workspace_id: id }).select('id', 'deleted_at');
      const idem = await k('idempotency_keys').where({ workspace_id: id }).select('key');
      const ids = (rows: any[], column = 'id'): string[] => rows.map((r) => r[column]);
      const deletedIds = (rows: any[]) => ids(rows.filter((r) => r.deleted_at !== null));
      const stored: Array<[string, string[], Set<string> | undefined]> = [
        ['links', ids(links), created.links.get(w)],
        ['deleted links', deletedIds(links), created.linksDeleted.get(w)],
        ['conversions', ids(conversions), created.conversions.get(w)],
        ['webhook subscriptions', ids(hooks), created.hooks.get(w)],
        ['deleted webhook subscriptions', deletedIds(hooks), created.hooksDeleted.get(w)],
        ['idempotency keys', ids(idem, 'key'), created.idempotencyKeys.get(w)],
      ];
      for (const [what, actual, expected] of stored) same(what, w, actual, expected);
      counts.push(`${w}: ${links.length} links, ${conversions.length} conversions, ${hooks.length} subscriptions`);
    }
    for (const w of ['noscope', 'pro', 'free', 'freeWasPaid', 'revoked', 'expired'] as const) {
      for (const t of ['links', 'conversions', 'webhook_subscriptions', 'idempotency_keys', 'goals', 'tags']) {
        const [{ n }] = await k(t).where({ workspace_id: wsIds[w] }).count({ n: '*' });
        if (Number(n) !== 0) problems.push(`workspace ${w}, whose requests all failed, has ${n} rows in ${t}`);
      }
    }
    const after = await snapshotControlled();
    for (const key of new Set([...Object.keys(controlSnapshot), ...Object.keys(after)])) {
      const a = JSON.stringify(controlSnapshot[key]);
      const b = JSON.stringify(after[key]);
      if (a !== b) problems.push(`${key}, touched only by failing requests, changed:\n  before ${a}\n  after  ${b}`);
    }
    console.log(`[fuzz ${engine}] database: ${counts.join('; ')}`);
    expect(problems).toEqual([]);
  }, 60_000);
});
