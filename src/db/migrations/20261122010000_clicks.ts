// Clicks: raw events (kept 90 days), daily counts per link (kept beyond), the served counter
// that makes click limits exact, and the change feed that keeps redirect caches coherent.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('links', (t) => {
    // Redirects served against clickLimit; reserved atomically, one row update per click.
    t.bigInteger('served').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('clicks', (t) => {
    t.bigIncrements('id').primary();
    t.string('workspace_id', 40).notNullable();
    t.string('link_id', 40).notNullable();
    t.string('qr_code_id', 40);
    t.bigInteger('occurred_at').notNullable();
    t.string('referrer_host', 253);
    t.string('country', 2);
    t.string('device', 32);
    t.string('browser', 64);
    t.string('os', 64);
    t.index(['link_id', 'occurred_at']);
    t.index(['workspace_id', 'occurred_at']);
    t.index(['occurred_at']);
  });
  await knex.schema.createTable('link_daily_clicks', (t) => {
    t.string('link_id', 40).notNullable();
    t.string('workspace_id', 40).notNullable();
    t.integer('day').notNullable(); // days since 1970-01-01 (UTC)
    t.bigInteger('clicks').notNullable();
    t.bigInteger('scans').notNullable().defaultTo(0);
    t.primary(['link_id', 'day']);
    t.index(['workspace_id', 'day']);
  });
  await knex.schema.createTable('link_changes', (t) => {
    t.bigIncrements('id').primary();
    t.string('kind', 8).notNullable(); // link | domain
    t.string('domain_key', 40).notNullable();
    t.string('slug', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('link_changes');
  await knex.schema.dropTableIfExists('link_daily_clicks');
  await knex.schema.dropTableIfExists('clicks');
  await knex.schema.alterTable('links', (t) => {
    t.dropColumn('served');
  });
}
