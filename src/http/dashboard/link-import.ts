// The CSV import's file (openapi/dashboard.yaml, importLinks), read from the request as it
// arrives: parsed a slice at a time, and refused for its size, its row count or a malformed line
// while it is read, before anything is written.
import type { IncomingMessage } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TextDecoder } from 'node:util';
import { CsvError, parse, type Info } from 'csv-parse';
import { readBackCell } from '../../domain/csv.ts';
import { invalid, isAppError } from '../../domain/errors.ts';
import { bodyTooLarge } from '../body.ts';

export const IMPORT_MAX_BYTES = 10 * 2 ** 20;
export const IMPORT_MAX_ROWS = 20_000;

/**
 * The bytes parsed between two turns of the event loop. The parse runs on the loop that serves
 * the redirects, so a visitor waits for at most one slice (bench/README.md, Import). A worker
 * thread would take the parse off the loop, but every record would come back through it, and the
 * thread needs its own start and stop; slices keep the wait as short for less.
 */
const SLICE_BYTES = 4 * 1024;

/** A row of the file: the line it starts on, and the fields the contract names. */
export interface ImportRow {
  line: number;
  url?: string;
  slug?: string;
  title?: string;
  tags?: string;
  expiresAt?: string;
}

/** A CSV column's header as a key: any case, spaces and underscores alike. */
const headerKey = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
/**
 * The header names of our export and of other services' that carry each field: Bitly's link
 * fields (long_url, link, custom_bitlinks, title, tags), Shlink web client's export (createdAt,
 * domain, shortCode, shortUrl, longUrl, title, tags, visits), Kutt's link fields (target,
 * address, description).
 */
const COLUMNS: Record<'url' | 'slug' | 'shortUrl' | 'title' | 'tags' | 'expiresAt', string[]> = {
  url: ['url', 'longurl', 'target', 'destination', 'originalurl'],
  slug: ['slug', 'shortcode', 'address', 'keyword'],
  shortUrl: ['shorturl', 'link', 'bitlink', 'custombitlinks'],
  title: ['title', 'description'],
  tags: ['tags'],
  expiresAt: ['expiresat', 'validuntil'],
};
type Columns = Record<keyof typeof COLUMNS, number>;

const tooManyRows = () =>
  invalid(`The file has more than ${IMPORT_MAX_ROWS} rows; at most ${IMPORT_MAX_ROWS} are imported at once`);

function columnsOf(header: string[]): Columns {
  const keys = header.map(headerKey);
  const at = (field: keyof typeof COLUMNS) => keys.findIndex((h) => COLUMNS[field].includes(h));
  const col = {
    url: at('url'),
    slug: at('slug'),
    shortUrl: at('shortUrl'),
    title: at('title'),
    tags: at('tags'),
    expiresAt: at('expiresAt'),
  };
  if (col.url < 0) throw invalid(`The header has no url column (one of: url, long_url, Long URL, target)`, 'url');
  return col;
}

function rowOf(col: Columns, record: string[], info: Info, raw: string): ImportRow {
  // A cell of our own export may carry the quote that kept a formula as text (src/domain/csv.ts).
  const get = (c: number) => (c >= 0 && record[c] !== undefined ? readBackCell(record[c]) : undefined);
  // A short URL column (Bitly's `link`) names the slug as its last path segment.
  const fromShortUrl = get(col.shortUrl)?.replace(/\/+$/, '').split('/').pop();
  // The line a row starts on, as an editor numbers it: csv-parse counts the line a record ends
  // on, and a quoted field may span lines.
  const line = info.lines - (raw.replace(/\r?\n$/, '').match(/\n/g)?.length ?? 0);
  return {
    line,
    url: get(col.url),
    slug: get(col.slug) || fromShortUrl || undefined,
    title: get(col.title),
    tags: get(col.tags),
    expiresAt: get(col.expiresAt),
  };
}

/**
 * The file's rows, read from the request body as it arrives. Refused while reading, with nothing
 * written yet: a body over IMPORT_MAX_BYTES (413; at once when Content-Length says so), more than
 * IMPORT_MAX_ROWS rows, no header or no url column, a line that is not CSV, a charset the
 * service cannot decode, or a Content-Encoding (400).
 */
export async function readImportFile(req: IncomingMessage): Promise<ImportRow[]> {
  if (Number(req.headers['content-length']) > IMPORT_MAX_BYTES) throw bodyTooLarge(IMPORT_MAX_BYTES);
  const encoding = String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding !== 'identity') {
    throw invalid(`The file must be sent as it is, without a Content-Encoding (got ${encoding})`);
  }
  const decode = decoderOf(String(req.headers['content-type'] ?? ''));

  const rows: ImportRow[] = [];
  let columns: Columns | undefined;
  let failure: unknown;
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    trim: true,
    info: true,
    raw: true,
  });
  parser.on('readable', () => {
    let parsed: { record: string[]; info: Info; raw: string } | null;
    while (failure === undefined && (parsed = parser.read()) !== null) {
      try {
        if (!columns) columns = columnsOf(parsed.record);
        else if (rows.length < IMPORT_MAX_ROWS) rows.push(rowOf(columns, parsed.record, parsed.info, parsed.raw));
        else throw tooManyRows();
      } catch (err) {
        failure = err;
        parser.destroy();
      }
    }
  });
  parser.on('error', (err) => (failure ??= err));
  const closed = new Promise<void>((resolve) => parser.once('close', resolve));
  // The parser hands out records and errors on the next tick: after a turn of the loop, all of them.
  const feed = async (text: Buffer | string) => {
    if (text.length) parser.write(text);
    await nextTurn();
    if (failure !== undefined) throw failure;
  };

  let bytes = 0;
  try {
    // Leaving early leaves the request open (destroyOnReturn): the answer still goes out on it.
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > IMPORT_MAX_BYTES) throw bodyTooLarge(IMPORT_MAX_BYTES);
      for (let at = 0; at < chunk.length; at += SLICE_BYTES) await feed(decode(chunk.subarray(at, at + SLICE_BYTES)));
    }
    await feed(decode());
    parser.end();
    await closed;
    if (failure !== undefined) throw failure;
  } catch (err) {
    parser.destroy();
    discardRest(req, bytes);
    if (err instanceof CsvError) throw invalid(`The file is not readable as CSV: ${err.message}`);
    if (isAppError(err)) throw err;
    // The request itself failed: the client went away part-way.
    if (req.errored || req.readableAborted) {
      throw invalid(`The upload ended before the file did: ${(err as Error).message}`);
    }
    throw err;
  }
  if (!columns) throw invalid('The file has no header row');
  return rows;
}

/**
 * After a refusal the answer goes out at once, and the rest of the body is read off the
 * connection without being parsed: a connection closed while the client is still sending would
 * reset before the client reads the answer. Past twice IMPORT_MAX_BYTES in all it is closed anyway.
 */
function discardRest(req: IncomingMessage, read: number) {
  if (req.readableEnded || req.destroyed) return;
  let bytes = read;
  req.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > 2 * IMPORT_MAX_BYTES) req.destroy();
  });
  req.resume();
}

/**
 * The body's bytes as the parser takes them: UTF-8 as it is (csv-parse decodes a field once it
 * is whole, so a character split across slices stays whole), any other charset the Content-Type
 * names decoded to text first. Called without bytes at the end of the body.
 */
function decoderOf(contentType: string): (bytes?: Buffer) => Buffer | string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase() ?? 'utf-8';
  if (charset === 'utf-8' || charset === 'utf8' || charset === 'us-ascii') return (bytes) => bytes ?? '';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    throw invalid(`The charset ${charset} is not supported; send the file as UTF-8`);
  }
  return (bytes) => (bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode());
}
