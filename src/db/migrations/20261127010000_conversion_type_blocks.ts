// Summaries filtered by event type without a scan of the window's events (bench:conversions
// measures it). A summary filtered by `eventType` or `customName` alone still shows every
// breakdown (by link, campaign and QR code) of the conversions it keeps, which the per-dimension
// aggregates cannot give (they count every type together), so it read every event of the window:
// 504 ms for purchases over 400 days and a million conversions.
//
// Kept now: 32-day blocks of conversions by event type (and custom name) and link, campaign or QR
// code, written by insertConversion beside the other aggregates (one upsert for each of the three
// a conversion names). A filtered window reads its whole blocks from them and the rest (at most
// 31 days at either end) from the events, through a new index by event type and time. Blocks
// only: daily rows by type and link would hold about as many rows as the events themselves.
// A summary filtered by link, campaign or QR code reads that object's events, as before.
//
// Frozen: it imports nothing of the project; src/domain/conversions.ts BLOCK_DAYS is the width.
import type { Knex } from 'knex';

const BLOCK_DAYS = 32;
const DAY_MS = 86_400_000;
const DIMENSIONS: Array<[string, string]> = [
  ['link', 'link_id'],
  ['campaign', 'campaign_id'],
  ['qr', 'qr_code_id'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, column] of DIMENSIONS) {
    const table = `conversion_block_type_${name}`;
    await knex.schema.createTable(table, (t) => {
      t.string('workspace_id', 40).notNullable();
      t.integer('block').notNullable(); // floor(day / 32)
      t.string('event_type', 20).notNullable();
      t.string('custom_name', 40).notNullable(); // '' for a standard type
      t.string(column, 40).notNullable();
      t.string('currency', 3).notNullable(); // '' for no value
      t.bigInteger('conversions').notNullable();
      t.bigInteger('value_minor').notNullable();
      // Keyed by type before block: a filtered read is one range per type.
      t.primary(['workspace_id', 'event_type', 'custom_name', 'block', column, 'currency']);
    });
    // Integer division of the event's time: both engines floor a non-negative bigint quotient.
    await knex.raw(
      `INSERT INTO ${table} (workspace_id, block, event_type, custom_name, ${column}, currency, conversions, value_minor)
       SELECT workspace_id, (occurred_at / ${DAY_MS}) / ${BLOCK_DAYS}, event_type, coalesce(custom_name, ''), ${column}, coalesce(currency, ''), COUNT(*), coalesce(SUM(amount_minor), 0)
       FROM conversions WHERE ${column} IS NOT NULL
       GROUP BY workspace_id, (occurred_at / ${DAY_MS}) / ${BLOCK_DAYS}, event_type, coalesce(custom_name, ''), ${column}, coalesce(currency, '')`,
    );
  }
  // The events of a type in a workspace by time: the ends of a filtered window.
  await knex.schema.alterTable('conversions', (t) =>
    t.index(['workspace_id', 'event_type', 'occurred_at'], 'conversions_ws_type_time'),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversions', (t) => t.dropIndex([], 'conversions_ws_type_time'));
  for (const [name] of [...DIMENSIONS].reverse()) await knex.schema.dropTableIfExists(`conversion_block_type_${name}`);
}
