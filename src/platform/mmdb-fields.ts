// The two fields a visitor's place needs, read straight from a MaxMind DB file's data section
// ("MaxMind DB File Format Specification" 2.0): the country code and city of a record
// (ip-location-db's flat `country_code` and `city`, or MaxMind's `country.iso_code` and
// `city.names.en`), and every city name of the file for GeoLocator.knowsCity (geo.ts). Each
// reads of a record only those entries and skips the rest by their encoded sizes: decoding every
// field of a record with mmdb-lib (coordinates, regions, postcodes, time zones) took half of a
// lookup, and listing the cities that way several times longer (bench/geo.ts).

/** Where a file's metadata starts (its data section ends before it). */
export const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');

const POINTER = 1;
const STRING = 2;
const MAP = 7;
const ARRAY = 11;

/** A value's type, its size field, and where its payload starts. */
interface Head {
  type: number;
  size: number;
  payload: number;
}

export class MmdbFields {
  private readonly text = new Map<number, string | null>();

  /** `base`: where the data section starts (after the tree and its 16-byte separator). */
  constructor(
    private readonly db: Buffer,
    private readonly base: number,
  ) {}

  private head(at: number): Head {
    const db = this.db;
    const ctrl = db[at++];
    let type = ctrl >> 5;
    if (type === POINTER) {
      // The pointer's own size bits say how many bytes follow; `size` holds its target.
      const ss = (ctrl >> 3) & 3;
      const v = ctrl & 7;
      let target: number;
      if (ss === 0) target = (v << 8) | db[at];
      else if (ss === 1) target = ((v << 16) | (db[at] << 8) | db[at + 1]) + 2048;
      else if (ss === 2) target = v * 16_777_216 + ((db[at] << 16) | (db[at + 1] << 8) | db[at + 2]) + 526_336;
      else target = db.readUInt32BE(at);
      return { type, size: this.base + target, payload: at + ss + 1 };
    }
    if (type === 0) type = 7 + db[at++];
    let size = ctrl & 31;
    if (size === 29) size = 29 + db[at++];
    else if (size === 30) {
      size = 285 + db.readUInt16BE(at);
      at += 2;
    } else if (size === 31) {
      size = 65_821 + db.readUIntBE(at, 3);
      at += 3;
    }
    return { type, size, payload: at };
  }

  /** Where the value at `at` ends (a pointer ends after itself, not after what it points at). */
  private skip(at: number): number {
    const h = this.head(at);
    switch (h.type) {
      case POINTER:
        return h.payload;
      case MAP: {
        let next = h.payload;
        for (let i = 0; i < 2 * h.size; i++) next = this.skip(next);
        return next;
      }
      case ARRAY: {
        let next = h.payload;
        for (let i = 0; i < h.size; i++) next = this.skip(next);
        return next;
      }
      case 3: // double
        return h.payload + 8;
      case 15: // float
        return h.payload + 4;
      case 14: // boolean: its value is its size field
        return h.payload;
      default: // strings, bytes and integers carry `size` bytes
        return h.payload + h.size;
    }
  }

  /** The value at `at`, through a pointer, when it is a string; null otherwise. */
  private string(at: number): string | null {
    let h = this.head(at);
    if (h.type === POINTER) {
      const cached = this.text.get(h.size);
      if (cached !== undefined) return cached;
      const target = h.size;
      h = this.head(target);
      const s = h.type === STRING ? this.db.toString('utf8', h.payload, h.payload + h.size) : null;
      // Strings shared through pointers (names, codes, keys) are kept, up to a bound.
      if (this.text.size >= 200_000) this.text.clear();
      this.text.set(target, s);
      return s;
    }
    return h.type === STRING ? this.db.toString('utf8', h.payload, h.payload + h.size) : null;
  }

  /** The value of `key` in the map at `at` (through pointers), as its offset; -1 when absent. */
  private entry(at: number, key: string): number {
    let h = this.head(at);
    if (h.type === POINTER) h = this.head(h.size);
    if (h.type !== MAP) return -1;
    let next = h.payload;
    for (let i = 0; i < h.size; i++) {
      const k = this.string(next);
      next = this.skip(next);
      if (k === key) return next;
      next = this.skip(next);
    }
    return -1;
  }

  /** The city name of the record at `at`: a string, or MaxMind's names.en. */
  private city(at: number): string | null {
    const city = this.entry(at, 'city');
    if (city === -1) return null;
    const direct = this.string(city);
    if (direct !== null) return direct;
    const names = this.entry(city, 'names');
    const en = names === -1 ? -1 : this.entry(names, 'en');
    return en === -1 ? null : this.string(en);
  }

  /** The country code and city of the record at `at` (an absolute offset), in either shape. */
  place(at: number): { country_code: string | null; city: string | null } {
    const code = this.entry(at, 'country_code');
    let country = code === -1 ? null : this.string(code);
    if (country === null) {
      const c = this.entry(at, 'country');
      const iso = c === -1 ? -1 : this.entry(c, 'iso_code');
      country = iso === -1 ? null : this.string(iso);
    }
    return { country_code: country, city: this.city(at) };
  }

  /** Adds every record's city name, lower case, to `into`. */
  collect(into: Set<string>): void {
    const end = this.db.lastIndexOf(METADATA_MARKER);
    for (let at = this.base; at < end; at = this.skip(at)) {
      const name = this.city(at);
      if (name) into.add(name.toLowerCase());
    }
  }
}
