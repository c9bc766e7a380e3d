// Every request example of the OpenAPI document, sent to the running service today, gets the
// status the document gives it, on every database engine: an example that names a date which
// has since gone stale, a host of one deployment or an object that cannot exist fails here.
//
// One request per request-body example (or one per operation without a body), carrying the
// examples of the operation's parameters; and one more for each optional parameter's example
// sent on its own, as a reader may copy just one. Ids are the document's own: each example runs in a
// fresh workspace that holds one object of each kind, and every id of the form `lnk_...`,
// `gol_...`, `cmp_...`, `qr_...`, `tag_...`, `dom_...`, `ws_...`, `whk_...` is replaced by the
// real id of that kind; an image on the documentation host (`https://sho.rt/assets/...`) by an
// image the workspace holds under this deployment's ASSET_BASE_URL; the slug and QR code of the
// visitor paths by a link (and QR code) made with them; the password form's anti-forgery token by
// the one its form gives. Nothing else is changed: dates, names and values are sent as written.
//
// The status expected: the one whose response has an example of the same name, else the
// operation's first success status; the visitor paths (tag "Short links") redirect a person who
// follows, scans or unlocks a link (302, a TEMPORARY link), which their descriptions give, and
// askCertificate's example names a domain no workspace verified (404).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as goalsRepo from '../../src/db/repos/goals';
import { testEngines } from '../support/databases';
import { checkResponse, document, follow, operations, type Operation } from '../support/fuzz-openapi';
import { API_SCOPES, hostImage, seedWorkspace } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';
import { goalDefinition } from '../support/stored-rows';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { createCampaign, createQrCode, createTag } from '../../src/db/repos/workspace-objects';

const DOC_ASSETS = 'https://sho.rt/assets/';
const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const VISITOR_STATUS: Record<string, number> = {
  followShortLink: 302,
  scanQrCode: 302,
  submitLinkPassword: 302,
  // The test server's address is not the dashboard's host and sets no ROOT_REDIRECT.
  getRoot: 404,
  // Its example asks about a name no workspace verified.
  askCertificate: 404,
};

interface RequestExample {
  op: Operation;
  /** The request body example's name ('' for an operation without a body). */
  name: string;
  params: Array<{ name: string; in: string; value: unknown }>;
  /** Which optional parameter's example is sent on its own (a reader may copy just that one). */
  only?: string;
  body?: { mediaType: string; value: unknown };
  expected: number;
}

const exampleOf = (p: any): unknown =>
  p.example !== undefined ? p.example : p.examples ? Object.values<any>(p.examples)[0]?.value : undefined;

function requestExamples(): RequestExample[] {
  const out: RequestExample[] = [];
  for (const op of operations()) {
    const params = op.parameters
      .filter((p) => exampleOf(p) !== undefined)
      .map((p) => ({ name: p.name, in: p.in, value: exampleOf(p) }));
    for (const p of op.parameters.filter((x) => x.in === 'path')) {
      if (!params.some((x) => x.name === p.name))
        throw new Error(`${op.operationId}: path parameter ${p.name} has no example`);
    }
    const content = op.op.requestBody ? (follow(op.op.requestBody, op.pointer).node.content ?? {}) : {};
    const bodies = Object.entries<any>(content).flatMap(([mediaType, media]) =>
      media.examples
        ? Object.entries<any>(media.examples).map(([name, ex]) => ({
            name,
            mediaType,
            value: follow(ex, op.pointer).node.value,
          }))
        : media.example !== undefined
          ? [{ name: 'example', mediaType, value: media.example }]
          : [],
    );
    if (op.requestBodyRequired && !bodies.length)
      throw new Error(`${op.operationId}: a required request body without an example`);
    const expectedFor = (name: string) => {
      if (VISITOR_STATUS[op.operationId]) return VISITOR_STATUS[op.operationId];
      for (const [status, _response] of op.responses) {
        const media = follow(op.op.responses[String(status)], op.pointer).node.content ?? {};
        if (Object.values<any>(media).some((m) => m.examples && name in m.examples)) return status;
      }
      return [...op.responses.keys()].filter((s) => s >= 200 && s < 300).sort()[0];
    };
    if (!bodies.length) {
      out.push({ op, name: '', params, expected: expectedFor('') });
      // Each optional parameter's example also stands on its own: sent with the required ones only.
      const optional = op.parameters.filter((p) => p.in !== 'path' && !p.required && exampleOf(p) !== undefined);
      if (optional.length > 1) {
        for (const p of optional) {
          out.push({
            op,
            name: '',
            only: p.name,
            params: params.filter(
              (x) =>
                x.name === p.name || op.parameters.some((q) => q.name === x.name && (q.in === 'path' || q.required)),
            ),
            expected: expectedFor(''),
          });
        }
      }
    }
    for (const b of bodies)
      out.push({
        op,
        name: b.name,
        params,
        body: { mediaType: b.mediaType, value: b.value },
        expected: expectedFor(b.name),
      });
  }
  return out;
}

const EXAMPLES = requestExamples();
const label = (e: RequestExample) =>
  `${e.op.operationId}${e.name ? ` (${e.name})` : ''}${e.only ? ` (only ${e.only})` : ''} -> ${e.expected}`;

describe.each(testEngines())('the OpenAPI request examples, sent to the service on %s', (engine) => {
  let server: TestServer;
  const knex = () => server.services.db.knex;
  let domains = 0;

  beforeAll(async () => {
    server = await startTestServer(engine);
  });
  afterAll(async () => server?.stop());

  it('are many and cover every operation', () => {
    expect(new Set(EXAMPLES.map((e) => e.op.operationId))).toEqual(new Set(operations().map((o) => o.operationId)));
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(25);
    for (const e of EXAMPLES) expect(e.op.responses.has(e.expected), label(e)).toBe(true);
  });

  it.each(EXAMPLES.map((e) => [label(e), e] as const))('%s', async (_label, example) => {
    const { op } = example;
    // A workspace of its own, holding one object of each kind the examples name.
    const owner = await seedWorkspace(knex(), { scopes: API_SCOPES });
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await server.request(method, path, { key: owner.key, body });
      expect(res.status, `setup ${method} ${path}: ${res.text}`).toBeLessThan(300);
      return res.body;
    };
    const visitorSlug = op.parameters.some((p) => p.in === 'path' && p.name === 'slug')
      ? String(exampleOf(op.parameters.find((p) => p.name === 'slug')))
      : undefined;
    const password =
      example.body?.mediaType === 'application/x-www-form-urlencoded'
        ? String((example.body.value as any).password)
        : undefined;
    const link = (
      await api('POST', '/api/v1/links', {
        url: 'https://example.com/landing',
        ...(visitorSlug ? { slug: visitorSlug } : {}),
        ...(password ? { password } : {}),
      })
    ).data;
    const qr = await createQrCode(knex(), owner.workspaceId, link.id);
    const host = `examples-${engine}-${++domains}-${Date.now()}.example.test`;
    const domainId = await addDomain(knex(), owner.workspaceId, host);
    await setDomainStatus(knex(), domainId, 'ACTIVE');
    const real: Record<string, string> = {
      lnk: link.id,
      gol: (
        await goalsRepo.createGoal(
          knex(),
          owner.workspaceId,
          goalDefinition({ name: 'Spring sale revenue', type: 'purchase', target_count: 100 }),
        )
      ).id,
      cmp: await createCampaign(knex(), owner.workspaceId, 'Spring sale'),
      qr: qr.id,
      tag: await createTag(knex(), owner.workspaceId, 'newsletter', '#22c55e'),
      dom: domainId,
      ws: owner.workspaceId,
      whkA: (
        await api('POST', '/api/webhooks', {
          workspaceId: owner.workspaceId,
          url: 'https://hooks.example.com/a',
          events: ['link.created'],
        })
      ).data.id,
      whkB: (
        await api('POST', '/api/v1/webhooks', {
          url: 'https://hooks.example.com/b',
          events: ['link.clicked'],
          secret: 'sixteen-chars-or-more',
        })
      ).id,
    };
    const image = await hostImage(knex(), owner.workspaceId, server.services.config.assetBaseUrl);
    const variant = op.path.startsWith('/api/v1/webhooks') ? 'B' : 'A';
    const substitute = (value: unknown): unknown => {
      if (typeof value === 'string') {
        const kind = /^(lnk|gol|cmp|qr|whk|ws|tag|dom)_[A-Za-z0-9]+$/.exec(value)?.[1];
        if (kind) return kind === 'whk' ? real[`whk${variant}`] : real[kind];
        if (value.startsWith(DOC_ASSETS)) return image;
        return value;
      }
      if (Array.isArray(value)) return value.map(substitute);
      if (value && typeof value === 'object')
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v)]));
      return value;
    };

    // The request, as the document gives it.
    let path = op.path;
    const query = new URLSearchParams();
    const headers: Record<string, string> = {};
    for (const p of example.params) {
      const value = p.in === 'path' && p.name === 'code' ? qr.code : String(substitute(p.value));
      if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(value));
      else if (p.in === 'query') query.set(p.name, value);
      else if (p.in === 'header') headers[p.name] = value;
    }
    if (!op.isApi) headers['user-agent'] = PERSON;
    const target = query.toString() ? `${path}?${query}` : path;
    const opts: Parameters<TestServer['request']>[2] = { headers, ...(op.scopes ? { key: owner.key } : {}) };
    if (example.body?.mediaType === 'application/json') opts.body = substitute(example.body.value);
    else if (example.body) {
      // The password form: its anti-forgery token and cookie are the ones the form gives.
      const form = await server.request('GET', path, { headers });
      expect(form.status, form.text).toBe(401);
      const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)?.[1];
      const cookie = String(form.headers['set-cookie'] ?? '').split(';')[0];
      expect(csrf && cookie, 'the password form gives a token and its cookie').toBeTruthy();
      const fields = { ...(example.body.value as Record<string, string>), csrf: csrf! };
      opts.rawBody = new URLSearchParams(fields).toString();
      opts.headers = { ...headers, 'content-type': example.body.mediaType, cookie };
    }
    try {
      const res = await server.request(op.method, target, opts);
      expect(
        res.status,
        `${op.method} ${target} ${opts.rawBody ?? JSON.stringify(opts.body ?? '')}\n -> ${res.text.slice(0, 400)}`,
      ).toBe(example.expected);
      expect(checkResponse(op, res), `${label(example)}: the answer as the document describes it`).toEqual([]);
    } finally {
      // The slugs the examples name are free again for the next one.
      const live = await knex()('links')
        .where({ workspace_id: owner.workspaceId })
        .whereNull('deleted_at')
        .select('id');
      for (const l of live) await api('DELETE', `/api/v1/links/${l.id}`);
    }
  });
});

// The document itself: no example names a deployment's own host.
describe('the OpenAPI examples', () => {
  it("name no deployment's host in a value a client would send or be sent (the documentation host is https://sho.rt)", () => {
    const text = JSON.stringify(document.paths);
    expect(text).not.toContain('https://localhost:8443/assets');
    expect(text).toContain(DOC_ASSETS);
  });
});
