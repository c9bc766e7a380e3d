// Postgres's side of the dashboard's link search: its gram and trigram indexes asked column by
// column, the probe that says whether a short text is dense, and planner settings for the
// snapshot's transaction.
import type { Knex } from 'knex';
import { columnsFor, likeEscape } from './link-search-columns.ts';
import { applyFilters, byCreation, whereText, type Filters, type Matches } from './link-search-filters.ts';

/**
 * Postgres: whether the gram index (shortlink_short_grams) answers `text`: one or two characters
 * once lowered. lower() keeps a character's count but for the few whose lower case is longer
 * (İ), which JavaScript's toLowerCase lengthens too; those scan.
 */
export const pgShortGram = (text: string) => {
  const n = [...text.toLowerCase()].length;
  return n >= 1 && n <= 2 && !text.includes('\u0000');
};

/** Whether pg_trgm finds a trigram in the text: three letters or digits in a row (ASCII, to be sure). */
export const hasTrigram = (text: string) => /[a-z0-9]{3}/i.test(text);

/** The order in which pgMatchesByColumn asks the columns: the destination, longest, last. */
const COLUMN_ORDER = ['title', 'slug', 'original_url'];

/**
 * Postgres, text of three characters or more: the matches counted column by column, each column
 * by its own trigram index, stopping once more than `cap` links are found. A GIN index is read
 * whole into a bitmap before the first row, so the three columns ORed read every destination
 * holding the text, where a common word's titles alone may give cap + 1 matches sooner
 * (bench/dashboard.ts). Exact: a column that gives fewer than cap + 1 links gave
 * all of its own, so when every column did, their union is every match; and a column that gives
 * cap + 1 makes the count more than the cap by itself.
 */
export async function pgMatchesByColumn(
  knex: Knex,
  workspaceId: string,
  s: Filters,
  text: string,
  cap: number,
): Promise<Matches> {
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
 * Postgres: planner settings for the rest of the snapshot's transaction (SET LOCAL), in one round
 * trip.
 */
export async function pgSettings(knex: Knex, settings: Record<string, string>): Promise<void> {
  const names = Object.keys(settings);
  await knex.raw(
    `SELECT ${names.map(() => 'set_config(?, ?, true)').join(', ')}`,
    names.flatMap((n) => [n, settings[n]]),
  );
}

/** Links in the probe of denseOnPostgres, and the share of matches that makes a text dense. */
const DENSE_PROBE = 2_000;
const DENSE_SHARE = 0.2;

/**
 * Whether at least a fifth of the newest DENSE_PROBE links the list would walk (its filters but
 * the text) hold the text: then a scan finds the capped count soon. Two index walks of at most
 * 2,000 links.
 */
export async function denseOnPostgres(knex: Knex, workspaceId: string, s: Filters): Promise<boolean> {
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
