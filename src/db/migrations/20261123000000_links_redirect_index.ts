// SQLite: a covering index for the redirect path's link lookup (src/db/redirect-store.ts), so a
// visit reads one B-tree instead of two: links_live_slug gives the row's rowid and the table's
// B-tree then gives the row. On 1,000,000 links visited at random most of those pages are not in
// SQLite's page cache (the click writer's commits reset it), so each is a read from the file: a
// fifth less per lookup (bench/README.md). The price is disk: the index holds a copy of every live
// link's redirect fields (half as much again for links), and a link write updates one more index.
// links_live_slug stays: it is the one that keeps slugs unique.
//
// Postgres: nothing. Its lookups are a round trip to the server, which keeps its own buffers
// across commits, and an index-only scan would still visit the heap for every recently updated
// row (a click limit's `served`).
import type { Knex } from 'knex';

const isPg = (knex: Knex) => knex.client.config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  if (isPg(knex)) return;
  // The key the lookup searches, then every column it reads (deleted_at last: the lookup names
  // it, and an index that lacks a column the query names is not covering).
  await knex.raw(`CREATE INDEX links_redirect ON links (domain_key, slug, id, workspace_id, original_url, redirect_type, status,
    start_at, end_at, expires_at, expired_url, click_limit, served, password_hash, preview_title, preview_description, preview_image,
    deleted_at) WHERE deleted_at IS NULL`);
}

export async function down(knex: Knex): Promise<void> {
  if (isPg(knex)) return;
  await knex.raw('DROP INDEX IF EXISTS links_redirect');
}
