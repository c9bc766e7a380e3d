// What the dashboard's two reads over a large workspace need (openapi/dashboard.yaml,
// getLinkAnalytics and listDashboardLinks; bench/README.md has the figures):
//
// A link's breakdowns (country, device, ...) still read its raw clicks: counts per link, day and
// value written by the click writer made them 200 times faster for a link with a million clicks,
// but cost the writer up to five upserts per click, and the redirect rate over a million links
// fell from 33% to 26% of bare Node (bench/README.md, dashboard reads). Not worth the visitors'
// share; a fold that runs apart from the writer is the next step.
//
// Clicks per link for the list sorted by clicks are summed from the daily counts when read: kept
// as a table by the click writer, with an index in click order, they made that list 300 times
// faster over a million links, but an upsert and an index update per link and flush doubled the
// writer thread's CPU per redirect over a million links (7 -> 17 us) and took 4-6 points off the
// redirect rate (bench/README.md).
//
// Search by part of the slug, title or destination: SQLite FTS5 with the trigram tokenizer,
// external content (the index keeps no copy of the text) kept in step by triggers that fire on a
// link's insert and delete and on a change of slug, title or URL only; the redirect path and the
// API update other columns (served, status) without touching it. case_sensitive 0 folds case over
// all of Unicode (SQLite's lower() and LIKE fold ASCII only), and detail=full keeps the trigrams'
// positions: a quoted phrase is then a substring match, so the index answers the search alone
// (detail=none refuses phrase queries). Postgres: pg_trgm GIN indexes on the expressions the
// search's LIKE already names (lower() there folds Unicode). pg_trgm is an extension: when it
// cannot be created (no permission, not installed) the migration goes on without those indexes
// and the search scans as before.
//
// Indexes the list's filters need over a million links: a tag's links (link_tags is keyed by
// link first), and the live links of a workspace by status or domain in creation order.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

const isPg = (knex: Knex) => knex.client.config.client === 'pg';
const SEARCHED = ['slug', 'title', 'original_url'];

export async function up(knex: Knex): Promise<void> {
  const pg = isPg(knex);
  await knex.raw('CREATE INDEX link_tags_by_tag ON link_tags (tag_id, link_id)');
  // The list's order is (created_at, seq). SQLite's indexes end with the rowid, which seq is; a
  // Postgres index needs it named. And Postgres takes `deleted_at IS NULL` for no equality, so
  // the core index (workspace_id, deleted_at, created_at) gives it no order: it sorted every
  // live link of the workspace for a page (300 ms over a million).
  const order = pg ? 'created_at, seq' : 'created_at';
  await knex.raw(
    `CREATE INDEX links_live_by_status ON links (workspace_id, status, ${order}) WHERE deleted_at IS NULL`,
  );
  await knex.raw(
    `CREATE INDEX links_live_by_domain ON links (workspace_id, domain_key, ${order}) WHERE deleted_at IS NULL`,
  );
  if (pg)
    await knex.raw(
      'CREATE INDEX links_live_by_created ON links (workspace_id, created_at, seq) WHERE deleted_at IS NULL',
    );

  if (pg) {
    // In a savepoint: a failed CREATE EXTENSION would otherwise abort the migration's transaction.
    const trigrams = await knex
      .transaction(async (sp) => {
        await sp.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
        return true;
      })
      .catch(() => false);
    if (trigrams) {
      // The expressions of the search's LIKE (src/db/repos/link-search.ts), so the planner can
      // use them as they are; live links only.
      await knex.raw(
        'CREATE INDEX links_search_slug ON links USING gin (lower(slug) gin_trgm_ops) WHERE deleted_at IS NULL',
      );
      await knex.raw(
        `CREATE INDEX links_search_title ON links USING gin (lower(coalesce(title, '')) gin_trgm_ops) WHERE deleted_at IS NULL`,
      );
      await knex.raw(
        'CREATE INDEX links_search_url ON links USING gin (lower(original_url) gin_trgm_ops) WHERE deleted_at IS NULL',
      );
    }
    return;
  }
  // links.seq is the rowid (INTEGER PRIMARY KEY). A later migration that rebuilds `links` must
  // recreate these triggers and rebuild the index.
  const cols = SEARCHED.join(', ');
  const values = (row: 'old' | 'new') => SEARCHED.map((c) => `${row}.${c}`).join(', ');
  await knex.raw(
    `CREATE VIRTUAL TABLE links_search USING fts5(${cols}, content='links', content_rowid='seq', tokenize='trigram case_sensitive 0', detail=full)`,
  );
  await knex.raw(`CREATE TRIGGER links_search_insert AFTER INSERT ON links BEGIN
      INSERT INTO links_search (rowid, ${cols}) VALUES (new.seq, ${values('new')});
    END`);
  // External content: the index removes a row's trigrams given the text it indexed.
  await knex.raw(`CREATE TRIGGER links_search_delete AFTER DELETE ON links BEGIN
      INSERT INTO links_search (links_search, rowid, ${cols}) VALUES ('delete', old.seq, ${values('old')});
    END`);
  await knex.raw(`CREATE TRIGGER links_search_update AFTER UPDATE OF ${cols} ON links
    WHEN old.slug IS NOT new.slug OR old.title IS NOT new.title OR old.original_url IS NOT new.original_url BEGIN
      INSERT INTO links_search (links_search, rowid, ${cols}) VALUES ('delete', old.seq, ${values('old')});
      INSERT INTO links_search (rowid, ${cols}) VALUES (new.seq, ${values('new')});
    END`);
  await knex.raw(`INSERT INTO links_search (links_search) VALUES ('rebuild')`);
}

export async function down(knex: Knex): Promise<void> {
  if (isPg(knex)) {
    // The extension stays: other schemas on the server may use it.
    for (const name of ['links_search_slug', 'links_search_title', 'links_search_url'])
      await knex.raw(`DROP INDEX IF EXISTS ${name}`);
  } else {
    for (const name of ['links_search_insert', 'links_search_delete', 'links_search_update'])
      await knex.raw(`DROP TRIGGER IF EXISTS ${name}`);
    await knex.raw('DROP TABLE IF EXISTS links_search');
  }
  for (const name of ['links_live_by_created', 'links_live_by_domain', 'links_live_by_status', 'link_tags_by_tag'])
    await knex.raw(`DROP INDEX IF EXISTS ${name}`);
}
