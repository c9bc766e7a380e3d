// The bulk links API (openapi/paths/api_v1_links_bulk.yaml) through HTTPS on every engine: each
// item answered as the single operation answers it, in order; partial failures; the 100-item and
// 1 MiB limits; a race for slugs; Idempotency-Key replays; roles; other workspaces' ids; routing;
// one request counted per call.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { setRole } from '../../src/db/repos/workspaces';
import { requestHash } from '../../src/domain/idempotency';
import { testEngines } from '../support/databases';
import { seedMemberKey, seedWorkspace, serverWithOwner } from '../support/seed';

const BULK = '/api/v1/links/bulk';

describe.each(testEngines())('bulk links API on %s', (engine) => {
  const suite = serverWithOwner(engine, undefined, ['links:read', 'links:write']);
  const knex = () => suite.server.services.db.knex;
  const api = (method: string, path: string, body?: unknown, key = suite.owner.key, headers?: Record<string, string>) =>
    suite.server.request(method, path, { key, body, headers });
  const unique = () => `${engine.slice(0, 2)}${Math.random().toString(36).slice(2, 9)}`;

  it('answers every item in its place: created, invalid, taken, reserved, unknown tag, ignored keys', async () => {
    const s = unique();
    const res = await api('POST', BULK, {
      links: [
        { url: 'https://example.com/1', slug: `${s}-a` },
        { url: 'ftp://example.com' },
        { url: 'https://example.com/3', slug: `${s}-a` },
        { url: 'https://example.com/4', slug: 'api' },
        { url: 'https://example.com/5', tagIds: ['tag_nope'] },
        { url: 'https://example.com/6', previewTitle: 'x', colour: 'red' },
        { slug: `${s}-b` },
        { url: 'https://example.com/8', title: 42 },
      ],
    });
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    expect(data.map((r: any) => r.status)).toEqual([201, 400, 409, 409, 400, 201, 400, 400]);
    expect(data[0].data).toMatchObject({ slug: `${s}-a`, originalUrl: 'https://example.com/1', status: 'ACTIVE' });
    expect(data[0].meta).toBeUndefined();
    expect(data[1]).toMatchObject({ field: 'url' });
    expect(data[2].error).toMatch(/taken/);
    expect(data[3].error).toMatch(/reserved/);
    expect(data[4].field).toBe('tagIds');
    expect(data[5].meta).toEqual({ ignoredFields: ['previewTitle', 'colour'] });
    expect(data[5].data.previewTitle).toBeNull();
    expect(data[6].field).toBe('url');
    expect(data[7].field).toBe('title');
    const stored = await knex()('links').where({ workspace_id: suite.owner.workspaceId }).whereNull('deleted_at');
    expect(stored.map((r: any) => r.id).sort()).toEqual([data[0].data.id, data[5].data.id].sort());
  });

  it('answers each item exactly as a single create would (property, fresh workspaces)', async () => {
    const item = fc.record(
      {
        url: fc.constantFrom('https://example.com/p', 'http://example.com/q?x=1', 'ftp://x', 'not a url', 7),
        slug: fc.constantFrom('@0', '@1', '@1', '@taken', 'api', 'has space', 'ok_slug-@2'),
        title: fc.constantFrom('A title', '  padded  ', 12),
        redirectType: fc.constantFrom('PERMANENT', 'TEMPORARY', 'SIDEWAYS'),
        clickLimit: fc.constantFrom(5, -1, null),
        tagIds: fc.constantFrom([], ['tag_unknown']),
        previewTitle: fc.constant('ignored'),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 6 }), async (items) => {
        // Slugs are one namespace on the shared domain: each side gets its own prefix.
        const run = unique();
        const side = async (name: string) => {
          const ws = await seedWorkspace(knex());
          const prefix = `${run}${name}`;
          const taken = await api(
            'POST',
            '/api/v1/links',
            { url: 'https://example.com/t', slug: `${prefix}taken` },
            ws.key,
          );
          expect(taken.status).toBe(201);
          const bodies = items.map((b) =>
            typeof b.slug === 'string' && b.slug.includes('@') ? { ...b, slug: b.slug.replace('@', prefix) } : b,
          );
          return { ws, prefix, bodies };
        };
        const bulkSide = await side('b');
        const singleSide = await side('s');
        const bulk = await api('POST', BULK, { links: bulkSide.bodies }, bulkSide.ws.key);
        expect(bulk.status, bulk.text).toBe(200);
        const singles = [];
        for (const body of singleSide.bodies) {
          const r = await api('POST', '/api/v1/links', body, singleSide.ws.key);
          singles.push(r.status === 201 ? { status: 201, ...r.body } : { status: r.status, ...r.body });
        }
        const normal = (r: any, prefix: string) =>
          JSON.parse(
            JSON.stringify(
              r.status === 201
                ? {
                    ...r,
                    data: {
                      ...r.data,
                      id: 'ID',
                      slug: r.data.slug.startsWith(prefix) ? r.data.slug : 'GENERATED',
                      createdAt: 'T',
                      updatedAt: 'T',
                    },
                  }
                : r,
            ).replaceAll(prefix, 'P'),
          );
        expect(bulk.body.data.map((r: any) => normal(r, bulkSide.prefix))).toEqual(
          singles.map((r) => normal(r, singleSide.prefix)),
        );
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it('gives each slug to exactly one of two concurrent bulk calls', async () => {
    const s = unique();
    const links = Array.from({ length: 20 }, (_, i) => ({ url: `https://example.com/r${i}`, slug: `${s}-${i}` }));
    const other = await seedWorkspace(knex());
    const [a, b] = await Promise.all([
      api('POST', BULK, { links }),
      api('POST', BULK, { links: [...links].reverse() }, other.key),
    ]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const winners = new Map<string, number>();
    for (const r of [...a.body.data, ...b.body.data]) {
      if (r.status === 201) winners.set(r.data.slug, (winners.get(r.data.slug) ?? 0) + 1);
      else expect(r.status).toBe(409);
    }
    expect([...winners.keys()].sort()).toEqual(links.map((l) => l.slug).sort());
    expect([...winners.values()].every((n) => n === 1)).toBe(true);
    const rows = await knex()('links')
      .whereIn(
        'slug',
        links.map((l) => l.slug),
      )
      .whereNull('deleted_at');
    expect(rows).toHaveLength(20);
  });

  it('takes 1 to 100 items: 0 or 101 is a 400 naming links; 100 of the longest URLs fit', async () => {
    const none = await api('POST', BULK, { links: [] });
    expect(none.status).toBe(400);
    expect(none.body.field).toBe('links');
    const tooMany = await api('POST', BULK, {
      links: Array.from({ length: 101 }, () => ({ url: 'https://example.com' })),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.field).toBe('links');
    expect(await knex()('links').where({ workspace_id: suite.owner.workspaceId }).count({ n: '*' })).toEqual([
      { n: expect.anything() },
    ]);
    const long = `https://example.com/${'x'.repeat(2048 - 20)}`;
    const full = { links: Array.from({ length: 100 }, () => ({ url: long, expiredUrl: long })) };
    expect(Buffer.byteLength(JSON.stringify(full))).toBeGreaterThan(64 * 1024);
    const res = await api('POST', BULK, full);
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    expect(res.body.data.every((r: any) => r.status === 201)).toBe(true);
    const huge = { links: [{ url: 'https://example.com', title: 'x'.repeat(1024 * 1024) }] };
    const over = await api('POST', BULK, huge);
    expect(over.status).toBe(413);
    expect(over.body.error).toBe('Request body exceeds 1 MiB');
  });

  it('keeps the 64 KiB limit of every other operation', async () => {
    const res = await api('POST', '/api/v1/links', { url: 'https://example.com', title: 'x'.repeat(70 * 1024) });
    expect(res.status).toBe(413);
  });

  it('replays the first answer for a repeated Idempotency-Key, and refuses it with another body', async () => {
    const s = unique();
    const ws = await seedWorkspace(knex());
    const body = { links: [{ url: 'https://example.com/i', slug: `${s}-i` }, { url: 'https://example.com/j' }] };
    const headers = { 'Idempotency-Key': `bulk-${s}` };
    const first = await api('POST', BULK, body, ws.key, headers);
    expect(first.status).toBe(200);
    // Key order and spacing do not make another body.
    const again = await api(
      'POST',
      BULK,
      {
        links: body.links
          .map((l) => ({ ...l }))
          .reverse()
          .reverse(),
      },
      ws.key,
      headers,
    );
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const made = await knex()('links').where({ workspace_id: ws.workspaceId }).whereNull('deleted_at');
    expect(made).toHaveLength(2);
    const other = await api('POST', BULK, { links: [{ url: 'https://example.com/k' }] }, ws.key, headers);
    expect(other.status).toBe(409);
    expect(other.body.error).toMatch(/Idempotency-Key/);
    // The same key in another workspace is another key.
    const elsewhere = await seedWorkspace(knex());
    const theirs = await api('POST', BULK, { links: [{ url: 'https://example.com/k' }] }, elsewhere.key, headers);
    expect(theirs.body.data[0].status).toBe(201);
    // Without the key, the same body is a new call (its slug is now taken).
    const fresh = await api('POST', BULK, body, ws.key);
    expect(fresh.body.data.map((r: any) => r.status)).toEqual([409, 201]);
  });

  it('lets a retry run once a claimed key has waited two minutes without an answer (its process died)', async () => {
    const s = unique();
    const ws = await seedWorkspace(knex());
    const body = { links: [{ url: 'https://example.com/crash', slug: `${s}-c` }] };
    const headers = { 'Idempotency-Key': `crash-${s}` };
    // What a call leaves when its process dies between claiming the key and answering: the claim.
    const claim = (age: number) =>
      knex()('idempotency_keys').insert({
        workspace_id: ws.workspaceId,
        key: headers['Idempotency-Key'],
        request_hash: requestHash(body, 'createLinksBulk'),
        status_code: null,
        response: null,
        created_at: Date.now() - age,
      });
    await claim(60_000);
    const running = await api('POST', BULK, body, ws.key, headers);
    expect(running.status).toBe(409);
    expect(running.body.error).toMatch(/still being processed/);
    await knex()('idempotency_keys').where({ workspace_id: ws.workspaceId }).delete();
    await claim(121_000);
    const retried = await api('POST', BULK, body, ws.key, headers);
    expect(retried.status).toBe(200);
    expect(retried.body.data.map((r: any) => r.status)).toEqual([201]);
    // The retry's answer is the key's now: a repeat replays it.
    expect(await api('POST', BULK, body, ws.key, headers)).toMatchObject({ status: 200, body: retried.body });
  });

  it('counts a bulk call as one request against the key', async () => {
    const ws = await seedWorkspace(knex());
    const res = await api(
      'POST',
      BULK,
      { links: Array.from({ length: 100 }, () => ({ url: 'https://example.com/c' })) },
      ws.key,
    );
    expect(res.status).toBe(200);
    const used = await suite.server.services.limiter.get(ws.keyId);
    expect(used?.consumedPoints).toBe(1);
  });

  it('changes each link as PATCH does, with other workspaces and unknown ids as per-item 404s', async () => {
    const made = await api('POST', BULK, {
      links: [{ url: 'https://example.com/u1' }, { url: 'https://example.com/u2' }],
    });
    const [a, b] = made.body.data.map((r: any) => r.data.id);
    const other = await seedWorkspace(knex());
    const theirs = (await api('POST', '/api/v1/links', { url: 'https://example.com/theirs' }, other.key)).body.data.id;
    const res = await api('PATCH', BULK, {
      ids: [a, theirs, 'lnk_missing', b],
      changes: { status: 'DISABLED', title: 'Paused' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((r: any) => r.status)).toEqual([200, 404, 404, 200]);
    expect(res.body.data[0].data).toMatchObject({ id: a, status: 'DISABLED', title: 'Paused' });
    expect(res.body.data[1]).toEqual({ status: 404, error: 'Link not found' });
    const untouched = await api('GET', `/api/v1/links/${theirs}`, undefined, other.key);
    expect(untouched.body.data).toMatchObject({ status: 'ACTIVE', title: null });
  });

  it('refuses slug and unknown keys in changes as a 400 naming them, changing nothing', async () => {
    const id = (await api('POST', '/api/v1/links', { url: 'https://example.com/s' })).body.data.id;
    const slug = await api('PATCH', BULK, { ids: [id], changes: { slug: 'shared' } });
    expect(slug.status).toBe(400);
    expect(slug.body.field).toBe('changes.slug');
    const domain = await api('PATCH', BULK, { ids: [id], changes: { domainId: 'dom_x' } });
    expect(domain.status).toBe(400);
    expect(domain.body.error).toMatch(/domainId/);
    const bad = await api('PATCH', BULK, { ids: [id], changes: { endAt: 'soon' } });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('changes.endAt');
    const tooMany = await api('PATCH', BULK, { ids: Array.from({ length: 101 }, () => id), changes: {} });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.field).toBe('ids');
    expect((await api('GET', `/api/v1/links/${id}`)).body.data.slug).not.toBe('shared');
  });

  it('deletes each link as DELETE does; a repeated, foreign or unknown id is a per-item 404', async () => {
    const made = await api('POST', BULK, {
      links: [{ url: 'https://example.com/d1' }, { url: 'https://example.com/d2' }],
    });
    const [a, b] = made.body.data.map((r: any) => r.data.id);
    const other = await seedWorkspace(knex());
    const theirs = (await api('POST', '/api/v1/links', { url: 'https://example.com/t' }, other.key)).body.data.id;
    const res = await api('DELETE', `${BULK}?ids=${[a, theirs, a, 'lnk_missing', b].join(',')}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((r: any) => r.status)).toEqual([200, 404, 404, 404, 200]);
    expect(res.body.data[0]).toMatchObject({ data: { id: a, deleted: true }, result: { outcome: 'success' } });
    expect((await api('GET', `/api/v1/links/${a}`)).status).toBe(404);
    expect((await api('GET', `/api/v1/links/${theirs}`, undefined, other.key)).status).toBe(200);
    const empty = await api('DELETE', `${BULK}?ids=${a},,${b}`);
    expect(empty.status).toBe(400);
    expect(empty.body.field).toBe('ids');
    const many = await api('DELETE', `${BULK}?ids=${Array.from({ length: 101 }, () => a).join(',')}`);
    expect(many.status).toBe(400);
    expect(many.body.field).toBe('ids');
    expect((await api('DELETE', BULK)).status).toBe(400);
  });

  it('holds the roles of the single operations, and needs links:write', async () => {
    const member = await seedMemberKey(knex(), suite.owner.workspaceId, 'MEMBER');
    const made = await api('POST', BULK, { links: [{ url: 'https://example.com/m' }] }, member.key);
    expect(made.body.data[0].status).toBe(201);
    const id = made.body.data[0].data.id;
    expect((await api('PATCH', BULK, { ids: [id], changes: { title: 'm' } }, member.key)).body.data[0].status).toBe(
      200,
    );
    const del = await api('DELETE', `${BULK}?ids=${id}`, undefined, member.key);
    expect(del.status).toBe(403);
    expect(del.body.error).toMatch(/MEMBER/);
    await setRole(knex(), suite.owner.workspaceId, member.userId, 'ANALYST');
    const analyst = await api('PATCH', BULK, { ids: [id], changes: { title: 'a' } }, member.key);
    expect(analyst.status).toBe(403);
    const reader = await seedMemberKey(knex(), suite.owner.workspaceId, 'ADMIN', ['links:read']);
    const noScope = await api('POST', BULK, { links: [{ url: 'https://example.com' }] }, reader.key);
    expect(noScope.status).toBe(403);
    expect(noScope.body.error).toMatch(/links:write/);
    expect((await api('GET', `/api/v1/links/${id}`)).body.data.title).toBe('m');
  });

  it('is its own path for every method: GET and PUT are 405, never a link named bulk', async () => {
    for (const method of ['GET', 'PUT']) {
      const res = await api(method, BULK, method === 'PUT' ? {} : undefined);
      expect(res.status, `${method} ${res.text}`).toBe(405);
      expect(String(res.headers.allow).split(', ').sort()).toEqual(['DELETE', 'PATCH', 'POST']);
    }
  });
});
