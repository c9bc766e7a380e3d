// Counts upserted on Postgres as one array per column (INSERT ... SELECT FROM unnest(...)): one
// statement for thousands of rows, the write of a click flush's aggregates (src/db/repos/click-batches.ts,
// bio-pages.ts). The raw rows go by COPY instead (src/db/pg-copy.ts).
import type { Knex } from 'knex';

/**
 * Runs `sql` (its parameters one array per column, in `columns`' order) over `rows`, `chunk` rows
 * to a statement, in the order given: callers sort by key, so concurrent flushes cannot deadlock.
 */
export async function upsertColumns<R>(
  trx: Knex.Transaction,
  sql: string,
  rows: readonly R[],
  columns: ReadonlyArray<(r: R) => unknown>,
  chunk: number,
): Promise<void> {
  for (let i = 0; i < rows.length; i += chunk) {
    const c = rows.slice(i, i + chunk);
    await trx.raw(sql, columns.map((column) => c.map(column)) as any);
  }
}
