// The floor under bench:redirect's routed scenario: what Node's HTTP stack alone charges for the
// answer a routed visit gets, against a plain link's answer. It prints figures; it asserts nothing.
//
//   npx tsx bench/redirect-floor.ts [--rounds 5] [--seconds 5] [--links 10000] [--connections 32]
//
// One node:http server with no logic of the service's: no cache, no rules, no click recorded. For
// a random one of N links per request (each with its strings made at start, as a cached link's
// are) it answers what the service's handler.ts send() answers, header for header:
//   plain        `GET /w/{i}`: Location (the link's url), Cache-Control, Content-Length,
//                X-Robots-Tag;
//   plain-query  `GET /q/{i}?{query}`: the same, the query added to the Location;
//   routed-bare  `GET /c/{i}?{query}`: a variant's url with the query and a click id (its signed
//                part kept per link, a nonce per click) added to it, as routed.ts builds it, and
//                no cookie;
//   routed       `GET /r/{i}?{query}`: that and the split's cookie (Set-Cookie), as for a new
//                visitor to a link with a split, every one of the routed scenario's visits.
// The query is bench:redirect's (`utm_source=bench&utm_medium=email`), the request headers are its
// browser's. Each round runs every kind (a slowdown of the machine then falls on all alike); the
// shares are the medians of the rounds'. With the routed scenario's share of bench:redirect beside
// it, this says how much of what a routed link costs is the service's code and how much the
// answer itself, on Node's HTTP stack.
//
// wrk (Debian's package) loads the server as SCHED_BATCH (util-linux's chrt) on CPU 0, the server
// runs on CPU 1 (taskset), as `bench:redirect --pin` runs them.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REDIRECT_CACHE_CONTROL } from '../src/redirect/handler';
import { cpuMs, fmtInt, freePort, intOption, log, median, printHeaderAndExit, table } from './util';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
    links: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '32' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) printHeaderAndExit(import.meta.url);
const ROUNDS = intOption('rounds', args.rounds);
const SECONDS = intOption('seconds', args.seconds);
const LINKS = intOption('links', args.links);
const CONNECTIONS = intOption('connections', args.connections);
for (const tool of ['wrk', 'taskset', 'chrt']) {
  try {
    execFileSync('which', [tool], { stdio: 'ignore' });
  } catch {
    process.stderr.write(`bench/redirect-floor.ts needs ${tool} on PATH (Debian: wrk, util-linux)\n`);
    process.exit(2);
  }
}

// The server: each link's strings made at start and kept, as the service's cache keeps a link's.
// What is made per request is what the service makes per request (routed.ts, forwarding.ts).
const SERVER = `const http = require('node:http');
const { randomFillSync } = require('node:crypto');
const N = Number(process.env.LINKS);
const CC = ${JSON.stringify(REDIRECT_CACHE_CONTROL)};
const KEEP = '; Max-Age=15552000; HttpOnly; Secure; SameSite=Lax';
const url = [], variant = [], pair = [], cookie = [];
for (let i = 0; i < N; i++) {
  const id = 'lnk_route' + i.toString(36).padStart(15, '0');
  url.push('https://example.com/landing/' + i.toString(36));
  variant.push('https://example.com/a' + i.toString(36) + '?v=a');
  const mac = Buffer.alloc(16, i % 251).toString('base64url');
  pair.push('sl_click=' + Buffer.from(id + '~var_bencha').toString('base64url') + '.' + mac + '.');
  cookie.push('sl_v=' + id + '.var_bencha; Path=');
}
const pool = Buffer.alloc(4095);
let nonces = '';
let used = 0;
function nonce() {
  if (used >= nonces.length) { randomFillSync(pool); nonces = pool.toString('base64url'); used = 0; }
  const n = nonces.slice(used, used + 12);
  used += 12;
  return n;
}
http.createServer((req, res) => {
  const u = req.url;
  const q = u.indexOf('?');
  const p = q === -1 ? u : u.slice(0, q);
  const i = Number(p.slice(3));
  const kind = p.charCodeAt(1);
  let headers;
  if (kind === 119) headers = { Location: url[i], 'Cache-Control': CC, 'Content-Length': 0, 'X-Robots-Tag': 'noindex' };
  else if (kind === 113) headers = { Location: url[i] + '?' + u.slice(q + 1), 'Cache-Control': CC, 'Content-Length': 0, 'X-Robots-Tag': 'noindex' };
  else {
    const location = variant[i] + '&' + u.slice(q + 1) + '&' + pair[i] + nonce();
    headers = { Location: location, 'Cache-Control': CC, 'Content-Length': 0, 'X-Robots-Tag': 'noindex' };
    if (kind === 114) headers['Set-Cookie'] = cookie[i] + p + KEEP;
  }
  res.writeHead(302, headers);
  res.end();
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\\n'));
`;

const QUERY = 'utm_source=bench&utm_medium=email';
const WRK_SCRIPT = `local kind = os.getenv("KIND")
local n = tonumber(os.getenv("LINKS"))
local q = kind == "w" and "" or "?${QUERY}"
wrk.headers["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
wrk.headers["X-Forwarded-Proto"] = "https"
wrk.headers["Host"] = "localhost"
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/" .. kind .. "/" .. (math.random(n) - 1) .. q)
end
done = function(summary)
  io.write(string.format("WRK %d %d %d\\n", summary.duration, summary.requests, summary.errors.status))
end
`;

const KINDS = [
  { key: 'w', name: 'plain' },
  { key: 'q', name: 'plain-query' },
  { key: 'c', name: 'routed-bare' },
  { key: 'r', name: 'routed' },
] as const;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-floor-'));
const serverFile = path.join(tmp, 'server.cjs');
const scriptFile = path.join(tmp, 'kinds.lua');
fs.writeFileSync(serverFile, SERVER);
fs.writeFileSync(scriptFile, WRK_SCRIPT);
// wrk, a child, inherits CPU 0; the server gets CPU 1.
execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const port = await freePort();
const server = spawn('taskset', ['-c', '1', process.execPath, serverFile], {
  env: { PATH: process.env.PATH, PORT: String(port), LINKS: String(LINKS) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const stop = () => {
  server.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
};
process.on('exit', stop);
await new Promise<void>((resolve, reject) => {
  server.stdout!.on('data', (c: Buffer) => c.toString().includes('ready') && resolve());
  server.once('exit', (code) => reject(new Error(`the floor server exited ${code}`)));
});

/** One wrk run of a kind: answers per second, and the server's CPU per answer (µs). */
async function load(kind: string, seconds: number): Promise<{ rps: number; cpuUs: number }> {
  const before = cpuMs(server.pid);
  const wrk = spawn(
    'chrt',
    ['--batch', '0', 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', scriptFile, `http://127.0.0.1:${port}`],
    { env: { ...process.env, KIND: kind, LINKS: String(LINKS) }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  wrk.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  wrk.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  const code = await new Promise<number | null>((resolve) => wrk.on('close', resolve));
  const line = out.split('\n').find((l) => l.startsWith('WRK '));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}):\n${out}`);
  const [durationUs, requests, badStatus] = line.slice(4).split(' ').map(Number);
  if (badStatus > 0) throw new Error(`${badStatus} answers of kind ${kind} were not 3xx`);
  return { rps: requests / (durationUs / 1e6), cpuUs: ((cpuMs(server.pid) - before) * 1000) / requests };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

log(`Node's HTTP floor of a routed answer: ${fmtInt(LINKS)} links, ${ROUNDS} rounds of ${SECONDS} s per kind`);
log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'})`);
for (const k of KINDS) await load(k.key, 2); // warm-up: every kind's code compiled before a round
const results = new Map<string, Array<{ rps: number; cpuUs: number }>>(KINDS.map((k) => [k.key, []]));
for (let round = 1; round <= ROUNDS; round++) {
  const row: string[] = [];
  for (const k of KINDS) {
    const r = await load(k.key, SECONDS);
    results.get(k.key)!.push(r);
    row.push(`${k.name} ${fmtInt(r.rps)}/s ${r.cpuUs.toFixed(1)} µs`);
  }
  log(`  round ${round}: ${row.join(', ')}`);
}

const of = (key: string) => results.get(key)!;
/** The median of the rounds' shares: `key`'s rate over `base`'s in the same round. */
const share = (key: string, base: string) => median(of(key).map((r, i) => r.rps / of(base)[i].rps));
const cpuShare = (key: string, base: string) => median(of(base).map((r, i) => r.cpuUs / of(key)[i].cpuUs));
log();
log(
  table(
    ['kind', 'answers/s', 'CPU per answer', 'rate vs plain', 'vs plain-query', 'CPU: plain ÷ kind'],
    KINDS.map((k) => [
      k.name,
      fmtInt(median(of(k.key).map((r) => r.rps))),
      `${median(of(k.key).map((r) => r.cpuUs)).toFixed(1)} µs`,
      pct(share(k.key, 'w')),
      pct(share(k.key, 'q')),
      pct(cpuShare(k.key, 'w')),
    ]),
  ),
);
log();
log("medians of the rounds; a share is the median of the rounds' shares (each round runs every kind)");
process.exit(0);
