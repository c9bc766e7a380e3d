// What a click (click-batches.ts) and a bio page's view or block click (bio-pages.ts) both store
// of a visit: the same columns, written after each table's own ids in the order below by the
// SQLite INSERTs and the Postgres COPY of both writers. Country and city come from the trusted
// proxy's header or the client address's IP-location data (src/platform/geo.ts); the address
// itself is never among them.
import { copyField } from '../pg-copy.ts';

export interface VisitDetails {
  occurred_at: number;
  referrer_host: string | null;
  country: string | null;
  city: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
}

/** The columns of VisitDetails, in the order the writers put them. */
export const VISIT_COLUMNS = 'occurred_at, referrer_host, country, city, device, browser, os';
export const VISIT_WIDTH = 7;

/** `(?, ?, …)` for a row of `width` values, as the SQLite INSERTs of both writers spell one. */
export const placeholders = (width: number): string => `(${Array(width).fill('?').join(', ')})`;

/** Puts the visit's VISIT_WIDTH values into `values` from `at`, in VISIT_COLUMNS's order. */
export function putVisitDetails(r: VisitDetails, values: unknown[], at: number): void {
  values[at] = r.occurred_at;
  values[at + 1] = r.referrer_host;
  values[at + 2] = r.country;
  values[at + 3] = r.city;
  values[at + 4] = r.device;
  values[at + 5] = r.browser;
  values[at + 6] = r.os;
}

/** The visit's fields as the end of a line of COPY text (pg-copy.ts), newline included. */
export const visitCopyFields = (r: VisitDetails): string =>
  `${r.occurred_at}\t${copyField(r.referrer_host)}\t${copyField(r.country)}\t${copyField(r.city)}\t${copyField(r.device)}\t${copyField(r.browser)}\t${copyField(r.os)}\n`;
