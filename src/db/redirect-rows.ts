// A link row as the redirect path reads it: its columns (LINK_COLUMNS), the lookup statements
// the lookup threads prepare, the row as a ResolvedLink (toResolvedRow), and as the resident
// tier keeps it (residentRecord, linkFromResident, encodeLinkPage). The stores that read these
// rows are in redirect-store.ts.
import { locationOf, type ResolvedLink } from '../domain/resolve.ts';
import { compileRouting } from '../domain/routing.ts';
import type { ScannedPage } from './lookup-thread.ts';
import { addressKey, encodeEntries } from '../platform/resident-table.ts';

// toResolvedRow reads rows as arrays in this order.
export const LINK_COLUMNS = `id, workspace_id, domain_key, slug, original_url, redirect_type, status, start_at, end_at,
  expires_at, expired_url, click_limit, served, password_hash, preview_title, preview_description, preview_image, routing,
  split_winner`;

/**
 * The lookup of a visit on SQLite. INDEXED BY names the covering index links_redirect
 * (migration 20261123000000), which holds every column of LINK_COLUMNS: one B-tree is read, not
 * the slug index and then the table. A test checks the plan says COVERING INDEX, so a column
 * added here and not to the index is caught.
 */
export const SQLITE_LINK_BY_ADDRESS = `SELECT ${LINK_COLUMNS} FROM links INDEXED BY links_redirect WHERE domain_key = ? AND slug = ? AND deleted_at IS NULL`;

/**
 * The lookups of a batch on Postgres (pg-lookup-worker.ts): the addresses as two arrays, each row
 * answering with the 1-based position of its address, through links_live_slug.
 */
export const PG_LINKS_BY_ADDRESSES = `SELECT k.i, ${LINK_COLUMNS.split(',')
  .map((c) => `l.${c.trim()}`)
  .join(', ')}
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(domain_key, slug, i)
  JOIN links l ON l.domain_key = k.domain_key AND l.slug = k.slug AND l.deleted_at IS NULL`;

/**
 * A page of the preload as the lookup thread sends it: each row under its address's cache key, in
 * the resident table's format (src/platform/resident-table.ts), so the event loop only copies
 * bytes. The row is stored as residentRecord makes it. Postgres gives bigint columns as strings;
 * both forms read either.
 */
export function encodeLinkPage(rows: unknown[][]): ScannedPage & { page: Uint8Array } {
  const { buffer } = encodeEntries(
    rows.map((r) => [addressKey(r[2] as string, r[3] as string), residentRecord(r)] as const),
  );
  return {
    page: new Uint8Array(buffer),
    rows: rows.length,
    lastId: rows.length ? (rows[rows.length - 1][0] as string) : null,
  };
}

const SEP = '\u0000';

/**
 * A link row (LINK_COLUMNS order) as the resident tier keeps it. Most links are plain (active, no
 * schedule, expiry, click limit, password or preview, an http(s) destination): those as
 * `id NUL workspace NUL T|P NUL url NUL location`, location empty when it is the url, its
 * Location header computed here, on the lookup thread, so that it is read back without
 * JSON.parse or URL.canParse (bench/redirect-path.ts measures the difference); plain also means
 * the default routing (no routing document). Any other link
 * is kept as the row's JSON (it begins with `[`, which no link id does), read by toResolvedRow
 * as a database row is.
 */
export function residentRecord(r: unknown[]): string {
  const url = r[4] as string;
  const location =
    r[6] === 'ACTIVE' &&
    r[7] == null &&
    r[8] == null &&
    r[9] == null &&
    r[10] == null &&
    r[11] == null &&
    r[13] == null &&
    r[14] == null &&
    r[15] == null &&
    r[16] == null &&
    r[17] == null
      ? locationOf(url)
      : null;
  const id = r[0] as string;
  const workspaceId = r[1] as string;
  if (location === null || id.startsWith('[') || [id, workspaceId, url, location].some((v) => v.includes(SEP)))
    return JSON.stringify(r);
  return `${id}${SEP}${workspaceId}${SEP}${r[5] === 'PERMANENT' ? 'P' : 'T'}${SEP}${url}${SEP}${location === url ? '' : location}`;
}

/** A resident record (residentRecord) of the link at `domainKey`/`slug` as the redirect path uses it. */
export function linkFromResident(record: string, domainKey: string, slug: string): ResolvedLink {
  if (record.charCodeAt(0) === 91 /* [ */) return toResolvedRow(JSON.parse(record) as unknown[])!;
  const a = record.indexOf(SEP);
  const b = record.indexOf(SEP, a + 1);
  const d = record.indexOf(SEP, b + 3);
  const url = record.slice(b + 3, d);
  return {
    id: record.slice(0, a),
    workspaceId: record.slice(a + 1, b),
    domainKey,
    slug,
    url,
    location: d + 1 === record.length ? url : record.slice(d + 1),
    expiredLocation: null,
    redirectType: record.charCodeAt(b + 1) === 80 /* P */ ? 'PERMANENT' : 'TEMPORARY',
    status: 'ACTIVE',
    startAt: null,
    endAt: null,
    expiresAt: null,
    expiredUrl: null,
    clickLimit: null,
    served: 0,
    passwordHash: null,
    previewTitle: null,
    previewDescription: null,
    previewImage: null,
    routing: null,
  };
}

/** The preload's page of live links in id order (the primary key's index), on both engines. */
export const LINKS_AFTER_ID = (p: (n: number) => string) =>
  `SELECT ${LINK_COLUMNS} FROM links WHERE id > ${p(1)} AND deleted_at IS NULL ORDER BY id LIMIT ${p(2)}`;

const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * A link row, read as an array in LINK_COLUMNS order (rowMode 'array' on Postgres, raw() on
 * SQLite): better-sqlite3 builds a row object property by property, a fifth of a lookup's cost
 * (bench/README.md, redirect path); an array costs a fraction of that.
 */
export function toResolvedRow(r: unknown[] | undefined): ResolvedLink | null {
  if (!r) return null;
  const url = r[4] as string;
  const expiredUrl = (r[10] as string | null) ?? null;
  return {
    id: r[0] as string,
    workspaceId: r[1] as string,
    domainKey: r[2] as string,
    slug: r[3] as string,
    url,
    location: locationOf(url),
    expiredLocation: expiredUrl ? locationOf(expiredUrl) : null,
    redirectType: r[5] as ResolvedLink['redirectType'],
    status: r[6] as ResolvedLink['status'],
    startAt: n(r[7]),
    endAt: n(r[8]),
    expiresAt: n(r[9]),
    expiredUrl,
    clickLimit: n(r[11]),
    served: Number(r[12]),
    passwordHash: (r[13] as string | null) ?? null,
    previewTitle: (r[14] as string | null) ?? null,
    previewDescription: (r[15] as string | null) ?? null,
    previewImage: (r[16] as string | null) ?? null,
    routing: compileRouting((r[17] as string | null) ?? null, (r[18] as string | null) ?? null),
  };
}
