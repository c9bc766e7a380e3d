// The redirect path's own code, in process: RedirectService.handle on a warm cache, with stand-in
// request and response objects, against a handler that only writes the bare 302 to the same
// stand-ins. It prints nanoseconds per request; it asserts nothing.
//
//   npx tsx bench/redirect-path.ts [--rounds 7] [--requests 200000] [--links 1000] [--resident 0]
//                                  [--routed] [--routed-without rules,split,click] [--routed-shared]
//                                  [--thrash-kib 0]
//
// --resident N fills the cache through the preload (RedirectService.preload) with N more links
// that are never visited, as a process whose cache holds every link of a large deployment: what a
// large cache costs the visits to the warm links (memory to walk, a larger heap to collect).
//
// Why: bench/redirect measures what a visitor sees, through Node's HTTP stack and the kernel, on
// two cores shared with the load generator, where one round can differ from the next by 20% on
// the same code. Our own code is a few microseconds of a request's 30-50, and at that scale
// bench/redirect cannot tell a 0.3 µs change from noise in any number of rounds this machine can
// afford. This isolates that part: the same handler code, no sockets, no other threads, so a
// change to handler.ts, lookup-tiers.ts, visitor.ts, cache.ts or clicks.ts shows up as a steady difference here.
// --routed gives every link the routed scenario's document (bench/routed-document.ts; none of its
// rules matches the stand-in visit), --routed-without leaves parts of it out, --routed-shared gives
// all links one compiled routing (its data then stays in the CPU's caches). --thrash-kib N reads N
// KiB of other memory before each request, as the HTTP stack does between two visits to a link:
// with 64, the routed visit's extra cost is about what it is over HTTP, where without it a
// thousand links' routing stays in the caches and the cost of reading it from memory is hidden.
// Figures are per request: "person" (a browser visit: resolved, counted, buffered), "bot" (a
// crawler: resolved, redirected, not counted), "bare" (the stand-in response written with the
// bare server's headers, the floor). "our code" is person minus bare.
import { parseArgs } from 'node:util';
import pino from 'pino';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../src/config';
import type { ResolvedLink } from '../src/domain/resolve';
import { type ClickBuffer, ClickRecorder } from '../src/clicks/buffer';
import type { ClickWriter } from '../src/clicks/writer';
import { RedirectService } from '../src/redirect/handler';
import { CsrfTokens } from '../src/redirect/password';
import { encodeLinkPage } from '../src/db/redirect-rows';
import { compileRouting } from '../src/domain/routing';
import { ClickIds } from '../src/domain/forwarding';
import { geoLocator } from '../src/platform/geo';
import { routedDocument, routedWithout } from './routed-document';
import { median } from './util';
import type { RedirectStore } from '../src/db/redirect-store';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    requests: { type: 'string', default: '200000' },
    links: { type: 'string', default: '1000' },
    resident: { type: 'string', default: '0' },
    'visit-resident': { type: 'boolean', default: false },
    routed: { type: 'boolean', default: false },
    'routed-without': { type: 'string' },
    'routed-shared': { type: 'boolean', default: false },
    'thrash-kib': { type: 'string', default: '0' },
  },
});
const ROUTED_DOCUMENT = routedDocument(routedWithout(args['routed-without']));
const ROUNDS = Number(args.rounds);
const REQUESTS = Number(args.requests);
const LINKS = Number(args.links);
const RESIDENT = Number(args.resident);

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const CRAWLER = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

// --routed-shared: every link has the same compiled routing, so its data stays in the CPU's caches:
// what a routed visit costs without reading a link's routing from memory.
let shared: ReturnType<typeof compileRouting> | undefined;
const link = (i: number): ResolvedLink => ({
  id: `lnk_${String(i).padStart(20, '0')}`,
  workspaceId: 'ws_00000000000000000001',
  domainKey: '',
  slug: String(i).padStart(7, '0'),
  url: `https://example.com/${i}`,
  location: `https://example.com/${i}`,
  expiredLocation: null,
  redirectType: 'TEMPORARY',
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
  routing: !args.routed
    ? null
    : args['routed-shared']
      ? (shared ??= compileRouting(ROUTED_DOCUMENT, null))
      : compileRouting(ROUTED_DOCUMENT, null),
});
const links = new Map(Array.from({ length: LINKS }, (_, i) => [String(i).padStart(7, '0'), link(i)]));
const store: RedirectStore = {
  findLink: (_d, slug) => (links.has(slug) ? { ...links.get(slug)! } : null),
  // The resident links, a page at a time in id order, each a row as the database would give it.
  scanLinks: async (after, limit) => {
    const from = after === '' ? 0 : Number(after.slice(4)) + 1;
    const rows: unknown[][] = [];
    for (let i = from; i < Math.min(RESIDENT, from + limit); i++) {
      rows.push([
        `res_${String(i).padStart(20, '0')}`,
        'ws_00000000000000000001',
        '',
        `r${i}`,
        `https://example.com/resident/${i}?utm_source=bench`,
        'TEMPORARY',
        'ACTIVE',
        null,
        null,
        null,
        null,
        null,
        '0',
        null,
        null,
        null,
        null,
      ]);
    }
    return encodeLinkPage(rows);
  },
  findLinkById: () => null,
  findDomainByHost: () => null,
  findQr: () => null,
  findPage: () => null,
  reserveClick: () => true,
  refresh: () => {},
  close: async () => {},
};
// Batches are dropped: what is measured is recording a click on the request's path.
const writer: ClickWriter = { ready: async () => {}, write: async (_b: ClickBuffer) => {}, close: async () => {} };
const log = pino({ level: 'silent' });
const clicks = new ClickRecorder(writer, log, 1000);
const config = { shortDomain: 'localhost', trustProxy: 1 } as Config;
const service = new RedirectService({
  config,
  store,
  clicks,
  csrf: new CsrfTokens(Buffer.alloc(32, 7)),
  passwordThrottle: new RateLimiterMemory({ points: 10, duration: 60 }),
  log,
  residentLinks: RESIDENT,
  clickIds: new ClickIds(Buffer.alloc(32, 7)),
  // The service's own lookup (packaged data): routed links with a place rule locate the visitor.
  geo: geoLocator({}),
});
if (RESIDENT > 0) {
  const before = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  await service.preload();
  globalThis.gc?.();
  console.log(
    `resident: ${service.residentLinks.toLocaleString('en')} links (${(service.residentBytes / 2 ** 20).toFixed(0)} MiB outside the heap) preloaded in ${((performance.now() - t0) / 1000).toFixed(1)} s; heap +${((process.memoryUsage().heapUsed - before) / 2 ** 20).toFixed(0)} MiB`,
  );
}

// Stand-ins shaped like what node:http hands the handler: a fresh request with its headers object
// per visit (Node builds both per request), a response that keeps what was written.
class FakeResponse {
  status = 0;
  headers: unknown;
  ended = 0;
  setHeader(_name: string, _value: string) {}
  writeHead(status: number, headers: unknown) {
    this.status = status;
    this.headers = headers;
    return this;
  }
  end() {
    this.ended++;
  }
}
// --visit-resident: each visit is to one of the resident links at random (nearly all miss the hot
// tier and are read from the resident one), as the million scenario's are.
/** --routed: every link has the routed scenario's document, and every visit a query to forward. */
const QUERY = '?utm_source=bench&utm_medium=email';
const VISIT_RESIDENT = args['visit-resident'] === true && RESIDENT > 0;
const paths = VISIT_RESIDENT
  ? Array.from({ length: RESIDENT }, (_, i) => `/r${i}`)
  : Array.from({ length: LINKS }, (_, i) => `/${String(i).padStart(7, '0')}${args.routed ? QUERY : ''}`);
const request = (url: string, userAgent: string) =>
  ({
    url,
    method: 'GET',
    headers: { host: 'localhost', 'user-agent': userAgent, 'x-forwarded-proto': 'https', accept: '*/*' },
    // A click passes its client address to the click writer (where it is located).
    socket: { remoteAddress: '198.51.100.9' },
  }) as unknown as IncomingMessage;
const fallback = () => {
  throw new Error('fell back to the app: the stand-in request did not resolve');
};
const bare = (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(302, { Location: 'https://example.com/', 'Content-Length': 0 });
  res.end();
};

// --thrash-kib N: before each request, N KiB more of a 64 MiB buffer are read, a byte per cache
// line, as a served request's sockets, parser and fresh allocations pass through the CPU's caches:
// a link is then read from memory on its next visit, as over HTTP, not from a cache it kept.
const THRASH_LINES = (Number(args['thrash-kib']) * 1024) / 64;
const thrashed = new Uint8Array(64 * 2 ** 20);
let thrashAt = 0;
let sink = 0;
function thrash(): number {
  let sum = 0;
  for (let i = 0; i < THRASH_LINES; i++) {
    sum += thrashed[thrashAt];
    thrashAt = (thrashAt + 64) % thrashed.length;
  }
  return sum;
}

type Target = 'bare' | 'person' | 'bot';
function run(target: Target): number {
  const res = new FakeResponse() as unknown as ServerResponse & FakeResponse;
  // A new User-Agent string per request, as Node's parser makes one (its hash not yet computed).
  const ua = Buffer.from(target === 'bot' ? CRAWLER : BROWSER, 'latin1');
  let x = 0x9e3779b9;
  const start = process.hrtime.bigint();
  for (let i = 0; i < REQUESTS; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5; // xorshift: a random warm link per request
    const req = request(paths[(x >>> 0) % paths.length], ua.toString('latin1'));
    if (THRASH_LINES > 0) sink += thrash();
    if (target === 'bare') bare(req, res);
    else service.handle(req, res, fallback);
  }
  const ns = Number(process.hrtime.bigint() - start) / REQUESTS;
  if (res.ended !== REQUESTS || res.status !== 302)
    throw new Error(`${target}: ${res.ended} answers, last status ${res.status}`);
  if (target === 'person' && clicks.pending === 0) throw new Error('person: no click was recorded');
  return ns;
}

// Warm the cache and the JIT on every target first.
for (const t of ['bare', 'person', 'bot'] as const) run(t);
const figures: Record<Target, number[]> = { bare: [], person: [], bot: [] };
console.log(
  `redirect path in process: ${LINKS} warm links, ${REQUESTS.toLocaleString('en')} requests per run, ${ROUNDS} rounds (runs alternate)`,
);
for (let r = 0; r < ROUNDS; r++) {
  for (const t of ['bare', 'person', 'bot'] as const) figures[t].push(run(t));
  // What a flush does to the buffer (swap it out); the batch itself is dropped.
  await clicks.flush();
  console.log(
    `  round ${r + 1}: bare ${figures.bare[r].toFixed(0)} ns, person ${figures.person[r].toFixed(0)} ns, bot ${figures.bot[r].toFixed(0)} ns`,
  );
}
const m = { bare: median(figures.bare), person: median(figures.person), bot: median(figures.bot) };
console.log(`median ns per request: bare ${m.bare.toFixed(0)}, person ${m.person.toFixed(0)}, bot ${m.bot.toFixed(0)}`);
if (sink !== 0) console.log(''); // reads the thrash's sum, so the reads are not optimized away
console.log(
  `our code per request (median minus bare): person ${(m.person - m.bare).toFixed(0)} ns, bot ${(m.bot - m.bare).toFixed(0)} ns`,
);
