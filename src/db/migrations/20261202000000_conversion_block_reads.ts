// Conversion summaries and goal reports over 400 days without reading every event (bench:conversions).
//
// 1. Every 32-day block counts exactly the kept events of its days: rebuilt here from the events,
//    added to by insertConversion, taken from by retention as it deletes events. Before, the
//    oldest block kept counting what retention had deleted, so a window could only add blocks it
//    held whole; now it may also take the raw events outside it from a block that overhangs it
//    (domain/conversion-reads planReads), and each end of a window costs at most half a block of
//    raw events, almost none for a window that ends now or starts at the retention edge.
// 2. The blocks by type and link, campaign or QR code (20261127010000) gain, for custom events,
//    rows of every name together (custom_name ''), which a summary filtered by eventType=custom
//    reads instead of one row per name (five times as many in the bench's data).
// 3. The events' indexes by type, by link and by campaign carry every column a summary counts,
//    so the raw events of a window's ends and of a summary filtered by link or campaign are read
//    from the index alone (SQLite: extra key columns; Postgres: INCLUDE), not looked up in the
//    table one by one. The index by QR code is left as it was: a QR code's events are few.
// 4. Postgres keeps statistics of event type and custom name together on the blocks by type.
//
// Frozen: it imports nothing of the project; src/domain/conversions.ts BLOCK_DAYS is the width.
import type { Knex } from 'knex';

const BLOCK = `(occurred_at / 86400000) / 32`;
const DIMENSIONS: Array<[string, string]> = [
  ['link', 'link_id'],
  ['campaign', 'campaign_id'],
  ['qr', 'qr_code_id'],
];
const TYPE_KEYS = `event_type, coalesce(custom_name, ''), coalesce(currency, ''), CASE WHEN link_id IS NULL THEN 0 ELSE 1 END`;

/** The events' indexes: [name, key columns, covered columns] now, and what they replace. */
const COVERING: Array<[string, string[], string[], string, string[]]> = [
  [
    'conversions_by_type',
    ['workspace_id', 'event_type', 'occurred_at'],
    ['custom_name', 'link_id', 'campaign_id', 'qr_code_id', 'currency', 'amount_minor'],
    'conversions_ws_type_time',
    ['workspace_id', 'event_type', 'occurred_at'],
  ],
  [
    'conversions_by_link',
    ['workspace_id', 'link_id', 'occurred_at'],
    ['event_type', 'custom_name', 'campaign_id', 'qr_code_id', 'currency', 'amount_minor'],
    'conversions_workspace_id_link_id_occurred_at_index',
    ['workspace_id', 'link_id', 'occurred_at'],
  ],
  [
    'conversions_by_campaign',
    ['workspace_id', 'campaign_id', 'occurred_at'],
    ['event_type', 'custom_name', 'link_id', 'qr_code_id', 'currency', 'amount_minor'],
    'conversions_workspace_id_campaign_id_occurred_at_index',
    ['workspace_id', 'campaign_id', 'occurred_at'],
  ],
];

/** Fills the blocks by type and link, campaign or QR code from the events; `allNames`: with the rows of every custom name together. */
async function fillTypeBlocks(knex: Knex, allNames: boolean) {
  for (const [name, column] of DIMENSIONS) {
    const table = `conversion_block_type_${name}`;
    await knex(table).delete();
    const select = (customName: string, where: string) =>
      `SELECT workspace_id, ${BLOCK} AS block, event_type, ${customName} AS custom_name, ${column}, coalesce(currency, '') AS currency, coalesce(amount_minor, 0) AS amount
       FROM conversions WHERE ${column} IS NOT NULL${where}`;
    const events = allNames
      ? `${select(`coalesce(custom_name, '')`, '')} UNION ALL ${select(`''`, ` AND event_type = 'custom' AND custom_name <> ''`)}`
      : select(`coalesce(custom_name, '')`, '');
    await knex.raw(
      `INSERT INTO ${table} (workspace_id, block, event_type, custom_name, ${column}, currency, conversions, value_minor)
       SELECT workspace_id, block, event_type, custom_name, ${column}, currency, COUNT(*), SUM(amount)
       FROM (${events}) AS e GROUP BY workspace_id, block, event_type, custom_name, ${column}, currency`,
    );
  }
}

export async function up(knex: Knex): Promise<void> {
  await knex('conversion_block_type').delete();
  await knex.raw(
    `INSERT INTO conversion_block_type (workspace_id, block, event_type, custom_name, currency, attributed, conversions, value_minor)
     SELECT workspace_id, ${BLOCK}, ${TYPE_KEYS}, COUNT(*), coalesce(SUM(amount_minor), 0) FROM conversions
     GROUP BY workspace_id, ${BLOCK}, ${TYPE_KEYS}`,
  );
  for (const [name, column] of DIMENSIONS) {
    await knex(`conversion_block_${name}`).delete();
    await knex.raw(
      `INSERT INTO conversion_block_${name} (workspace_id, block, ${column}, currency, conversions, value_minor)
       SELECT workspace_id, ${BLOCK}, ${column}, coalesce(currency, ''), COUNT(*), coalesce(SUM(amount_minor), 0) FROM conversions
       WHERE ${column} IS NOT NULL GROUP BY workspace_id, ${BLOCK}, ${column}, coalesce(currency, '')`,
    );
  }
  await fillTypeBlocks(knex, true);
  const pg = knex.client.config.client === 'pg';
  if (pg) {
    // Postgres guesses the rows of event_type = 'custom' AND custom_name = '' from each column
    // alone (custom_name '' is most rows: every standard type's) and scans the whole table; the
    // pair's own frequencies make it read the key's range (26 -> 5 ms in the bench).
    for (const [name] of DIMENSIONS) {
      await knex.raw(
        `CREATE STATISTICS conversion_block_type_${name}_type_name (mcv) ON event_type, custom_name FROM conversion_block_type_${name}`,
      );
      await knex.raw(`ANALYZE conversion_block_type_${name}`);
    }
  }
  for (const [name, keys, covered, old] of COVERING) {
    await knex.raw(`DROP INDEX IF EXISTS ${old}`);
    await knex.raw(
      pg
        ? `CREATE INDEX ${name} ON conversions (${keys.join(', ')}) INCLUDE (${covered.join(', ')})`
        : `CREATE INDEX ${name} ON conversions (${[...keys, ...covered].join(', ')})`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') {
    for (const [name] of DIMENSIONS)
      await knex.raw(`DROP STATISTICS IF EXISTS conversion_block_type_${name}_type_name`);
  }
  for (const [name, , , old, oldKeys] of COVERING) {
    await knex.raw(`DROP INDEX IF EXISTS ${name}`);
    await knex.raw(`CREATE INDEX ${old} ON conversions (${oldKeys.join(', ')})`);
  }
  await fillTypeBlocks(knex, false);
}
