// A small MaxMind DB (.mmdb) writer for tests: the format GEOIP_DB names (MaxMind's "MaxMind DB
// File Format Specification" 2.0), enough of it for a few networks with GeoIP2-shaped records
// (`country.iso_code`, `city.names.en`). No npm package writes this format; mmdb-lib only reads it.
// Every file is an IPv6 tree with IPv4 under ::/96, as MaxMind's own databases are.
import net from 'node:net';

type Value = string | number | Value[] | { [key: string]: Value };

/** A control byte (and extended type byte) plus the size bytes, then the payload. */
function control(type: number, size: number, payload: Buffer): Buffer {
  const head: number[] = [];
  let sizeBits: number;
  const extra: number[] = [];
  if (size < 29) sizeBits = size;
  else if (size < 285) {
    sizeBits = 29;
    extra.push(size - 29);
  } else if (size < 65_821) {
    sizeBits = 30;
    extra.push((size - 285) >> 8, (size - 285) & 255);
  } else {
    sizeBits = 31;
    const s = size - 65_821;
    extra.push(s >> 16, (s >> 8) & 255, s & 255);
  }
  if (type <= 7) head.push((type << 5) | sizeBits);
  else head.push(sizeBits, type - 7);
  return Buffer.concat([Buffer.from(head), Buffer.from(extra), payload]);
}

function encode(v: Value): Buffer {
  if (typeof v === 'string') {
    const bytes = Buffer.from(v, 'utf8');
    return control(2, bytes.length, bytes);
  }
  if (typeof v === 'number') {
    // Unsigned integers: uint32 (type 6), big-endian, without leading zero bytes.
    const bytes: number[] = [];
    for (let n = v; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
    return control(6, bytes.length, Buffer.from(bytes));
  }
  if (Array.isArray(v)) return control(11, v.length, Buffer.concat(v.map(encode)));
  const entries = Object.entries(v);
  return control(7, entries.length, Buffer.concat(entries.flatMap(([k, x]) => [encode(k), encode(x)])));
}

/** The 128 bits of an address (IPv4 as ::a.b.c.d), most significant first. */
function bits(address: string): number[] {
  const out: number[] = [];
  if (net.isIPv4(address)) {
    for (let i = 0; i < 96; i++) out.push(0);
    for (const part of address.split('.')) for (let b = 7; b >= 0; b--) out.push((Number(part) >> b) & 1);
    return out;
  }
  const [left, right] = address.split('::');
  const l = left ? left.split(':') : [];
  const r = right !== undefined && right !== '' ? right.split(':') : [];
  const groups = right === undefined ? l : [...l, ...Array(8 - l.length - r.length).fill('0'), ...r];
  for (const g of groups) for (let b = 15; b >= 0; b--) out.push((Number.parseInt(g, 16) >> b) & 1);
  return out;
}

interface TrieNode {
  child: [TrieNode | number | null, TrieNode | number | null];
}

/**
 * A MaxMind DB file holding `networks` (a narrower network after a wider one it lies in) (CIDR, IPv4 or IPv6, e.g. "81.2.69.0/24") with their
 * records, of `databaseType` (e.g. "GeoLite2-City", "GeoLite2-Country").
 */
export function mmdbFile(databaseType: string, networks: Array<[cidr: string, record: Value]>): Buffer {
  const data: Buffer[] = [];
  let dataSize = 0;
  const root: TrieNode = { child: [null, null] };
  for (const [cidr, record] of networks) {
    const [address, prefix] = cidr.split('/');
    const length = Number(prefix) + (net.isIPv4(address) ? 96 : 0);
    const path = bits(address);
    const encoded = encode(record);
    const offset = dataSize;
    data.push(encoded);
    dataSize += encoded.length;
    let node = root;
    for (let i = 0; i < length - 1; i++) {
      const next = node.child[path[i]];
      if (typeof next === 'object' && next !== null) node = next;
      // A wider network's record (or none) moves down to both halves of the split.
      else node = node.child[path[i]] = { child: [next, next] };
    }
    node.child[path[length - 1]] = offset;
  }
  // Number the nodes breadth first; a record is a node's number, nodeCount (no data) or a data pointer.
  const order: TrieNode[] = [root];
  for (let i = 0; i < order.length; i++)
    for (const c of order[i].child) if (typeof c === 'object' && c !== null) order.push(c);
  const index = new Map(order.map((n, i) => [n, i]));
  const nodeCount = order.length;
  const tree = Buffer.alloc(nodeCount * 6);
  order.forEach((n, i) => {
    n.child.forEach((c, side) => {
      const value = c === null ? nodeCount : typeof c === 'number' ? nodeCount + 16 + c : index.get(c)!;
      tree.writeUIntBE(value, i * 6 + side * 3, 3);
    });
  });
  const metadata = encode({
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: Math.floor(Date.now() / 1000),
    database_type: databaseType,
    description: { en: 'Shortlink test data' },
    ip_version: 6,
    languages: ['en'],
    node_count: nodeCount,
    record_size: 24,
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'), metadata]);
}

/** A GeoIP2 City record. */
export const cityRecord = (country: string, city: string): Value => ({
  city: { names: { en: city } },
  country: { iso_code: country, names: { en: country } },
});
