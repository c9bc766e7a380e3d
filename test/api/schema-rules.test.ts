// The public contract says the rules of its requests that JSON Schema can say, and no more than
// the service enforces (the interface's fields and rules stay exactly theirs): each request below
// is invalid against its operation's schema (Ajv 2020-12, as Prism and generated clients check
// it), and the service, through HTTPS on every engine, refuses it with 400 naming the field and
// saying what is wrong; the near misses the service takes are valid.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKey } from '../../src/db/repos/api-keys';
import { testEngines } from '../support/databases';
import { operations, validatorAt } from '../support/fuzz-openapi';
import { seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

const SCOPES = ['links:read', 'links:write', 'webhooks:read', 'webhooks:write'] as const;

function bodyValid(operationId: string, body: unknown): boolean {
  const op = operations().find((o) => o.operationId === operationId)!;
  return validatorAt(`${op.pointer}/requestBody/content/application~1json/schema`)(body) as boolean;
}

type Body = Record<string, unknown>;
type Sent = { operationId: string; method: string; path: string; body: Body };
type Case = Sent & { what: string; field: string; error: string };
const create = (body: Body): Sent => ({
  operationId: 'createLink',
  method: 'POST',
  path: '/api/v1/links',
  body: { url: 'https://example.com', ...body },
});
const patch = (body: Body): Sent => ({ operationId: 'updateLink', method: 'PATCH', path: '/api/v1/links/{id}', body });
const refuse = (what: string, sent: Sent, field: string, error: string): Case => ({ what, ...sent, field, error });
const HTTP_URL = 'must be an absolute http or https URL';
const SLUG = 'must be 1 to 64 characters of a-z, 0-9, _ and -';
const HTTPS_URL = 'url must be an absolute https URL; plain http URLs are refused';

const refused: Case[] = [
  refuse('a destination that is not http(s)', create({ url: 'ftp://example.com/x' }), 'url', `url ${HTTP_URL}`),
  refuse('a relative destination', create({ url: '/relative' }), 'url', `url ${HTTP_URL}`),
  refuse('a slug with a dot', create({ slug: 'dot.dot' }), 'slug', `slug ${SLUG}`),
  refuse('a javascript: expiredUrl', create({ expiredUrl: 'javascript:x' }), 'expiredUrl', `expiredUrl ${HTTP_URL}`),
  refuse('an empty tag id', create({ tagIds: [''] }), 'tagIds.0', 'tagIds.0 must not be empty'),
  refuse(
    'neverExpires with a date',
    patch({ neverExpires: true, expiresAt: '2031-01-01T00:00:00Z' }),
    'neverExpires',
    'neverExpires true cannot be combined with an expiresAt date',
  ),
  refuse(
    'an http preview image',
    patch({ previewImage: 'http://localhost:8443/assets/a.png' }),
    'previewImage',
    'previewImage must be an https URL of an image hosted by the service',
  ),
  refuse('a slug with a space', patch({ slug: 'two words' }), 'slug', `slug ${SLUG}`),
  refuse(
    'a Variant A endpoint over plain http',
    {
      operationId: 'createWebhook',
      method: 'POST',
      path: '/api/webhooks',
      body: { workspaceId: '{workspaceId}', url: 'http://hooks.example.com/a', events: ['link.created'] },
    },
    'url',
    HTTPS_URL,
  ),
  refuse(
    'a Variant B endpoint that is not a URL',
    {
      operationId: 'createWebhookV1',
      method: 'POST',
      path: '/api/v1/webhooks',
      body: { url: 'hooks.example.com/b', events: ['link.clicked'], secret: 'a-caller-chosen-secret' },
    },
    'url',
    HTTPS_URL,
  ),
];

describe.each(testEngines())("the public contract's rules on %s", (engine) => {
  let server: TestServer;
  let owner: Seeded;
  let linkId: string;
  const knex = () => server.services.db.knex;
  const send = (method: string, path: string, body: unknown) => server.request(method, path, { key: owner.key, body });

  beforeAll(async () => {
    server = await startTestServer(engine);
    owner = await seedWorkspace(knex(), { scopes: [...SCOPES] });
  });
  // A fresh key per test: each key has its own 60-requests-a-minute budget.
  beforeEach(async () => {
    owner = { ...owner, ...(await createKey(knex(), owner.workspaceId, owner.userId, [...SCOPES], null)) };
    linkId ??= (await send('POST', '/api/v1/links', { url: 'https://example.com/rules' })).body.data.id;
  });
  afterAll(async () => server?.stop());

  it.each(refused)('the contract and the service refuse $what', async (c) => {
    const body = JSON.parse(JSON.stringify(c.body).replace('{workspaceId}', owner.workspaceId));
    expect(bodyValid(c.operationId, body), 'the contract takes it').toBe(false);
    const res = await send(c.method, c.path.replace('{id}', linkId), body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: c.error, field: c.field });
  });

  it('takes what the service takes: a reserved slug (409), the Kelvin sign, a padded URL, no fallback', async () => {
    const cases: Array<[Record<string, unknown>, number, Record<string, unknown>?]> = [
      [{ url: 'https://example.com', slug: 'Favicon.ICO' }, 409],
      [{ url: 'https://example.com', slug: `\u212Aelvin-${engine}` }, 201, { slug: `kelvin-${engine}` }],
      [{ url: ' \thttps://example.com/padded ' }, 201, { originalUrl: 'https://example.com/padded' }],
      [{ url: 'https://example.com', expiredUrl: '' }, 201, { expiredUrl: null }],
    ];
    for (const [body, status, data] of cases) {
      expect(bodyValid('createLink', body), JSON.stringify(body)).toBe(true);
      const res = await send('POST', '/api/v1/links', body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(status);
      if (data) expect(res.body.data).toMatchObject(data);
    }
    const cleared = { neverExpires: true, expiresAt: null, previewImage: null, expiredUrl: '' };
    expect(bodyValid('updateLink', cleared)).toBe(true);
    expect((await send('PATCH', `/api/v1/links/${linkId}`, cleared)).status).toBe(200);
  });
});
