// 32-day rollups of the daily conversion aggregates: a 400-day summary reads about a dozen
// blocks per key instead of 400 days (a tenth of the time, bench/README.md), and covering indexes
// for the per-link and per-QR click counts of a workspace.
import type { Knex } from 'knex';

// Frozen with the migration; src/domain/conversions.ts BLOCK_DAYS is the same width.
const BLOCK_DAYS = 32;
const TABLES: Array<[string, string, string[]]> = [
  ['conversion_block_type', 'conversion_daily_type', ['event_type', 'custom_name', 'currency', 'attributed']],
  ['conversion_block_link', 'conversion_daily_link', ['link_id', 'currency']],
  ['conversion_block_campaign', 'conversion_daily_campaign', ['campaign_id', 'currency']],
  ['conversion_block_qr', 'conversion_daily_qr', ['qr_code_id', 'currency']],
];

export async function up(knex: Knex): Promise<void> {
  for (const [table, daily, keys] of TABLES) {
    await knex.schema.createTable(table, (t) => {
      t.string('workspace_id', 40).notNullable();
      t.integer('block').notNullable(); // floor(day / 32)
      for (const k of keys) {
        if (k === 'attributed') t.integer(k).notNullable();
        else t.string(k, k === 'currency' ? 3 : 40).notNullable();
      }
      t.bigInteger('conversions').notNullable();
      t.bigInteger('value_minor').notNullable();
      t.primary(['workspace_id', 'block', ...keys]);
    });
    const cols = keys.join(', ');
    await knex.raw(
      `INSERT INTO ${table} (workspace_id, block, ${cols}, conversions, value_minor)
       SELECT workspace_id, day / ${BLOCK_DAYS}, ${cols}, SUM(conversions), SUM(value_minor)
       FROM ${daily} GROUP BY workspace_id, day / ${BLOCK_DAYS}, ${cols}`,
    );
  }
  await knex.schema.alterTable('link_daily_clicks', (t) =>
    t.index(['workspace_id', 'link_id', 'day', 'clicks'], 'link_daily_clicks_ws_link_day'),
  );
  await knex.schema.alterTable('qr_daily_scans', (t) =>
    t.index(['workspace_id', 'qr_code_id', 'day', 'scans'], 'qr_daily_scans_ws_qr_day'),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('qr_daily_scans', (t) => t.dropIndex([], 'qr_daily_scans_ws_qr_day'));
  await knex.schema.alterTable('link_daily_clicks', (t) => t.dropIndex([], 'link_daily_clicks_ws_link_day'));
  for (const [table] of [...TABLES].reverse()) await knex.schema.dropTableIfExists(table);
}
