// Bio pages (src/domain/bio-pages.ts): the pages with their draft and published content, and
// what their visitors did: raw views (kept 90 days, like raw clicks, for the breakdowns), views
// per page and day, and clicks per link block and day. The click writer thread writes the last
// three with the clicks of the same flush (src/db/repos/click-batches.ts).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bio_pages', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('handle', 64).notNullable();
    t.string('status', 12).notNullable().defaultTo('ACTIVE'); // ACTIVE | DISABLED
    t.text('draft').notNullable(); // JSON: what people edit (PageContent)
    t.text('published'); // JSON: what visitors see; null while unpublished
    t.bigInteger('published_at');
    t.string('created_by', 40).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('deleted_at');
    t.index(['workspace_id', 'created_at']);
  });
  // A handle is one address on the short domain, shared by every workspace: unique among live pages.
  await knex.raw('CREATE UNIQUE INDEX bio_pages_live_handle ON bio_pages (handle) WHERE deleted_at IS NULL');
  await knex.schema.createTable('page_views', (t) => {
    t.bigIncrements('id').primary();
    t.string('workspace_id', 40).notNullable();
    t.string('page_id', 40).notNullable();
    t.bigInteger('occurred_at').notNullable();
    t.string('referrer_host', 253);
    t.string('country', 2);
    t.string('device', 16);
    t.string('browser', 64);
    t.string('os', 64);
    t.index(['page_id', 'occurred_at']);
    t.index(['occurred_at']);
  });
  await knex.schema.createTable('page_daily_views', (t) => {
    t.string('page_id', 40).notNullable();
    t.string('workspace_id', 40).notNullable();
    t.integer('day').notNullable(); // days since 1970-01-01 (UTC)
    t.bigInteger('views').notNullable().defaultTo(0);
    t.primary(['page_id', 'day']);
  });
  await knex.schema.createTable('page_block_daily_clicks', (t) => {
    t.string('page_id', 40).notNullable();
    t.string('block_id', 20).notNullable();
    t.string('workspace_id', 40).notNullable();
    t.integer('day').notNullable();
    t.bigInteger('clicks').notNullable().defaultTo(0);
    t.primary(['page_id', 'block_id', 'day']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('page_block_daily_clicks');
  await knex.schema.dropTableIfExists('page_daily_views');
  await knex.schema.dropTableIfExists('page_views');
  await knex.schema.dropTableIfExists('bio_pages');
}
