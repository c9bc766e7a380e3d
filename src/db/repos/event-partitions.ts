// Postgres's day partitions of the raw events (migration 20270102000000 has the layout and why):
// the service makes the days ahead, and retention drops whole days past the 90. Partition DDL
// runs in one process at a time (the `partitions` lease); each step also takes the parent's
// SHARE UPDATE EXCLUSIVE lock, which never waits for the click writer or a reader, so two
// processes whose lease ran out between them still make a day once. Every DDL step waits at most
// LOCK_TIMEOUT for its locks and is tried again on the next run rather than queue the writers
// behind it. SQLite and a database migrated back down have no partitions: everything here then
// does nothing.
import type { Knex } from 'knex';
import { DAY_MS } from '../../domain/conversions.ts';
import { takeLease } from './leases.ts';

/** The raw event tables retention empties by age and the migration partitions. */
export const PARTITIONED_EVENTS = ['clicks', 'page_views'] as const;
export type EventTable = (typeof PARTITIONED_EVENTS)[number];
/** Days ahead of today that have a partition: a week of failed runs before clicks land in DEFAULT. */
export const PARTITION_AHEAD_DAYS = 7;
const LEASE_MS = 10 * 60_000;
const LOCK_TIMEOUT = '5s';
const DELETE_BATCH = 5_000;
const LOCK_NOT_AVAILABLE = '55P03';

const isPg = (knex: Knex) => knex.client.config.client === 'pg';

export const partitionName = (table: EventTable, day: number) =>
  `${table}_d${new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '')}`;
const defaultPartition = (table: EventTable) => `${table}_default`;

/** A partition's range of occurred_at, [from, to). */
export interface DayPartition {
  name: string;
  from: number;
  to: number;
}

/** Which raw event tables are partitioned here: one catalog read. */
export async function partitionedEventTables(knex: Knex): Promise<Set<EventTable>> {
  if (!isPg(knex)) return new Set();
  const r = await knex.raw(
    `SELECT c.relname AS name FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = ANY(?)`,
    [[...PARTITIONED_EVENTS]],
  );
  return new Set(r.rows.map((row: { name: EventTable }) => row.name));
}

/** The table's range partitions (DEFAULT is not one), by their start. */
export async function dayPartitions(knex: Knex, table: EventTable): Promise<DayPartition[]> {
  const r = await knex.raw(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = ?::regclass`,
    [table],
  );
  const out: DayPartition[] = [];
  for (const { name, bound } of r.rows as Array<{ name: string; bound: string }>) {
    // FOR VALUES FROM ('…') TO ('…'); a bound of MINVALUE or MAXVALUE (not made here) is not a day.
    const m = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(bound);
    if (m) out.push({ name, from: Number(m[1]), to: Number(m[2]) });
  }
  return out.sort((a, b) => a.from - b.from);
}

async function hasDefault(knex: Knex, table: EventTable): Promise<boolean> {
  const r = await knex.raw('SELECT to_regclass(?) IS NOT NULL AS present', [defaultPartition(table)]);
  return r.rows[0].present;
}

const columnsOf = async (knex: Knex, table: EventTable) =>
  Object.keys(await knex(table).columnInfo())
    .map((c) => `"${c}"`)
    .join(', ');

/**
 * Makes the partition of `day` unless a partition covers part of it; returns the rows moved into
 * it from DEFAULT, or undefined when it was there. Postgres refuses a partition whose rows sit in
 * DEFAULT, so the new table is filled from DEFAULT first and attached after, in one transaction
 * that holds DEFAULT (SHARE ROW EXCLUSIVE) so no writer adds such a row meanwhile.
 */
async function makeDayPartition(knex: Knex, table: EventTable, day: number): Promise<number | undefined> {
  const [from, to] = [day * DAY_MS, (day + 1) * DAY_MS];
  return knex.transaction(async (trx) => {
    await trx.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    await trx.raw(`LOCK TABLE ONLY ${table} IN SHARE UPDATE EXCLUSIVE MODE`);
    if ((await dayPartitions(trx, table)).some((p) => p.from < to && p.to > from)) return undefined;
    const name = partitionName(table, day);
    await trx.raw(`CREATE TABLE ${name} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    let moved = 0;
    if (await hasDefault(trx, table)) {
      const def = defaultPartition(table);
      await trx.raw(`LOCK TABLE ${def} IN SHARE ROW EXCLUSIVE MODE`);
      const cols = await columnsOf(trx, table);
      const r = await trx.raw(
        `WITH moved AS (DELETE FROM ${def} WHERE occurred_at >= ? AND occurred_at < ? RETURNING ${cols})
         INSERT INTO ${name} (${cols}) SELECT ${cols} FROM moved`,
        [from, to],
      );
      moved = r.rowCount ?? 0;
    }
    await trx.raw(`ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES FROM (${from}) TO (${to})`);
    return moved;
  });
}

/**
 * For /metrics: per partitioned table, the days after today that have a partition with none
 * missing between (PARTITION_AHEAD_DAYS while the upkeep keeps up; -1 when today has none, so
 * today's events go to DEFAULT).
 */
export async function partitionDaysAhead(
  knex: Knex,
  now = Date.now(),
): Promise<Array<{ table: EventTable; days: number }>> {
  const out: Array<{ table: EventTable; days: number }> = [];
  const today = Math.floor(now / DAY_MS);
  for (const table of await partitionedEventTables(knex)) {
    const starts = new Set((await dayPartitions(knex, table)).map((p) => p.from));
    let day = today;
    while (starts.has(day * DAY_MS)) day++;
    out.push({ table, days: day - today - 1 });
  }
  return out;
}

export interface PartitionUpkeep {
  /** False when nothing is partitioned or another process holds the lease. */
  ran: boolean;
  created: number;
  /** Rows moved out of DEFAULT into a partition made for their day. */
  moved: number;
}

/**
 * Makes the partitions of today .. today + `ahead` days that are missing: the job of
 * src/jobs/event-partitions.ts, and of `shortlink retention run`.
 */
export async function ensureEventPartitions(
  knex: Knex,
  now = Date.now(),
  ahead = PARTITION_AHEAD_DAYS,
): Promise<PartitionUpkeep> {
  const result: PartitionUpkeep = { ran: false, created: 0, moved: 0 };
  const tables = await partitionedEventTables(knex);
  if (!tables.size) return result;
  const lease = await takeLease(knex, 'partitions', LEASE_MS);
  if (!lease) return result;
  result.ran = true;
  try {
    const today = Math.floor(now / DAY_MS);
    for (const table of tables) {
      const have = await dayPartitions(knex, table);
      for (let day = today; day <= today + ahead; day++) {
        if (have.some((p) => p.from < (day + 1) * DAY_MS && p.to > day * DAY_MS)) continue;
        await lease.keep();
        const moved = await makeDayPartition(knex, table, day);
        if (moved === undefined) continue;
        result.created++;
        result.moved += moved;
      }
    }
  } finally {
    await lease.release();
  }
  return result;
}

/**
 * Retention on a partitioned table: drops each day partition whose end is at most `cutoff` (all
 * of its rows are older), then deletes DEFAULT's rows older than `cutoff` in batches. A row in the
 * partition that holds `cutoff` waits for its day to end: kept at least 90 days and less than 91.
 * While another process holds the lease the drops wait for the next run. Returns the rows removed.
 */
export async function dropExpiredEvents(knex: Knex, table: EventTable, cutoff: number): Promise<number> {
  let total = 0;
  const lease = await takeLease(knex, 'partitions', LEASE_MS);
  if (lease) {
    try {
      for (const p of await dayPartitions(knex, table)) {
        if (p.to > cutoff) continue;
        await lease.keep();
        total += await knex.transaction(async (trx) => {
          await trx.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
          const n = Number((await trx.raw(`SELECT COUNT(*) AS n FROM ${p.name}`)).rows[0].n);
          await trx.raw(`DROP TABLE ${p.name}`);
          return n;
        });
      }
    } catch (err) {
      // A long read held the table: the next run drops what is left.
      if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
    } finally {
      await lease.release();
    }
  }
  if (!(await hasDefault(knex, table))) return total;
  const def = defaultPartition(table);
  for (;;) {
    const r = await knex.raw(
      `DELETE FROM ${def} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${def} WHERE occurred_at < ? LIMIT ${DELETE_BATCH}))`,
      [cutoff],
    );
    total += r.rowCount ?? 0;
    if (!r.rowCount) return total;
  }
}
