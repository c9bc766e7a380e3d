// The columns the dashboard's link search looks in, and LIKE escaping: shared by both engines'
// plans (link-search-sqlite.ts, link-search-pg.ts, link-search-filters.ts).
import type { Knex } from 'knex';

export const isPostgres = (knex: Knex) => knex.client.config.client === 'pg';

/** `%`, `_` and `\` match themselves in a LIKE pattern once escaped. */
export const likeEscape = (q: string) => q.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The searched columns, each with what it can never hold, so a text it cannot hold skips it:
 * on Postgres the trigram index of a column whose candidates for "spring sale" are tens of
 * thousands of destinations (spring-sale, spring_sale) each rechecked on the heap, where the
 * title alone has few (bench/dashboard.ts). A slug is [a-z0-9_-] once lowered (checkSlug), so text
 * with any other ASCII character is never in it; a destination is stored as the URL parser's
 * `href` (normalizeDestination), which percent-encodes spaces, control characters, `"`, `<` and
 * `>`. Non-ASCII characters rule nothing out: some fold onto ASCII ones (the Kelvin sign onto k).
 */
export const COLUMNS = [
  { name: 'slug', sql: 'l.slug', mayHold: (text: string) => !/[\u0000-\u002c./:-@[-^`{-\u007f]/.test(text) },
  { name: 'title', sql: "coalesce(l.title, '')", mayHold: () => true },
  { name: 'original_url', sql: 'l.original_url', mayHold: (text: string) => !/[\u0000-\u0020\u007f"<>]/.test(text) },
];
export type Column = (typeof COLUMNS)[number];

/** The columns that may hold `text` (the title always may). */
export function columnsFor(text: string): Column[] {
  return COLUMNS.filter((c) => c.mayHold(text));
}
