// What every plan of the dashboard's link search applies: the filters on `links as l` (live
// links of the workspace) with the text on either engine, the order by creation, and the keys of
// the matches a count found.
import type { Knex } from 'knex';
import { columnsFor, isPostgres, likeEscape } from './link-search-columns.ts';
import { sqliteWhereText } from './link-search-sqlite.ts';

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
  /** Links with equal click totals by id (the dashboard's), or by creation (the public API's). */
  clickTies?: 'id' | 'creation';
}

export type Filters = Omit<LinkSearch, 'sort' | 'order' | 'page' | 'limit' | 'clickTies'>;

/**
 * The search by part of slug, title or destination on `links as l`, over the columns that may
 * hold the text. Postgres: lower() of each column (the expressions of the pg_trgm indexes) LIKE
 * the lowered text; lower() folds Unicode; to count (`how` 'count'), one or two characters also
 * by the gram index (a walk checks the LIKE alone: the gram function per link would cost more).
 * SQLite: nothing when the query starts from its search index ('started'); else the search
 * index, or for one or two characters LIKE with the case variants of each non-ASCII character.
 */
export function whereText(q: Knex.QueryBuilder, knex: Knex, text: string, how: How): void {
  const columns = columnsFor(text);
  if (isPostgres(knex)) {
    const pattern = `%${likeEscape(text.toLowerCase())}%`;
    q.where((w) => {
      for (const col of columns) w.orWhereRaw(`lower(${col.sql}) LIKE ? ESCAPE '\\'`, [pattern]);
    });
    // The function's arguments as the index names them (migration 20261127000000).
    if (how === 'count-grams')
      q.whereRaw('shortlink_short_grams(l.slug, l.title, l.original_url) @> ARRAY[lower(?)]', [text]);
    return;
  }
  if (how === 'started') return;
  sqliteWhereText(q, knex, text, columns);
}

/**
 * How a query meets the text: to count the matches ('count'; on Postgres 'count-grams' adds the
 * gram index for one or two characters), to walk links in order ('walk'), not at all, as it
 * starts from SQLite's search index ('started'), or by checking candidates SQLite's search index
 * gave by some of the text's trigrams ('candidates': the exact LIKE, as a walk checks).
 */
export type How = 'count' | 'count-grams' | 'walk' | 'started' | 'candidates';

/**
 * The filters on `links as l` (live links of the workspace), as every plan applies them.
 * `tagJoined`: the query already joins the tag's rows of link_tags (`lt0`), so the tag needs no
 * check of its own (an EXISTS per link was a second lookup of the same row).
 */
export function applyFilters(
  q: Knex.QueryBuilder,
  knex: Knex,
  workspaceId: string,
  s: Filters,
  how: How,
  tagJoined = false,
): Knex.QueryBuilder {
  q.where('l.workspace_id', workspaceId).whereNull('l.deleted_at');
  const text = s.q?.trim();
  if (text) whereText(q, knex, text, how);
  if (s.tagId && !tagJoined)
    q.whereExists((e) =>
      e.select(knex.raw('1')).from('link_tags as lt').whereRaw('lt.link_id = l.id').where('lt.tag_id', s.tagId!),
    );
  if (s.domainId) q.where('l.domain_key', s.domainId === 'short' ? '' : s.domainId);
  if (s.status) q.where('l.status', s.status);
  return q;
}

export const byCreation = (q: Knex.QueryBuilder, dir: 'asc' | 'desc') =>
  q.orderBy([
    { column: 'l.created_at', order: dir },
    { column: 'l.seq', order: dir },
  ]);

/**
 * The keys of the matches: links' seq with each one's creation time (the count reads both from
 * the link), or their id (a tag's matches, read from link_tags alone).
 */
export type Matches = { by: 'seq'; keys: number[]; created: number[] } | { by: 'id'; keys: string[] };

/** A count's rows as Matches (Postgres gives bigint columns as strings). */
export const bySeq = (rows: Array<{ seq: number | string; created_at: number | string }>): Matches => ({
  by: 'seq',
  keys: rows.map((r) => Number(r.seq)),
  created: rows.map((r) => Number(r.created_at)),
});
