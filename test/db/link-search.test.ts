// The dashboard's link list (src/db/repos/link-search.ts) against a brute-force filter and sort of
// the same links in memory, on every engine: text search (ASCII, Unicode case, % and _ as plain
// characters, one and two characters), tag, domain and status filters, both sorts and orders,
// every page, and with a small count cap, so both ways of reading a page (the matches sorted,
// or the links walked in the list's order) answer. Links are written straight into the tables,
// then some renamed, retitled and deleted (the search index follows the links' changes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeClickBatch, type StoredClick } from '../../src/db/repos/click-batches';
import { FOLD_LAG_MS, FOLD_STEP_MS, runClickFold } from '../../src/db/repos/click-folds';
import { searchLinks, SEARCH_COUNT_CAP, type LinkSearch } from '../../src/db/repos/link-search';
import { rareTrigramMatch } from '../../src/db/repos/link-search-sqlite';
import { addMember, createWorkspace } from '../../src/db/repos/workspaces';
import { addDomain } from '../../src/db/repos/domains';
import { createTag } from '../../src/db/repos/workspace-objects';
import { MAX_TITLE_LENGTH, MAX_URL_LENGTH } from '../../src/domain/links';
import { type MigratedDatabase, openMigratedDatabase, testEngines } from '../support/databases';
import { rng } from '../support/recount';
import { linkRow } from '../support/stored-rows';

// Slugs and destinations as the service stores them: slugs [a-z0-9_-] (checkSlug), destinations
// the URL parser's href (percent-encoded), which the search relies on to skip a column.
const SLUG_WORDS = ['spring', 'sale', 'uni', 'code', '100-pct', 'a_b', 'zz', 'creme', 'x', 'shop', 'ete', 'k5'];
const TITLE_WORDS = [
  '5 \u212a above zero',
  'Ünïcödé title',
  'Spring campaign',
  '100% organic_cotton',
  '50% off',
  'snake_case',
  'Crème brûlée',
  'ÉTÉ',
  'plain',
  'news',
  'ÇA VA',
  'C:\\snake\\dir_1',
];
const URLS = [
  'https://shop.example.com/Spring-Sale',
  'https://blog.example.org/post',
  'https://example.net/ünï/%C3%BC',
  'https://example.com/100%25',
  'https://EXAMPLE.org/GAMMA_x',
  'https://example.com/search?q="x y"&k=5 a',
  'https://example.com/snake_case/zu',
].map((u) => new URL(u).href);

interface Link {
  id: string;
  slug: string;
  title: string | null;
  original_url: string;
  status: 'ACTIVE' | 'DISABLED';
  domain_key: string;
  created_at: number;
  seq: number;
  deleted: boolean;
  tags: Set<string>;
  clicks: number;
}

describe.each(testEngines())('link search on %s', (engine) => {
  let db: MigratedDatabase;
  let ws: string;
  let otherWs: string;
  let tags: string[];
  let domain: string;
  const links: Link[] = [];
  let template: Record<string, unknown>;

  beforeAll(async () => {
    db = await openMigratedDatabase(engine);
    const { knex } = db;
    ws = await createWorkspace(knex, 'Search', 'business');
    otherWs = await createWorkspace(knex, 'Other', 'business');
    tags = [
      await createTag(knex, ws, 'one', '#000000'),
      await createTag(knex, ws, 'two', '#000000'),
      await createTag(knex, ws, 'three', '#000000'),
    ];
    domain = await addDomain(knex, ws, 'go.search.test');
    const userId = await addMember(knex, ws, 'search@search.test', 'OWNER');
    const r = rng(20261125);
    const now = Date.now();
    const rows: any[] = [];
    for (let i = 0; i < 160; i++) {
      const slug = `${r.pick(SLUG_WORDS)}-${i}`;
      const link: Link = {
        id: `lnk_s${String(i).padStart(4, '0')}`,
        slug,
        title: r.chance(0.25) ? null : `${r.pick(TITLE_WORDS)} ${r.pick(TITLE_WORDS)}`,
        original_url: `${r.pick(URLS)}?n=${i}`,
        status: r.chance(0.15) ? 'DISABLED' : 'ACTIVE',
        domain_key: r.chance(0.2) ? domain : '',
        // Ties in creation time, which the list breaks by seq.
        created_at: now - 1000 + Math.floor(i / 3),
        seq: 0,
        deleted: false,
        tags: new Set(tags.filter(() => r.chance(0.3))),
        clicks: 0,
      };
      links.push(link);
      rows.push(
        linkRow({
          id: link.id,
          workspace_id: ws,
          created_by: userId,
          domain_id: link.domain_key || null,
          domain_key: link.domain_key,
          slug,
          original_url: link.original_url,
          title: link.title,
          status: link.status,
          created_at: link.created_at,
          updated_at: now,
        }),
      );
    }
    for (let i = 0; i < rows.length; i += 50) await knex('links').insert(rows.slice(i, i + 50));
    // Another workspace's links match the same words and never show.
    await knex('links').insert({ ...rows[0], id: 'lnk_other', workspace_id: otherWs, slug: 'spring-other' });
    template = rows[0];
    const tagRows = links.flatMap((l) => [...l.tags].map((tag_id) => ({ link_id: l.id, tag_id })));
    for (let i = 0; i < tagRows.length; i += 100) await knex('link_tags').insert(tagRows.slice(i, i + 100));
    const seqs = new Map(
      (await knex('links').where('workspace_id', ws).select('id', 'seq')).map((x: any) => [x.id, Number(x.seq)]),
    );
    for (const l of links) l.seq = seqs.get(l.id)!;
    // Changes after creation: the search follows new slugs and titles, and forgets deleted links.
    for (const l of links.filter((_, i) => i % 11 === 0)) {
      l.title = i18nTitle(l.seq);
      await knex('links').where('id', l.id).update({ title: l.title });
    }
    for (const l of links.filter((_, i) => i % 13 === 5)) {
      l.slug = `renamed-zu-${l.seq}`;
      await knex('links').where('id', l.id).update({ slug: l.slug });
    }
    for (const l of links.filter((_, i) => i % 17 === 3)) {
      l.deleted = true;
      await knex('links').where('id', l.id).update({ deleted_at: now });
    }
    // Clicks, few per link, so many links tie on clicks.
    const clicks: StoredClick[] = [];
    for (const l of links) {
      l.clicks = r.chance(0.4) ? 0 : r.int(1, 4);
      for (let c = 0; c < l.clicks; c++) {
        clicks.push({
          workspace_id: ws,
          link_id: l.id,
          qr_code_id: null,
          occurred_at: now - r.int(0, 5) * 86_400_000,
          referrer_host: null,
          country: 'DE',
          city: null,
          route: null,
          device: 'desktop',
          browser: 'Chrome',
          os: 'Linux',
        });
      }
    }
    await writeClickBatch(knex, engine, clicks.slice(0, 100), []);
    await writeClickBatch(knex, engine, clicks.slice(100), []);
    // The order by clicks is the click fold's totals: a fold that reaches every click.
    expect((await runClickFold(knex, Date.now() + FOLD_LAG_MS + FOLD_STEP_MS)).ran).toBe(true);
  });
  afterAll(async () => {
    await db?.close();
  });

  function i18nTitle(seq: number) {
    return `Grüße aus Köln ${seq} — ŒUVRE`;
  }

  /** What the list must show: live links of the workspace matching every filter, in its order. */
  function expected(s: LinkSearch): Link[] {
    const text = s.q?.trim().toLowerCase();
    const found = links.filter(
      (l) =>
        !l.deleted &&
        (!text || [l.slug, l.title ?? '', l.original_url].some((v) => v.toLowerCase().includes(text))) &&
        (!s.tagId || l.tags.has(s.tagId)) &&
        (!s.domainId || l.domain_key === (s.domainId === 'short' ? '' : s.domainId)) &&
        (!s.status || l.status === s.status),
    );
    const sign = s.order === 'asc' ? 1 : -1;
    const byCreation = (a: Link, b: Link) => sign * (a.created_at - b.created_at || a.seq - b.seq);
    // By clicks: links with equal clicks by id, links never clicked by creation.
    const byClicks = (a: Link, b: Link) =>
      sign * (a.clicks - b.clicks) || (a.clicks ? sign * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : byCreation(a, b));
    return found.sort(s.sort === 'clicks' ? byClicks : byCreation);
  }

  async function everyPage(s: Omit<LinkSearch, 'page'>, cap: number) {
    const want = expected({ ...s, page: 1 });
    const got: string[] = [];
    for (let page = 1; ; page++) {
      const res = await searchLinks(db.knex, ws, { ...s, page }, cap);
      const label = `${JSON.stringify(s)} cap ${cap} page ${page}`;
      expect(res.total, label).toBe(Math.min(want.length, cap));
      expect(res.totalCapped, label).toBe(want.length > cap);
      for (const row of res.rows)
        expect(res.clicks.get(row.id), `${label} clicks of ${row.slug}`).toBe(
          links.find((l) => l.id === row.id)!.clicks,
        );
      got.push(...res.rows.map((x) => x.slug));
      if (res.rows.length < s.limit) break;
    }
    expect(got, `${JSON.stringify(s)} cap ${cap}`).toEqual(want.map((l) => l.slug));
  }

  const QUERIES = [
    '',
    'e',
    'E',
    'é',
    'É',
    'ü',
    'Ü',
    'ÜN',
    'ünï',
    'ÜNÏCÖDÉ',
    'cödé',
    'Grüße',
    'GRÜSSE',
    'œuvre',
    '%',
    '_',
    '100%',
    '50%',
    'c_c',
    'e_c',
    'a_b',
    '_b',
    'k',
    'K',
    'KA',
    '5 k',
    '5 \u212a a',
    'zz',
    'zzq',
    'SHOP',
    'example.org',
    'spring-1',
    '  sale  ',
    'crème brûlée',
    'ÇA',
    'ça va',
    'été',
    '"',
    'x"y',
    // One and two characters (the gram index), and text only some columns may hold.
    'zu',
    'ZU',
    'u',
    '/',
    '%2',
    '?',
    'z',
    'q',
    'qx',
    '-',
    'a ',
    'x y',
    'spring sale',
    'spring-sale',
    'k5',
    '5',
    'Œ',
    'œ',
    '—',
    'ß',
    'ẞ',
    '\u212a',
    // A backslash (LIKE's escape here) matched literally, text with k and s (LIKE patterns for the
    // Kelvin sign and the long s), and text as long as the API allows.
    '\\',
    'a\\b',
    'snake\\_case',
    'c:\\sna',
    '\\dir_',
    'shop',
    'SKE_CASE',
    'k5 sale',
    `${'spring'.repeat(33)}xy`,
  ];

  it.each([7, SEARCH_COUNT_CAP])(
    'every query, both sorts and orders, page by page, with a count cap of %i',
    async (cap) => {
      for (const q of QUERIES) {
        for (const sort of ['created', 'clicks'] as const) {
          for (const order of ['desc', 'asc'] as const)
            await everyPage({ q: q || undefined, sort, order, limit: 6 }, cap);
        }
      }
    },
  );

  // SQLite's alone: Postgres has no such index to ask.
  if (engine === 'sqlite')
    it("asks SQLite's index for the text's rarest trigrams, judged from the links there are", async () => {
      // In the links above, "spr" is in every spring slug and title, "g-1" in few of them.
      const count = async (t: string) =>
        (await db.knex.raw('SELECT rowid FROM links_search WHERE links_search MATCH ?', [`"${t}"`])).length;
      const text = 'spring-1';
      const chars = [...text];
      const trigrams = [...new Set(chars.slice(2).map((_, i) => chars.slice(i, i + 3).join('')))];
      const byCount = await Promise.all(trigrams.map(async (t) => ({ t, n: await count(t) })));
      byCount.sort((a, b) => a.n - b.n);
      // Fewer than the sample in all: each is read whole, so the order is exact.
      expect(byCount.at(-1)!.n).toBeLessThan(256);
      expect(byCount[0].n).toBeLessThan(byCount.at(-1)!.n);
      const match = await rareTrigramMatch(db.knex, text, '');
      expect(match).toBe(
        `(${byCount
          .slice(0, 3)
          .map((b) => `"${b.t}"`)
          .join(' AND ')})`,
      );
      // A quote in a trigram is doubled, as in a phrase (two unknown trigrams: in the text's order);
      // one trigram is the phrase itself.
      expect(await rareTrigramMatch(db.knex, 'x"yz', '{slug} : ')).toBe('{slug} : ("x""y" AND """yz")');
      expect(await rareTrigramMatch(db.knex, 'abc', '')).toBeNull();
    });

  it('finds the last two characters of the longest destination and title (the gram index keeps every position)', async () => {
    const { MAX_POSITION } = await import('../../src/db/migrations/20261127000000_short_search');
    expect(MAX_POSITION).toBeGreaterThanOrEqual(Math.max(MAX_URL_LENGTH, MAX_TITLE_LENGTH, 64));
    const url = `https://long.example/${'a'.repeat(MAX_URL_LENGTH - 'https://long.example/'.length - 2)}qj`;
    expect(url.length).toBe(MAX_URL_LENGTH);
    const title = `${'b'.repeat(MAX_TITLE_LENGTH - 2)}ǰq`;
    const page = async (q: string) =>
      (await searchLinks(db.knex, otherWs, { q, sort: 'created', order: 'desc', page: 1, limit: 10 })).rows.map(
        (r) => r.id,
      );
    await db.knex('links').insert({
      ...template,
      id: 'lnk_long',
      seq: undefined,
      workspace_id: otherWs,
      slug: 'long-one',
      original_url: url,
      title,
    });
    try {
      expect(await page('qj')).toEqual(['lnk_long']);
      expect(await page('QJ')).toEqual(['lnk_long']);
      expect(await page('ǰQ')).toEqual(['lnk_long']);
      expect(await page('jq')).toEqual([]);
    } finally {
      await db.knex('links').where('id', 'lnk_long').del();
    }
    // Gone from the index with the link.
    await db.knex('links').insert({
      ...template,
      id: 'lnk_long2',
      seq: undefined,
      workspace_id: otherWs,
      slug: 'long-two',
      original_url: 'https://x.example/',
      title: null,
    });
    try {
      expect(await page('qj')).toEqual([]);
    } finally {
      await db.knex('links').where('id', 'lnk_long2').del();
    }
  });

  it('a tag alone counts its links that are not deleted (from link_tags), and a tag of another workspace lists nothing', async () => {
    // The setup deletes some tagged links: the count leaves them out without reading the links.
    expect(links.some((l) => l.deleted && l.tags.has(tags[0]))).toBe(true);
    for (const cap of [3, SEARCH_COUNT_CAP]) {
      for (const sort of ['created', 'clicks'] as const)
        await everyPage({ tagId: tags[0], sort, order: 'desc', limit: 5 }, cap);
    }
    const foreign = await createTag(db.knex, otherWs, 'foreign', '#000000');
    await db.knex('link_tags').insert({ link_id: 'lnk_other', tag_id: foreign });
    try {
      const page = (workspace: string, cap = SEARCH_COUNT_CAP) =>
        searchLinks(db.knex, workspace, { tagId: foreign, sort: 'created', order: 'desc', page: 1, limit: 10 }, cap);
      for (const cap of [1, SEARCH_COUNT_CAP]) {
        const here = await page(ws, cap);
        expect({ total: here.total, rows: here.rows }).toEqual({ total: 0, rows: [] });
      }
      expect((await page(otherWs)).rows.map((r) => r.id)).toEqual(['lnk_other']);
    } finally {
      await db.knex('link_tags').where({ tag_id: foreign }).delete();
      await db.knex('tags').where({ id: foreign }).delete();
    }
  });

  it('with tag, domain and status filters, alone and with text', async () => {
    const filters: Array<Partial<LinkSearch>> = [
      { tagId: tags[0] },
      { tagId: tags[2], status: 'ACTIVE' },
      { domainId: domain },
      { domainId: 'short' },
      { status: 'DISABLED' },
      { domainId: 'short', status: 'ACTIVE', tagId: tags[1] },
      { tagId: 'tag_none' },
    ];
    for (const f of filters) {
      for (const q of [undefined, 'e', 'ünï', '%', 'spring']) {
        for (const sort of ['created', 'clicks'] as const) {
          for (const order of ['desc', 'asc'] as const) {
            for (const cap of [5, SEARCH_COUNT_CAP]) await everyPage({ ...f, q, sort, order, limit: 4 }, cap);
          }
        }
      }
    }
  });
});

describe('the LIKE a walk checks before the search index (SQLite)', () => {
  it('holds for every text the index finds, whatever the case and the characters folded onto ASCII, and for no other when exact', async () => {
    const { default: Sqlite } = await import('better-sqlite3');
    const fc = (await import('fast-check')).default;
    const { exactLikePatterns, ftsPhrase, likeIsExact, phraseLikeSuperset } = await import(
      '../../src/db/repos/link-search-sqlite'
    );
    const db = new Sqlite(':memory:');
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(a, tokenize='trigram case_sensitive 0', detail=full)`);
    const chars = fc.constantFrom(...'aAkKsSzZ%_\\" üÜßẞéÉıİ\u212a\u017fΣσς東京\ufffd'.split(''), '\u{1F600}');
    const text = (min: number, max: number) =>
      fc.array(chars, { minLength: min, maxLength: max }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(text(3, 5), text(0, 12), text(0, 3), fc.nat(), (needle, before, after, seed) => {
        // The column holds the needle with each character in some case (the Kelvin sign for k,
        // the long s for s among them), or something else.
        const forms = (c: string) => [
          c,
          c.toUpperCase(),
          c.toLowerCase(),
          ...({ k: ['\u212a'], s: ['\u017f'] }[c.toLowerCase()] ?? []),
        ];
        const column = `${before}${[...needle].map((c, i) => forms(c)[(seed + i) % forms(c).length]).join('')}${after}`;
        db.exec('DELETE FROM t');
        db.prepare('INSERT INTO t (rowid, a) VALUES (1, ?)').run(column);
        const phrase = ftsPhrase(needle.trim());
        if (!phrase) return;
        const found = db.prepare('SELECT 1 FROM t WHERE t MATCH ?').get(phrase) !== undefined;
        const liked = db.prepare(`SELECT ? LIKE ? ESCAPE '\\' AS m`).get(column, phraseLikeSuperset(needle.trim())) as {
          m: number;
        };
        if (found) expect(liked.m, JSON.stringify({ needle, column })).toBe(1);
        // Where no character stood in for others, the LIKE alone decides: it finds nothing more.
        if (likeIsExact(needle.trim()))
          expect(liked.m === 1, JSON.stringify({ needle, column, exact: true })).toBe(found);
        // Where a few patterns stand for the text (the Kelvin sign and the long s spelled out),
        // together they find exactly what the index finds.
        const patterns = exactLikePatterns(needle.trim());
        if (patterns) {
          const any = patterns.some(
            (p) => (db.prepare(`SELECT ? LIKE ? ESCAPE '\\' AS m`).get(column, p) as { m: number }).m === 1,
          );
          expect(any, JSON.stringify({ needle, column, patterns })).toBe(found);
        }
      }),
      { numRuns: 3000 },
    );
    db.close();
  });
});

describe('the columns a search skips (slug and destination)', () => {
  it('never hold the text: slugs as checkSlug keeps them, destinations as the URL parser writes them', async () => {
    const fc = (await import('fast-check')).default;
    const { columnsFor } = await import('../../src/db/repos/link-search-columns');
    const { checkSlug } = await import('../../src/domain/slugs');
    const { normalizeDestination } = await import('../../src/domain/links');
    const raw = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.constantFrom(
        'https://example.com/a b?q="x"<y>',
        'https://EXAMPLE.com/ünï?\u212a=1\t2',
        "http://x.test/%20 ~{|}^`\\?a={|}^`\\~'#f{|}",
      ),
    );
    const slugInput = fc.string({
      unit: fc.constantFrom(...'abcXYZ019_-.~ K'.split(''), '\u212a'),
      minLength: 1,
      maxLength: 12,
    });
    fc.assert(
      fc.property(
        raw,
        slugInput,
        fc.nat(),
        fc.nat(),
        fc.string({ maxLength: 3 }),
        fc.boolean(),
        (url, slugText, from, len, extra, upper) => {
          const href = normalizeDestination(url);
          const slug = checkSlug(slugText);
          for (const [name, stored] of [
            ['original_url', 'href' in href ? href.href : null],
            ['slug', slug.ok ? slug.slug : null],
          ] as const) {
            if (stored === null) continue;
            // Text taken from the column (so often held), changed in case, or with other characters.
            let text = stored.slice(from % stored.length, (from % stored.length) + 1 + (len % 6));
            if (upper) text = text.toUpperCase();
            if (len % 3 === 0) text += extra;
            const held = stored.toLowerCase().includes(text.toLowerCase());
            const searched = columnsFor(text).some((c) => c.name === name);
            if (held) expect(searched, JSON.stringify({ name, stored, text })).toBe(true);
          }
        },
      ),
      { numRuns: 5000 },
    );
  });
});
