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
// SQLite's and Postgres's own parts of the plans: link-search-sqlite.ts, link-search-pg.ts;
// what every plan applies: link-search-filters.ts.
import type { Knex } from 'knex';
import { readSnapshot } from '../knex.ts';
import { clickTotals, tagsOf, type LinkRow, type TagRow } from './links.ts';
import { COLUMNS, columnsFor, isPostgres } from './link-search-columns.ts';
import {
  applyFilters,
  byCreation,
  bySeq,
  type Filters,
  type How,
  type LinkSearch,
  type Matches,
} from './link-search-filters.ts';
import { denseOnPostgres, hasTrigram, pgMatchesByColumn, pgSettings, pgShortGram } from './link-search-pg.ts';
import { exactLikePatterns, ftsPhrase, rareTrigramMatch, shortGramMatch } from './link-search-sqlite.ts';

export type { LinkSearch } from './link-search-filters.ts';

/** Matches are counted up to this many; beyond, the list says "10,000+". */
export const SEARCH_COUNT_CAP = 10_000;

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

/**
 * The links (`l`) an SQLite full-text table (`table`, as `alias`) matches: its rows, whose rowid
 * is the link's seq, are the outer loop.
 */
function ftsMatches(
  knex: Knex,
  table: 'links_search' | 'links_short_grams',
  alias: string,
  match: string,
): Knex.QueryBuilder {
  return knex(`${table} as ${alias}`)
    .crossJoin('links as l', 'l.seq', `${alias}.rowid`)
    .whereRaw(`${alias}.${table} MATCH ?`, [match]);
}

/**
 * SQLite, text of three characters or more: the MATCH of links_search that starts the count, kept
 * to the columns that may hold the text ({slug title} : "spring sale"), and whether it gives
 * candidates the exact LIKE then checks (rareTrigramMatch) or the matches themselves (the phrase).
 */
async function sqliteSearchMatch(knex: Knex, s: Filters): Promise<{ match: string; how: How } | null> {
  const text = s.q?.trim();
  const phrase = text && !isPostgres(knex) ? ftsPhrase(text) : null;
  if (!text || !phrase) return null;
  const columns = columnsFor(text);
  const filter = columns.length === COLUMNS.length ? '' : `{${columns.map((c) => c.name).join(' ')}} : `;
  const rare = exactLikePatterns(text) ? await rareTrigramMatch(knex, text, filter) : null;
  return rare ? { match: rare, how: 'candidates' } : { match: filter + phrase, how: 'started' };
}

/**
 * The matching links, starting from what narrows them most. SQLite plans without statistics, so
 * the start is spelled out: a CROSS JOIN makes its left side the outer loop. Postgres's planner
 * weighs its own statistics (the trigram and tag indexes among its choices).
 * `search`: SQLite's start from its search index (sqliteSearchMatch).
 */
function matchingFromNarrowest(
  knex: Knex,
  workspaceId: string,
  s: Filters,
  grams = false,
  search: { match: string; how: How } | null = null,
): Knex.QueryBuilder {
  const text = s.q?.trim();
  if (search)
    return applyFilters(ftsMatches(knex, 'links_search', 'f', search.match), knex, workspaceId, s, search.how);
  if (text && !isPostgres(knex)) {
    const grams = shortGramMatch(text);
    if (grams) return applyFilters(ftsMatches(knex, 'links_short_grams', 'g', grams), knex, workspaceId, s, 'started');
  }
  if (s.tagId) {
    const q = knex('link_tags as lt0')
      [isPostgres(knex) ? 'join' : 'crossJoin']('links as l', 'l.id', 'lt0.link_id')
      .where('lt0.tag_id', s.tagId);
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
    q.whereRaw(isPostgres(knex) ? 'l.workspace_id = ?' : '+l.workspace_id = ?', [workspaceId]).whereNull(
      'l.deleted_at',
    );
  }
  if (s.sort === 'clicks') {
    q.leftJoin('link_click_totals as t', clickTotal).orderByRaw(`coalesce(t.clicks, 0) ${dir}`);
    if (s.clickTies !== 'creation') q.orderBy('t.link_id', dir);
  }
  byCreation(q, dir);
  return q
    .offset((s.page - 1) * s.limit)
    .limit(s.limit)
    .select('l.*');
}

/**
 * A page of at most SEARCH_COUNT_CAP matches by creation, chosen from the creation times the count
 * read, so only the page's links are read again: reading every match again and sorting them cost
 * as much as the count (bench/dashboard.ts).
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
  // Postgres estimates a substring's matches from its trigrams, and for a common one guesses a
  // few hundred: it then reads them all through the trigram index's bitmap and sorts them rather
  // than walk the order's index and stop at the page. The count above says they are many, so the
  // walk in the order's index is right: no bitmap scans and no sorts for it (by clicks it would
  // otherwise join every match to its total and sort them).
  await pgSettings(knex, { enable_bitmapscan: 'off', enable_sort: 'off' });
  try {
    return await walkPageOfMany(knex, workspaceId, s);
  } finally {
    await pgSettings(knex, { enable_bitmapscan: 'on', enable_sort: 'on' });
  }
}

async function walkPageOfMany(knex: Knex, workspaceId: string, s: LinkSearch): Promise<LinkRow[]> {
  const offset = (s.page - 1) * s.limit;
  if (s.sort !== 'clicks')
    return byCreation(matchingInOrder(knex, workspaceId, s), s.order)
      .offset(offset)
      .limit(s.limit)
      .select('l.*');
  const dir = s.order;
  const join = isPostgres(knex) ? 'join' : 'crossJoin';
  const clicked = () => {
    // SQLite: the totals are the outer loop (a CROSS JOIN keeps its left side outer). A tag is
    // joined by the total's link id before the link is read: a tag on one link in fifty read
    // fifty links per listed one.
    const totals = knex('link_click_totals as t');
    if (s.tagId)
      totals[join]('link_tags as lt0', (j) => j.on('lt0.link_id', 't.link_id').andOnVal('lt0.tag_id', s.tagId!));
    const q = applyFilters(
      totals[join]('links as l', 'l.id', 't.link_id'),
      knex,
      workspaceId,
      s,
      'walk',
      !!s.tagId,
    ).where('t.workspace_id', workspaceId);
    // Ties by creation: the index gives the totals in order; each run of equal ones is sorted
    // (bench/dashboard.ts, the public list's cases).
    if (s.clickTies === 'creation') return byCreation(q.orderBy('t.clicks', dir), dir);
    return q.orderBy([
      { column: 't.clicks', order: dir },
      { column: 't.link_id', order: dir },
    ]);
  };
  const never = () =>
    byCreation(
      matchingInOrder(knex, workspaceId, s).whereNotExists((e) =>
        e
          .select(knex.raw('1'))
          .from('link_click_totals as t')
          .whereRaw('t.workspace_id = l.workspace_id AND t.link_id = l.id'),
      ),
      dir,
    );
  const [first, second] = dir === 'desc' ? [clicked, never] : [never, clicked];
  const page = await first().offset(offset).limit(s.limit).select('l.*');
  if (page.length === s.limit) return page;
  // The page reaches past the first part: its matches end at offset + page.length, or before.
  const inFirst = page.length
    ? offset + page.length
    : Number((await knex.from(first().select(knex.raw('1')).as('m')).count({ n: '*' }))[0].n);
  return [
    ...page,
    ...(await second()
      .offset(Math.max(0, offset - inFirst))
      .limit(s.limit - page.length)
      .select('l.*')),
  ];
}

/**
 * The keys of the matches, up to `cap` + 1. A tag alone: from link_tags (tagOnlyMatches). A tag
 * with other filters on Postgres: from the tag's links, each looked up by id, where its planner
 * would otherwise read every link of the workspace into a hash join.
 */
async function countedMatches(knex: Knex, workspaceId: string, s: LinkSearch, cap: number): Promise<Matches> {
  const text = s.q?.trim();
  if (s.tagId && !text && !s.domainId && !s.status)
    return { by: 'id', keys: await tagOnlyMatches(knex, workspaceId, s.tagId, cap) };
  // Postgres, one or two characters: the gram index, unless the text is in many links. A GIN
  // index is read whole into a bitmap before the first row, where for a common text a scan in
  // order reaches cap + 1 matches soon.
  // Not with a tag: its links, looked up by id, are fewer, and the gram function would run on each.
  const grams =
    isPostgres(knex) && !!text && !s.tagId && pgShortGram(text) && !(await denseOnPostgres(knex, workspaceId, s));
  if (isPostgres(knex) && text && !s.tagId && !grams && hasTrigram(text))
    return pgMatchesByColumn(knex, workspaceId, s, text, cap);
  const read = async () =>
    bySeq(
      await matchingFromNarrowest(knex, workspaceId, s, grams, await sqliteSearchMatch(knex, s))
        .limit(cap + 1)
        .select('l.seq', 'l.created_at'),
    );
  if (!isPostgres(knex) || !s.tagId) return read();
  await pgSettings(knex, { enable_hashjoin: 'off', enable_mergejoin: 'off' });
  try {
    return await read();
  } finally {
    await pgSettings(knex, { enable_hashjoin: 'on', enable_mergejoin: 'on' });
  }
}

/**
 * The links of a tag that are not deleted, by id, up to `cap` + 1: the tag's rows of link_tags
 * (its index by tag) less the deleted links, found in links_deleted, an index of the deleted ones
 * only (migration 20261202010000). No link is read: looking each one up for its `deleted_at` cost
 * several times as much (bench/dashboard.ts).
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
    .whereNotExists((e) =>
      e.select(knex.raw('1')).from(deleted).whereRaw('d.id = lt.link_id').whereNotNull('d.deleted_at'),
    )
    .limit(cap + 1)
    .select('lt.link_id');
  return rows.map((r: { link_id: string }) => r.link_id);
}

/** `cap`: SEARCH_COUNT_CAP but in tests, which take both plans with a few links. */
export async function searchLinks(
  knex: Knex,
  workspaceId: string,
  s: LinkSearch,
  cap = SEARCH_COUNT_CAP,
): Promise<LinkSearchPage> {
  return readSnapshot(knex, async (trx) => {
    // Postgres: every read here stops at a limit soon, which the planner's costs (those of the
    // whole walk) do not show, so a page by clicks cost enough to be compiled by JIT and to start
    // parallel workers (each compiling again), each slower than the short walk itself. Neither,
    // for this transaction.
    if (isPostgres(trx)) await pgSettings(trx, { jit: 'off', max_parallel_workers_per_gather: '0' });
    // One statement at a time: they share the snapshot's one connection.
    const matches = await countedMatches(trx, workspaceId, s, cap);
    const counted = matches.keys.length;
    const listed =
      counted <= cap
        ? counted
          ? await pageOfFew(trx, workspaceId, s, matches)
          : []
        : await pageOfMany(trx, workspaceId, s);
    const ids = listed.map((r) => r.id);
    const clicks = new Map<string, number>(ids.map((id) => [id, 0]));
    if (ids.length) for (const [id, n] of await clickTotals(trx, workspaceId, ids)) clicks.set(id, n);
    const tags = await tagsOf(trx, ids);
    const domainIds = [...new Set(listed.map((r) => r.domain_id).filter((d): d is string => !!d))];
    const hosts = new Map<string, string>();
    if (domainIds.length)
      for (const d of await trx('domains').whereIn('id', domainIds).select('id', 'host')) hosts.set(d.id, d.host);
    return {
      rows: listed as LinkRow[],
      total: Math.min(counted, cap),
      totalCapped: counted > cap,
      tags,
      clicks,
      hosts,
    };
  });
}
