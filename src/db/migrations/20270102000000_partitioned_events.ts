// On Postgres the raw events retention empties by age, `clicks` and `page_views`, become range
// partitions by occurred_at, one per UTC day (`clicks_d20261130`: [day start, next day start) in
// epoch ms), plus a DEFAULT partition that takes any row outside the days made (a click held
// through an outage, a clock far off), so the writers' COPY never fails for want of a partition.
// Retention then drops a day whole instead of deleting its rows one by one, and the service makes
// the days ahead (src/db/repos/event-partitions.ts).
//
// The primary key has to hold the partition key: (id, occurred_at). The id sequence is kept, so
// ids go on from where they were; every other index is made again on the parent, so each
// partition has it. The rows are copied in this migration's transaction, so none is lost: days
// from the oldest row still within the 90 days to 7 days ahead get a partition, older or further
// rows go to DEFAULT (retention deletes the old ones). Down copies them back into a plain table
// of the original shape.
//
// Left as they are, though emptied by age too:
//  - conversions: each deleted event is taken out of its 32-day blocks and its value out of the
//    workspace's kept total one by one (src/db/repos/retention.ts); dropping a partition would
//    skip that and break the exact counts;
//  - link_click_windows: a few rows per link and 5 minutes, kept 8 days, updated in place;
//  - idempotency_keys: kept 24 hours and looked up by key;
//  - webhook_deliveries: the outbox and delivery log, emptied by outcome as well as age.
// SQLite keeps its tables: up and down do nothing there.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

const isPg = (knex: Knex) => knex.client.config.client === 'pg';

const DAY_MS = 86_400_000;
const KEPT_DAYS = 90;
const AHEAD_DAYS = 7;
const TABLES = ['clicks', 'page_views'];

const partitionName = (table: string, day: number) =>
  `${table}_d${new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '')}`;

/** The table's indexes other than its primary key, as CREATE INDEX statements. */
async function secondaryIndexes(knex: Knex, table: string): Promise<Array<{ name: string; def: string }>> {
  const r = await knex.raw(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = ?::regclass AND NOT i.indisprimary ORDER BY c.relname`,
    [table],
  );
  return r.rows;
}

/**
 * Rebuilds `table` as a partitioned (`partitioned`) or a plain table with the same columns,
 * defaults, sequence, indexes and rows; the old one goes.
 */
async function rebuild(knex: Knex, table: string, partitioned: boolean): Promise<void> {
  const old = `${table}_rebuilt_from`;
  const indexes = await secondaryIndexes(knex, table);
  const seq = (await knex.raw('SELECT pg_get_serial_sequence(?, ?) AS seq', [table, 'id'])).rows[0].seq;
  await knex.raw(`ALTER TABLE ${table} RENAME TO ${old}`);
  // Their names are needed again on the new table.
  await knex.raw(`ALTER TABLE ${old} DROP CONSTRAINT ${table}_pkey`);
  for (const ix of indexes) await knex.raw(`DROP INDEX ${ix.name}`);
  await knex.raw(
    `CREATE TABLE ${table} (LIKE ${old} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS)
     ${partitioned ? 'PARTITION BY RANGE (occurred_at)' : ''}`,
  );
  if (partitioned) {
    const today = Math.floor(Date.now() / DAY_MS);
    const oldest = (
      await knex.raw(`SELECT MIN(occurred_at) AS t FROM ${old} WHERE occurred_at >= ?`, [(today - KEPT_DAYS) * DAY_MS])
    ).rows[0].t;
    const first = oldest === null ? today : Math.min(today, Math.floor(Number(oldest) / DAY_MS));
    for (let day = first; day <= today + AHEAD_DAYS; day++)
      await knex.raw(
        `CREATE TABLE ${partitionName(table, day)} PARTITION OF ${table} FOR VALUES FROM (${day * DAY_MS}) TO (${(day + 1) * DAY_MS})`,
      );
    await knex.raw(`CREATE TABLE ${table}_default PARTITION OF ${table} DEFAULT`);
  }
  await knex.raw(`INSERT INTO ${table} SELECT * FROM ${old}`);
  await knex.raw(
    `ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY (${partitioned ? 'id, occurred_at' : 'id'})`,
  );
  // The definitions name the table, which is now the new one (a partitioned parent's say ON ONLY).
  for (const ix of indexes) await knex.raw(ix.def.replace(' ON ONLY ', ' ON '));
  // Owned by the new table's column, the sequence outlives the old table.
  if (seq) await knex.raw(`ALTER SEQUENCE ${seq} OWNED BY ${table}.id`);
  await knex.raw(`DROP TABLE ${old}`);
}

export async function up(knex: Knex): Promise<void> {
  if (!isPg(knex)) return;
  for (const table of TABLES) await rebuild(knex, table, true);
}

export async function down(knex: Knex): Promise<void> {
  if (!isPg(knex)) return;
  for (const table of TABLES) await rebuild(knex, table, false);
}
