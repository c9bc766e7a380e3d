// Where raw clicks live: the seam a columnar store would take over when one Postgres no longer
// holds them (docs/scaling.md, "The next step"). Today the service's own database is the store
// (SQL_RAW_EVENTS: the `clicks` table, partitioned by day on Postgres). Everything the service
// asks of raw clicks is an append of a flush, or a count grouped by some of their columns over a
// workspace's time range: what a store such as ClickHouse answers natively. The click writer
// appends through this; test/db/raw-events.test.ts is the contract another store must pass.
import type { Knex } from 'knex';
import { copyField, copyRows } from '../pg-copy.ts';
import { insertRows, preparedOn, type Statement } from '../sqlite-statements.ts';
import {
  placeholders,
  putVisitDetails,
  VISIT_COLUMNS,
  VISIT_WIDTH,
  visitCopyFields,
  type VisitDetails,
} from './visit-columns.ts';

/**
 * A click as it is stored: the User-Agent parsed, the referrer reduced to its host, the client
 * address reduced to a country and city, no IP address.
 */
export interface StoredClick extends VisitDetails {
  workspace_id: string;
  link_id: string;
  qr_code_id: string | null;
  /** The routing rule or split variant that served the click; null when none did. */
  route: string | null;
}

/** The columns a count may group by. */
export const RAW_CLICK_DIMENSIONS = [
  'link_id',
  'qr_code_id',
  'route',
  'referrer_host',
  'country',
  'city',
  'device',
  'browser',
  'os',
] as const;
export type RawClickDimension = (typeof RAW_CLICK_DIMENSIONS)[number];

export interface RawClickQuery {
  workspaceId: string;
  /** The time range [from, to), epoch ms. */
  from: number;
  to: number;
  linkId?: string;
  /** Only clicks by a QR code's scan (with `qrCodeId`, by that one). */
  scans?: boolean;
  qrCodeId?: string;
  /** The columns to group by, in the order of each row's `key`; none: one row, the total. */
  by: readonly RawClickDimension[];
  /** Also group by the start of the time bucket of this many ms the click is in (`bucket`). */
  bucketMs?: number;
}

export interface RawClickCount {
  /** The values of `by`'s columns, in its order (a missing value is null). */
  key: Array<string | null>;
  bucket?: number;
  clicks: number;
}

export interface RawEventStore {
  /**
   * Appends a flush's clicks. The SQL store writes them in the flush's transaction `trx`, so raw
   * clicks and their counts commit together; a store outside the database would take them after
   * that commit, and must then drop a flush it is given twice (the writer retries a flush whose
   * commit it did not see).
   */
  appendClicks(trx: Knex.Transaction, engine: 'sqlite' | 'postgres', rows: readonly StoredClick[]): Promise<void>;
  /** The clicks `q` selects, counted per distinct key (and bucket); no row for a key with none. */
  countClicks(knex: Knex, q: RawClickQuery): Promise<RawClickCount[]>;
}

const CLICK_INSERT = `INSERT INTO clicks (workspace_id, link_id, qr_code_id, route, ${VISIT_COLUMNS}) VALUES `;
const CLICK_WIDTH = 4 + VISIT_WIDTH;
/** Clicks per INSERT statement on SQLite: one call into SQLite per row costs more per click (bench:click-writes). */
const SQLITE_ROWS_PER_INSERT = 64;
const SQLITE_SQL = {
  click: CLICK_INSERT + placeholders(CLICK_WIDTH),
  clicks: CLICK_INSERT + Array(SQLITE_ROWS_PER_INSERT).fill(placeholders(CLICK_WIDTH)).join(', '),
};
const prepared = new WeakMap<object, Record<keyof typeof SQLITE_SQL, Statement>>();

const PG_CHUNK = 5_000;
/** The raw clicks go to Postgres by COPY (src/db/pg-copy.ts says why). */
const PG_CLICK_COPY = `COPY clicks (workspace_id, link_id, qr_code_id, route, ${VISIT_COLUMNS}) FROM STDIN`;
/** A click as a line of COPY text, in PG_CLICK_COPY's column order. */
const clickCopyLine = (r: StoredClick) =>
  `${copyField(r.workspace_id)}\t${copyField(r.link_id)}\t${copyField(r.qr_code_id)}\t${copyField(r.route)}\t${visitCopyFields(r)}`;

/** The service's own database as the store of raw clicks. */
export const SQL_RAW_EVENTS: RawEventStore = {
  async appendClicks(trx, engine, rows) {
    if (engine === 'postgres') {
      await copyRows(trx, PG_CLICK_COPY, rows, clickCopyLine, PG_CHUNK);
      return;
    }
    const st = await preparedOn(trx, prepared, SQLITE_SQL);
    insertRows(rows, SQLITE_ROWS_PER_INSERT, CLICK_WIDTH, st.clicks, st.click, (r, values, v) => {
      values[v] = r.workspace_id;
      values[v + 1] = r.link_id;
      values[v + 2] = r.qr_code_id;
      values[v + 3] = r.route;
      putVisitDetails(r, values, v + 4);
    });
  },

  async countClicks(knex, q) {
    // The (workspace_id, occurred_at) index finds the range; on Postgres it also picks the day
    // partitions the range touches.
    const query = knex('clicks')
      .where('workspace_id', q.workspaceId)
      .where('occurred_at', '>=', q.from)
      .where('occurred_at', '<', q.to);
    if (q.linkId !== undefined) query.where('link_id', q.linkId);
    if (q.qrCodeId !== undefined) query.where('qr_code_id', q.qrCodeId);
    else if (q.scans) query.whereNotNull('qr_code_id');
    let bucket: string | null = null;
    if (q.bucketMs !== undefined) {
      const size = Math.floor(q.bucketMs);
      if (!(size > 0)) throw new Error('bucketMs must be a positive number of ms');
      bucket = `(occurred_at / ${size}) * ${size}`;
    }
    const groups = bucket ? [...q.by, knex.raw(bucket)] : [...q.by];
    if (groups.length) query.groupBy(groups);
    const select = bucket ? [...q.by, knex.raw(`${bucket} AS bucket`)] : [...q.by];
    const rows = (await query.select(select).count({ n: '*' })) as Array<Record<string, unknown>>;
    return rows
      .filter((r) => Number(r.n) > 0)
      .map((r) => ({
        key: q.by.map((d) => (r[d] ?? null) as string | null),
        ...(bucket ? { bucket: Number(r.bucket) } : {}),
        clicks: Number(r.n),
      }));
  },
};
