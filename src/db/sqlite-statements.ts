// The statements of the writes made as often as redirects happen (raw clicks, a bio page's views
// and their counts), run on SQLite without the query builder: prepared once per connection, and
// raw rows inserted many to a statement (one call into SQLite per row costs more per click,
// bench:click-writes).
import type { Knex } from 'knex';

export interface Statement {
  run(...args: unknown[]): unknown;
}

/** `sql`'s statements on the transaction's own better-sqlite3 connection, prepared on first use. */
export async function preparedOn<K extends string>(
  trx: Knex.Transaction,
  cache: WeakMap<object, Record<K, Statement>>,
  sql: Record<K, string>,
): Promise<Record<K, Statement>> {
  // Inside a transaction Knex hands out the transaction's own better-sqlite3 connection.
  const conn = await (trx.client as any).acquireConnection();
  let st = cache.get(conn);
  if (!st) {
    st = Object.fromEntries(Object.entries(sql).map(([k, text]) => [k, conn.prepare(text)])) as Record<K, Statement>;
    cache.set(conn, st);
  }
  return st;
}

/**
 * Inserts `rows`: `per` to a statement through `many` (an INSERT of `per` rows), the rest one at
 * a time through `one`. `put` writes a row's `width` values into `values` from `at`, in the
 * statements' column order.
 */
export function insertRows<R>(
  rows: readonly R[],
  per: number,
  width: number,
  many: Statement,
  one: Statement,
  put: (r: R, values: unknown[], at: number) => void,
): void {
  const values: unknown[] = new Array(per * width);
  let i = 0;
  for (; i + per <= rows.length; i += per) {
    for (let j = 0; j < per; j++) put(rows[i + j], values, j * width);
    many.run(values);
  }
  const single: unknown[] = new Array(width);
  for (; i < rows.length; i++) {
    put(rows[i], single, 0);
    one.run(single);
  }
}
