// Tags, QR codes and custom domains through the public API (openapi/paths/api_v1_tags*.yaml,
// api_v1_qr_codes*.yaml, api_v1_domains.yaml), over HTTPS on every database engine: the name and
// colour rules, the workspace's walls, a deleted tag leaving its links without `link.updated`, a
// deleted QR code's scans and conversions, paging, and the domains' statuses. The isolation and
// key checks of every operation are in ./isolation.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { testEngines } from '../support/databases';
import { API_SCOPES, seedMemberKey, seedWorkspace, type Seeded } from '../support/seed';
import { startTestServer, twoProcessesOnOnePostgres, type TestServer } from '../support/server';

describe.each(testEngines())('tags, QR codes and domains through the API on %s', (engine) => {
  let server: TestServer;
  let owner: Seeded;
  let other: Seeded;
  const knex = () => server.services.db.knex;
  const as = (who: Seeded) => (method: string, path: string, body?: unknown) =>
    server.request(method, path, { key: who.key, body });
  const api = (method: string, path: string, body?: unknown) => as(owner)(method, path, body);
  const ok = async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await api(method, path, body);
    expect(res.status, res.text).toBe(status);
    return res.body;
  };
  const makeLink = async (url = 'https://example.com/qr') => (await ok('POST', '/api/v1/links', { url }, 201)).data;
  const makeTag = async (name: string, color?: string) =>
    (await ok('POST', '/api/v1/tags', color ? { name, color } : { name }, 201)).data;

  beforeAll(async () => {
    server = await startTestServer(engine);
    owner = await seedWorkspace(knex(), { scopes: API_SCOPES });
    other = await seedWorkspace(knex(), { scopes: API_SCOPES });
  });
  afterAll(async () => server?.stop());

  describe('tags', () => {
    it('makes a tag (name trimmed, a grey by default), lists it by name, and refuses a name the workspace has', async () => {
      const zebra = await makeTag('  zebra  ', '#22C55E');
      expect(zebra).toEqual({ id: expect.stringMatching(/^tag_/), name: 'zebra', color: '#22C55E' });
      const apple = await makeTag('apple');
      expect(apple.color).toBe('#6b7280');
      const list = await ok('GET', '/api/v1/tags');
      expect(list.data.map((t: any) => t.name)).toEqual(['apple', 'zebra']);
      const again = await api('POST', '/api/v1/tags', { name: 'zebra ' });
      expect(again.status).toBe(409);
      expect(again.body.error).toContain('"zebra"');
      // Another workspace may have the same name, and sees none of these.
      expect((await as(other)('POST', '/api/v1/tags', { name: 'zebra' })).status).toBe(201);
      const theirs = await as(other)('GET', '/api/v1/tags');
      expect(theirs.body.data.map((t: any) => t.name)).toEqual(['zebra']);
      expect(theirs.text).not.toContain(zebra.id);
    });

    it.each([
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 'ok', color: 'green' }, 'color'],
      [{ name: 'ok', color: '#12345' }, 'color'],
      [{ color: '#123456' }, 'name'],
      [{ name: 'ok', colour: '#123456' }, 'colour'],
    ])('400 naming the field for %j', async (body, field) => {
      const res = await api('POST', '/api/v1/tags', body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.field).toBe(field);
      expect(res.body.error).toContain(field);
    });

    it('renames and recolours a tag, on its links too; 409 for a taken name, 400 for a blank one, 404 elsewhere', async () => {
      const tag = await makeTag('before');
      await makeTag('taken');
      const link = (await ok('POST', '/api/v1/links', { url: 'https://example.com/t', tagIds: [tag.id] }, 201)).data;
      const renamed = await ok('PATCH', `/api/v1/tags/${tag.id}`, { name: ' after ' });
      expect(renamed.data).toEqual({ id: tag.id, name: 'after', color: '#6b7280' });
      const recoloured = await ok('PATCH', `/api/v1/tags/${tag.id}`, { color: '#ff0000' });
      expect(recoloured.data).toEqual({ id: tag.id, name: 'after', color: '#ff0000' });
      expect((await ok('GET', `/api/v1/links/${link.id}`)).data.tags).toEqual([
        { id: tag.id, name: 'after', color: '#ff0000' },
      ]);
      const taken = await api('PATCH', `/api/v1/tags/${tag.id}`, { name: 'taken' });
      expect(taken.status).toBe(409);
      const blank = await api('PATCH', `/api/v1/tags/${tag.id}`, { name: ' ' });
      expect([blank.status, blank.body.field]).toEqual([400, 'name']);
      expect((await api('PATCH', `/api/v1/tags/${tag.id}`, { color: 'red' })).body.field).toBe('color');
      expect((await as(other)('PATCH', `/api/v1/tags/${tag.id}`, { name: 'mine' })).status).toBe(404);
      expect((await api('PATCH', '/api/v1/tags/tag_unknown', { name: 'x' })).status).toBe(404);
      expect((await ok('GET', `/api/v1/links/${link.id}`)).data.tags[0].name).toBe('after');
    });

    it('deletes a tag: it leaves every link that had it, and no link.updated event is written for them', async () => {
      const hook = await api('POST', '/api/v1/webhooks', {
        url: 'https://hooks.example.com/tags',
        events: ['link.updated'],
        secret: 'sixteen-characters-at-least',
      });
      expect(hook.status, hook.text).toBe(201);
      const updatedEvents = async () =>
        Number(
          (
            await knex()('webhook_deliveries')
              .where({ subscription_id: hook.body.id, event_type: 'link.updated' })
              .count({ n: '*' })
          )[0].n,
        );
      const doomed = await makeTag('doomed');
      const kept = await makeTag('kept');
      const a = (await ok('POST', '/api/v1/links', { url: 'https://e.com/a', tagIds: [doomed.id, kept.id] }, 201)).data;
      const b = (await ok('POST', '/api/v1/links', { url: 'https://e.com/b', tagIds: [doomed.id] }, 201)).data;
      // The subscription does receive link.updated: a change made through the link raises it.
      await ok('PATCH', `/api/v1/links/${b.id}`, { title: 'touched' });
      const before = await updatedEvents();
      expect(before).toBe(1);

      expect((await as(other)('DELETE', `/api/v1/tags/${doomed.id}`)).status).toBe(404);
      const res = await api('DELETE', `/api/v1/tags/${doomed.id}`);
      expect(res.status, res.text).toBe(204);
      expect(res.text).toBe('');
      const linkA = (await ok('GET', `/api/v1/links/${a.id}`)).data;
      expect(linkA.tags.map((t: any) => t.id)).toEqual([kept.id]);
      expect(linkA.updatedAt).toBe(a.updatedAt);
      expect((await ok('GET', `/api/v1/links/${b.id}`)).data.tags).toEqual([]);
      expect(await updatedEvents()).toBe(before);
      expect(await knex()('link_tags').where({ tag_id: doomed.id })).toEqual([]);
      expect((await ok('GET', '/api/v1/tags')).data.map((t: any) => t.id)).not.toContain(doomed.id);
      expect((await api('DELETE', `/api/v1/tags/${doomed.id}`)).status).toBe(404);
      const naming = await api('POST', '/api/v1/links', { url: 'https://e.com/c', tagIds: [doomed.id] });
      expect([naming.status, naming.body.field]).toEqual([400, 'tagIds']);
    });
  });

  describe('QR codes', () => {
    it('makes a QR code for a link, whose url scans like the link and whose images are served', async () => {
      const link = await makeLink('https://example.com/scanned');
      const made = await ok('POST', '/api/v1/qr-codes', { linkId: link.id }, 201);
      const qr = made.data;
      const host = server.services.config.shortDomain;
      expect(qr).toEqual({
        id: expect.stringMatching(/^qr_/),
        linkId: link.id,
        url: expect.stringMatching(new RegExp(`^https://${host.replace(/[.]/g, '\\.')}/qr/[a-z0-9]+$`)),
        svgUrl: `${qr.url}.svg`,
        pngUrl: `${qr.url}.png`,
        createdAt: expect.any(String),
      });
      const path = new URL(qr.url).pathname;
      const scan = await server.request('GET', path, { headers: { 'user-agent': 'curl/8' } });
      expect([scan.status, scan.headers.location]).toEqual([302, 'https://example.com/scanned']);
      const svg = await server.request('GET', new URL(qr.svgUrl).pathname);
      expect([svg.status, svg.headers['content-type']]).toEqual([200, 'image/svg+xml']);
      expect((await server.request('GET', new URL(qr.pngUrl).pathname)).headers['content-type']).toBe('image/png');
      expect((await ok('GET', `/api/v1/qr-codes/${qr.id}`)).data).toEqual(qr);
      // A second code of the same link is another code.
      const second = (await ok('POST', '/api/v1/qr-codes', { linkId: link.id }, 201)).data;
      expect(second.id).not.toBe(qr.id);
      expect(second.url).not.toBe(qr.url);
    });

    it("404 for another workspace's link, a deleted or unknown link; 400 naming linkId when it is missing", async () => {
      const theirs = (await as(other)('POST', '/api/v1/links', { url: 'https://example.com/theirs' })).body.data;
      const refused = await api('POST', '/api/v1/qr-codes', { linkId: theirs.id });
      expect(refused.status).toBe(404);
      expect(refused.text).not.toContain(other.workspaceId);
      expect((await api('POST', '/api/v1/qr-codes', { linkId: 'lnk_unknown' })).status).toBe(404);
      const gone = await makeLink();
      await ok('DELETE', `/api/v1/links/${gone.id}`);
      expect((await api('POST', '/api/v1/qr-codes', { linkId: gone.id })).status).toBe(404);
      const missing = await api('POST', '/api/v1/qr-codes', {});
      expect([missing.status, missing.body.field]).toEqual([400, 'linkId']);
      expect(await knex()('qr_codes').where({ workspace_id: owner.workspaceId, link_id: theirs.id })).toEqual([]);
    });

    it('pages the list newest first like the links, filters by link, and hides other workspaces', async () => {
      const mine = await seedWorkspace(knex(), { scopes: API_SCOPES });
      const call = as(mine);
      const first = (await call('POST', '/api/v1/links', { url: 'https://e.com/1' })).body.data;
      const second = (await call('POST', '/api/v1/links', { url: 'https://e.com/2' })).body.data;
      const ids: string[] = [];
      for (const linkId of [first.id, second.id, first.id])
        ids.push((await call('POST', '/api/v1/qr-codes', { linkId })).body.data.id);
      const newest = [...ids].reverse();
      const page1 = await call('GET', '/api/v1/qr-codes?page=1&limit=2');
      expect(page1.body.meta).toEqual({ page: 1, limit: 2, total: 3 });
      const page2 = await call('GET', '/api/v1/qr-codes?page=2&limit=2');
      expect([...page1.body.data, ...page2.body.data].map((q: any) => q.id)).toEqual(newest);
      const dflt = await call('GET', '/api/v1/qr-codes');
      expect(dflt.body.meta).toEqual({ page: 1, limit: 20, total: 3 });
      expect((await call('GET', '/api/v1/qr-codes?page=9&limit=100')).body).toEqual({
        data: [],
        meta: { page: 9, limit: 100, total: 3 },
      });
      const ofFirst = await call('GET', `/api/v1/qr-codes?linkId=${first.id}`);
      expect(ofFirst.body.data.map((q: any) => q.id)).toEqual([ids[2], ids[0]]);
      expect(ofFirst.body.meta.total).toBe(2);
      for (const q of ['page=0', 'limit=101', 'limit=abc']) {
        const bad = await call('GET', `/api/v1/qr-codes?${q}`);
        expect([bad.status, bad.body.field]).toEqual([400, q.split('=')[0]]);
      }
      const theirs = await as(other)('GET', `/api/v1/qr-codes?linkId=${first.id}`);
      expect(theirs.body).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0 } });
      expect((await as(other)('GET', `/api/v1/qr-codes/${ids[0]}`)).status).toBe(404);
      // A deleted link's codes are gone with it.
      await call('DELETE', `/api/v1/links/${second.id}`);
      expect((await call('GET', `/api/v1/qr-codes/${ids[1]}`)).status).toBe(404);
      expect((await call('GET', '/api/v1/qr-codes')).body.meta.total).toBe(2);
    });

    it('deletes a QR code: its scans answer 404, its conversions stay, new ones naming it are refused', async () => {
      const link = await makeLink('https://example.com/poster');
      const qr = (await ok('POST', '/api/v1/qr-codes', { linkId: link.id }, 201)).data;
      const path = new URL(qr.url).pathname;
      // Scanned once: the redirect path now holds the code in its cache.
      expect((await server.request('GET', path, { headers: { 'user-agent': 'curl/8' } })).status).toBe(302);
      const conv = await ok('POST', '/api/v1/conversions', { eventType: 'signup', qrCodeId: qr.id }, 201);
      expect(conv.data.linkId).toBe(link.id);

      expect((await as(other)('DELETE', `/api/v1/qr-codes/${qr.id}`)).status).toBe(404);
      const res = await api('DELETE', `/api/v1/qr-codes/${qr.id}`);
      expect([res.status, res.text]).toEqual([204, '']);
      expect((await api('GET', `/api/v1/qr-codes/${qr.id}`)).status).toBe(404);
      expect((await api('DELETE', `/api/v1/qr-codes/${qr.id}`)).status).toBe(404);
      expect((await ok('GET', `/api/v1/qr-codes?linkId=${link.id}`)).data).toEqual([]);
      expect((await server.request('GET', path, { headers: { 'user-agent': 'curl/8' } })).status).toBe(404);
      expect((await server.request('GET', `${path}.svg`)).status).toBe(404);
      // The link itself is untouched.
      expect((await ok('GET', `/api/v1/links/${link.id}`)).data.status).toBe('ACTIVE');

      const summary = await ok('GET', `/api/v1/conversions?qrCodeId=${qr.id}`);
      expect(summary.data.byQr).toEqual([expect.objectContaining({ id: qr.id, conversions: 1 })]);
      expect(summary.data.byLink).toEqual([expect.objectContaining({ id: link.id, conversions: 1 })]);
      const refused = await api('POST', '/api/v1/conversions', { eventType: 'signup', qrCodeId: qr.id });
      expect([refused.status, refused.body.field]).toEqual([400, 'qrCodeId']);
    });
  });

  it('lets only an OWNER or ADMIN delete a tag or a QR code, as deleting a link; a MEMBER may make and change them', async () => {
    const tag = await makeTag('shared-by-all');
    const qr = (await ok('POST', '/api/v1/qr-codes', { linkId: (await makeLink()).id }, 201)).data;
    const keyOf = async (role: 'MEMBER' | 'ADMIN') => (await seedMemberKey(knex(), owner.workspaceId, role)).key;
    const member = await keyOf('MEMBER');
    const call = (key: string, method: string, path: string, body?: unknown) =>
      server.request(method, path, { key, body });
    expect((await call(member, 'PATCH', `/api/v1/tags/${tag.id}`, { color: '#000000' })).status).toBe(200);
    for (const path of [`/api/v1/tags/${tag.id}`, `/api/v1/qr-codes/${qr.id}`]) {
      const refused = await call(member, 'DELETE', path);
      expect([refused.status, refused.body.error], path).toEqual([
        403,
        expect.stringMatching(/role MEMBER, which may not delete (tags|QR codes)/),
      ]);
    }
    expect((await ok('GET', '/api/v1/tags')).data.map((t: any) => t.id)).toContain(tag.id);
    expect((await ok('GET', `/api/v1/qr-codes/${qr.id}`)).data.id).toBe(qr.id);
    const admin = await keyOf('ADMIN');
    expect((await call(admin, 'DELETE', `/api/v1/tags/${tag.id}`)).status).toBe(204);
    expect((await call(admin, 'DELETE', `/api/v1/qr-codes/${qr.id}`)).status).toBe(204);
  });

  describe('domains', () => {
    it("lists the workspace's domains by host with their status, and none of another workspace", async () => {
      const mine = await seedWorkspace(knex(), { scopes: API_SCOPES });
      const stamp = `${engine}-${Date.now()}`;
      const active = await addDomain(knex(), mine.workspaceId, `b-${stamp}.example.com`);
      await setDomainStatus(knex(), active, 'ACTIVE');
      const pending = await addDomain(knex(), mine.workspaceId, `a-${stamp}.example.com`);
      const lapsed = await addDomain(knex(), mine.workspaceId, `c-${stamp}.example.com`, Date.now() - 8 * 86_400_000);
      const theirs = await addDomain(knex(), other.workspaceId, `d-${stamp}.example.com`);
      const res = await as(mine)('GET', '/api/v1/domains');
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toEqual([
        { id: pending, host: `a-${stamp}.example.com`, status: 'PENDING', verifiedAt: null },
        { id: active, host: `b-${stamp}.example.com`, status: 'ACTIVE', verifiedAt: expect.any(String) },
        { id: lapsed, host: `c-${stamp}.example.com`, status: 'EXPIRED', verifiedAt: null },
      ]);
      expect(res.text).not.toContain(theirs);
      // The id is what a new link names as its domainId.
      const made = await as(mine)('POST', '/api/v1/links', { url: 'https://example.com/d', domainId: active });
      expect(made.status, made.text).toBe(201);
    });
  });
});

describe.skipIf(!testEngines().includes('postgres'))('a QR code deleted through one process of two', () => {
  const servers = twoProcessesOnOnePostgres((database) => startTestServer('postgres', { database }));

  it('stops scanning on the other process, whose redirect cache held it, within a second', async () => {
    const { a, b } = servers;
    const s = await seedWorkspace(a.services.db.knex, { scopes: API_SCOPES });
    const link = (await a.request('POST', '/api/v1/links', { key: s.key, body: { url: 'https://example.com/two' } }))
      .body.data;
    const qr = (await a.request('POST', '/api/v1/qr-codes', { key: s.key, body: { linkId: link.id } })).body.data;
    const scan = () => b.request('GET', new URL(qr.url).pathname, { headers: { 'user-agent': 'curl/8' } });
    expect((await scan()).status).toBe(302);
    expect((await a.request('DELETE', `/api/v1/qr-codes/${qr.id}`, { key: s.key })).status).toBe(204);
    const start = Date.now();
    let status = 302;
    while (Date.now() - start < 1500 && status !== 404) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await scan()).status;
    }
    expect(status).toBe(404);
  });
});
