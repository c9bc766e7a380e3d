// The dashboard's list filtered by a tag alone (openapi/dashboard.yaml, listDashboardLinks
// `tagId`) counts the tag's links that are not deleted, up to 10,001 (src/db/repos/link-search.ts).
// Read from the links, that was a lookup of each tagged link by id and a read of its row for
// `deleted_at`: a tag of 17,838 links over a million took 50-60 ms to count on SQLite, 40-90 ms
// on Postgres (bench/README.md, dashboard reads). This index holds the deleted links only, so the
// count reads the tag's entries in link_tags and leaves out those found here, a probe of a small
// index (or, on Postgres, a merge of the two id orders) instead of a read of each link.
//
// Partial: a live link is not in it, so creating a link and changing one (the API's writes, the
// CSV import) do not touch it; a soft delete adds one entry. Deleted links stay deleted.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX links_deleted ON links (id) WHERE deleted_at IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS links_deleted');
}
