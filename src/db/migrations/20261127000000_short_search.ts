// Search for one or two characters (openapi/dashboard.yaml, listDashboardLinks `q`) without a
// scan of the workspace's links: neither SQLite's trigram index nor pg_trgm holds anything for
// text shorter than three characters, so "zu" read every link (SQLite 250 ms, Postgres 900 ms over
// a million; bench/README.md, dashboard reads).
//
// What is kept: for each link, every one- and two-character piece ("gram") of its slug, title and
// destination, each column apart (no piece spans two columns). A text of one or two characters is
// in a column exactly when it is one of that column's grams, so the index answers alone.
//  - SQLite: a contentless FTS5 table (no copy of the text; contentless_delete lets a row go by its
//    rowid) whose tokens are the grams as written, in hex, the `ascii` tokenizer's words;
//    detail=none keeps only which links hold a gram. The search asks for every case of the text
//    (at most 4 forms of 2 ASCII letters). Triggers keep it in step as they do links_search
//    (insert, delete, a change of slug, title or destination only). Triggers cannot loop, so the
//    positions come from search_positions (1..2048: slugs hold at most 64 characters, titles 200,
//    destinations 2048, src/domain/links.ts and slugs.ts). The cost: about 35 us to list a
//    link's grams and 40 us to index them, per link written (import bench: bench/README.md).
//  - Postgres: a GIN index over an immutable function that lists the grams, on live links; lower()
//    there folds Unicode as the search's LIKE does.
// Measured over a million links (bench/dashboard.ts): SQLite 134 MB and 38 s to build, Postgres
// 156 MB and about 2.5 minutes; "zu" 254 -> 11 ms on SQLite, 900 -> 12 ms on Postgres (queries by
// hand on the seeded databases; bench/dashboard.ts has the figures through the service).
//
// Frozen: it imports nothing of the project. A later migration that rebuilds `links` must
// recreate these triggers and refill the table.
import type { Knex } from 'knex';

const isPg = (knex: Knex) => knex.client.config.client === 'pg';
const COLUMNS = ['slug', 'title', 'original_url'];
export const MAX_POSITION = 2048;

/** SQLite: the grams of one row (`new` or `old` in a trigger, `l` in the fill), space-separated. */
function gramsOf(row: string): string {
  const pieces = (col: string) =>
    `SELECT hex(substr(${col}, n, 1)) AS g FROM search_positions WHERE n <= length(${col})
     UNION ALL SELECT hex(substr(${col}, n, 2)) FROM search_positions WHERE n < length(${col})`;
  // As written, not lowered: lower() in the loop doubled a link's cost (the search asks every case).
  const cols = [`${row}.slug`, `coalesce(${row}.title, '')`, `${row}.original_url`];
  return `(SELECT coalesce(group_concat(g, ' '), '') FROM (${cols.map(pieces).join(' UNION ALL ')}))`;
}

export async function up(knex: Knex): Promise<void> {
  if (isPg(knex)) {
    // COST: a planner that weighs the function as dear as it is (a few microseconds a link)
    // reads the index rather than run it on each link of a walk.
    await knex.raw(`CREATE FUNCTION shortlink_short_grams(slug text, title text, url text) RETURNS text[]
      LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000 AS $$
        SELECT coalesce(array_agg(DISTINCT substr(c, i, k)), '{}')
        FROM unnest(ARRAY[lower(slug), lower(coalesce(title, '')), lower(url)]) AS c,
             generate_series(1, length(c)) AS i, (VALUES (1), (2)) AS v(k)
        WHERE i + k - 1 <= length(c)
      $$`);
    // A GIN build sorts its entries in memory: more of it, fewer passes (for this build only).
    await knex.raw(`SET LOCAL maintenance_work_mem = '256MB'`);
    await knex.raw(
      'CREATE INDEX links_search_short ON links USING gin (shortlink_short_grams(slug, title, original_url)) WHERE deleted_at IS NULL',
    );
    return;
  }
  await knex.raw('CREATE TABLE search_positions (n INTEGER PRIMARY KEY)');
  await knex.raw(
    `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${MAX_POSITION}) INSERT INTO search_positions SELECT n FROM s`,
  );
  await knex.raw(
    `CREATE VIRTUAL TABLE links_short_grams USING fts5(grams, content='', contentless_delete=1, detail=none, tokenize='ascii')`,
  );
  await knex.raw(`CREATE TRIGGER links_short_grams_insert AFTER INSERT ON links BEGIN
      INSERT INTO links_short_grams (rowid, grams) VALUES (new.seq, ${gramsOf('new')});
    END`);
  await knex.raw(`CREATE TRIGGER links_short_grams_delete AFTER DELETE ON links BEGIN
      DELETE FROM links_short_grams WHERE rowid = old.seq;
    END`);
  await knex.raw(`CREATE TRIGGER links_short_grams_update AFTER UPDATE OF ${COLUMNS.join(', ')} ON links
    WHEN old.slug IS NOT new.slug OR old.title IS NOT new.title OR old.original_url IS NOT new.original_url BEGIN
      DELETE FROM links_short_grams WHERE rowid = old.seq;
      INSERT INTO links_short_grams (rowid, grams) VALUES (new.seq, ${gramsOf('new')});
    END`);
  await knex.raw(`INSERT INTO links_short_grams (rowid, grams) SELECT l.seq, ${gramsOf('l')} FROM links l`);
}

export async function down(knex: Knex): Promise<void> {
  if (isPg(knex)) {
    await knex.raw('DROP INDEX IF EXISTS links_search_short');
    await knex.raw('DROP FUNCTION IF EXISTS shortlink_short_grams(text, text, text)');
    return;
  }
  for (const name of ['links_short_grams_insert', 'links_short_grams_delete', 'links_short_grams_update'])
    await knex.raw(`DROP TRIGGER IF EXISTS ${name}`);
  await knex.raw('DROP TABLE IF EXISTS links_short_grams');
  await knex.raw('DROP TABLE IF EXISTS search_positions');
}
