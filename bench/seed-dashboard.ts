// Seeding a workspace the size the dashboard's targets name, fast (bench/dashboard.ts): a
// million links with varied slugs, titles and destinations, tags, custom domains, some disabled
// or deleted; ten million raw clicks over the last 90 days, a million of them on one link, with
// skewed values (about 200 countries, a few devices, 20 browsers, 10 operating systems, 5,000
// referrer hosts, 40% without one); daily counts for those and an older history. Straight SQL in
// bulk through seed-analytics' writers; the same data on every run and engine (seeded).
import { DAY_MS } from '../src/domain/conversions';
import { idFrom, insertAll, prng, type BenchDatabase, type BulkWriter, type Columns } from './seed-analytics';

/** A sampler of ranks 0..n-1 with weight 1/(rank+1)^s (Zipf), by binary search of the cumulative weights. */
export function zipf(n: number, s: number): (r: number) => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1) ** s;
  for (let i = 0; i < n; i++) cdf[i] /= sum;
  return (r) => {
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

// Words of titles, paths and slugs: marketing and product vocabulary.
export const WORDS = (
  'spring summer autumn winter sale offer deal discount coupon launch release update news newsletter weekly monthly report guide ' +
  'tutorial webinar event conference meetup workshop course training ebook whitepaper case study demo trial signup pricing plan ' +
  'product feature roadmap blog post article story podcast episode video stream live recap highlights interview press media kit ' +
  'careers jobs hiring team about contact support help docs api sdk download install app mobile desktop cloud server data ' +
  'analytics dashboard insights growth marketing sales brand design studio agency shop store cart checkout order shipping returns ' +
  'shoes shirts jackets dresses bags watches jewelry beauty skincare fitness yoga running cycling travel hotel flights tickets ' +
  'concert festival music movie book recipe kitchen garden home office furniture lighting coffee tea wine beer pizza burger ' +
  'vegan organic local green solar energy electric car bike scooter health clinic dental insurance bank loan mortgage invest ' +
  'crypto stock market finance tax legal privacy security login account profile settings invite referral partner affiliate ' +
  'community forum survey feedback review rating award contest giveaway gift card holiday christmas easter halloween black ' +
  'friday cyber monday back school graduation wedding birthday anniversary family kids baby pets dog cat outdoor camping hiking ' +
  'ocean beach mountain city tour museum gallery art photo camera phone tablet laptop gaming console headphones speaker smart'
).split(' ');
const TLDS = ['com', 'com', 'com', 'de', 'io', 'co.uk', 'fr', 'net', 'org', 'shop', 'app', 'nl'];
const FIRST_COUNTRIES = [
  'US',
  'DE',
  'GB',
  'FR',
  'IN',
  'BR',
  'CA',
  'JP',
  'NL',
  'ES',
  'IT',
  'AU',
  'MX',
  'PL',
  'SE',
  'CH',
  'AT',
  'BE',
  'TR',
  'KR',
];
const BROWSERS = [
  'Chrome',
  'Mobile Safari',
  'Safari',
  'Edge',
  'Firefox',
  'Samsung Internet',
  'Chrome WebView',
  'Opera',
  'Instagram',
  'Facebook',
  'Android Browser',
  'UCBrowser',
  'Yandex',
  'Brave',
  'Vivaldi',
  'Silk',
  'DuckDuckGo',
  'Whale',
  'MIUI Browser',
  'Firefox Focus',
];
const OSES = [
  'Windows',
  'iOS',
  'Android',
  'macOS',
  'Linux',
  'Chrome OS',
  'Ubuntu',
  'HarmonyOS',
  'Fedora',
  'Windows Phone',
];
const DEVICES = ['desktop', 'mobile', 'tablet', 'smarttv', 'console'];
const DEVICE_WEIGHTS = [0.52, 0.42, 0.05, 0.007, 0.003];
const TOP_REFERRERS = [
  'www.google.com',
  't.co',
  'www.facebook.com',
  'l.instagram.com',
  'www.linkedin.com',
  'news.ycombinator.com',
  'www.reddit.com',
  'duckduckgo.com',
  'www.bing.com',
  'lm.facebook.com',
];

export interface DashboardShape {
  links: number;
  clicks: number;
  bigLinkClicks: number;
  tags: number;
}

export interface SeededWorkspace {
  workspaceId: string;
  userId: string;
  /** The link with `bigLinkClicks` of the raw clicks. */
  bigLink: string;
  tags: Array<{ id: string; name: string; links: number }>;
  domains: Array<{ id: string; host: string }>;
  linkIds: string[];
  rawClicks: number;
  dailyRows: number;
}

const LINK_COLUMNS: Columns = [
  ['id', 'text'],
  ['workspace_id', 'text'],
  ['created_by', 'text'],
  ['domain_id', 'text'],
  ['domain_key', 'text'],
  ['slug', 'text'],
  ['original_url', 'text'],
  ['title', 'text'],
  ['status', 'text'],
  ['policy_locked', 'boolean'],
  ['redirect_type', 'text'],
  ['served', 'bigint'],
  ['created_at', 'bigint'],
  ['updated_at', 'bigint'],
  ['deleted_at', 'bigint'],
];
const LINK_TAG_COLUMNS: Columns = [
  ['link_id', 'text'],
  ['tag_id', 'text'],
];

/** Base-36 slug of `n`, 7 characters, scattered (a bijection of 0..36^7-1, so never twice). */
function scatteredSlug(n: number): string {
  const space = 36 ** 7;
  return Number((BigInt(n) * 2_654_435_761n) % BigInt(space))
    .toString(36)
    .padStart(7, '0');
}

/**
 * Links, tags and their links, two custom domains: inserted straight into the tables (the
 * repository also writes the change feed and events, beside the point here). Created over the
 * last two years in `seq` order, a hundred at a time sharing a millisecond (as an import does).
 */
export async function seedLinks(
  bdb: BenchDatabase,
  writer: BulkWriter,
  ids: { workspaceId: string; userId: string; tagIds: string[]; domainIds: string[] },
  shape: DashboardShape,
  now: number,
): Promise<{ linkIds: string[]; tagCounts: number[]; bigLink: string }> {
  const rand = prng(11);
  const word = zipf(WORDS.length, 0.9);
  const w = () => WORDS[word(rand())];
  const host = zipf(3_000, 1.0);
  const hosts = Array.from({ length: 3_000 }, (_, i) =>
    i % 3 === 0 ? `www.${w()}${w()}.${TLDS[i % TLDS.length]}` : `${w()}-${w()}${i}.${TLDS[i % TLDS.length]}`,
  );
  const tagOf = zipf(ids.tagIds.length, 1.2);
  const tagCounts = new Array(ids.tagIds.length).fill(0);
  const linkIds: string[] = [];
  const custom = new Set<string>();
  const start = now - 730 * DAY_MS;
  const bigIndex = Math.floor(shape.links * 0.6);
  const isAlive = (i: number) => i === bigIndex || rand() >= 0.02;
  let links: Record<string, unknown>[] = [];
  let tags: Record<string, unknown>[] = [];
  for (let i = 0; i < shape.links; i++) {
    const id = idFrom(rand, 'lnk');
    linkIds.push(id);
    const createdAt = start + Math.floor(((Math.floor(i / 100) * 100) / shape.links) * 730 * DAY_MS);
    const domain = rand() < 0.1 ? ids.domainIds[i % ids.domainIds.length] : null;
    let slug: string;
    if (rand() < 0.6) slug = scatteredSlug(i);
    else {
      slug = rand() < 0.5 ? `${w()}-${w()}` : `${w()}${Math.floor(rand() * 1000)}`;
      while (custom.has(`${domain}|${slug}`)) slug = `${slug}-${Math.floor(rand() * 100)}`;
      custom.add(`${domain}|${slug}`);
    }
    const path =
      rand() < 0.5
        ? `/${w()}/${w()}-${w()}-${Math.floor(rand() * 10_000)}`
        : `/${w()}s/${idFrom(rand, 'p').slice(2, 12)}`;
    const utm =
      rand() < 0.4
        ? `?utm_source=${w()}&utm_medium=${rand() < 0.5 ? 'email' : 'social'}&utm_campaign=${w()}-${w()}`
        : '';
    const title =
      rand() < 0.2
        ? null
        : `${w()[0].toUpperCase()}${w().slice(1)} ${w()} ${rand() < 0.5 ? w() : ''} ${rand() < 0.3 ? String(2020 + Math.floor(rand() * 7)) : ''}`
            .replace(/\s+/g, ' ')
            .trim();
    const alive = isAlive(i);
    links.push({
      id,
      workspace_id: ids.workspaceId,
      created_by: ids.userId,
      domain_id: domain,
      domain_key: domain ?? '',
      slug,
      original_url: `https://${hosts[host(rand())]}${path}${utm}`,
      title,
      status: i !== bigIndex && rand() < 0.05 ? 'DISABLED' : 'ACTIVE',
      policy_locked: 0,
      redirect_type: 'TEMPORARY',
      served: 0,
      created_at: createdAt,
      updated_at: createdAt,
      deleted_at: alive ? null : createdAt + DAY_MS,
    });
    const r = rand();
    const n = r < 0.25 ? 1 : r < 0.3 ? 2 : 0;
    const given = new Set<number>();
    for (let k = 0; k < n; k++) given.add(tagOf(rand()));
    for (const t of given) {
      tags.push({ link_id: id, tag_id: ids.tagIds[t] });
      tagCounts[t]++;
    }
    // A tag's link first (the foreign key).
    if (links.length >= bdb.batch) {
      await writer.insert('links', links, LINK_COLUMNS);
      await writer.insert('link_tags', tags, LINK_TAG_COLUMNS);
      links = [];
      tags = [];
    }
  }
  await writer.insert('links', links, LINK_COLUMNS);
  await writer.insert('link_tags', tags, LINK_TAG_COLUMNS);
  return { linkIds, tagCounts, bigLink: linkIds[bigIndex] };
}

const CLICK_COLUMNS: Columns = [
  ['workspace_id', 'text'],
  ['link_id', 'text'],
  ['qr_code_id', 'text'],
  ['occurred_at', 'bigint'],
  ['referrer_host', 'text'],
  ['country', 'text'],
  ['device', 'text'],
  ['browser', 'text'],
  ['os', 'text'],
];
const DAILY_COLUMNS: Columns = [
  ['link_id', 'text'],
  ['workspace_id', 'text'],
  ['day', 'int'],
  ['clicks', 'bigint'],
  ['scans', 'bigint'],
];

/**
 * `shape.clicks` raw clicks in time order over the last 90 days (retention's span), a tenth (by
 * default) on the big link and the rest over the links by popularity (Zipf; which link is how
 * popular is scattered, not by age); their daily counts; and for half the links an older day of
 * clicks (daily counts outlive raw clicks), so a link's total is more than its raw clicks.
 */
export async function seedClicks(
  bdb: BenchDatabase,
  writer: BulkWriter,
  workspaceId: string,
  linkIds: string[],
  bigLink: string,
  shape: DashboardShape,
  now: number,
): Promise<{ rawClicks: number; dailyRows: number }> {
  const rand = prng(12);
  const n = linkIds.length;
  const popularity = zipf(n, 1.0);
  const country = zipf(200, 1.1);
  const countries = [...FIRST_COUNTRIES];
  for (let a = 0; countries.length < 200; a++) {
    const c = String.fromCharCode(65 + ((a * 7) % 26), 65 + (Math.floor(a / 26) % 26));
    if (!countries.includes(c)) countries.push(c);
  }
  const browser = zipf(BROWSERS.length, 1.3);
  const os = zipf(OSES.length, 1.2);
  const referrer = zipf(5_000, 1.0);
  const referrers = Array.from(
    { length: 5_000 },
    (_, i) => TOP_REFERRERS[i] ?? `${WORDS[i % WORDS.length]}${i}.example-${WORDS[(i * 7) % WORDS.length]}.com`,
  );
  const device = () => {
    let r = rand();
    for (let k = 0; k < DEVICES.length; k++) if ((r -= DEVICE_WEIGHTS[k]) < 0) return DEVICES[k];
    return DEVICES[0];
  };
  // Daily counts per (link, day), gathered a day at a time (clicks come in time order).
  const dLink: number[] = [];
  const dDay: number[] = [];
  const dCount: number[] = [];
  const bigIndex = linkIds.indexOf(bigLink);
  let today = new Map<number, number>();
  let currentDay = -1;
  const closeDay = () => {
    for (const [link, count] of today) {
      dLink.push(link);
      dDay.push(currentDay);
      dCount.push(count);
    }
    today = new Map();
  };
  const span = 90 * DAY_MS - 3_600_000;
  const from = now - span;
  let batch: Record<string, unknown>[] = [];
  for (let i = 0; i < shape.clicks; i++) {
    const at = Math.min(now - 1, Math.floor(from + ((i + rand()) * span) / shape.clicks));
    const day = Math.floor(at / DAY_MS);
    if (day !== currentDay) {
      closeDay();
      currentDay = day;
    }
    const link = rand() < shape.bigLinkClicks / shape.clicks ? bigIndex : (popularity(rand()) * 999_983) % n;
    today.set(link, (today.get(link) ?? 0) + 1);
    batch.push({
      workspace_id: workspaceId,
      link_id: linkIds[link],
      qr_code_id: null,
      occurred_at: at,
      referrer_host: rand() < 0.4 ? null : referrers[referrer(rand())],
      country: rand() < 0.02 ? null : countries[country(rand())],
      device: device(),
      browser: BROWSERS[browser(rand())],
      os: OSES[os(rand())],
    });
    if (batch.length === bdb.batch) {
      await writer.insert('clicks', batch, CLICK_COLUMNS);
      batch = [];
    }
  }
  await writer.insert('clicks', batch, CLICK_COLUMNS);
  closeDay();
  // History older than the raw clicks, for half the links.
  const oldest = Math.floor(now / DAY_MS) - 400;
  for (let link = 0; link < n; link += 2) {
    dLink.push(link);
    dDay.push(oldest + Math.floor(rand() * 300));
    dCount.push(1 + Math.floor(rand() * 50));
  }
  // In key order (workspace, link, day): the table's B-tree fills front to back. Sorted as numbers
  // (the link's place in id order, then the day), not by comparing id strings.
  const byId = Array.from(linkIds.keys()).sort((a, b) => (linkIds[a] < linkIds[b] ? -1 : 1));
  const rank = new Float64Array(n);
  for (const [r, link] of byId.entries()) rank[link] = r;
  const firstDay = oldest - 1;
  const order = Array.from(dLink.keys());
  const key = Float64Array.from(order, (k) => rank[dLink[k]] * 1024 + (dDay[k] - firstDay));
  order.sort((a, b) => key[a] - key[b]);
  const rows = order.map((k) => ({
    link_id: linkIds[dLink[k]],
    workspace_id: workspaceId,
    day: dDay[k],
    clicks: dCount[k],
    scans: 0,
  }));
  await insertAll(
    bdb,
    { insert: (t, r) => writer.insert(t, r, DAILY_COLUMNS), close: async () => undefined },
    'link_daily_clicks',
    rows,
  );
  return { rawClicks: shape.clicks, dailyRows: rows.length };
}
