// The public API's use of the link search (GET /api/v1/links with filters): ties by clicks broken
// by creation, and a total counted up to the count cap, on every engine, against a brute-force
// filter and sort in memory. A small cap takes the walk in order (more matches than the cap) with
// a few links; the HTTP rules are in test/api/links-filters.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeClickBatch, type StoredClick } from '../../src/db/repos/click-batches';
import { FOLD_LAG_MS, FOLD_STEP_MS, runClickFold } from '../../src/db/repos/click-folds';
import { searchLinks, type LinkSearch } from '../../src/db/repos/link-search';
import { addMember, createWorkspace } from '../../src/db/repos/workspaces';
import { addDomain } from '../../src/db/repos/domains';
import { createTag } from '../../src/db/repos/workspace-objects';
import { type MigratedDatabase, openMigratedDatabase, testEngines } from '../support/databases';
import { rng } from '../support/recount';
import { linkRow } from '../support/stored-rows';

interface Link {
  id: string;
  slug: string;
  status: 'ACTIVE' | 'DISABLED';
  domain_key: string;
  created_at: number;
  seq: number;
  tag: boolean;
  clicks: number;
}

describe.each(testEngines())('link search with the public API options on %s', (engine) => {
  let db: MigratedDatabase;
  let ws: string;
  let tag: string;
  let domain: string;
  const links: Link[] = [];

  beforeAll(async () => {
    db = await openMigratedDatabase(engine);
    const { knex } = db;
    ws = await createWorkspace(knex, 'Api search', 'business');
    tag = await createTag(knex, ws, 'one', '#000000');
    domain = await addDomain(knex, ws, 'go.api-search.test');
    const userId = await addMember(knex, ws, 'api-search@search.test', 'OWNER');
    const r = rng(20261129);
    const now = Date.now();
    for (let i = 0; i < 60; i++) {
      const link: Link = {
        id: `lnk_a${String(1000 - i).padStart(4, '0')}`,
        slug: `${r.chance(0.5) ? 'sale' : 'blog'}-${i}`,
        status: r.chance(0.2) ? 'DISABLED' : 'ACTIVE',
        domain_key: r.chance(0.3) ? domain : '',
        // Ids against creation: a tie by clicks broken by id would read the other way.
        created_at: now - 1000 + Math.floor(i / 2),
        seq: 0,
        tag: r.chance(0.4),
        // Few clicks per link, so many links tie.
        clicks: r.chance(0.3) ? 0 : r.int(1, 3),
      };
      links.push(link);
    }
    await knex('links').insert(
      links.map((l) =>
        linkRow({
          id: l.id,
          workspace_id: ws,
          created_by: userId,
          domain_id: l.domain_key || null,
          domain_key: l.domain_key,
          slug: l.slug,
          original_url: `https://example.com/${l.slug}`,
          status: l.status,
          created_at: l.created_at,
          updated_at: now,
        }),
      ),
    );
    await knex('link_tags').insert(links.filter((l) => l.tag).map((l) => ({ link_id: l.id, tag_id: tag })));
    const seqs = new Map(
      (await knex('links').where('workspace_id', ws).select('id', 'seq')).map((x: any) => [x.id, Number(x.seq)]),
    );
    for (const l of links) l.seq = seqs.get(l.id)!;
    const clicks: StoredClick[] = links.flatMap((l) =>
      Array.from({ length: l.clicks }, () => ({
        workspace_id: ws,
        link_id: l.id,
        qr_code_id: null,
        occurred_at: now - 86_400_000,
        referrer_host: null,
        country: 'DE',
        city: null,
        route: null,
        device: 'desktop',
        browser: 'Chrome',
        os: 'Linux',
      })),
    );
    await writeClickBatch(knex, engine, clicks, []);
    expect((await runClickFold(knex, Date.now() + FOLD_LAG_MS + FOLD_STEP_MS)).ran).toBe(true);
  });
  afterAll(async () => {
    await db?.close();
  });

  /** Newest first; by clicks, most first and equal clicks newest first (the API's order). */
  function expected(s: LinkSearch): Link[] {
    const found = links.filter(
      (l) =>
        (!s.q || l.slug.includes(s.q)) &&
        (!s.tagId || l.tag) &&
        (!s.domainId || l.domain_key === (s.domainId === 'short' ? '' : s.domainId)) &&
        (!s.status || l.status === s.status),
    );
    const byCreation = (a: Link, b: Link) => b.created_at - a.created_at || b.seq - a.seq;
    return found.sort(s.sort === 'clicks' ? (a, b) => b.clicks - a.clicks || byCreation(a, b) : byCreation);
  }

  const FILTERS: Array<Partial<LinkSearch>> = [
    {},
    { q: 'sale' },
    { status: 'ACTIVE' },
    { domainId: 'short' },
    { q: 'blog', status: 'ACTIVE', domainId: 'short' },
  ];

  it.each([4, 10_000])(
    'pages every filter by creation and by clicks to the end, totals up to a cap of %i',
    async (cap) => {
      for (const f of [...FILTERS, { tagId: 'tag' }, { tagId: 'tag', q: 'sale' }]) {
        for (const sort of ['created', 'clicks'] as const) {
          const filters = f.tagId ? { ...f, tagId: tag } : f;
          const base = { ...filters, sort, order: 'desc', limit: 7, clickTies: 'creation' } as const;
          const want = expected({ ...base, page: 1 });
          const got: string[] = [];
          for (let page = 1; ; page++) {
            const res = await searchLinks(db.knex, ws, { ...base, page }, cap);
            const label = `${JSON.stringify(f)} ${sort} cap ${cap} page ${page}`;
            // Past the cap the count stops, but every page is still exact.
            expect(res.total, label).toBe(Math.min(want.length, cap));
            expect(res.totalCapped, label).toBe(want.length > cap);
            got.push(...res.rows.map((x) => x.slug));
            if (res.rows.length < base.limit) break;
          }
          expect(got, `${JSON.stringify(f)} ${sort} cap ${cap}`).toEqual(want.map((l) => l.slug));
        }
      }
    },
  );

  it('keeps the dashboard its capped total and ties by id', async () => {
    const res = await searchLinks(db.knex, ws, { sort: 'created', order: 'desc', page: 1, limit: 5 }, 4);
    expect([res.total, res.totalCapped]).toEqual([4, true]);
  });
});
