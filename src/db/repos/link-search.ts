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
//    the list's order (by creation; by clicks they are sorted as above) and keeping the matching ones
//    reaches a page soon.
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
  /** Each listed link's clicks (the sum of its daily counts, as the clicks order reads it). */
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

const SEARCHED = ['l.slug', "coalesce(l.title, '')", 'l.original_url'];

/**
 * The search by part of slug, title or destination on `links as l`. Postgres: lower() of each
 * column (the expressions of the pg_trgm indexes) LIKE the lowered text; lower() folds Unicode.
 * SQLite: the search index, unless `fromIndex` (the query starts from it already), or for one or
 * two characters LIKE with the case variants of each non-ASCII character.
 */
function whereText(q: Knex.QueryBuilder, knex: Knex, text: string, fromIndex: boolean): void {
  if (isPostgres(knex)) {
    const pattern = `%${likeEscape(text.toLowerCase())}%`;
    q.where((w) => {
      for (const col of SEARCHED) w.orWhereRaw(`lower(${col}) LIKE ? ESCAPE '\\'`, [pattern]);
    });
    return;
  }
  const phrase = ftsPhrase(text);
  if (phrase) {
    if (fromIndex) return;
    // A walk in the list's order: FTS5 checks one link at a time (correlated on the rowid), about
    // 70 µs each over a million links, so a LIKE that holds for every match first keeps it to
    // the likely ones.
    whereLike(q, [phraseLikeSuperset(text)]);
    q.whereExists((e) => e.select(knex.raw('1')).from('links_search as s').whereRaw('s.rowid = l.seq').whereRaw('s.links_search MATCH ?', [phrase]));
    return;
  }
  whereLike(q, shortTextPatterns(text));
}

/** Any of the columns LIKE any of the patterns (SQLite: LIKE folds ASCII case itself). */
function whereLike(q: Knex.QueryBuilder, patterns: string[]): void {
  q.where((w) => {
    for (const col of SEARCHED) for (const p of patterns) w.orWhereRaw(`${col} LIKE ? ESCAPE '\\'`, [p]);
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
  for (const c of text) {
    const code = c.codePointAt(0)!;
    const alone = code < 0x80 ? !ASCII_FOLD_TARGETS.has(c) : c.toLowerCase() === c && c.toUpperCase() === c && (code < 0xfffd || code > 0xffff);
    p += alone ? likeEscape(c) : '_';
  }
  return `%${p}%`;
}

/** The filters on `links as l` (live links of the workspace), as every plan applies them. */
function applyFilters(q: Knex.QueryBuilder, knex: Knex, workspaceId: string, s: Filters, fromIndex = false): Knex.QueryBuilder {
  q.where('l.workspace_id', workspaceId).whereNull('l.deleted_at');
  const text = s.q?.trim();
  if (text) whereText(q, knex, text, fromIndex);
  if (s.tagId) q.whereExists((e) => e.select(knex.raw('1')).from('link_tags as lt').whereRaw('lt.link_id = l.id').where('lt.tag_id', s.tagId!));
  if (s.domainId) q.where('l.domain_key', s.domainId === 'short' ? '' : s.domainId);
  if (s.status) q.where('l.status', s.status);
  return q;
}

/**
 * The matching links, starting from what narrows them most. SQLite plans without statistics, so
 * the start is spelled out: a CROSS JOIN makes its left side the outer loop. Postgres's planner
 * weighs its own statistics (the trigram and tag indexes among its choices).
 */
function matchingFromNarrowest(knex: Knex, workspaceId: string, s: Filters): Knex.QueryBuilder {
  const text = s.q?.trim();
  const phrase = text && !isPostgres(knex) ? ftsPhrase(text) : null;
  let q: Knex.QueryBuilder;
  if (phrase) q = knex('links_search as f').crossJoin('links as l', 'l.seq', 'f.rowid').whereRaw('f.links_search MATCH ?', [phrase]);
  else if (s.tagId && !isPostgres(knex)) q = knex('link_tags as lt0').crossJoin('links as l', 'l.id', 'lt0.link_id').where('lt0.tag_id', s.tagId);
  else q = knex('links as l');
  return applyFilters(q, knex, workspaceId, s, !!phrase);
}

/** The matching links in the list's own order of walking: by creation (an index), no detour. */
function matchingInOrder(knex: Knex, workspaceId: string, s: Filters): Knex.QueryBuilder {
  return applyFilters(knex('links as l'), knex, workspaceId, s);
}

type Listed = LinkRow & { listed_clicks?: number | string | null };

/**
 * Each clicked link's clicks in the workspace, the sum of its daily counts, as `t`. Summed when
 * read: kept as a table by the click writer it cost the redirect path (bench/README.md,
 * dashboard reads), so a list sorted by clicks over a million links takes seconds (open).
 */
const clickTotalsOf = (knex: Knex, workspaceId: string) =>
  knex('link_daily_clicks').where('workspace_id', workspaceId).groupBy('workspace_id', 'link_id').select('workspace_id', 'link_id').sum({ clicks: 'clicks' }).as('t');

const byCreation = (q: Knex.QueryBuilder, dir: 'asc' | 'desc') => q.orderBy([{ column: 'l.created_at', order: dir }, { column: 'l.seq', order: dir }]);
function clickTotal(this: Knex.JoinClause) {
  this.on('t.workspace_id', 'l.workspace_id').andOn('t.link_id', 'l.id');
}

/**
 * A page of at most SEARCH_COUNT_CAP matches, sorted as the list asks. By clicks: most (or
 * fewest) first, links with equal clicks by id, and links never clicked (no total) by creation.
 */
async function pageOfFew(knex: Knex, workspaceId: string, s: LinkSearch): Promise<Listed[]> {
  const dir = s.order;
  const q = matchingFromNarrowest(knex, workspaceId, s).leftJoin(clickTotalsOf(knex, workspaceId), clickTotal);
  if (s.sort === 'clicks') q.orderByRaw(`coalesce(t.clicks, 0) ${dir}`).orderBy('t.link_id', dir);
  byCreation(q, dir);
  return q.offset((s.page - 1) * s.limit).limit(s.limit).select('l.*', { listed_clicks: 't.clicks' });
}

/**
 * A page of many matches (more than SEARCH_COUNT_CAP): by creation, the links walked in the
 * list's order (an index), stopping at the page. By clicks there is no order to walk (the totals
 * are summed when read, clickTotalsOf), so the matches are sorted as for a few.
 */
async function pageOfMany(knex: Knex, workspaceId: string, s: LinkSearch): Promise<Listed[]> {
  if (s.sort === 'clicks') return pageOfFew(knex, workspaceId, s);
  return byCreation(matchingInOrder(knex, workspaceId, s), s.order).offset((s.page - 1) * s.limit).limit(s.limit).select('l.*');
}

/** `cap`: SEARCH_COUNT_CAP but in tests, which take both plans with a few links. */
export async function searchLinks(knex: Knex, workspaceId: string, s: LinkSearch, cap = SEARCH_COUNT_CAP): Promise<LinkSearchPage> {
  return readSnapshot(knex, async (trx) => {
    // One statement at a time: they share the snapshot's one connection.
    const [{ n }] = await trx.from(matchingFromNarrowest(trx, workspaceId, s).select(trx.raw('1')).limit(cap + 1).as('m')).count({ n: '*' });
    const counted = Number(n);
    const listed = counted <= cap ? await pageOfFew(trx, workspaceId, s) : await pageOfMany(trx, workspaceId, s);
    const ids = listed.map((r) => r.id);
    const clicks = new Map<string, number>(ids.map((id) => [id, 0]));
    const known = new Set<string>();
    for (const r of listed) {
      if (r.listed_clicks !== undefined) {
        known.add(r.id);
        clicks.set(r.id, Number(r.listed_clicks ?? 0));
      }
      delete r.listed_clicks;
    }
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length) {
      for (const [id, n] of await clickTotals(trx, workspaceId, unknown)) clicks.set(id, n);
    }
    const tags = await tagsOf(trx, ids);
    const domainIds = [...new Set(listed.map((r) => r.domain_id).filter((d): d is string => !!d))];
    const hosts = new Map<string, string>();
    if (domainIds.length) for (const d of await trx('domains').whereIn('id', domainIds).select('id', 'host')) hosts.set(d.id, d.host);
    return { rows: listed as LinkRow[], total: Math.min(counted, cap), totalCapped: counted > cap, tags, clicks, hosts };
  });
}
