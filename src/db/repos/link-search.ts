// The dashboard's list of links: search by part of the slug, title or destination, filters by
// tag, domain and status, sorting by creation or clicks, a page at a time (openapi/dashboard.yaml,
// listDashboardLinks). Read in one snapshot on a query thread (src/db/queries.ts).
//
// Over a million links, how to find a page depends on how many links match (bench/README.md,
// dashboard reads). Each read first counts the matches, up to SEARCH_COUNT_CAP + 1 (the list
// shows "10,000+" beyond), starting from whatever narrows them most: the search index, a tag's
// links, or the workspace's links in order. Then:
//  - at most SEARCH_COUNT_CAP matches: the page is read from those same matches, sorted (a
//    sort of at most ten thousand rows);
//  - more: they are at least one in a hundred of the workspace's links, so walking the links in
//    the list's order (by creation, or by the click fold's totals, link_click_totals) and keeping
//    the matching ones reaches a page soon.
import type { Knex } from 'knex';
import { readSnapshot } from '../knex.ts';
import { clickTotals, tagsOf, type LinkRow, type TagRow } from './links.ts';

/** Matches are counted up to this many; beyond, the list says "10,000+". */
export const SEARCH_COUNT_CAP = 10_000;

export interface LinkSearch {
  q?: string;
  tagId?: string;
  /** A custom domain's id, or 'short' for the shared short domain. */
  domainId?: string;
  status?: 'ACTIVE' | 'DISABLED';
  sort: 'created' | 'clicks';
  order: 'asc' | 'desc';
  page: number;
  limit: number;
}

export interface LinkSearchPage {
  rows: LinkRow[];
  total: number;
  totalCapped: boolean;
  tags: Map<string, TagRow[]>;
  /** Each listed link's clicks: the sum of its daily counts when read. */
  clicks: Map<string, number>;
  /** Host of each custom domain on the page. */
  hosts: Map<string, string>;
}

type Filters = Omit<LinkSearch, 'sort' | 'order' | 'page' | 'limit'>;
const isPostgres = (knex: Knex) => knex.client.config.client === 'pg';

/** `%`, `_` and `\` match themselves in a LIKE pattern once escaped. */
const likeEscape = (q: string) => q.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The FTS5 query of SQLite's links_search (migration 20261125000000) that finds the links holding
 * `text`: one quoted phrase, which on a trigram table is a substring match in any one column,
 * with case folded over all of Unicode by the tokenizer (case_sensitive 0). None for text of
 * fewer than three characters (it has no trigram), nor for text with NUL.
 */
export function ftsPhrase(text: string): string | null {
  if (text.includes('\u0000') || [...text].length < 3) return null;
  return `"${text.replaceAll('"', '""')}"`;
}

/** Non-ASCII characters the search index folds onto an ASCII letter (ASCII_FOLD_TARGETS). */
const FOLDED_ONTO_ASCII: Record<string, string> = { k: '\u212a', s: '\u017f' };

/**
 * Variants of a character SQLite's LIKE must be given to match as the search index does: LIKE
 * folds ASCII letters only.
 */
function caseVariants(c: string): string[] {
  if (c.charCodeAt(0) < 0x80) {
    const other = FOLDED_ONTO_ASCII[c.toLowerCase()];
    return other ? [c, other] : [c];
  }
  const out = new Set([c]);
  // Only foldings that keep one character (ß → SS is no match on either engine).
  for (const v of [c.toLowerCase(), c.toUpperCase()]) if ([...v].length === 1) out.add(v);
  return [...out];
}

/**
 * LIKE patterns, taken together case-insensitive over Unicode, for text too short for the search
 * index (one or two characters: at most four patterns).
 */
export function shortTextPatterns(text: string): string[] {
  let patterns = [''];
  for (const c of text) patterns = patterns.flatMap((p) => caseVariants(c).map((v) => p + likeEscape(v)));
  return patterns.map((p) => `%${p}%`);
}

/**
 * The searched columns, each with what it can never hold, so a text it cannot hold skips it:
 * on Postgres the trigram index of a column whose candidates for "spring sale" are tens of
 * thousands of destinations (spring-sale, spring_sale) each rechecked on the heap (215 ms over a
 * million links; the title alone, 23 ms). A slug is [a-z0-9_-] once lowered (checkSlug), so text
 * with any other ASCII character is never in it; a destination is stored as the URL parser's
 * `href` (normalizeDestination), which percent-encodes spaces, control characters, `"`, `<` and
 * `>`. Non-ASCII characters rule nothing out: some fold onto ASCII ones (the Kelvin sign onto k).
 */
const COLUMNS = [
  { name: 'slug', sql: 'l.slug', mayHold: (text: string) => !/[\u0000-\u002c./:-@[-^`{-\u007f]/.test(text) },
  { name: 'title', sql: "coalesce(l.title, '')", mayHold: () => true },
  { name: 'original_url', sql: 'l.original_url', mayHold: (text: string) => !/[\u0000-\u0020\u007f"<>]/.test(text) },
];

/** The columns that may hold `text` (the title always may). */
export function columnsFor(text: string): typeof COLUMNS {
  return COLUMNS.filter((c) => c.mayHold(text));
}

/**
 * The MATCH of SQLite's links_short_grams (migration 20261127000000) that finds the links holding
 * text of one or two characters: any of its forms' grams, in hex. The index keeps the grams as
 * written, so each character is asked in each of its cases: those of caseVariants (as the LIKE of
 * shortTextPatterns asks), and every ASCII letter among them in both cases. None for other lengths
 * and for NUL.
 */
export function shortGramMatch(text: string): string | null {
  const chars = [...text];
  if (chars.length < 1 || chars.length > 2 || text.includes('\u0000')) return null;
  // caseVariants with each ASCII letter among them in both cases (the Kelvin sign: K, k and K).
  const cases = (c: string) => [...new Set(caseVariants(c).flatMap((v) => (/^[A-Za-z]$/.test(v) ? [v.toLowerCase(), v.toUpperCase()] : [v])))];
  let forms = [''];
  for (const c of chars) forms = forms.flatMap((f) => cases(c).map((v) => f + v));
  return forms.map((f) => `"${Buffer.from(f, 'utf8').toString('hex')}"`).join(' OR ');
}

/**
 * Postgres: whether the gram index (shortlink_short_grams) answers `text`: one or two characters
 * once lowered. lower() keeps a character's count but for the few whose lower case is longer
 * (İ), which JavaScript's toLowerCase lengthens too; those scan.
 */
const pgShortGram = (text: string) => {
  const n = [...text.toLowerCase()].length;
  return n >= 1 && n <= 2 && !text.includes('\u0000');
};

/**
 * The search by part of slug, title or destination on `links as l`, over the columns that may
 * hold the text. Postgres: lower() of each column (the expressions of the pg_trgm indexes) LIKE
 * the lowered text; lower() folds Unicode; to count (`how` 'count'), one or two characters also
 * by the gram index (a walk checks the LIKE alone: the gram function per link would cost more).
 * SQLite: nothing when the query starts from its search index ('started'); else the search
 * index, or for one or two characters LIKE with the case variants of each non-ASCII character.
 */
function whereText(q: Knex.QueryBuilder, knex: Knex, text: string, how: How): void {
  const columns = columnsFor(text);
  if (isPostgres(knex)) {
    const pattern = `%${likeEscape(text.toLowerCase())}%`;
    q.where((w) => {
      for (const col of columns) w.orWhereRaw(`lower(${col.sql}) LIKE ? ESCAPE '\\'`, [pattern]);
    });
    // The function's arguments as the index names them (migration 20261127000000).
    if (how === 'count-grams') q.whereRaw('shortlink_short_grams(l.slug, l.title, l.original_url) @> ARRAY[lower(?)]', [text]);
    return;
  }
  if (how === 'started') return;
  const phrase = ftsPhrase(text);
  if (phrase) {
    // A walk in the list's order: FTS5 checks one link at a time (correlated on the rowid), about
    // 70 µs each over a million links, so a LIKE that holds for every match first keeps it to
    // the likely ones.
    // Where a few LIKE patterns find what the index finds, and nothing else, the index need not
    // check ("webinar": 85 -> 4 ms over a million; "shop", whose s is also the long s: 42 -> 3).
    const exact = exactLikePatterns(text);
    if (exact) {
      whereLike(q, columns, exact);
      return;
    }
    whereLike(q, columns, [phraseLikeSuperset(text)]);
    q.whereExists((e) => e.select(knex.raw('1')).from('links_search as s').whereRaw('s.rowid = l.seq').whereRaw('s.links_search MATCH ?', [phrase]));
    return;
  }
  whereLike(q, columns, shortTextPatterns(text));
}

/** Any of the columns LIKE any of the patterns (SQLite: LIKE folds ASCII case itself). */
function whereLike(q: Knex.QueryBuilder, columns: typeof COLUMNS, patterns: string[]): void {
  q.where((w) => {
    for (const col of columns) for (const p of patterns) w.orWhereRaw(`${col.sql} LIKE ? ESCAPE '\\'`, [p]);
  });
}

/**
 * Where FTS5's case folding (trigram, case_sensitive 0) maps a character other than the ASCII
 * case pair onto an ASCII one: the Kelvin sign onto k, the long s onto s. Found by indexing every
 * code point; the only other classes with a member JavaScript calls caseless are U+FFFD-U+FFFF.
 */
const ASCII_FOLD_TARGETS = new Set(['k', 'K', 's', 'S']);

/**
 * A LIKE pattern every link that `ftsPhrase(text)` finds also matches, in the same column: a
 * character that other characters fold onto becomes `_` (one character, as FTS5 folds one code
 * point to one); the rest stand for themselves, ASCII letters folded by LIKE.
 */
export function phraseLikeSuperset(text: string): string {
  let p = '';
  for (const c of text) p += standsAlone(c) ? likeEscape(c) : '_';
  return `%${p}%`;
}

/** A character the index folds nothing onto but its ASCII case pair (LIKE folds that too). */
function standsAlone(c: string): boolean {
  const code = c.codePointAt(0)!;
  return code < 0x80 ? !ASCII_FOLD_TARGETS.has(c) : c.toLowerCase() === c && c.toUpperCase() === c && (code < 0xfffd || code > 0xffff);
}

/**
 * Whether phraseLikeSuperset(text) holds for exactly the links the index finds: every character
 * stands alone (none became `_`). The two then fold the same characters (ASCII case) and match
 * a substring of one column.
 */
export function likeIsExact(text: string): boolean {
  return [...text].every(standsAlone);
}

/** Patterns a walk checks at most, in each column, instead of asking the index. */
const MAX_EXACT_PATTERNS = 8;

/**
 * LIKE patterns that, taken together, hold for exactly the links the index finds (`ftsPhrase`),
 * or null when there is no short set. Where likeIsExact: phraseLikeSuperset alone. ASCII text
 * with a k or an s, which the index also finds written as the Kelvin sign or the long s (the only
 * characters it folds onto ASCII ones: ASCII_FOLD_TARGETS): one pattern per choice, for each such
 * letter, of the letter or its sign, up to MAX_EXACT_PATTERNS (LIKE folds the ASCII case itself).
 */
export function exactLikePatterns(text: string): string[] | null {
  if (likeIsExact(text)) return [phraseLikeSuperset(text)];
  if (!/^[\u0000-\u007f]*$/.test(text)) return null;
  let patterns = [''];
  for (const c of text) {
    const sign = FOLDED_ONTO_ASCII[c.toLowerCase()];
    patterns = patterns.flatMap((p) => (sign ? [p + c, p + sign] : [p + likeEscape(c)]));
    if (patterns.length > MAX_EXACT_PATTERNS) return null;
  }
  return patterns.map((p) => `%${p}%`);
}

/** The filters on `links as l` (live links of the workspace), as every plan applies them. */
/**
 * How a query meets the text: to count the matches ('count'; on Postgres 'count-grams' adds the
 * gram index for one or two characters), to walk links in order ('walk'), or not at all, as it
 * starts from SQLite's search index ('started').
 */
type How = 'count' | 'count-grams' | 'walk' | 'started';

/**
 * `tagJoined`: the query already joins the tag's rows of link_tags (`lt0`), so the tag needs no
 * check of its own (an EXISTS per link was a second lookup of the same row).
 */
function applyFilters(q: Knex.QueryBuilder, knex: Knex, workspaceId: string, s: Filters, how: How, tagJoined = false): Knex.QueryBuilder {
  q.where('l.workspace_id', workspaceId).whereNull('l.deleted_at');
  const text = s.q?.trim();
  if (text) whereText(q, knex, text, how);
  if (s.tagId && !tagJoined) q.whereExists((e) => e.select(knex.raw('1')).from('link_tags as lt').whereRaw('lt.link_id = l.id').where('lt.tag_id', s.tagId!));
  if (s.domainId) q.where('l.domain_key', s.domainId === 'short' ? '' : s.domainId);
  if (s.status) q.where('l.status', s.status);
  return q;
}

/**
 * The matching links, starting from what narrows them most. SQLite plans without statistics, so
 * the start is spelled out: a CROSS JOIN makes its left side the outer loop. Postgres's planner
 * weighs its own statistics (the trigram and tag indexes among its choices).
 */
function matchingFromNarrowest(knex: Knex, workspaceId: string, s: Filters, grams = false): Knex.QueryBuilder {
  const text = s.q?.trim();
  if (text && !isPostgres(knex)) {
    // The phrase kept to the columns that may hold it ({slug title} : "spring sale").
    const phrase = ftsPhrase(text);
    const grams = phrase ? null : shortGramMatch(text);
    if (phrase) {
      const columns = columnsFor(text);
      const match = columns.length === COLUMNS.length ? phrase : `{${columns.map((c) => c.name).join(' ')}} : ${phrase}`;
      return applyFilters(knex('links_search as f').crossJoin('links as l', 'l.seq', 'f.rowid').whereRaw('f.links_search MATCH ?', [match]), knex, workspaceId, s, 'started');
    }
    if (grams) return applyFilters(knex('links_short_grams as g').crossJoin('links as l', 'l.seq', 'g.rowid').whereRaw('g.links_short_grams MATCH ?', [grams]), knex, workspaceId, s, 'started');
  }
  if (s.tagId) {
    const q = knex('link_tags as lt0')[isPostgres(knex) ? 'join' : 'crossJoin']('links as l', 'l.id', 'lt0.link_id').where('lt0.tag_id', s.tagId);
    return applyFilters(q, knex, workspaceId, s, grams ? 'count-grams' : 'count', true);
  }
  return applyFilters(knex('links as l'), knex, workspaceId, s, grams ? 'count-grams' : 'count');
}

/** The matching links in the list's own order of walking: by creation (an index), no detour. */
function matchingInOrder(knex: Knex, workspaceId: string, s: Filters): Knex.QueryBuilder {
  return applyFilters(knex('links as l'), knex, workspaceId, s, 'walk');
}

/**
 * Each clicked link's clicks, `t`: link_click_totals, kept by the click fold (src/db/repos/
 * click-folds.ts) every few minutes apart from the click writer, so the order by clicks is as of
 * the last fold (the counts the list shows are summed when read, exact). Kept by the writer
 * itself they cost the redirect path (bench/README.md, dashboard reads).
 */
function clickTotal(this: Knex.JoinClause) {
  this.on('t.workspace_id', 'l.workspace_id').andOn('t.link_id', 'l.id');
}
const byCreation = (q: Knex.QueryBuilder, dir: 'asc' | 'desc') => q.orderBy([{ column: 'l.created_at', order: dir }, { column: 'l.seq', order: dir }]);

/**
 * A page of at most SEARCH_COUNT_CAP matches, sorted as the list asks. By clicks: most (or
 * fewest) first, links with equal clicks by id, and links never clicked (no total) by creation.
 */
async function pageOfFew(knex: Knex, workspaceId: string, s: LinkSearch, matches: Matches): Promise<LinkRow[]> {
  const dir = s.order;
  if (matches.by === 'seq' && s.sort === 'created') return pageByCreation(knex, s, matches);
  // The matches the count found (by primary key, or by id for a tag's), so the search runs once:
  // on Postgres the trigram index's rechecks of a phrase ("spring sale") visit tens of thousands
  // of rows.
  const q = knex('links as l');
  const column = matches.by === 'seq' ? 'l.seq' : 'l.id';
  if (isPostgres(knex)) q.whereRaw(`${column} = ANY(?)`, [matches.keys]);
  else q.whereIn(column, matches.keys as readonly Knex.Value[]);
  if (matches.by === 'id') {
    // Keys from link_tags, which says neither the workspace nor whether a link is deleted (see
    // tagOnlyMatches): a page shows nothing of another workspace whatever the table holds. On
    // SQLite the unary + keeps the workspace off the indexes, so the keys lead: with it there,
    // SQLite walked the workspace's links in order looking for them.
    q.whereRaw(isPostgres(knex) ? 'l.workspace_id = ?' : '+l.workspace_id = ?', [workspaceId]).whereNull('l.deleted_at');
  }
  if (s.sort === 'clicks') q.leftJoin('link_click_totals as t', clickTotal).orderByRaw(`coalesce(t.clicks, 0) ${dir}`).orderBy('t.link_id', dir);
  byCreation(q, dir);
  return q.offset((s.page - 1) * s.limit).limit(s.limit).select('l.*');
}

/**
 * A page of at most SEARCH_COUNT_CAP matches by creation, chosen from the creation times the count
 * read, so only the page's links are read again: reading every match again and sorting them took
 * as long as the count ("zu", 6,078 matches: 27 ms after 20 on SQLite).
 */
async function pageByCreation(knex: Knex, s: LinkSearch, matches: Extract<Matches, { by: 'seq' }>): Promise<LinkRow[]> {
  const sign = s.order === 'asc' ? 1 : -1;
  const order = matches.keys.map((seq, i) => ({ seq, created: matches.created[i] }));
  order.sort((a, b) => sign * (a.created - b.created || a.seq - b.seq));
  const page = order.slice((s.page - 1) * s.limit, s.page * s.limit).map((m) => m.seq);
  if (!page.length) return [];
  const q = knex('links as l');
  if (isPostgres(knex)) q.whereRaw('l.seq = ANY(?)', [page]);
  else q.whereIn('l.seq', page);
  const rows = new Map(((await q.select('l.*')) as LinkRow[]).map((r) => [Number(r.seq), r]));
  return page.map((seq) => rows.get(seq)!);
}

/**
 * A page of many matches (more than SEARCH_COUNT_CAP), walked in the list's order and stopping at
 * the page. By creation: the links by an index. By clicks, in two parts, each an index walk:
 * the clicked links by their totals (link_click_totals_by_clicks), and the links never clicked
 * by creation; most clicks first puts the clicked part first, fewest first the other.
 */
async function pageOfMany(knex: Knex, workspaceId: string, s: LinkSearch): Promise<LinkRow[]> {
  if (!isPostgres(knex)) return walkPageOfMany(knex, workspaceId, s);
  // Postgres estimates a substring's matches from its trigrams, and for a common one ("webinar",
  // 185,000 of a million links) guesses a few hundred: it then reads them all through the trigram
  // index's bitmap and sorts them (400 ms) rather than walk the order's index and stop at the
  // page. The count above says they are many, so the walk in the order's index is right: no
  // bitmap scans and no sorts for it (by clicks it would otherwise join every match to its
  // total and sort them, 1.2 s for "webinar").
  await pgSettings(knex, { enable_bitmapscan: 'off', enable_sort: 'off' });
  try {
    return await walkPageOfMany(knex, workspaceId, s);
  } finally {
    await pgSettings(knex, { enable_bitmapscan: 'on', enable_sort: 'on' });
  }
}

async function walkPageOfMany(knex: Knex, workspaceId: string, s: LinkSearch): Promise<LinkRow[]> {
  const offset = (s.page - 1) * s.limit;
  if (s.sort !== 'clicks') return byCreation(matchingInOrder(knex, workspaceId, s), s.order).offset(offset).limit(s.limit).select('l.*');
  const dir = s.order;
  const join = isPostgres(knex) ? 'join' : 'crossJoin';
  const clicked = () => {
    // SQLite: the totals are the outer loop (a CROSS JOIN keeps its left side outer). A tag is
    // joined by the total's link id before the link is read: a tag on one link in fifty read
    // fifty links per listed one (37 -> 8 ms for a page over a million links).
    const totals = knex('link_click_totals as t');
    if (s.tagId) totals[join]('link_tags as lt0', (j) => j.on('lt0.link_id', 't.link_id').andOnVal('lt0.tag_id', s.tagId!));
    return applyFilters(totals[join]('links as l', 'l.id', 't.link_id'), knex, workspaceId, s, 'walk', !!s.tagId)
      .where('t.workspace_id', workspaceId)
      .orderBy([{ column: 't.clicks', order: dir }, { column: 't.link_id', order: dir }]);
  };
  const never = () => byCreation(matchingInOrder(knex, workspaceId, s).whereNotExists((e) => e.select(knex.raw('1')).from('link_click_totals as t').whereRaw('t.workspace_id = l.workspace_id AND t.link_id = l.id')), dir);
  const [first, second] = dir === 'desc' ? [clicked, never] : [never, clicked];
  const page = await first().offset(offset).limit(s.limit).select('l.*');
  if (page.length === s.limit) return page;
  // The page reaches past the first part: its matches end at offset + page.length, or before.
  const inFirst = page.length ? offset + page.length : Number((await knex.from(first().select(knex.raw('1')).as('m')).count({ n: '*' }))[0].n);
  return [...page, ...(await second().offset(Math.max(0, offset - inFirst)).limit(s.limit - page.length).select('l.*'))];
}

/**
 * The keys of the matches: links' seq with each one's creation time (the count reads both from
 * the link), or their id (a tag's matches, read from link_tags alone).
 */
type Matches = { by: 'seq'; keys: number[]; created: number[] } | { by: 'id'; keys: string[] };

/** A count's rows as Matches (Postgres gives bigint columns as strings). */
const bySeq = (rows: Array<{ seq: number | string; created_at: number | string }>): Matches => ({
  by: 'seq',
  keys: rows.map((r) => Number(r.seq)),
  created: rows.map((r) => Number(r.created_at)),
});

/**
 * The keys of the matches, up to `cap` + 1. A tag alone: from link_tags (tagOnlyMatches). A tag
 * with other filters on Postgres: from the tag's links, each looked up by id, where its planner
 * would otherwise read every link of the workspace into a hash join (116 ms over a million).
 */
async function countedMatches(knex: Knex, workspaceId: string, s: LinkSearch, cap: number): Promise<Matches> {
  const text = s.q?.trim();
  if (s.tagId && !text && !s.domainId && !s.status) return { by: 'id', keys: await tagOnlyMatches(knex, workspaceId, s.tagId, cap) };
  // Postgres, one or two characters: the gram index, unless the text is in many links. A GIN
  // index is read whole into a bitmap before the first row ("e", in 975,000 of a million: 35 ms
  // and 86 in all), where a scan in order reaches 10,001 matches within some 50,000 links.
  // Not with a tag: its links, looked up by id, are fewer, and the gram function would run on each.
  const grams = isPostgres(knex) && !!text && !s.tagId && pgShortGram(text) && !(await denseOnPostgres(knex, workspaceId, s));
  if (isPostgres(knex) && text && !s.tagId && !grams && hasTrigram(text)) return pgMatchesByColumn(knex, workspaceId, s, text, cap);
  const read = async () => bySeq(await matchingFromNarrowest(knex, workspaceId, s, grams).limit(cap + 1).select('l.seq', 'l.created_at'));
  if (!isPostgres(knex) || !s.tagId) return read();
  await pgSettings(knex, { enable_hashjoin: 'off', enable_mergejoin: 'off' });
  try {
    return await read();
  } finally {
    await pgSettings(knex, { enable_hashjoin: 'on', enable_mergejoin: 'on' });
  }
}

/** Whether pg_trgm finds a trigram in the text: three letters or digits in a row (ASCII, to be sure). */
const hasTrigram = (text: string) => /[a-z0-9]{3}/i.test(text);

/** The order in which pgMatchesByColumn asks the columns: the destination, longest, last. */
const COLUMN_ORDER = ['title', 'slug', 'original_url'];

/**
 * Postgres, text of three characters or more: the matches counted column by column, each column
 * by its own trigram index, stopping once more than `cap` links are found. A GIN index is read
 * whole into a bitmap before the first row, so the three columns ORed read every destination
 * holding the text: "webinar" is in 172,486 destinations, and the count took 45-50 ms where the
 * titles alone give 10,001 matches in 18. Exact: a column that gives fewer than cap + 1 links gave
 * all of its own, so when every column did, their union is every match; and a column that gives
 * cap + 1 makes the count more than the cap by itself.
 */
async function pgMatchesByColumn(knex: Knex, workspaceId: string, s: Filters, text: string, cap: number): Promise<Matches> {
  const pattern = `%${likeEscape(text.toLowerCase())}%`;
  const found = new Map<number, number>();
  const columns = columnsFor(text).sort((a, b) => COLUMN_ORDER.indexOf(a.name) - COLUMN_ORDER.indexOf(b.name));
  for (const col of columns) {
    const rows = await applyFilters(knex('links as l'), knex, workspaceId, { ...s, q: undefined }, 'count')
      .whereRaw(`lower(${col.sql}) LIKE ? ESCAPE '\\'`, [pattern])
      .limit(cap + 1)
      .select('l.seq', 'l.created_at');
    for (const r of rows) found.set(Number(r.seq), Number(r.created_at));
    if (found.size > cap) break;
  }
  return { by: 'seq', keys: [...found.keys()], created: [...found.values()] };
}

/**
 * The links of a tag that are not deleted, by id, up to `cap` + 1: the tag's rows of link_tags
 * (its index by tag) less the deleted links, found in links_deleted, an index of the deleted ones
 * only (migration 20261202010000). No link is read: looking each one up for its `deleted_at` took
 * 40-90 ms for 10,001 of them over a million links, this 3-15 ms (bench/README.md).
 *
 * A link carries only tags of its own workspace (the API checks each tag id against it:
 * existingTagIds), so the tag's rows are links of the tag's workspace; a tag of another workspace
 * (or none) lists nothing, as the links' own workspace_id would have said.
 */
async function tagOnlyMatches(knex: Knex, workspaceId: string, tagId: string, cap: number): Promise<string[]> {
  if (!(await knex('tags').where({ id: tagId, workspace_id: workspaceId }).first('id'))) return [];
  // SQLite would take links_id_unique (an equality on a unique index) and read each link's row;
  // the partial index is named.
  const deleted = isPostgres(knex) ? 'links as d' : knex.raw('links AS d INDEXED BY links_deleted');
  const rows = await knex('link_tags as lt')
    .where('lt.tag_id', tagId)
    .whereNotExists((e) => e.select(knex.raw('1')).from(deleted).whereRaw('d.id = lt.link_id').whereNotNull('d.deleted_at'))
    .limit(cap + 1)
    .select('lt.link_id');
  return rows.map((r: { link_id: string }) => r.link_id);
}

/**
 * Postgres: planner settings for the rest of the snapshot's transaction (SET LOCAL), in one round
 * trip.
 */
async function pgSettings(knex: Knex, settings: Record<string, string>): Promise<void> {
  const names = Object.keys(settings);
  await knex.raw(`SELECT ${names.map(() => 'set_config(?, ?, true)').join(', ')}`, names.flatMap((n) => [n, settings[n]]));
}

/** Links in the probe of denseOnPostgres, and the share of matches that makes a text dense. */
const DENSE_PROBE = 2_000;
const DENSE_SHARE = 0.2;

/**
 * Whether at least a fifth of the newest DENSE_PROBE links the list would walk (its filters but
 * the text) hold the text: then a scan finds the capped count soon. Two index walks of at most
 * 2,000 links.
 */
async function denseOnPostgres(knex: Knex, workspaceId: string, s: Filters): Promise<boolean> {
  const newest = () =>
    knex.from(
      byCreation(applyFilters(knex('links as l'), knex, workspaceId, { ...s, q: undefined }, 'walk'), 'desc')
        .limit(DENSE_PROBE)
        .select('l.slug', 'l.title', 'l.original_url')
        .as('l'),
    );
  const matching = newest();
  whereText(matching, knex, s.q!.trim(), 'walk');
  const [[{ n: probed }], [{ n: matched }]] = [await newest().count({ n: '*' }), await matching.count({ n: '*' })];
  return Number(matched) > 0 && Number(matched) >= Number(probed) * DENSE_SHARE;
}

/** `cap`: SEARCH_COUNT_CAP but in tests, which take both plans with a few links. */
export async function searchLinks(knex: Knex, workspaceId: string, s: LinkSearch, cap = SEARCH_COUNT_CAP): Promise<LinkSearchPage> {
  return readSnapshot(knex, async (trx) => {
    // Postgres: every read here stops at a limit soon, which the planner's costs (those of the
    // whole walk) do not show, so a page by clicks cost enough to be compiled by JIT (20-30 ms,
    // 350 the first time) and to start parallel workers (each compiling again; about 10 ms to
    // start and gather) for a walk of a millisecond or two. Neither, for this transaction.
    if (isPostgres(trx)) await pgSettings(trx, { jit: 'off', max_parallel_workers_per_gather: '0' });
    // One statement at a time: they share the snapshot's one connection.
    const matches = await countedMatches(trx, workspaceId, s, cap);
    const counted = matches.keys.length;
    const listed = counted <= cap ? (counted ? await pageOfFew(trx, workspaceId, s, matches) : []) : await pageOfMany(trx, workspaceId, s);
    const ids = listed.map((r) => r.id);
    const clicks = new Map<string, number>(ids.map((id) => [id, 0]));
    if (ids.length) for (const [id, n] of await clickTotals(trx, workspaceId, ids)) clicks.set(id, n);
    const tags = await tagsOf(trx, ids);
    const domainIds = [...new Set(listed.map((r) => r.domain_id).filter((d): d is string => !!d))];
    const hosts = new Map<string, string>();
    if (domainIds.length) for (const d of await trx('domains').whereIn('id', domainIds).select('id', 'host')) hosts.set(d.id, d.host);
    return { rows: listed as LinkRow[], total: Math.min(counted, cap), totalCapped: counted > cap, tags, clicks, hosts };
  });
}
