// Rows to Postgres as COPY's text format (pg-copy-streams), for the tables written as often as
// redirects happen: the raw clicks and a bio page's raw views (src/db/repos/click-batches.ts,
// bio-pages.ts). INSERT ... SELECT FROM unnest(one array per column) made Postgres parse an array
// literal per column and run a query per chunk: COPY costs it less CPU per click, and the
// writer thread less to serialize (bench:click-writes; bench/README.md, Click writer).
import type { Knex } from 'knex';
import { from as copyFrom } from 'pg-copy-streams';

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const NEEDS_ESCAPE = /[\\\t\n\r]/;

/** A field of COPY's text format: `\N` for NULL; backslash, tab, newline and CR escaped. */
export function copyField(v: string | null): string {
  if (v === null) return '\\N';
  return NEEDS_ESCAPE.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]) : v;
}

/**
 * Runs `COPY ... FROM STDIN` (`sql`) with `text` (lines of tab-separated fields, each made with
 * copyField) on the transaction's connection.
 */
export async function copyText(trx: Knex.Transaction, sql: string, text: string): Promise<void> {
  // Inside a transaction Knex hands out the transaction's own pg client.
  const conn = await (trx.client as any).acquireConnection();
  const stream = conn.query(copyFrom(sql));
  // 'finish' comes once Postgres has taken the COPY and the connection is ready for the next query.
  await new Promise<void>((resolve, reject) => {
    stream.once('error', reject);
    stream.once('finish', resolve);
    stream.end(text);
  });
}

/**
 * Copies `rows` by COPY (`sql`), `chunk` rows to a statement; `line` makes a row's line (its
 * fields by copyField, tab-separated, in `sql`'s column order, newline-terminated).
 */
export async function copyRows<R>(
  trx: Knex.Transaction,
  sql: string,
  rows: readonly R[],
  line: (r: R) => string,
  chunk: number,
): Promise<void> {
  for (let i = 0; i < rows.length; i += chunk) {
    let text = '';
    for (let j = i, end = Math.min(i + chunk, rows.length); j < end; j++) text += line(rows[j]);
    await copyText(trx, sql, text);
  }
}
