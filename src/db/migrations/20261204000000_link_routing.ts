// Where a link's visitors go (openapi/components/schemas/Routing.yaml): the routing document on
// the link (null while every default holds, which most links keep), the split's settled winner,
// and whether the link is indexable (a column of its own, for each domain's /robots.txt), plus
// the rule or variant that served a click, or a conversion's click.
//
// SQLite: the redirect's covering index (20261123000000) gains the two columns the redirect
// reads, so a lookup still reads one B-tree. Postgres: a partial index serves /robots.txt.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

const isPg = (knex: Knex) => knex.client.config.client === 'pg';

const REDIRECT_COLUMNS = `domain_key, slug, id, workspace_id, original_url, redirect_type, status, start_at, end_at,
  expires_at, expired_url, click_limit, served, password_hash, preview_title, preview_description, preview_image`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('links', (t) => {
    t.text('routing');
    t.string('split_winner', 40);
    t.boolean('indexable').notNullable().defaultTo(false);
  });
  // The rule or variant that served a click, and a conversion's click (by its clickId).
  for (const table of ['clicks', 'conversions'])
    await knex.schema.alterTable(table, (t) => {
      t.string('route', 40);
    });
  const indexable = isPg(knex) ? 'indexable' : 'indexable = 1';
  await knex.raw(`CREATE INDEX links_indexable ON links (domain_key, slug) WHERE ${indexable} AND deleted_at IS NULL`);
  if (isPg(knex)) return;
  await knex.raw('DROP INDEX IF EXISTS links_redirect');
  await knex.raw(`CREATE INDEX links_redirect ON links (${REDIRECT_COLUMNS}, routing, split_winner, deleted_at)
    WHERE deleted_at IS NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS links_indexable');
  if (!isPg(knex)) {
    await knex.raw('DROP INDEX IF EXISTS links_redirect');
    await knex.raw(`CREATE INDEX links_redirect ON links (${REDIRECT_COLUMNS}, deleted_at) WHERE deleted_at IS NULL`);
  }
  for (const table of ['clicks', 'conversions'])
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('route');
    });
  await knex.schema.alterTable('links', (t) => {
    t.dropColumn('routing');
    t.dropColumn('split_winner');
    t.dropColumn('indexable');
  });
}
