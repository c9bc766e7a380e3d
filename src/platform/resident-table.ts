// A string → string table whose entries live outside V8's heap: the redirect cache's resident
// tier (src/redirect/lookup-tiers.ts), which holds every live link of a large deployment in memory.
//
// Why not a Map of objects: a million links as objects are about six million heap objects
// (the link, its id, slug, destination, workspace id...), hundreds of MiB of heap, and
// every major collection marks them all. Clicks are buffered for a second before they are
// written, so they outlive the young generation and old space grows quickly under load: the major
// collections came often enough to slow even redirects that never touched the big table
// (bench:redirect measures it; docs/performance.md). Here the
// entries are bytes in a few large Buffers and one typed array, which the collector never walks;
// a lookup hashes the key, compares bytes and returns the value as a string (the caller parses it).
// The caller may keep what it made of a value with its entry (a memo: the redirect path's parsed
// link), so a link visited again costs the same one lookup and no parse, and a hot tier apart
// from this table (a Map searched first) does not cost every other visit a second lookup.
//
// Written by hand: no package on npm keeps a string-keyed hash table off the V8 heap without a
// native addon, and this is a few dozen lines of open addressing over typed arrays.
//
// Layout. A page of entries (encodeEntries, made on the link lookup thread and transferred, not
// copied) is [u32 hash][u16 key length][key, latin1][u32 value length][value, UTF-8] per entry.
// Stored records drop the hash (kept in the index) into chunks of 16 MiB; a record's address is
// its chunk's number × 2^24 + its offset. The index is open addressing with linear probing over
// one Uint32Array of three words a slot (address + 1, 0 for empty, TOMBSTONE for deleted; the
// key's hash; the memo's number + 1, 0 for none), at most half full. Memos are the one part on
// the heap: a dense array of at most maxMemos objects. Keys are ASCII (slugs and domain ids); an
// entry with any other key is not stored, and a lookup of one finds nothing. Deleting leaves a
// tombstone and the record's bytes: a deleted link is read from the database on its next visit;
// the bytes come back when the table is cleared.

const CHUNK_BITS = 24;
const CHUNK_BYTES = 1 << CHUNK_BITS;
const MAX_CHUNKS = 255;
const TOMBSTONE = 0xffffffff;
/** Words per slot of the index: record address + 1, key hash, memo number + 1. */
const SLOT = 3;

/**
 * The redirect cache's key of an address: the short domain's links (domain key '') by the slug
 * itself, a custom domain's by its id, NUL (which no slug has) and the slug.
 */
export function addressKey(domainKey: string, slug: string): string {
  return domainKey === '' ? slug : `${domainKey}\u0000${slug}`;
}

/** FNV-1a over the key's UTF-16 code units (ASCII keys: their bytes). */
export function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return h >>> 0;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * A page of entries in the table's transfer format, in a buffer of its own (transferable to
 * another thread). Entries whose key is not ASCII, or longer than 65,535, are left out.
 */
export function encodeEntries(entries: ReadonlyArray<readonly [string, string]>): {
  buffer: ArrayBuffer;
  count: number;
} {
  let bytes = 0;
  let count = 0;
  const kept: Array<readonly [string, string, number]> = [];
  for (const [key, value] of entries) {
    if (key.length > 0xffff || !isAscii(key)) continue;
    const valueBytes = Buffer.byteLength(value, 'utf8');
    kept.push([key, value, valueBytes]);
    bytes += 10 + key.length + valueBytes;
    count++;
  }
  const out = Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  for (const [key, value, valueBytes] of kept) {
    at = out.writeUInt32LE(keyHash(key), at);
    at = out.writeUInt16LE(key.length, at);
    at += out.write(key, at, 'latin1');
    at = out.writeUInt32LE(valueBytes, at);
    at += out.write(value, at, 'utf8');
  }
  return { buffer: out.buffer.slice(out.byteOffset, out.byteOffset + bytes) as ArrayBuffer, count };
}

export class ResidentTable<M = never> {
  private chunks: Buffer[] = [];
  private used = 0; // bytes used in the last chunk
  // SLOT words per slot, side by side: the record's address + 1 (0 empty, TOMBSTONE deleted), the
  // key's hash, and its memo's number + 1 (0 none). (Two arrays, addresses and hashes, measured
  // the same per lookup: the CPU loads both at once. One array gave the memo's number a place.)
  private index = new Uint32Array(1024 * SLOT);
  private live = 0;
  private deleted = 0;
  // Memos: an object made from an entry's value, kept with the entry (memoize), so a key read
  // again returns it with the same lookup. Numbered densely; a number freed by a deletion is reused.
  private memos: Array<M | undefined> = [];
  private freeMemos: number[] = [];
  private memoCount = 0;

  /**
   * `maxEntries`: the table stops taking entries at this many (addPage says how many it took).
   * `maxMemos`: how many memos it keeps (memoize stops taking them at this many).
   */
  constructor(
    readonly maxEntries: number,
    readonly maxMemos = 0,
  ) {}

  get size(): number {
    return this.live;
  }

  /** Entries that have a memo. */
  get memoized(): number {
    return this.memoCount;
  }

  /** Bytes held outside the heap: the chunks and the index. */
  get bytes(): number {
    return this.chunks.length * CHUNK_BYTES + this.index.byteLength;
  }

  /**
   * Adds a page's entries (encodeEntries' format) while there is room; an entry whose key is
   * there already replaces it (and loses its memo). Returns how many it added or replaced.
   */
  addPage(page: Uint8Array): number {
    const buf = Buffer.from(page.buffer, page.byteOffset, page.byteLength);
    let at = 0;
    let added = 0;
    while (at < buf.length) {
      const hash = buf.readUInt32LE(at);
      const keyLength = buf.readUInt16LE(at + 4);
      const valueLength = buf.readUInt32LE(at + 6 + keyLength);
      const recordStart = at + 4;
      const recordLength = 2 + keyLength + 4 + valueLength;
      at = recordStart + recordLength;
      if (this.live >= this.maxEntries) break;
      if (!this.put(hash, buf, recordStart, recordLength)) break;
      added++;
    }
    return added;
  }

  /** The value stored under `key`, or undefined. */
  get(key: string): string | undefined {
    const slot = this.find(key);
    return slot < 0 ? undefined : this.valueAt(slot, key.length);
  }

  /** Where `key` is (for valueAt, memoAt and memoize), or -1 when it is not in the table. */
  find(key: string): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      if (c > 0x7f) return -1;
      h = Math.imul(h ^ c, 16777619);
    }
    h >>>= 0;
    const index = this.index;
    const mask = index.length / SLOT - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const a = index[i * SLOT];
      if (a === 0) return -1;
      if (a === TOMBSTONE || index[i * SLOT + 1] !== h) continue;
      const addr = a - 1;
      const chunk = this.chunks[addr >>> CHUNK_BITS];
      const off = addr & (CHUNK_BYTES - 1);
      if (chunk.readUInt16LE(off) !== key.length) continue;
      let same = true;
      for (let j = 0; j < key.length; j++) {
        if (chunk[off + 2 + j] !== key.charCodeAt(j)) {
          same = false;
          break;
        }
      }
      if (same) return i;
    }
  }

  /** The value at `slot` (from find, for a key of `keyLength`), as a string. */
  valueAt(slot: number, keyLength: number): string {
    const addr = this.index[slot * SLOT] - 1;
    const chunk = this.chunks[addr >>> CHUNK_BITS];
    const valueAt = (addr & (CHUNK_BYTES - 1)) + 2 + keyLength;
    const valueLength = chunk.readUInt32LE(valueAt);
    return chunk.toString('utf8', valueAt + 4, valueAt + 4 + valueLength);
  }

  /** The memo kept with the entry at `slot` (from find), or undefined. */
  memoAt(slot: number): M | undefined {
    const m = this.index[slot * SLOT + 2];
    return m === 0 ? undefined : this.memos[m - 1];
  }

  /**
   * Keeps `memo` with the entry at `slot` (from find, with no table change since) while fewer
   * than maxMemos are kept; it goes when the entry is deleted or replaced, or the table cleared.
   */
  memoize(slot: number, memo: M): void {
    if (this.memoCount >= this.maxMemos || this.index[slot * SLOT + 2] !== 0) return;
    const m = this.freeMemos.length > 0 ? this.freeMemos.pop()! : this.memos.push(undefined) - 1;
    this.memos[m] = memo;
    this.index[slot * SLOT + 2] = m + 1;
    this.memoCount++;
  }

  delete(key: string): boolean {
    const i = this.find(key);
    if (i < 0) return false;
    this.dropMemo(i);
    this.index[i * SLOT] = TOMBSTONE;
    this.live--;
    this.deleted++;
    return true;
  }

  clear(): void {
    this.chunks = [];
    this.used = 0;
    this.index = new Uint32Array(1024 * SLOT);
    this.live = 0;
    this.deleted = 0;
    this.memos = [];
    this.freeMemos = [];
    this.memoCount = 0;
  }

  private dropMemo(slot: number): void {
    const m = this.index[slot * SLOT + 2];
    if (m === 0) return;
    this.memos[m - 1] = undefined;
    this.freeMemos.push(m - 1);
    this.index[slot * SLOT + 2] = 0;
    this.memoCount--;
  }

  /** Stores a record ([u16 key length][key][u32 value length][value]) under its hash; false when out of chunks. */
  private put(hash: number, src: Buffer, start: number, length: number): boolean {
    if ((this.live + this.deleted + 1) * 2 > this.index.length / SLOT) this.grow();
    // The same key again: its slot takes the new record.
    const keyLength = src.readUInt16LE(start);
    const index = this.index;
    const mask = index.length / SLOT - 1;
    let free = -1;
    let i = hash & mask;
    for (; ; i = (i + 1) & mask) {
      const a = index[i * SLOT];
      if (a === 0) break;
      if (a === TOMBSTONE) {
        if (free < 0) free = i;
        continue;
      }
      if (index[i * SLOT + 1] !== hash) continue;
      const addr = a - 1;
      const chunk = this.chunks[addr >>> CHUNK_BITS];
      const off = addr & (CHUNK_BYTES - 1);
      if (
        chunk.readUInt16LE(off) === keyLength &&
        chunk.compare(src, start + 2, start + 2 + keyLength, off + 2, off + 2 + keyLength) === 0
      ) {
        free = -2 - i; // replace in place
        break;
      }
    }
    if (length > CHUNK_BYTES) return false;
    if (this.chunks.length === 0 || this.used + length > CHUNK_BYTES) {
      if (this.chunks.length >= MAX_CHUNKS) return false;
      this.chunks.push(Buffer.allocUnsafeSlow(CHUNK_BYTES));
      this.used = 0;
    }
    const chunkIndex = this.chunks.length - 1;
    src.copy(this.chunks[chunkIndex], this.used, start, start + length);
    const addr = chunkIndex * CHUNK_BYTES + this.used;
    this.used += length;
    if (free <= -2) {
      this.dropMemo(-2 - free);
      index[(-2 - free) * SLOT] = addr + 1;
      return true;
    }
    const slot = free >= 0 ? free : i;
    if (free >= 0) this.deleted--;
    index[slot * SLOT] = addr + 1;
    index[slot * SLOT + 1] = hash;
    index[slot * SLOT + 2] = 0;
    this.live++;
    return true;
  }

  /** Doubles the index (or rebuilds it at the same size when tombstones fill it), dropping tombstones; memos move with their entries. */
  private grow(): void {
    const old = this.index;
    const oldSize = old.length / SLOT;
    const size = this.live * 2 >= oldSize / 2 ? oldSize * 2 : oldSize;
    const index = new Uint32Array(size * SLOT);
    const mask = size - 1;
    for (let i = 0; i < oldSize; i++) {
      const a = old[i * SLOT];
      if (a === 0 || a === TOMBSTONE) continue;
      const hash = old[i * SLOT + 1];
      let j = hash & mask;
      while (index[j * SLOT] !== 0) j = (j + 1) & mask;
      index[j * SLOT] = a;
      index[j * SLOT + 1] = hash;
      index[j * SLOT + 2] = old[i * SLOT + 2];
    }
    this.index = index;
    this.deleted = 0;
  }
}
