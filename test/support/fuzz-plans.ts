// What the fuzzer sends: for every operation of generated/openapi.json a fast-check arbitrary of
// request plans, valid (from the operation's schemas with sensible values and references to
// objects that exist) or subtly invalid (schema, transport, auth, cross-workspace, id and unicode
// mutations). Plans hold symbolic references (Ref) resolved against live pools when sent.
import fc from 'fast-check';
import type { Operation } from './fuzz-openapi';
import {
  arbFor,
  BAD_DATE_TIMES,
  boundaryValues,
  DAY,
  EDGE_DATE_TIMES,
  enumViolations,
  isoBetween,
  MALFORMED_BODIES,
  NON_OBJECT_BODIES,
  NUMBERISH_STRINGS,
  Ref,
  ref,
  text,
  UNICODE_TORTURE,
  WEIRD_SEGMENTS,
  wrongTypeValues,
  type Hint,
} from './fuzz-gen';

export type Category = 'valid' | 'schema' | 'transport' | 'auth' | 'foreign' | 'id' | 'unicode';
export type AuthSpec =
  | { kind: 'own' }
  | { kind: 'none' }
  | { kind: 'header'; name: string; value: string }
  | { kind: 'malformed'; variant: number }
  | { kind: 'pool'; pool: 'revoked' | 'expired' | 'free' | 'pro' | 'noscope' | 'other' | 'unknown' | 'free-was-paid' };
export type Expect =
  | { kind: 'ok'; allow: number[] }
  | { kind: 'fail'; statuses: number[] }
  | { kind: 'any' }
  /** Derived when sent: 400 when the resolved body or parameters are invalid against the document, else any documented status. */
  | { kind: 'by-schema'; alsoOk?: boolean };
export type PathValue = string | Ref | { raw: string };
export type BodySpec =
  | {
      kind: 'json';
      value: unknown;
      contentType?: string | null;
      padTo?: number;
      encoding?: 'gzip' | 'deflate';
      /** A Content-Encoding header over a body that is not encoded. */
      fakeEncoding?: string;
      bom?: boolean;
      chunked?: boolean;
      protoKey?: boolean;
    }
  | { kind: 'raw'; data: string | Buffer; contentType?: string | null; contentEncoding?: string; chunked?: boolean }
  | { kind: 'form'; fields: Record<string, unknown>; flow?: 'unlock' };

export interface Plan {
  op: string;
  category: Category;
  mutation: string;
  auth: AuthSpec;
  pathParams: Record<string, PathValue>;
  query: Array<[string, unknown]>;
  headers: Record<string, unknown>;
  body?: BodySpec;
  expect: Expect;
  /** The plan takes its path object out of the pool (a delete). */
  consumes?: boolean;
  /** The plan's path object is one only failing requests may touch. */
  control?: boolean;
  /** For a by-schema plan on a control object whose request turns out valid: a live object to use instead. */
  validPathParams?: Record<string, PathValue>;
  consumesIfValid?: boolean;
}

export interface World {
  /** URLs of images the main workspace hosts. */
  previewImages: string[];
  eventsA: string[];
  retiredA: string[];
  eventsB: string[];
  now: number;
}

const RESERVED = new Set([
  'api',
  'admin',
  'app',
  'assets',
  'dashboard',
  'docs',
  'healthz',
  'readyz',
  'metrics',
  'login',
  'logout',
  'qr',
  'settings',
  'static',
  'www',
  'favicon.ico',
  'robots.txt',
]);
export const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'CHF', 'SEK', 'BRL', 'INR'];

const slugArb = fc
  .oneof(
    { weight: 1, arbitrary: fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/) },
    { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9_-]{7,40}$/) },
  )
  .filter((s) => !RESERVED.has(s.toLowerCase()));

const urlOk = (s: string, https = false) => {
  try {
    const u = new URL(s);
    return (
      s.length <= 2048 &&
      !!u.hostname &&
      (https ? u.protocol === 'https:' : u.protocol === 'https:' || u.protocol === 'http:')
    );
  } catch {
    return false;
  }
};
const destinationUrl = fc
  .oneof(
    {
      weight: 4,
      arbitrary: fc.webUrl({ validSchemes: ['https', 'http'], withQueryParameters: true, withFragments: true }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'https://example.com/',
        'http://example.org/path?q=1#x',
        'https://例え.jp/パス?q=ü',
        'https://[2001:db8::1]:8443/x',
        'https://xn--bcher-kva.example/',
        `https://example.com/${'a'.repeat(2000)}`,
        'HTTPS://EXAMPLE.COM/UPPER',
      ),
    },
  )
  .filter((s) => urlOk(s));
const hookUrl = fc
  .oneof(
    { weight: 3, arbitrary: fc.webUrl({ validSchemes: ['https'], withQueryParameters: true }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'https://hooks.example.com/shortlink',
        'https://hooks.example.com/a?token=x',
        'https://[2001:db8::2]/h',
      ),
    },
  )
  .filter((s) => urlOk(s, true));

/** A window [from, to) of at most 400 days, as zero, one or two query parameters. */
function windowQuery(now: number): fc.Arbitrary<Array<[string, unknown]>> {
  return fc.oneof(
    fc.constant<Array<[string, unknown]>>([]),
    isoBetween(now - 500 * DAY, now + 30 * DAY).map((to): Array<[string, unknown]> => [['to', to]]),
    isoBetween(now - 399 * DAY, now).map((from): Array<[string, unknown]> => [['from', from]]),
    fc.tuple(fc.integer({ min: now - 500 * DAY, max: now + 30 * DAY }), fc.integer({ min: 0, max: 400 * DAY })).map(
      ([to, span]): Array<[string, unknown]> => [
        ['from', new Date(to - span).toISOString()],
        ['to', new Date(to).toISOString()],
      ],
    ),
  );
}

interface ParamSpec {
  name: string;
  valid: fc.Arbitrary<PathValue>;
  /** Objects only failing requests may touch. */
  control: fc.Arbitrary<PathValue>;
  /** The same kind of object in the other workspace. */
  other: fc.Arbitrary<PathValue>;
  /** Own objects of another kind, deleted objects, unknown ids. */
  missing: fc.Arbitrary<PathValue>;
  consumes?: boolean;
}

interface OpSpec {
  weight: number;
  param?: ParamSpec;
  query?: fc.Arbitrary<Array<[string, unknown]>>;
  headers?: fc.Arbitrary<Record<string, unknown>>;
  body?: fc.Arbitrary<unknown>;
  /** Statuses a valid request may also get (state-dependent: a taken slug, a reused Idempotency-Key). */
  allow?: number[];
  /** Valid-looking requests naming the other workspace's objects in the body, with what they must get. */
  foreignBody?: fc.Arbitrary<{ mutation: string; value: unknown; statuses: number[] }>;
  /** Schema-valid bodies that break a rule of the operation's description, with the status it documents. */
  rules?: fc.Arbitrary<{ mutation: string; value: unknown; statuses: number[]; path?: PathValue }>;
  /** A list or summary: the other workspace's key may read it and must see none of this workspace. */
  listing?: boolean;
  /** The operation is answered by the short-link handler (HTML pages, redirects). */
  visitor?: boolean;
}

/** Per-operation knowledge: sensible values for the document's fields, the business rules a valid request keeps. */
export function operationSpecs(ops: Operation[], world: World): Record<string, OpSpec> {
  const byId = new Map(ops.map((o) => [o.operationId, o]));
  const schemaOf = (id: string) => byId.get(id)!.requestSchema;
  const now = world.now;
  const unknownId = (prefix: string) => fc.stringMatching(/^[a-z0-9]{20}$/).map((s) => `${prefix}_${s}`);

  const linkHint: Hint = (name, schema) => {
    switch (name) {
      case 'url':
        return destinationUrl;
      case 'slug':
        return slugArb;
      case 'domainId':
        return ref('domain:main');
      case 'title':
        return schema.type?.includes?.('null') ? fc.option(text(0, 250), { nil: null }) : text(0, 250);
      case 'expiredUrl':
        return fc.constantFrom(null, '', 'https://example.org/expired', 'http://example.net/over?x=1');
      case 'clickLimit':
        return fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: null });
      case 'password':
        return fc.option(text(1, 30), { nil: null });
      case 'tagIds':
        return fc.array(ref('tag:main'), { maxLength: 4 });
      case 'previewImage':
        return fc.constantFrom(...world.previewImages, null);
      case 'previewTitle':
      case 'previewDescription':
        return fc.option(text(0, 120), { nil: null });
      default:
        return undefined;
    }
  };
  const ordered = (b: any) => {
    if (typeof b.startAt === 'string' && typeof b.endAt === 'string') {
      const s = Date.parse(b.startAt);
      const e = Date.parse(b.endAt);
      if (e === s)
        b.endAt = null; // an empty schedule is refused; null keeps the pair explicit
      else if (e < s) [b.startAt, b.endAt] = [b.endAt, b.startAt];
    }
  };
  // Passwords cost an scrypt hash each: a few percent of the links have one.
  const rarePassword = (b: any, r: number) => {
    if (typeof b.password === 'string' && r % 25 !== 0) delete b.password;
  };
  const createLinkBody = fc.tuple(arbFor(schemaOf('createLink'), linkHint), fc.nat(999)).map(([body, r]) => {
    const b = body as any;
    ordered(b);
    rarePassword(b, r);
    return b;
  });
  const updateLinkBody = fc.tuple(arbFor(schemaOf('updateLink'), linkHint), fc.nat(999)).map(([body, r]) => {
    const b = body as any;
    // Without both ends the link's stored schedule decides; send a pair the rules accept on any link.
    if ('startAt' in b && !('endAt' in b) && b.startAt !== null) b.endAt = null;
    if ('endAt' in b && !('startAt' in b) && b.endAt !== null) b.startAt = null;
    ordered(b);
    if (b.neverExpires === true && b.expiresAt !== undefined && b.expiresAt !== null) delete b.expiresAt;
    rarePassword(b, r);
    return b;
  });

  const conversionHint: Hint = (name) => {
    switch (name) {
      case 'linkId':
        return ref('link:stable');
      case 'campaignId':
        return ref('campaign:main');
      case 'qrCodeId':
        return ref('qr:main');
      case 'currency':
        return fc.constantFrom(...CURRENCIES);
      case 'amountMinor':
        return fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom(0, 2 ** 31, 2 ** 40));
      case 'customName':
        return text(1, 40);
      case 'metadata':
        return fc.dictionary(text(1, 12), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 });
      case 'occurredAt':
        return isoBetween(now - 390 * DAY, now - 60_000);
      default:
        return undefined;
    }
  };
  // Routing documents the rules accept: their refusals are setLinkRouting's `rules` below.
  const routingCondition = fc.oneof(
    fc.record({ type: fc.constant('os'), value: fc.constantFrom('ios', 'android', 'windows', 'macos', 'linux') }),
    fc.record({ type: fc.constant('device'), value: fc.constantFrom('mobile', 'tablet', 'desktop') }),
    fc.record({ type: fc.constant('language'), value: fc.constantFrom('en', 'fr', 'de') }),
    fc.record({ type: fc.constant('country'), value: fc.constantFrom('US', 'FR', 'DE') }),
    fc.record({ type: fc.constant('query'), name: fc.constantFrom('ref', 'utm_source') }),
    fc.record({ type: fc.constant('ip'), value: fc.constantFrom('203.0.113.0/24', '2001:db8::/32') }),
    fc.record({ type: fc.constantFrom('after', 'before'), value: fc.constant('2030-01-01T00:00:00Z') }),
  );
  const routingBody = fc.record(
    {
      rules: fc.array(
        fc.record({ conditions: fc.array(routingCondition, { minLength: 1, maxLength: 3 }), url: fc.webUrl() }),
        { maxLength: 3 },
      ),
      split: fc.option(
        fc.integer({ min: 1, max: 99 }).map((w) => ({
          variants: [
            { url: 'https://example.com/a', weight: w },
            { url: 'https://example.com/b', weight: 100 - w },
          ],
          endsAt: null,
          metric: 'clicks',
        })),
      ),
      forwardQuery: fc.boolean(),
      indexable: fc.boolean(),
      clickIdParam: fc.option(fc.constantFrom('sl_click', 'cid')),
    },
    { requiredKeys: [] },
  );
  const trialBody = fc.record(
    {
      userAgent: fc.constantFrom('Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)', 'curl/8.0'),
      country: fc.constantFrom('US', 'fr'),
      language: fc.constantFrom('fr-FR,fr;q=0.9', 'en'),
      query: fc.constantFrom('a=1', 'utm_source=x&ref=mail'),
      ip: fc.constantFrom('203.0.113.9', '2001:db8::1'),
      at: fc.constant('2030-01-01T00:00:00Z'),
    },
    { requiredKeys: [] },
  );
  const conversionBody = arbFor(schemaOf('recordConversion'), conversionHint).map((body) => {
    const b = body as any;
    if (b.eventType === 'custom' && !b.customName) b.customName = 'fuzz_custom';
    if (b.eventType !== 'custom') delete b.customName;
    if (b.qrCodeId instanceof Ref && b.linkId !== undefined) b.linkId = new Ref('qr:main', b.qrCodeId.pick, 'linkId');
    if (b.metadata !== undefined && Buffer.byteLength(JSON.stringify(b.metadata)) > 4096) delete b.metadata;
    // A click id is made by a redirect, never by hand: any other is the 400 routingBody's rules test.
    delete b.clickId;
    return b;
  });
  const idempotency = fc.oneof(
    { weight: 3, arbitrary: fc.constant({}) },
    { weight: 2, arbitrary: fc.nat(150).map((n) => ({ 'Idempotency-Key': `fz-${n}` })) },
    { weight: 1, arbitrary: fc.stringMatching(/^[!-~]{1,255}$/).map((k) => ({ 'Idempotency-Key': k })) },
  );

  const hookHint =
    (variant: 'A' | 'B'): Hint =>
    (name) => {
      switch (name) {
        case 'workspaceId':
          return ref('ws:hooks');
        case 'url':
          return hookUrl;
        case 'events': {
          const names = variant === 'A' ? world.eventsA : world.eventsB;
          return fc
            .tuple(fc.subarray(names, { minLength: 1 }), fc.boolean())
            .map(([events, dup]) => (dup ? [...events, events[0]] : events));
        }
        case 'secret':
          return text(16, 80);
        default:
          return undefined;
      }
    };

  const summaryQuery = fc
    .tuple(
      windowQuery(now),
      fc.option(fc.constantFrom('signup', 'lead', 'purchase', 'booking', 'download', 'custom')),
      fc.option(text(1, 40)),
      fc.option(fc.oneof(ref('link:stable'), fc.constant('lnk_unknown'), text(1, 30))),
      fc.option(fc.oneof(ref('campaign:main'), text(1, 30))),
      fc.option(fc.oneof(ref('qr:main'), text(1, 30))),
    )
    .map(([win, eventType, customName, linkId, campaignId, qrCodeId]) => {
      const q: Array<[string, unknown]> = [...win];
      if (customName !== null) {
        q.push(['customName', customName]);
        if (eventType === 'custom') q.push(['eventType', eventType]);
      } else if (eventType !== null) q.push(['eventType', eventType]);
      if (linkId !== null) q.push(['linkId', linkId]);
      if (campaignId !== null) q.push(['campaignId', campaignId]);
      if (qrCodeId !== null) q.push(['qrCodeId', qrCodeId]);
      return q;
    });

  const visitorHeaders = fc.record(
    {
      'User-Agent': fc.constantFrom(
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
        'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
        'Twitterbot/1.0',
        'curl/8.5.0',
        '',
      ),
      'Sec-Purpose': fc.constant('prefetch'),
      Referer: fc.constantFrom(
        'https://news.example.com/a',
        'not a url',
        'https://xn--r8jz45g.jp/',
        'https://news.example.com/caf\u00e9',
      ),
    },
    { requiredKeys: [] },
  );

  const tagHint: Hint = (name) =>
    name === 'name'
      ? text(1, 100).filter((n) => n.trim() !== '')
      : name === 'color'
        ? fc.constantFrom('#22c55e', '#ABCDEF', '#000000')
        : undefined;
  const tagBody = (op: string) => arbFor(schemaOf(op), tagHint);

  const pathOf = (pool: string, field = 'id') => ref(pool, field) as fc.Arbitrary<PathValue>;
  const missing = (prefix: string, ...pools: string[]) =>
    fc.oneof(unknownId(prefix) as fc.Arbitrary<PathValue>, ...pools.map((p) => pathOf(p)));
  const linkParam = (valid: string) => ({
    name: 'id',
    valid: pathOf(valid),
    control: pathOf('link:control'),
    other: pathOf('link:other'),
    missing: missing('lnk', 'link:deleted', 'goal:main'),
  });

  return {
    listLinks: {
      weight: 5,
      listing: true,
      query: fc
        .record(
          {
            page: fc.integer({ min: 1, max: 6 }),
            limit: fc.integer({ min: 1, max: 100 }),
            // The filters and order (src/operations/link-list.ts): ids of the other workspace or
            // none match nothing; text is any text the contract allows.
            search: fc.oneof(fc.constantFrom('example', 'e', 'zz', ' spring ', '%', '_'), text(1, 200)),
            tagId: fc.oneof(ref('tag:main'), ref('tag:other'), unknownId('tag')),
            domainId: fc.oneof(fc.constant('short'), ref('domain:main'), ref('domain:other'), unknownId('dom')),
            status: fc.constantFrom('ACTIVE', 'DISABLED'),
            sort: fc.constantFrom('createdAt', 'clicks'),
          },
          { requiredKeys: [] },
        )
        .map((q) => Object.entries(q)),
    },
    createLink: {
      weight: 10,
      body: createLinkBody,
      allow: [409],
      rules: fc.tuple(createLinkBody, slugArb).chain(([b, slug]) =>
        fc.constantFrom<{ mutation: string; value: unknown; statuses: number[] }>(
          { mutation: 'reserved-slug', value: { ...b, slug: 'Admin' }, statuses: [409] },
          { mutation: 'slug-charset', value: { ...b, slug: 'has space' }, statuses: [400] },
          { mutation: 'slug-dot', value: { ...b, slug: 'dot.dot' }, statuses: [400] },
          { mutation: 'javascript-url', value: { ...b, url: 'javascript:alert(1)' }, statuses: [400] },
          { mutation: 'ftp-url', value: { ...b, url: 'ftp://example.com/x' }, statuses: [400] },
          { mutation: 'relative-url', value: { ...b, url: '/relative' }, statuses: [400] },
          {
            mutation: 'expiredUrl-to-itself',
            value: { ...b, slug, domainId: undefined, expiredUrl: `https://localhost:8443/${slug}` },
            statuses: [400],
          },
          { mutation: 'expiredUrl-javascript', value: { ...b, expiredUrl: 'javascript:alert(1)' }, statuses: [400] },
          {
            mutation: 'end-before-start',
            value: { ...b, startAt: '2030-02-01T00:00:00Z', endAt: '2030-01-01T00:00:00Z' },
            statuses: [400],
          },
          {
            mutation: 'end-equals-start',
            value: { ...b, startAt: '2030-02-01T00:00:00Z', endAt: '2030-02-01T00:00:00.000Z' },
            statuses: [400],
          },
          { mutation: 'unknown-tag', value: { ...b, tagIds: ['tag_doesnotexist'] }, statuses: [400] },
          { mutation: 'unknown-domain', value: { ...b, domainId: 'dom_doesnotexist' }, statuses: [400] },
          {
            mutation: '26-tags',
            value: { ...b, tagIds: Array.from({ length: 26 }, (_, i) => `tag_${i}`) },
            statuses: [400],
          },
        ),
      ),
      foreignBody: fc.oneof(
        createLinkBody.chain((b) =>
          ref('tag:other').map((t) => ({
            mutation: 'tagIds-of-other-workspace',
            value: { ...b, tagIds: [t] },
            statuses: [400],
          })),
        ),
        createLinkBody.chain((b) =>
          fc
            .constantFrom('domain:other', 'domain:pending')
            .chain((pool) =>
              ref(pool).map((d) => ({ mutation: `domainId-${pool}`, value: { ...b, domainId: d }, statuses: [400] })),
            ),
        ),
      ),
    },
    getLink: {
      weight: 5,
      param: {
        name: 'id',
        valid: pathOf('link:stable'),
        control: pathOf('link:control'),
        other: pathOf('link:other'),
        missing: missing('lnk', 'link:deleted', 'goal:main', 'campaign:main', 'qr:main'),
      },
    },
    updateLink: {
      weight: 8,
      param: {
        name: 'id',
        valid: pathOf('link:mutable'),
        control: pathOf('link:control'),
        other: pathOf('link:other'),
        missing: missing('lnk', 'link:deleted', 'tag:main'),
      },
      body: updateLinkBody,
      allow: [409],
      rules: fc.tuple(updateLinkBody, ref('link:policy')).chain(([b, policy]) =>
        fc.constantFrom<{ mutation: string; value: unknown; statuses: number[]; path?: PathValue }>(
          {
            mutation: 'neverExpires-with-expiresAt',
            value: { ...b, neverExpires: true, expiresAt: '2031-01-01T00:00:00Z' },
            statuses: [400],
          },
          {
            mutation: 'previewImage-elsewhere',
            value: { ...b, previewImage: 'https://evil.example/x.png' },
            statuses: [400],
          },
          {
            mutation: 'previewImage-not-image',
            value: { ...b, previewImage: 'https://localhost:8443/assets/x.svg' },
            statuses: [400],
          },
          {
            mutation: 'previewImage-http',
            value: { ...b, previewImage: 'http://localhost:8443/assets/x.png' },
            statuses: [400],
          },
          { mutation: 'domainId', value: { ...b, domainId: 'dom_x' }, statuses: [400] },
          { mutation: 'reserved-slug', value: { ...b, slug: 'healthz' }, statuses: [409] },
          {
            mutation: 'end-before-start',
            value: { ...b, startAt: '2030-02-01T00:00:00Z', endAt: '2030-01-01T00:00:00Z' },
            statuses: [400],
          },
          { mutation: 'javascript-url', value: { ...b, url: 'javascript:alert(1)' }, statuses: [400] },
          { mutation: 're-enable-policy-disabled', value: { ...b, status: 'ACTIVE' }, statuses: [409], path: policy },
        ),
      ),
      foreignBody: updateLinkBody.chain((b) =>
        ref('tag:other').map((t) => ({
          mutation: 'tagIds-of-other-workspace',
          value: { ...b, tagIds: [t] },
          statuses: [400],
        })),
      ),
    },
    deleteLink: {
      weight: 4,
      param: {
        name: 'id',
        valid: pathOf('link:deletable'),
        control: pathOf('link:control'),
        other: pathOf('link:other'),
        missing: missing('lnk', 'link:deleted', 'goal:main'),
        consumes: true,
      },
    },
    // The bulk operations answer 200 with a result per item; each item is judged as its single
    // operation would judge it, so items are the single operations' bodies and ids.
    createLinksBulk: {
      weight: 3,
      body: fc.array(createLinkBody, { minLength: 1, maxLength: 4 }).map((links) => ({ links })),
      allow: [409],
      rules: fc.constantFrom<{ mutation: string; value: unknown; statuses: number[] }>(
        {
          mutation: '101-items',
          value: { links: Array.from({ length: 101 }, () => ({ url: 'https://e.com' })) },
          statuses: [400],
        },
        { mutation: 'no-items', value: { links: [] }, statuses: [400] },
      ),
    },
    updateLinksBulk: {
      weight: 3,
      body: fc
        .tuple(fc.array(ref('link:mutable'), { minLength: 1, maxLength: 4 }), updateLinkBody)
        .map(([ids, { slug: _slug, ...changes }]) => ({ ids, changes })),
      rules: fc
        .tuple(ref('link:mutable'), updateLinkBody)
        .chain(([id, b]) =>
          fc.constantFrom<{ mutation: string; value: unknown; statuses: number[] }>(
            { mutation: 'slug-in-bulk', value: { ids: [id], changes: { ...b, slug: 'shared' } }, statuses: [400] },
            { mutation: 'domainId', value: { ids: [id], changes: { ...b, domainId: 'dom_x' } }, statuses: [400] },
          ),
        ),
      foreignBody: fc.tuple(ref('link:other'), ref('link:mutable')).map(([other, mine]) => ({
        mutation: 'id-of-other-workspace',
        value: { ids: [mine, other], changes: {} },
        statuses: [200],
      })),
    },
    deleteLinksBulk: {
      weight: 2,
      // Ids that are per-item 404s (deleted, another workspace's, unknown): the pools the
      // single delete consumes stay whole.
      query: fc
        .array(fc.oneof(ref('link:deleted'), ref('link:other'), unknownId('lnk')), { minLength: 1, maxLength: 4 })
        .map((ids) => [['ids', ids]] as Array<[string, unknown]>),
    },
    getLinkRouting: { weight: 2, param: linkParam('link:stable') },
    getLinkRoutingReport: { weight: 2, param: linkParam('link:stable') },
    setLinkRouting: {
      weight: 3,
      param: linkParam('link:mutable'),
      body: routingBody,
      rules: routingBody.chain((b) =>
        fc.constantFrom<{ mutation: string; value: unknown; statuses: number[] }>(
          {
            mutation: 'weights-not-100',
            value: {
              ...b,
              split: {
                variants: [
                  { url: 'https://e.com/a', weight: 50 },
                  { url: 'https://e.com/b', weight: 40 },
                ],
              },
            },
            statuses: [400],
          },
          {
            mutation: 'javascript-url',
            value: { ...b, rules: [routingRule('os', 'ios', 'javascript:alert(1)')] },
            statuses: [400],
          },
          {
            mutation: 'unknown-os',
            value: { ...b, rules: [routingRule('os', 'beos', 'https://e.com')] },
            statuses: [400],
          },
          {
            mutation: 'unknown-city',
            value: { ...b, rules: [routingRule('city', 'Xyzzyville', 'https://e.com')] },
            statuses: [400],
          },
          {
            mutation: '21-rules',
            value: { ...b, rules: Array.from({ length: 21 }, () => routingRule('os', 'ios', 'https://e.com')) },
            statuses: [400],
          },
          {
            mutation: 'foreign-rule-id',
            value: { ...b, rules: [{ id: 'rul_notmine', ...routingRule('os', 'ios', 'https://e.com') }] },
            statuses: [400],
          },
        ),
      ),
    },
    tryLinkRouting: {
      weight: 2,
      param: linkParam('link:stable'),
      body: trialBody,
      rules: trialBody.chain((b) =>
        fc.constantFrom<{ mutation: string; value: unknown; statuses: number[] }>(
          { mutation: 'bad-ip', value: { ...b, ip: 'not-an-address' }, statuses: [400] },
          { mutation: 'bad-country', value: { ...b, country: 'Narnia' }, statuses: [400] },
          { mutation: 'bad-at', value: { ...b, at: 'tomorrow' }, statuses: [400] },
        ),
      ),
    },
    getConversionSummary: { weight: 6, listing: true, query: summaryQuery },
    recordConversion: {
      weight: 8,
      body: conversionBody,
      headers: idempotency,
      allow: [409],
      rules: conversionBody.chain((b) =>
        fc.constantFrom<{ mutation: string; value: unknown; statuses: number[] }>(
          {
            mutation: 'custom-without-customName',
            value: { ...b, eventType: 'custom', customName: undefined },
            statuses: [400],
          },
          {
            mutation: 'customName-with-purchase',
            value: { ...b, eventType: 'purchase', customName: 'x' },
            statuses: [400],
          },
          {
            mutation: 'unknown-currency',
            value: { ...b, value: { amountMinor: 1, currency: 'ZZZ' } },
            statuses: [400],
          },
          {
            mutation: 'occurredAt-future',
            value: { ...b, occurredAt: new Date(now + 2 * DAY).toISOString() },
            statuses: [400],
          },
          {
            mutation: 'occurredAt-beyond-retention',
            value: { ...b, occurredAt: new Date(now - 401 * DAY).toISOString() },
            statuses: [400],
          },
          { mutation: 'metadata-over-4KiB', value: { ...b, metadata: { blob: 'm'.repeat(5000) } }, statuses: [400] },
          {
            mutation: 'unknown-linkId',
            value: { ...b, linkId: 'lnk_doesnotexist', qrCodeId: undefined },
            statuses: [400],
          },
          {
            mutation: 'deleted-linkId',
            value: { ...b, linkId: new Ref('link:deleted', 0), qrCodeId: undefined },
            statuses: [400],
          },
        ),
      ),
      foreignBody: conversionBody.chain((b) =>
        fc.constantFrom('linkId', 'campaignId', 'qrCodeId', 'qr-link-mismatch').chain((field) => {
          if (field === 'qr-link-mismatch') {
            return fc.tuple(ref('qr:main'), ref('link:mutable')).map(([qr, link]) => ({
              mutation: 'qrCodeId-with-another-link',
              value: { ...b, qrCodeId: qr, linkId: link },
              statuses: [400],
            }));
          }
          const pool = field === 'linkId' ? 'link:other' : field === 'campaignId' ? 'campaign:other' : 'qr:other';
          return ref(pool).map((id) => {
            const value: any = { ...b, [field]: id };
            if (field === 'qrCodeId') delete value.linkId;
            if (field === 'linkId') delete value.qrCodeId;
            return { mutation: `${field}-of-other-workspace`, value, statuses: [400] };
          });
        }),
      ),
    },
    listGoals: {
      weight: 3,
      listing: true,
      query: fc
        .option(fc.oneof(fc.constantFrom('ACTIVE', 'PAUSED', 'ARCHIVED', 'active', 'whatever', ''), text(0, 20)))
        .map((s) => (s === null ? [] : [['status', s] as [string, unknown]])),
    },
    getGoalReport: {
      weight: 5,
      param: {
        name: 'id',
        valid: pathOf('goal:main'),
        control: pathOf('goal:main'),
        other: pathOf('goal:other'),
        missing: missing('goal', 'link:stable', 'campaign:main'),
      },
      query: windowQuery(now),
    },
    createWebhook: {
      weight: 5,
      body: arbFor(schemaOf('createWebhook'), hookHint('A')),
      rules: arbFor(schemaOf('createWebhook'), hookHint('A')).chain((b) =>
        fc.constantFrom<{ mutation: string; value: unknown; statuses: number[] }>(
          ...world.retiredA.map((name) => ({
            mutation: `retired-event:${name}`,
            value: { ...(b as object), events: ['link.created', name] },
            statuses: [400],
          })),
          { mutation: 'variant-B-event', value: { ...(b as object), events: ['link.clicked'] }, statuses: [400] },
          { mutation: 'http-url', value: { ...(b as object), url: 'http://hooks.example.com/x' }, statuses: [400] },
          { mutation: 'not-a-url', value: { ...(b as object), url: 'hooks.example.com/x' }, statuses: [400] },
        ),
      ),
      foreignBody: fc
        .tuple(arbFor(schemaOf('createWebhook'), hookHint('A')), fc.constantFrom('ws:other', 'ws:main', 'ws:unknown'))
        .chain(([b, pool]) =>
          (pool === 'ws:unknown' ? unknownId('ws') : ref(pool)).map((w) => ({
            mutation: `workspaceId-${pool}`,
            value: { ...(b as object), workspaceId: w },
            statuses: [404],
          })),
        ),
    },
    listWebhooks: { weight: 3, listing: true },
    updateWebhook: {
      weight: 5,
      param: {
        name: 'id',
        valid: pathOf('hookA:mutable'),
        control: pathOf('hookA:control'),
        other: pathOf('hookA:other'),
        missing: missing('whk', 'hookB:control', 'hookA:deleted'),
      },
      body: arbFor(schemaOf('updateWebhook'), hookHint('A')),
      rules: arbFor(schemaOf('updateWebhook'), hookHint('A')).chain((b) =>
        fc.constantFrom<{ mutation: string; value: unknown; statuses: number[] }>(
          ...world.retiredA.map((name) => ({
            mutation: `retired-event:${name}`,
            value: { ...(b as object), events: [name] },
            statuses: [400],
          })),
          { mutation: 'http-url', value: { ...(b as object), url: 'http://hooks.example.com/x' }, statuses: [400] },
          { mutation: 'secret', value: { ...(b as object), secret: 'a-new-secret-of-16' }, statuses: [400] },
        ),
      ),
    },
    deleteWebhook: {
      weight: 3,
      param: {
        name: 'id',
        valid: pathOf('hookA:deletable'),
        control: pathOf('hookA:control'),
        other: pathOf('hookA:other'),
        missing: missing('whk', 'hookB:control', 'hookA:deleted'),
        consumes: true,
      },
    },
    getEventSchema: { weight: 2 },
    createWebhookV1: {
      weight: 5,
      body: arbFor(schemaOf('createWebhookV1'), hookHint('B')),
      rules: arbFor(schemaOf('createWebhookV1'), hookHint('B')).chain((b) =>
        fc.constantFrom<{ mutation: string; value: unknown; statuses: number[] }>(
          { mutation: 'variant-A-event', value: { ...(b as object), events: ['conversion.created'] }, statuses: [400] },
          { mutation: 'http-url', value: { ...(b as object), url: 'http://hooks.example.com/x' }, statuses: [400] },
          { mutation: 'secret-15-code-points', value: { ...(b as object), secret: '😀'.repeat(15) }, statuses: [400] },
        ),
      ),
    },
    listWebhooksV1: { weight: 3, listing: true },
    deleteWebhookV1: {
      weight: 3,
      param: {
        name: 'id',
        valid: pathOf('hookB:deletable'),
        control: pathOf('hookB:control'),
        other: pathOf('hookB:other'),
        missing: missing('whk', 'hookA:control', 'hookB:deleted'),
        consumes: true,
      },
    },
    followShortLink: {
      weight: 6,
      visitor: true,
      param: {
        name: 'slug',
        valid: pathOf('link:visit', 'slug'),
        control: pathOf('link:visit', 'slug'),
        other: pathOf('link:other', 'slug'),
        missing: fc.oneof(slugArb as fc.Arbitrary<PathValue>, pathOf('link:deletedslug', 'slug')),
      },
      headers: visitorHeaders,
    },
    submitLinkPassword: {
      weight: 2,
      visitor: true,
      param: {
        name: 'slug',
        // Valid plans unlock the protected links (GET the form, POST it back); the others hit every visitor link.
        valid: fc.oneof(
          { weight: 4, arbitrary: pathOf('link:protected', 'slug') },
          { weight: 1, arbitrary: pathOf('link:visit', 'slug') },
        ),
        control: pathOf('link:visit', 'slug'),
        other: pathOf('link:other', 'slug'),
        missing: slugArb,
      },
      headers: visitorHeaders,
    },
    scanQrCode: {
      weight: 3,
      visitor: true,
      param: {
        name: 'code',
        valid: fc
          .tuple(ref('qr:main', 'code'), fc.constantFrom('', '', '.svg', '.png', '.SVG'))
          .map(([r, ext]) => new Ref(r.pool, r.pick, `code${ext}`)),
        control: pathOf('qr:main', 'code'),
        other: pathOf('qr:other', 'code'),
        missing: fc.stringMatching(/^[a-z0-9]{1,45}$/),
      },
      headers: visitorHeaders,
    },
    // Tags, QR codes and domains: tag:main and qr:main stay as they are (links and conversions
    // name them); renames go to tag:mutable, deletes to tag:deletable and qr:deletable.
    listTags: { weight: 2, listing: true },
    createTag: {
      weight: 3,
      body: tagBody('createTag'),
      allow: [409],
      rules: fc.constantFrom({ mutation: 'name-the-workspace-has', value: { name: ' tag 0 ' }, statuses: [409] }),
    },
    updateTag: {
      weight: 3,
      param: {
        name: 'id',
        valid: pathOf('tag:mutable'),
        control: pathOf('tag:control'),
        other: pathOf('tag:other'),
        missing: missing('tag', 'tag:deleted', 'link:stable'),
      },
      body: tagBody('updateTag'),
      allow: [409],
      rules: fc.constantFrom({ mutation: 'name-another-tag-has', value: { name: 'tag 0' }, statuses: [409] }),
    },
    deleteTag: {
      weight: 2,
      param: {
        name: 'id',
        valid: pathOf('tag:deletable'),
        control: pathOf('tag:control'),
        other: pathOf('tag:other'),
        missing: missing('tag', 'tag:deleted', 'qr:main'),
        consumes: true,
      },
    },
    listQrCodes: {
      weight: 3,
      listing: true,
      query: fc
        .record(
          {
            page: fc.integer({ min: 1, max: 4 }),
            limit: fc.integer({ min: 1, max: 100 }),
            linkId: fc.oneof(ref('link:stable'), ref('link:other'), fc.constant('lnk_unknown')),
          },
          { requiredKeys: [] },
        )
        .map((q) => Object.entries(q)),
    },
    createQrCode: {
      weight: 3,
      body: fc.record({ linkId: ref('link:stable') }),
      rules: fc.constantFrom(
        { mutation: 'deleted-link', value: { linkId: new Ref('link:deleted', 0) }, statuses: [404] },
        { mutation: 'unknown-link', value: { linkId: 'lnk_doesnotexist' }, statuses: [404] },
      ),
      foreignBody: ref('link:other').map((linkId) => ({
        mutation: 'linkId-of-other-workspace',
        value: { linkId },
        statuses: [404],
      })),
    },
    getQrCode: {
      weight: 3,
      param: {
        name: 'id',
        valid: pathOf('qr:main'),
        control: pathOf('qr:main'),
        other: pathOf('qr:other'),
        missing: missing('qr', 'qr:deleted', 'link:stable'),
      },
    },
    deleteQrCode: {
      weight: 2,
      param: {
        name: 'id',
        valid: pathOf('qr:deletable'),
        control: pathOf('qr:control'),
        other: pathOf('qr:other'),
        missing: missing('qr', 'qr:deleted', 'tag:main'),
        consumes: true,
      },
    },
    listDomains: { weight: 1, listing: true },
    getHealth: { weight: 1 },
    // The fuzzed server's address is no dashboard host and it sets no ROOT_REDIRECT: a 404.
    getRoot: { weight: 1, allow: [404] },
    getReadiness: { weight: 1 },
    getMetrics: { weight: 1 },
    // The fuzzed server's own name (yes), or a name no workspace verified (no certificate).
    askCertificate: {
      weight: 1,
      allow: [404],
      query: fc
        .oneof(fc.constant('localhost'), fc.domain(), text(1, 253))
        .map((domain) => [['domain', domain]] as Array<[string, unknown]>),
    },
  };
}

// ---- mutations --------------------------------------------------------------------------------

const fillerFor =
  (prop: string) =>
  (n: number): string => {
    if (/url|image/i.test(prop)) {
      const head = 'https://example.com/';
      return n <= head.length ? 'https://e.co/x'.slice(0, Math.max(0, n)) : head + 'a'.repeat(n - head.length);
    }
    if (prop === 'slug') return 'a'.repeat(n);
    return 'x'.repeat(n);
  };

/** A schema mutation of a valid JSON body: validity (and so the expected status) is decided when sent. */
function bodyMutation(schema: any, valid: fc.Arbitrary<unknown>): fc.Arbitrary<{ mutation: string; body: BodySpec }> {
  const props: Record<string, any> = schema.properties ?? {};
  const names = Object.keys(props);
  const required: string[] = schema.required ?? [];
  const withProp = (
    f: (b: any, p: string) => fc.Arbitrary<{ mutation: string; value: unknown }>,
    candidates = names,
  ) =>
    candidates.length
      ? fc.tuple(valid, fc.constantFrom(...candidates)).chain(([b, p]) => f({ ...(b as object) }, p))
      : null;
  const options: Array<fc.Arbitrary<{ mutation: string; value: unknown; protoKey?: boolean }> | null> = [
    required.length
      ? fc.tuple(valid, fc.constantFrom(...required)).map(([b, p]) => {
          const c: any = { ...(b as object) };
          delete c[p];
          return { mutation: `missing-required:${p}`, value: c };
        })
      : null,
    withProp((b, p) =>
      fc
        .constantFrom(...wrongTypeValues(props[p]))
        .map((v) => ({ mutation: `wrong-type:${p}`, value: { ...b, [p]: v } })),
    ),
    withProp(
      (b, p) =>
        fc
          .constantFrom(...boundaryValues(props[p], fillerFor(p)))
          .map((v) => ({ mutation: `boundary:${p}`, value: { ...b, [p]: v } })),
      names.filter((p) => boundaryValues(props[p], fillerFor(p)).length),
    ),
    withProp(
      (b, p) =>
        fc.constantFrom(...enumViolations(props[p])).map((v) => ({ mutation: `enum:${p}`, value: { ...b, [p]: v } })),
      names.filter((p) => Array.isArray(props[p].enum)),
    ),
    withProp(
      (b, p) =>
        fc
          .constantFrom(...BAD_DATE_TIMES, ...EDGE_DATE_TIMES)
          .map((v) => ({ mutation: `format:${p}`, value: { ...b, [p]: v } })),
      names.filter((p) => props[p].format === 'date-time'),
    ),
    withProp(
      (b, p) =>
        fc
          .constantFrom(...NUMBERISH_STRINGS)
          .map((v) => ({ mutation: `numberish-string:${p}`, value: { ...b, [p]: v } })),
      names.filter((p) => ['integer', 'number'].some((t) => [props[p].type].flat().includes(t))),
    ),
    withProp(
      (b, p) =>
        fc.constantFrom<unknown[]>([1], [null], [{}], [''], ['x'.repeat(3000)], Array(200).fill('same')).map((v) => ({
          mutation: `array-items:${p}`,
          value: { ...b, [p]: v },
        })),
      names.filter((p) => [props[p].type].flat().includes('array')),
    ),
    fc
      .tuple(
        valid,
        fc.constantFrom(
          'zzz',
          'constructor',
          'prototype',
          'id',
          'workspaceId',
          'secret',
          'domainId',
          'x'.repeat(300),
          '',
        ),
        fc.jsonValue({ maxDepth: 1 }),
      )
      .map(([b, k, v]) => ({ mutation: `extra-field:${k.slice(0, 20)}`, value: { ...(b as object), [k]: v ?? null } })),
    valid.map((b) => ({ mutation: 'extra-field:__proto__', value: b, protoKey: true })),
    fc.constant({ mutation: 'empty-object', value: {} }),
  ];
  return fc.oneof(...options.filter((o): o is NonNullable<typeof o> => o !== null)).map((m) => ({
    mutation: m.mutation,
    body: { kind: 'json', value: m.value, protoKey: m.protoKey } as BodySpec,
  }));
}

/**
 * Transport-level mutations of a body-taking operation; each one must fail, with the status given.
 * `bodyLimit`: the operation's largest body (64 KiB; 1 MiB on /api/v1/links/bulk).
 */
function transportMutation(
  valid: fc.Arbitrary<unknown>,
  bodyLimit = 65_536,
): fc.Arbitrary<{ mutation: string; body?: BodySpec; expect: Expect }> {
  const fail = (statuses: number[]): Expect => ({ kind: 'fail', statuses });
  return fc.oneof(
    fc.constantFrom(...MALFORMED_BODIES).map(([name, data]) => ({
      mutation: `malformed:${name}`,
      body: { kind: 'raw', data, contentType: 'application/json' } as BodySpec,
      expect: fail([400]),
    })),
    fc.constantFrom(...NON_OBJECT_BODIES).map(([name, data]) => ({
      mutation: `not-an-object:${name}`,
      body: { kind: 'raw', data, contentType: 'application/json' } as BodySpec,
      expect: fail([400]),
    })),
    fc.constantFrom('empty-json', 'no-body').map((m) => ({
      mutation: m,
      body: m === 'empty-json' ? ({ kind: 'raw', data: '', contentType: 'application/json' } as BodySpec) : undefined,
      expect: fail([400]),
    })),
    fc
      .tuple(
        valid,
        fc.constantFrom(
          'text/plain',
          'application/xml',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          null,
          'application/json; charset=latin1',
          'application/json; charset=utf-16',
          'json',
          'application/jsonp',
        ),
      )
      .map(([b, ct]) => ({
        mutation: `content-type:${ct}`,
        body: { kind: 'json', value: b, contentType: ct } as BodySpec,
        expect: fail([400]),
      })),
    fc
      .tuple(
        valid,
        fc.constantFrom(
          'APPLICATION/JSON',
          'application/json; charset=UTF-8',
          'application/json;charset=utf-8',
          'application/vnd.api+json',
        ),
      )
      .map(([b, ct]) => ({
        mutation: `content-type-variant:${ct}`,
        body: { kind: 'json', value: b, contentType: ct } as BodySpec,
        expect: { kind: 'by-schema', alsoOk: true } as Expect,
      })),
    fc.tuple(valid, fc.constantFrom(65_537, 70_000, 200_000, 1_100_000), fc.boolean()).map(([b, size, chunked]) => ({
      mutation: `huge-body:${size}${chunked ? ':chunked' : ''}`,
      body: { kind: 'json', value: b, padTo: size, chunked } as BodySpec,
      expect: size > bodyLimit ? fail([413]) : ({ kind: 'by-schema' } as Expect),
    })),
    fc.constantFrom(70_000, 1_000_000).map((n) => ({
      mutation: `huge-string:${n}`,
      body: {
        kind: 'raw',
        data: JSON.stringify({ url: 'https://example.com', title: 'x'.repeat(n), events: ['x'], eventType: 'signup' }),
        contentType: 'application/json',
      } as BodySpec,
      // Under a larger limit the body is read, and refused as no body of the operation.
      expect: n > bodyLimit ? fail([413]) : fail([400]),
    })),
    valid.map((b) => ({
      mutation: 'chunked',
      body: { kind: 'json', value: b, chunked: true } as BodySpec,
      expect: { kind: 'by-schema', alsoOk: true } as Expect,
    })),
    valid.map((b) => ({
      mutation: 'exactly-64KiB',
      body: { kind: 'json', value: b, padTo: 65_536 } as BodySpec,
      expect: { kind: 'by-schema', alsoOk: true } as Expect,
    })),
    fc.tuple(valid, fc.constantFrom<'gzip' | 'deflate'>('gzip', 'deflate')).map(([b, enc]) => ({
      mutation: `content-encoding:${enc}`,
      body: { kind: 'json', value: b, encoding: enc } as BodySpec,
      expect: { kind: 'by-schema', alsoOk: true } as Expect,
    })),
    fc.tuple(valid, fc.constantFrom('gzip', 'deflate', 'br', 'compress', 'x-unknown')).map(([b, enc]) => ({
      mutation: `content-encoding-garbage:${enc}`,
      // The JSON text itself, labelled as compressed: it cannot be decoded.
      body: { kind: 'json', value: b, fakeEncoding: enc } as BodySpec,
      expect: fail([400]),
    })),
    valid.map((b) => ({
      mutation: 'bom-prefixed',
      body: { kind: 'json', value: b, bom: true } as BodySpec,
      expect: { kind: 'any' } as Expect,
    })),
    fc.constantFrom(2_000, 30_000).map((depth) => ({
      mutation: `deep-nesting:${depth}`,
      body: {
        kind: 'raw',
        data: `{"url":"https://example.com","eventType":"signup","events":["link.created"],"metadata":{"d":${'['.repeat(depth)}${']'.repeat(depth)}}}`,
        contentType: 'application/json',
      } as BodySpec,
      expect: { kind: 'any' } as Expect,
    })),
    valid.map((b) => ({
      mutation: 'duplicate-keys',
      body: {
        kind: 'raw',
        data: JSON.stringify(b).replace(/^\{/, '{"url":12,"events":7,"eventType":null,'),
        contentType: 'application/json',
      } as BodySpec,
      expect: { kind: 'any' } as Expect,
    })),
  );
}

/** Query-parameter mutations: validity against each parameter's schema decides the expectation when sent. */
function queryMutation(
  op: Operation,
  valid: fc.Arbitrary<Array<[string, unknown]>>,
): fc.Arbitrary<{ mutation: string; query: Array<[string, unknown]> }> {
  const params = op.parameters.filter((p) => p.in === 'query');
  const byName = (name: string) => params.find((p) => p.name === name);
  const options: Array<fc.Arbitrary<{ mutation: string; query: Array<[string, unknown]> }>> = [
    fc.tuple(valid, fc.constantFrom('foo', 'page[size]', '__proto__', 'limit', 'from', '')).map(([q, k]) => ({
      mutation: `extra-param:${k}`,
      query: [...q, [k, '1']],
    })),
  ];
  if (params.length) {
    const name = fc.constantFrom(...params.map((p) => p.name as string));
    options.push(
      fc.tuple(valid, name).chain(([q, n]) => {
        const schema = byName(n).schema ?? {};
        const values: unknown[] = [
          ...NUMBERISH_STRINGS,
          '0',
          '-1',
          '1.5',
          '101',
          '100',
          '1',
          'true',
          'null',
          'abc',
          '%',
          'x'.repeat(5000),
          ...(schema.format === 'date-time' ? [...BAD_DATE_TIMES, ...EDGE_DATE_TIMES] : []),
          ...(schema.enum ? enumViolations(schema) : []),
          ...(schema.maxLength !== undefined ? ['y'.repeat(schema.maxLength), 'y'.repeat(schema.maxLength + 1)] : []),
        ];
        return fc.constantFrom(...values).map((v) => ({
          mutation: `param:${n}`,
          query: [...q.filter(([k]) => k !== n), [n, v]] as Array<[string, unknown]>,
        }));
      }),
      fc.tuple(valid, name, fc.constantFrom(['1', '2'], ['2025-01-01T00:00:00Z', 'x'])).map(([q, n, vs]) => ({
        mutation: `repeated-param:${n}`,
        query: [...q.filter(([k]) => k !== n), ...vs.map((v) => [n, v] as [string, unknown])],
      })),
    );
    if (params.some((p) => p.name === 'from')) {
      const now = Date.now();
      options.push(
        fc.constantFrom(401, 400.0001, 1000, 100_000).map((days) => ({
          mutation: `window-too-long:${days}`,
          query: [
            ['from', new Date(now - days * DAY).toISOString()],
            ['to', new Date(now).toISOString()],
          ],
        })),
        fc.integer({ min: 1, max: 10 * DAY }).map((ms) => ({
          mutation: 'from-after-to',
          query: [
            ['from', new Date(now).toISOString()],
            ['to', new Date(now - ms).toISOString()],
          ],
        })),
        fc.constant({
          mutation: 'from-equals-to',
          query: [
            ['from', new Date(now).toISOString()],
            ['to', new Date(now).toISOString()],
          ],
        }),
        fc.constant({
          mutation: 'default-from-beyond-default-to',
          query: [['from', new Date(now + DAY).toISOString()]] as Array<[string, unknown]>,
        }),
      );
    }
    if (params.some((p) => p.name === 'customName')) {
      options.push(
        fc.constantFrom('purchase', 'signup').map((t) => ({
          mutation: 'customName-with-other-eventType',
          query: [
            ['customName', 'x'],
            ['eventType', t],
          ],
        })),
      );
    }
  }
  return fc.oneof(...options);
}

const ODD_HEADERS: Array<Record<string, string>> = [
  { accept: 'application/xml' },
  { accept: 'text/html;q=1, application/json;q=0' },
  { 'x-http-method-override': 'DELETE' },
  { 'x-http-method-override': 'PUT' },
  { 'x-forwarded-proto': 'http' },
  { 'x-forwarded-for': '127.0.0.1, 10.0.0.1, not-an-ip' },
  { 'x-forwarded-host': 'evil.example' },
  { origin: 'https://evil.example' },
  { expect: '100-continue' },
  { 'accept-encoding': 'gzip, br, zstd' },
  { 'accept-charset': 'utf-16' },
  { range: 'bytes=0-1' },
  { 'if-none-match': '*' },
  { 'x-service-request-id': 'spoofed-request-id' },
  { 'x-country-code': 'ZZ' },
  { 'cf-ipcountry': '\u00e9' },
  { cookie: 'sl_csrf=x; session=y; api_key=mk_0' },
  { 'user-agent': 'x'.repeat(8000) },
  { 'content-type': 'application/json' },
];

const AUTH_POOLS = ['revoked', 'expired', 'free', 'free-was-paid', 'pro', 'noscope', 'unknown'] as const;
const AUTH_STATUS: Record<(typeof AUTH_POOLS)[number], number> = {
  revoked: 401,
  expired: 401,
  free: 401,
  'free-was-paid': 401,
  pro: 403,
  noscope: 403,
  unknown: 401,
};

/** Every plan for one operation, weighted by category. */
function planFor(op: Operation, spec: OpSpec): fc.Arbitrary<Plan> {
  const secured = op.scopes !== null;
  const param = spec.param;
  const validQuery = spec.query ?? fc.constant([] as Array<[string, unknown]>);
  const validHeaders = spec.headers ?? fc.constant({} as Record<string, unknown>);
  const validBody = spec.body;
  const validExpect: Expect = spec.visitor ? { kind: 'any' } : { kind: 'ok', allow: spec.allow ?? [] };
  const base = (pathArb: fc.Arbitrary<PathValue> | undefined) =>
    fc.record({
      path: pathArb ?? fc.constant(undefined),
      // Where a plan on a control object goes when its mutation turns out valid (decided when sent).
      validPath: param?.valid ?? fc.constant(undefined),
      query: validQuery,
      headers: validHeaders,
      body: validBody ?? fc.constant(undefined),
    });
  const make = (
    category: Category,
    mutation: string,
    parts: {
      path?: PathValue;
      validPath?: PathValue;
      query: Array<[string, unknown]>;
      headers: Record<string, unknown>;
      body?: unknown;
    },
    extra: Partial<Plan> = {},
  ): Plan => ({
    op: op.operationId,
    category,
    mutation,
    auth: { kind: 'own' },
    pathParams: param && parts.path !== undefined ? { [param.name]: parts.path } : {},
    validPathParams: param && parts.validPath !== undefined ? { [param.name]: parts.validPath } : undefined,
    consumesIfValid: param?.consumes,
    query: parts.query,
    headers: parts.headers,
    body: validBody && parts.body !== undefined ? { kind: 'json', value: parts.body } : undefined,
    expect: validExpect,
    ...extra,
  });

  const categories: Array<{ weight: number; arbitrary: fc.Arbitrary<Plan> }> = [];
  // Valid requests.
  categories.push({
    weight: 40,
    arbitrary: base(param?.valid).map((p) =>
      make('valid', 'valid', p, {
        consumes: param?.consumes,
        ...(op.operationId === 'submitLinkPassword' ? { body: { kind: 'form', fields: {}, flow: 'unlock' } } : {}),
      }),
    ),
  });
  // Schema mutations of the body, the query or the Idempotency-Key header.
  const schemaOptions: Array<fc.Arbitrary<Plan>> = [];
  if (validBody && op.requestSchema) {
    schemaOptions.push(
      fc
        .tuple(base(param?.control ?? param?.valid), bodyMutation(op.requestSchema, validBody))
        .map(([p, m]) =>
          make('schema', m.mutation, p, { body: m.body, expect: { kind: 'by-schema' }, control: !!param?.control }),
        ),
    );
  }
  if (spec.rules) {
    schemaOptions.push(
      fc.tuple(base(param?.control ?? param?.valid), spec.rules).map(([p, r]) =>
        make(
          'schema',
          `rule:${r.mutation}`,
          { ...p, path: r.path ?? p.path },
          {
            body: { kind: 'json', value: r.value },
            expect: { kind: 'fail', statuses: r.statuses },
            control: !!param?.control,
          },
        ),
      ),
    );
  }
  if (op.isApi && op.scopes !== null) {
    schemaOptions.push(
      fc
        .tuple(base(param?.control ?? param?.valid), queryMutation(op, validQuery))
        .map(([p, m]) =>
          make(
            'schema',
            m.mutation,
            { ...p, query: m.query },
            { expect: { kind: 'by-schema' }, control: !!param?.control },
          ),
        ),
    );
  }
  if (op.parameters.some((p) => p.in === 'header')) {
    schemaOptions.push(
      fc
        .tuple(
          base(undefined),
          fc.constantFrom('', ' ', 'k'.repeat(255), 'k'.repeat(256), 'k'.repeat(5000), 'caf\u00e9', 'a\tb'),
        )
        .map(([p, v]) =>
          make(
            'schema',
            `header:Idempotency-Key:${v.length}`,
            { ...p, headers: { 'Idempotency-Key': v } },
            { expect: { kind: 'by-schema', alsoOk: true } },
          ),
        ),
    );
  }
  if (op.operationId === 'submitLinkPassword') {
    schemaOptions.push(
      fc
        .tuple(
          base(param!.valid),
          fc.record(
            {
              csrf: fc.oneof(text(0, 40), fc.constant('lt2k9x.Zk3u8Q2m1vXr.1mXn0s3bqC2k')),
              password: fc.oneof(text(0, 40), fc.constant('x'.repeat(300))),
            },
            { requiredKeys: [] },
          ),
        )
        .map(([p, fields]) =>
          make('schema', 'form-fields', p, { body: { kind: 'form', fields }, expect: { kind: 'any' } }),
        ),
    );
  }
  if (schemaOptions.length) categories.push({ weight: 25, arbitrary: fc.oneof(...schemaOptions) });
  // Transport: malformed, not-an-object, wrong Content-Type, huge, encoded bodies; bodies on body-less operations.
  if (validBody) {
    categories.push({
      weight: 8,
      arbitrary: transportMutation(validBody, op.path === '/api/v1/links/bulk' ? 1_048_576 : 65_536).chain((m) =>
        base(m.expect.kind === 'fail' ? (param?.control ?? param?.valid) : param?.valid).map((p) =>
          make('transport', m.mutation, p, {
            body: m.body,
            expect: m.expect,
            control: !!param?.control && m.expect.kind === 'fail',
            consumes: m.expect.kind === 'fail' ? undefined : param?.consumes,
          }),
        ),
      ),
    });
  } else if (op.operationId === 'submitLinkPassword') {
    categories.push({
      weight: 8,
      arbitrary: fc.tuple(base(param!.valid), fc.constantFrom(1_000, 4_096, 4_097, 10_000, 70_000)).map(([p, size]) =>
        make('transport', `form-size:${size}`, p, {
          body: {
            kind: 'raw',
            data: `csrf=x&password=${'p'.repeat(size)}`,
            contentType: 'application/x-www-form-urlencoded',
          },
          expect: { kind: 'any' },
        }),
      ),
    });
  } else {
    categories.push({
      weight: 4,
      arbitrary: fc
        .tuple(
          base(param?.valid),
          fc.constantFrom<[string, string | Buffer, string | null]>(
            ['json-body', '{"unexpected":true}', 'application/json'],
            ['malformed-body', '{"unexpected":', 'application/json'],
            ['text-body', 'hello', 'text/plain'],
            ['huge-body', 'x'.repeat(70_000), 'text/plain'],
            ['huge-json-body', `{"x":"${'x'.repeat(70_000)}"}`, 'application/json'],
          ),
        )
        .map(([p, [name, data, ct]]) =>
          make('transport', `body-on-bodiless:${name}`, p, {
            body: { kind: 'raw', data, contentType: ct },
            expect: { kind: 'any' },
            // A delete with a body may still delete: only failing plans may use control objects.
            consumes: param?.consumes,
          }),
        ),
    });
  }
  // Headers a valid request does not need: they must change nothing (no method override, no trusted proxy, no content negotiation).
  categories.push({
    weight: 4,
    arbitrary: fc.tuple(base(param?.valid), fc.constantFrom(...ODD_HEADERS)).map(([p, h]) =>
      make(
        'transport',
        `odd-header:${Object.keys(h)[0]}`,
        { ...p, headers: { ...p.headers, ...h } },
        {
          consumes: param?.consumes,
          ...(op.operationId === 'submitLinkPassword'
            ? { body: { kind: 'form', fields: { csrf: 'x', password: 'y' } } as BodySpec }
            : {}),
        },
      ),
    ),
  });
  // Authentication and authorisation.
  if (secured) {
    categories.push({
      weight: 12,
      arbitrary: fc
        .tuple(
          base(param?.control ?? param?.valid),
          fc.oneof(
            fc.constant<AuthSpec>({ kind: 'none' }),
            fc.nat(16).map<AuthSpec>((variant) => ({ kind: 'malformed', variant })),
            fc.constantFrom(...AUTH_POOLS).map<AuthSpec>((pool) => ({ kind: 'pool', pool })),
            fc.constantFrom<AuthSpec>(
              { kind: 'header', name: 'X-Api-Key', value: 'own' },
              { kind: 'header', name: 'Authorization-Query', value: 'own' },
              { kind: 'header', name: 'Cookie', value: 'own' },
            ),
          ),
        )
        .map(([p, auth]) => {
          const status = auth.kind === 'pool' ? AUTH_STATUS[auth.pool as keyof typeof AUTH_STATUS] : 401;
          return make(
            'auth',
            `auth:${auth.kind === 'pool' ? auth.pool : auth.kind === 'header' ? `key-in-${auth.name}` : auth.kind}`,
            p,
            {
              auth,
              expect: { kind: 'fail', statuses: [status] },
              control: !!param?.control,
            },
          );
        }),
    });
  } else {
    // Public: a key (good, bad or foreign) changes nothing.
    categories.push({
      weight: 6,
      arbitrary: fc
        .tuple(
          base(param?.valid),
          fc.oneof(
            fc.nat(16).map<AuthSpec>((variant) => ({ kind: 'malformed', variant })),
            fc.constantFrom(...AUTH_POOLS, 'other' as const).map<AuthSpec>((pool) => ({ kind: 'pool', pool })),
          ),
        )
        .map(([p, auth]) =>
          make('auth', `public-with-key:${auth.kind === 'pool' ? auth.pool : 'malformed'}`, p, {
            auth,
            ...(op.operationId === 'submitLinkPassword'
              ? { body: { kind: 'form', fields: { csrf: 'x', password: 'y' } } as BodySpec }
              : {}),
          }),
        ),
    });
  }
  // Cross-workspace: the other workspace's key on our objects, our key on theirs, their ids in our bodies, their view of our lists.
  if (secured) {
    const foreign: Array<fc.Arbitrary<Plan>> = [];
    if (param) {
      foreign.push(
        base(param.control).map((p) =>
          make('foreign', 'other-workspace-key-on-own-object', p, {
            auth: { kind: 'pool', pool: 'other' },
            expect: { kind: 'fail', statuses: [404] },
            control: true,
          }),
        ),
        base(param.other).map((p) =>
          make('foreign', 'own-key-on-other-workspace-object', p, { expect: { kind: 'fail', statuses: [404] } }),
        ),
      );
    }
    if (spec.foreignBody) {
      foreign.push(
        fc.tuple(base(param?.control ?? param?.valid), spec.foreignBody).map(([p, fb]) =>
          make('foreign', fb.mutation, p, {
            body: { kind: 'json', value: fb.value },
            expect: { kind: 'fail', statuses: fb.statuses },
            control: !!param?.control,
          }),
        ),
      );
    }
    if (spec.listing) {
      foreign.push(
        base(undefined).map((p) =>
          make('foreign', 'other-workspace-listing', p, {
            auth: { kind: 'pool', pool: 'other' },
            expect: { kind: 'ok', allow: [] },
          }),
        ),
      );
    }
    if (foreign.length) categories.push({ weight: 8, arbitrary: fc.oneof(...foreign) });
  }
  // Path ids that do not exist, are of another kind, were deleted, or are not ids at all.
  if (param) {
    categories.push({
      weight: 6,
      arbitrary: fc.oneof(
        base(param.missing).map((p) =>
          make('id', 'missing-object', p, {
            expect: spec.visitor ? { kind: 'any' } : { kind: 'fail', statuses: [404] },
          }),
        ),
        fc
          .tuple(base(undefined), fc.constantFrom(...WEIRD_SEGMENTS))
          .map(([p, seg]) =>
            make(
              'id',
              `weird-segment:${seg.slice(0, 24)}`,
              { ...p, path: { raw: seg } },
              { expect: spec.visitor ? { kind: 'any' } : { kind: 'fail', statuses: [400, 404] } },
            ),
          ),
      ),
    });
  }
  // Unicode in every string the operation takes: body fields, query parameters, path segments.
  const unicode: Array<fc.Arbitrary<Plan>> = [];
  const stringProps = Object.entries<any>(op.requestSchema?.properties ?? {})
    .filter(([, s]) => [s.type].flat().includes('string') || s.items?.type === 'string')
    .map(([k, s]) => [k, s.type === 'array' || [s.type].flat().includes('array')] as const);
  if (validBody && stringProps.length) {
    unicode.push(
      fc
        .tuple(
          base(param?.valid),
          fc.constantFrom(...stringProps),
          fc.constantFrom(...UNICODE_TORTURE),
          fc.constantFrom('whole', 'suffix'),
        )
        .map(([p, [k, isArray], u, how]) => {
          const b: any = { ...(p.body as object) };
          const current = typeof b[k] === 'string' ? b[k] : k === 'url' ? 'https://example.com/' : 'fuzz';
          const value = how === 'whole' ? u : `${current}${u}`;
          b[k] = isArray ? [value] : value;
          return make(
            'unicode',
            `unicode:${k}`,
            { ...p, body: b },
            { expect: { kind: 'any' }, consumes: param?.consumes },
          );
        }),
    );
  }
  const stringParams = op.parameters.filter((p) => p.in === 'query');
  if (stringParams.length) {
    unicode.push(
      fc
        .tuple(
          base(param?.valid),
          fc.constantFrom(...stringParams.map((p) => p.name as string)),
          fc.constantFrom(...UNICODE_TORTURE),
        )
        .map(([p, n, u]) =>
          make(
            'unicode',
            `unicode-param:${n}`,
            { ...p, query: [...p.query.filter(([k]) => k !== n), [n, u]] },
            { expect: { kind: 'any' }, consumes: param?.consumes },
          ),
        ),
    );
  }
  if (param) {
    unicode.push(
      fc
        .tuple(base(undefined), fc.constantFrom(...UNICODE_TORTURE))
        .map(([p, u]) =>
          make(
            'unicode',
            'unicode-path',
            { ...p, path: u },
            { expect: spec.visitor ? { kind: 'any' } : { kind: 'fail', statuses: [400, 404] } },
          ),
        ),
    );
  }
  if (unicode.length) categories.push({ weight: 4, arbitrary: fc.oneof(...unicode) });
  return fc.oneof(...categories);
}

/** The whole request mix: every operation of the document, weighted; fails when an operation has no spec. */
/** One rule of a routing document with one condition. */
const routingRule = (type: string, value: string, url: string) => ({ conditions: [{ type, value }], url });

export function planArbitrary(ops: Operation[], world: World): fc.Arbitrary<Plan> {
  const specs = operationSpecs(ops, world);
  const missing = ops.filter((o) => !specs[o.operationId]).map((o) => o.operationId);
  if (missing.length) throw new Error(`the fuzzer has no spec for operations: ${missing.join(', ')}`);
  return fc.oneof(
    ...ops.map((op) => ({ weight: specs[op.operationId].weight, arbitrary: planFor(op, specs[op.operationId]) })),
  );
}
