// The click fold: counts a link's raw clicks per day by dimension and value (country, city,
// device, browser, system, referrer host) and keeps each link's click total, in a job every few minutes
// apart from the click writer (migration 20261126000000 has the tables and why). A link's
// analytics then reads at most 90 rows and a few minutes of raw clicks instead of every raw
// click of its workspace in 90 days (bench:dashboard measures a link with a million clicks).
//
// What is folded:
//  - a closed day (its end at least FOLD_LAG_MS ago) is counted whole into link_day_breakdowns,
//    and its pieces go;
//  - a block of BLOCK_DAYS closed days (days b*8 .. b*8+7) is counted whole into
//    link_block_breakdowns once its last day closes (a second count of those raw clicks, so a
//    read sums about 18 rows for 90 days rather than 90);
//  - an open day is counted a step at a time, [through, cutoff), into link_breakdown_pieces;
//  - click_folds says per day how far it is folded, and is written last (after the rows of a
//    step, in the same transaction as its last rows), so a fold that stops half-way leaves rows
//    the readers ignore (pieces beyond `through`, a day not closed) and the next run redoes.
// A click written after its time was folded (held in the writer's buffer through a database
// outage) is not in the fold: the reader checks each day's folded clicks against the link's
// daily count, which the click writer keeps in the flush that writes the click, and reads that
// day from the raw clicks when they differ (src/db/repos/link-analytics.ts).
//
// One process folds at a time (click_fold_lease); on SQLite the fold runs on a query thread
// (src/db/queries.ts) and writes in transactions of FOLD_WRITE_BATCH rows, so the click writer
// waits for the write lock no longer than one batch. Counting and JSON building happen in SQL.
import type { Knex } from 'knex';
import { CLICK_RETENTION_DAYS, DAY_MS } from '../../domain/conversions.ts';
import { LostLease, takeLease } from './leases.ts';

/** Open days are folded up to a multiple of this. */
export const FOLD_STEP_MS = 5 * 60_000;
/** Clicks this recent are not folded yet: the click writer flushes within a few seconds. */
export const FOLD_LAG_MS = 2 * 60_000;
const LEASE_MS = 15 * 60_000;
/** Days per block: the 90 days are then at most 11 blocks and 14 days at the edges. */
export const BLOCK_DAYS = 8;
const FOLD_WRITE_BATCH = 2_000;
/**
 * The dimensions, as keys of a row's `dims` object, with the SQL that gives a click's value (NULL
 * when unknown). A city is kept with its country, as `CC:City` (`:City` when the country is not
 * known): city names repeat across countries. A country code never holds `:`, so the first `:`
 * splits it (cityKey).
 */
export const FOLDED_DIMENSIONS = {
  country: 'country',
  city: "CASE WHEN city IS NULL THEN NULL ELSE COALESCE(country, '') || ':' || city END",
  device: 'device',
  browser: 'browser',
  os: 'os',
  referrer: 'referrer_host',
} as const;
export type FoldedDims = Record<keyof typeof FOLDED_DIMENSIONS, Record<string, number>>;

/** The dimensions' values as columns `d_<dimension>` of a SELECT over `clicks`. */
export const dimensionColumns = () =>
  Object.entries(FOLDED_DIMENSIONS)
    .map(([dim, sql]) => `${sql} AS d_${dim}`)
    .join(', ');

/** A folded city value split into the city (`value`) and its country ('' and null when unknown). */
export function cityKey(key: string): { value: string; country: string | null } {
  const at = key.indexOf(':');
  if (at < 0) return { value: key, country: null };
  return { value: key.slice(at + 1), country: key.slice(0, at) || null };
}

const isPg = (knex: Knex) => knex.client.config.client === 'pg';

/** The time up to which open days are folded at `now`. */
export const foldCutoff = (now: number) => Math.floor((now - FOLD_LAG_MS) / FOLD_STEP_MS) * FOLD_STEP_MS;

/**
 * SELECT of one workspace's clicks in [from, to) (parameters: workspace, from, to) counted per
 * link: `link_id`, `clicks`, and `dims`, the JSON object { dimension: { value: clicks } }, with
 * a missing value as ''.
 */
function countedSql(knex: Knex): string {
  const pg = isPg(knex);
  const obj = pg ? 'json_object_agg' : 'json_group_object';
  const per = Object.keys(FOLDED_DIMENSIONS).map(
    (dim) =>
      `SELECT link_id, '${dim}' AS dim, COALESCE(d_${dim}, '') AS value, COUNT(*) AS n FROM c GROUP BY link_id, COALESCE(d_${dim}, '')`,
  );
  return `WITH c AS MATERIALIZED (
      SELECT link_id, ${dimensionColumns()} FROM clicks
       WHERE workspace_id = ? AND occurred_at >= ? AND occurred_at < ?),
    v AS (${per.join(' UNION ALL ')}),
    d AS (SELECT link_id, dim, ${obj}(value, n) AS o, SUM(n) AS n FROM v GROUP BY link_id, dim)
    SELECT link_id, MAX(n) AS clicks, ${obj}(dim, ${pg ? 'o' : 'json(o)'})${pg ? '::text' : ''} AS dims FROM d GROUP BY link_id`;
}

export interface FoldState {
  through: number;
  closed: boolean;
}

/** How far each day of [fromDay, toDay] is folded (days the fold has not reached are absent). */
export async function foldStates(knex: Knex, fromDay: number, toDay: number): Promise<Map<number, FoldState>> {
  const rows = await knex('click_folds').whereBetween('day', [fromDay, toDay]).select('day', 'through', 'closed');
  return new Map(rows.map((r) => [Number(r.day), { through: Number(r.through), closed: !!r.closed }]));
}

/** The workspaces' ids: the clicks are read per workspace, by their (workspace_id, occurred_at) index. */
const workspaceIds = async (knex: Knex): Promise<string[]> => (await knex('workspaces').select('id')).map((r) => r.id);

/**
 * Writes the counts of `ws`'s clicks in [from, to) into `table` with `extra` columns; the last
 * batch's transaction runs `last` too. Postgres: one INSERT ... SELECT (the counting happens in
 * the database, and readers do not wait for writers). SQLite: the counts are read first (no
 * lock), then written FOLD_WRITE_BATCH rows a transaction.
 */
async function writeCounts(
  knex: Knex,
  ws: string,
  from: number,
  to: number,
  table: string,
  extra: Record<string, number>,
): Promise<number> {
  const cols = Object.keys(extra);
  if (isPg(knex)) {
    const r = await knex.raw(
      `INSERT INTO ${table} (workspace_id, link_id, clicks, dims${cols.map((c) => `, ${c}`).join('')})
       SELECT ?, link_id, clicks, dims${cols.map(() => ', ?').join('')} FROM (${countedSql(knex)}) counted`,
      [ws, ...Object.values(extra), ws, from, to],
    );
    return r.rowCount ?? 0;
  }
  const rows: Array<{ link_id: string; clicks: number; dims: string }> = await knex.raw(countedSql(knex), [
    ws,
    from,
    to,
  ]);
  for (let i = 0; i < rows.length; i += FOLD_WRITE_BATCH) {
    const batch = rows
      .slice(i, i + FOLD_WRITE_BATCH)
      .map((r) => ({ workspace_id: ws, link_id: r.link_id, clicks: Number(r.clicks), dims: r.dims, ...extra }));
    await knex.transaction((trx) => trx.batchInsert(table, batch, 500));
  }
  return rows.length;
}

/**
 * Each link's total of daily counts, for the links with rows in `table` matching `where`: what
 * the list sorted by clicks orders by (link_click_totals).
 */
async function refreshTotals(knex: Knex, ws: string, table: string, where: Record<string, number>): Promise<void> {
  const conds = Object.keys(where)
    .map((c) => ` AND p.${c} = ?`)
    .join('');
  await knex.raw(
    `INSERT INTO link_click_totals (workspace_id, link_id, clicks)
     SELECT workspace_id, link_id, SUM(clicks) FROM link_daily_clicks
      WHERE workspace_id = ? AND link_id IN (SELECT p.link_id FROM ${table} p WHERE p.workspace_id = ?${conds})
      GROUP BY workspace_id, link_id
     ON CONFLICT (workspace_id, link_id) DO UPDATE SET clicks = excluded.clicks`,
    [ws, ws, ...Object.values(where)],
  );
}

/** Folds one open day's clicks from `through` to `cutoff`. */
async function foldStep(
  knex: Knex,
  wss: string[],
  day: number,
  state: FoldState | undefined,
  cutoff: number,
  keep: () => Promise<void>,
): Promise<number> {
  const through = state?.through ?? day * DAY_MS;
  // Rows of a step that stopped half-way (beyond `through`) are redone.
  await knex('link_breakdown_pieces').where('day', day).where('upto', '>', through).delete();
  let links = 0;
  for (const ws of wss) {
    await keep();
    links += await writeCounts(knex, ws, through, cutoff, 'link_breakdown_pieces', { day, upto: cutoff });
    await refreshTotals(knex, ws, 'link_breakdown_pieces', { day, upto: cutoff });
  }
  await knex.transaction(async (trx) => {
    if (state) {
      const n = await trx('click_folds').where({ day, through }).update({ through: cutoff });
      if (n !== 1) throw new LostLease(`day ${day} was folded by another process`);
    } else await trx('click_folds').insert({ day, through: cutoff, closed: false });
  });
  return links;
}

/** Folds a closed day whole, and drops its pieces. */
async function closeDay(
  knex: Knex,
  wss: string[],
  day: number,
  state: FoldState | undefined,
  keep: () => Promise<void>,
): Promise<number> {
  // Rows of a close that stopped half-way are redone.
  await knex('link_day_breakdowns').where('day', day).delete();
  let links = 0;
  const [from, to] = [day * DAY_MS, (day + 1) * DAY_MS];
  for (const ws of wss) {
    await keep();
    links += await writeCounts(knex, ws, from, to, 'link_day_breakdowns', { day });
    await refreshTotals(knex, ws, 'link_day_breakdowns', { day });
  }
  await knex.transaction(async (trx) => {
    if (state) {
      const n = await trx('click_folds')
        .where({ day, through: state.through, closed: false })
        .update({ through: to, closed: true });
      if (n !== 1) throw new LostLease(`day ${day} was folded by another process`);
    } else await trx('click_folds').insert({ day, through: to, closed: true });
  });
  await knex('link_breakdown_pieces').where('day', day).delete();
  return links;
}

/** Folds a block of closed days whole. */
async function foldBlock(knex: Knex, wss: string[], block: number, keep: () => Promise<void>): Promise<number> {
  await knex('link_block_breakdowns').where('block', block).delete();
  let links = 0;
  for (const ws of wss) {
    await keep();
    links += await writeCounts(
      knex,
      ws,
      block * BLOCK_DAYS * DAY_MS,
      (block + 1) * BLOCK_DAYS * DAY_MS,
      'link_block_breakdowns',
      { block },
    );
  }
  await knex('click_fold_blocks').insert({ block });
  return links;
}

export interface FoldResult {
  /** False when another process holds the fold. */
  ran: boolean;
  daysClosed: number;
  blocks: number;
  steps: number;
  /** Rows written: one per link and day or step. */
  rows: number;
}

/**
 * Folds every day of the last CLICK_RETENTION_DAYS up to foldCutoff(now): the job of
 * src/jobs/click-folds.ts, and the first run after the migration folds all 90 days.
 */
export async function runClickFold(knex: Knex, now = Date.now()): Promise<FoldResult> {
  const result: FoldResult = { ran: false, daysClosed: 0, blocks: 0, steps: 0, rows: 0 };
  if (!(await knex.schema.hasTable('click_folds'))) return result;
  const lease = await takeLease(knex, 'fold', LEASE_MS);
  if (!lease) return result;
  result.ran = true;
  const keep = lease.keep;
  try {
    const cutoff = foldCutoff(now);
    const today = Math.floor(now / DAY_MS);
    const firstDay = today - CLICK_RETENTION_DAYS + 1;
    const states = await foldStates(knex, firstDay, today);
    const wss = await workspaceIds(knex);
    for (let day = firstDay; day * DAY_MS < cutoff; day++) {
      const state = states.get(day);
      if (state?.closed) continue;
      if (cutoff >= (day + 1) * DAY_MS) {
        result.rows += await closeDay(knex, wss, day, state, keep);
        result.daysClosed++;
      } else if (!state || state.through < cutoff) {
        result.rows += await foldStep(knex, wss, day, state, cutoff, keep);
        result.steps++;
      }
    }
    // Blocks inside the 90 days whose days are all closed.
    const folded = new Set(
      (
        await knex('click_fold_blocks')
          .where('block', '>=', Math.ceil(firstDay / BLOCK_DAYS))
          .select('block')
      ).map((r) => Number(r.block)),
    );
    for (let block = Math.ceil(firstDay / BLOCK_DAYS); (block + 1) * BLOCK_DAYS * DAY_MS <= cutoff; block++) {
      if (folded.has(block)) continue;
      result.rows += await foldBlock(knex, wss, block, keep);
      result.blocks++;
    }
  } catch (err) {
    if (!(err instanceof LostLease)) throw err;
  } finally {
    await lease.release();
  }
  return result;
}

/** Retention's part: folds of days before the last CLICK_RETENTION_DAYS. */
export async function deleteExpiredFolds(knex: Knex, now: number): Promise<void> {
  if (!(await knex.schema.hasTable('click_folds'))) return;
  const firstDay = Math.floor(now / DAY_MS) - CLICK_RETENTION_DAYS + 1;
  await knex('link_day_breakdowns').where('day', '<', firstDay).delete();
  await knex('link_breakdown_pieces').where('day', '<', firstDay).delete();
  await knex('click_folds').where('day', '<', firstDay).delete();
  // A block that starts before the 90 days is no longer read.
  const firstBlock = Math.ceil(firstDay / BLOCK_DAYS);
  await knex('link_block_breakdowns').where('block', '<', firstBlock).delete();
  await knex('click_fold_blocks').where('block', '<', firstBlock).delete();
}
