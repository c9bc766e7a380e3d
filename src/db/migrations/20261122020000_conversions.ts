// Conversions (raw events, 400-day retention), their daily aggregates per dimension (what the
// summaries read for whole days), idempotency keys, and goals.
import type { Knex } from 'knex';

const AGGREGATES: Array<[string, string | null]> = [
  ['conversion_daily_link', 'link_id'],
  ['conversion_daily_campaign', 'campaign_id'],
  ['conversion_daily_qr', 'qr_code_id'],
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('conversions', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable();
    t.string('event_type', 16).notNullable();
    t.string('custom_name', 40);
    t.string('link_id', 40);
    t.string('campaign_id', 40);
    t.string('qr_code_id', 40);
    t.bigInteger('amount_minor');
    t.string('currency', 3);
    t.text('metadata'); // stored, never returned by any endpoint
    t.bigInteger('occurred_at').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['workspace_id', 'occurred_at']);
    t.index(['workspace_id', 'link_id', 'occurred_at']);
    t.index(['workspace_id', 'campaign_id', 'occurred_at']);
    t.index(['workspace_id', 'qr_code_id', 'occurred_at']);
    t.index(['occurred_at']);
  });
  // Totals and byEventType: one row per day, event type, custom name, currency ('' for none)
  // and attribution (a conversion is attributed when it names a link).
  await knex.schema.createTable('conversion_daily_type', (t) => {
    t.string('workspace_id', 40).notNullable();
    t.integer('day').notNullable();
    t.string('event_type', 16).notNullable();
    t.string('custom_name', 40).notNullable();
    t.string('currency', 3).notNullable();
    t.integer('attributed').notNullable();
    t.bigInteger('conversions').notNullable();
    t.bigInteger('value_minor').notNullable();
    t.primary(['workspace_id', 'day', 'event_type', 'custom_name', 'currency', 'attributed']);
  });
  for (const [table, column] of AGGREGATES) {
    await knex.schema.createTable(table, (t) => {
      t.string('workspace_id', 40).notNullable();
      t.integer('day').notNullable();
      t.string(column!, 40).notNullable();
      t.string('currency', 3).notNullable();
      t.bigInteger('conversions').notNullable();
      t.bigInteger('value_minor').notNullable();
      t.primary(['workspace_id', 'day', column!, 'currency']);
    });
  }
  await knex.schema.createTable('qr_daily_scans', (t) => {
    t.string('qr_code_id', 40).notNullable();
    t.string('workspace_id', 40).notNullable();
    t.integer('day').notNullable();
    t.bigInteger('scans').notNullable();
    t.primary(['qr_code_id', 'day']);
  });
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.string('workspace_id', 40).notNullable();
    t.string('key', 255).notNullable();
    t.string('request_hash', 64).notNullable();
    t.integer('status_code');
    t.text('response');
    t.bigInteger('created_at').notNullable();
    t.primary(['workspace_id', 'key']);
    t.index(['created_at']);
  });
  await knex.schema.createTable('goals', (t) => {
    t.string('id', 40).primary();
    t.increments('seq').unique();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.string('type', 16).notNullable();
    t.string('custom_name', 40);
    t.string('link_id', 40);
    t.string('qr_code_id', 40);
    t.string('campaign_id', 40);
    t.bigInteger('target_count');
    t.bigInteger('target_value_minor');
    t.string('target_currency', 3);
    t.bigInteger('window_start');
    t.bigInteger('window_end');
    t.string('status', 16).notNullable();
    t.bigInteger('archived_at');
    t.integer('definition_version').notNullable();
    t.bigInteger('definition_updated_at').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['workspace_id', 'status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of [
    'goals',
    'idempotency_keys',
    'qr_daily_scans',
    'conversion_daily_qr',
    'conversion_daily_campaign',
    'conversion_daily_link',
    'conversion_daily_type',
    'conversions',
  ]) {
    await knex.schema.dropTableIfExists(t);
  }
}
