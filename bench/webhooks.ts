// Webhook delivery benchmark: events fanned out to a local HTTPS receiver by `shortlink serve`.
// It prints figures and asserts nothing.
//
//   npx tsx bench/webhooks.ts [--events 1000] [--subscriptions 10] [--variant A|B|mixed]
//                             [--engine sqlite|postgres] [--rate 0] [--time-limit 300]
//                             [--cpu-prof DIR]
//
// What it does:
//  1. creates a fresh database (a SQLite file in a temp dir, or a Postgres database created on
//     TEST_POSTGRES_URL and dropped at the end), migrates it, and adds a workspace and
//     `--subscriptions` subscriptions (secrets sealed under a bench MASTER_KEY) pointing at the
//     receiver;
//  2. starts the receiver as a child process: an HTTPS server (self-signed certificate) that
//     checks every signature with the reference verifiers (src/webhooks/verify.mjs), answers
//     200, and notes when each delivery arrived;
//  3. starts `node bin/shortlink.mjs serve` as a child process (TLS=off for its own API;
//     deliveries are HTTPS) trusting the receiver's certificate (WEBHOOK_CA_FILE);
//  4. writes `--events` events x `--subscriptions` PENDING deliveries straight into the outbox,
//     in bulk, as the outbox does (`--rate N`: N deliveries a second instead of all at once),
//     each stamped with the time it was written;
//  5. waits until the receiver has every delivery, then prints deliveries per second (first
//     write to last arrival), p50/p99/max event-to-delivery latency (write to arrival), bad
//     signatures, and the service's CPU time per delivery.
// Every child process, temp file and database is removed at the end, on error, on Ctrl-C and
// when --time-limit runs out. With --cpu-prof DIR the service runs under `node --cpu-prof` and
// its profile is left in DIR.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrateLatest, openDatabase, type Database } from '../src/db/knex';
import { createWorkspace } from '../src/db/repos/workspaces';
import { newId } from '../src/domain/ids';
import { generateDevCertificate } from '../src/start/tls';
import { sealSecret } from '../src/webhooks/secrets';
import { benchCleanups } from './lifecycle';
import { cpuMs, log, percentile, sleep, buildService } from './util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
buildService(ROOT);
const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000' },
    subscriptions: { type: 'string', default: '10' },
    variant: { type: 'string', default: 'mixed' },
    engine: { type: 'string', default: 'sqlite' },
    rate: { type: 'string', default: '0' },
    'time-limit': { type: 'string', default: '300' },
    'cpu-prof': { type: 'string' },
  },
});
const EVENTS = Number(args.events);
const SUBSCRIPTIONS = Number(args.subscriptions);
const TOTAL = EVENTS * SUBSCRIPTIONS;
const RATE = Number(args.rate);
const VARIANT = String(args.variant).toUpperCase();
const ENGINE = String(args.engine);
if (!['A', 'B', 'MIXED'].includes(VARIANT) || !['sqlite', 'postgres'].includes(ENGINE) || !(TOTAL > 0)) {
  process.stderr.write(
    'usage: npx tsx bench/webhooks.ts [--events N] [--subscriptions N] [--variant A|B|mixed] [--engine sqlite|postgres] [--rate N]\n',
  );
  process.exit(2);
}
const MASTER_KEY = 'b'.repeat(64);
const SECRET = 'whsec_bench_0123456789abcdef';

// ---------------------------------------------------------------------------------------------
// Clean-up on every way out

const children = new Set<ChildProcess>();
let finishing = false;
// Unlike the other benches: no time limit per release (--time-limit bounds the whole run), a
// failed release is passed over in silence, and the children are killed before anything else.
const { onCleanup, cleanup } = benchCleanups({
  quiet: true,
  first: () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  },
});
function abort(reason: string, code: number) {
  if (finishing) process.exit(code);
  finishing = true;
  process.stderr.write(`\nbench: ${reason}; cleaning up\n`);
  void cleanup().finally(() => process.exit(code));
}
process.on('SIGINT', () => abort('interrupted', 130));
process.on('SIGTERM', () => abort('terminated', 143));
process.on('uncaughtException', (err) => abort(`uncaught ${err.stack ?? err}`, 1));
process.on('unhandledRejection', (err) => abort(`unhandled rejection ${(err as Error)?.stack ?? err}`, 1));
setTimeout(
  () => abort(`time limit of ${args['time-limit']} s reached`, 124),
  Number(args['time-limit']) * 1000,
).unref();
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

// ---------------------------------------------------------------------------------------------
// The receiver (a child process, plain JavaScript)

const RECEIVER = `
const https = require('node:https');
const fs = require('node:fs');
const parent = Number(process.env.BENCH_PARENT);
setInterval(() => { if (process.ppid !== parent) process.exit(1); }, 500).unref();
(async () => {
  const { verifyVariantA, verifyVariantB } = await import(process.env.VERIFY_URL);
  const secret = process.env.SECRET;
  const arrivals = [];
  let bad = 0;
  const server = https.createServer({ cert: fs.readFileSync(process.env.CERT), key: fs.readFileSync(process.env.KEY) }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const ok = req.headers['x-service-signature'] !== undefined
        ? verifyVariantB(raw, req.headers['x-service-signature'], secret)
        : verifyVariantA(raw, req.headers['x-webhook-signature'], secret);
      if (!ok) bad++;
      const body = JSON.parse(raw.toString('utf8'));
      arrivals.push([body.data.seq, Date.now()]);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (m) => {
    if (m === 'count') process.send({ count: arrivals.length, bad });
    if (m === 'report') process.send({ arrivals, bad });
  });
})();
`;

function fork(name: string, argv: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const proc = spawn(process.execPath, argv, { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.add(proc);
  proc.once('exit', (code, signal) => {
    children.delete(proc);
    if (!finishing) abort(`${name} exited (${signal ?? code})`, 1);
  });
  return proc;
}

function ask<T>(proc: ChildProcess, message: string, key: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: any) => {
      if (m && key in m) {
        proc.off('message', on);
        resolve(m);
      }
    };
    proc.on('message', on);
    proc.send(message);
  });
}

// ---------------------------------------------------------------------------------------------

async function createDatabase(tmp: string): Promise<string> {
  if (ENGINE === 'sqlite') return `sqlite:${path.join(tmp, 'bench.db')}`;
  const admin = process.env.TEST_POSTGRES_URL || 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
  const name = `sl_bench_${process.pid}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  onCleanup(`database ${name}`, async () => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-bench-webhooks-'));
  onCleanup('temp dir', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const databaseUrl = await createDatabase(tmp);
  const db: Database = openDatabase(databaseUrl);
  onCleanup('knex', () => db.knex.destroy());
  await migrateLatest(db);

  // The receiver, with a certificate the service is told to trust.
  const tls = await generateDevCertificate();
  const certFile = path.join(tmp, 'receiver-cert.pem');
  const keyFile = path.join(tmp, 'receiver-key.pem');
  fs.writeFileSync(certFile, tls.cert);
  fs.writeFileSync(keyFile, tls.key);
  const receiver = fork('receiver', ['-e', RECEIVER], {
    PATH: process.env.PATH,
    BENCH_PARENT: String(process.pid),
    CERT: certFile,
    KEY: keyFile,
    SECRET,
    VERIFY_URL: pathToFileURL(path.join(ROOT, 'src/webhooks/verify.mjs')).href,
  });
  const { port } = await new Promise<{ port: number }>((r) => receiver.once('message', (m: any) => r(m)));

  const masterKey = Buffer.from(MASTER_KEY, 'hex');
  const workspaceId = await createWorkspace(db.knex, 'Bench', 'growth');
  const subscriptions = Array.from({ length: SUBSCRIPTIONS }, (_, i) => ({
    id: newId('wh'),
    variant: VARIANT === 'MIXED' ? (i % 2 ? 'B' : 'A') : VARIANT,
  }));
  const now = Date.now();
  await db.knex('webhook_subscriptions').insert(
    subscriptions.map((s, i) => ({
      id: s.id,
      workspace_id: workspaceId,
      variant: s.variant,
      url: `https://localhost:${port}/hooks/${i}`,
      events: JSON.stringify(['link.created']),
      secret_encrypted: sealSecret(masterKey, SECRET),
      enabled: true,
      created_at: now,
      updated_at: now,
    })),
  );

  const profile = args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args['cpu-prof'])}`] : [];
  const service = fork('service', [...profile, path.join(ROOT, 'bin/shortlink.mjs'), 'serve'], {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: databaseUrl,
    DATA_DIR: tmp,
    PORT: '0',
    TLS: 'off',
    LOG_LEVEL: 'warn',
    MASTER_KEY,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
    WEBHOOK_CA_FILE: certFile,
  });
  await sleep(3_000); // start-up: migrations, the HTTP stack, the worker's first poll

  log(`webhook delivery benchmark: ${EVENTS} events x ${SUBSCRIPTIONS} subscriptions = ${TOTAL} deliveries`);
  log(
    `variant ${VARIANT.toLowerCase()}, engine ${ENGINE}, ${RATE ? `${RATE} deliveries/s written` : 'all written at once'}, signatures verified by the receiver`,
  );
  log(`machine: ${os.cpus().length} CPUs, node ${process.version}`);

  // The outbox rows, written in bulk; data.seq tells the receiver which one arrived.
  const writtenAt = new Float64Array(TOTAL);
  const cpuBefore = cpuMs(service.pid);
  const receiverCpuBefore = cpuMs(receiver.pid);
  const firstWrite = Date.now();
  const CHUNK = RATE ? Math.max(1, Math.round(RATE / 20)) : 500;
  for (let start = 0; start < TOTAL; start += CHUNK) {
    if (RATE) {
      const due = firstWrite + (start / RATE) * 1000;
      if (due > Date.now()) await sleep(due - Date.now());
    }
    const at = Date.now();
    const rows = [];
    for (let seq = start; seq < Math.min(TOTAL, start + CHUNK); seq++) {
      const sub = subscriptions[seq % SUBSCRIPTIONS];
      const eventId = `evt_bench_${Math.floor(seq / SUBSCRIPTIONS)}`;
      writtenAt[seq] = at;
      rows.push({
        id: newId('dlv'),
        subscription_id: sub.id,
        workspace_id: workspaceId,
        variant: sub.variant,
        event_id: eventId,
        event_type: 'link.created',
        request_id: null,
        occurred_at: at,
        data: JSON.stringify({ seq, id: eventId, slug: `bench-${seq}`, url: 'https://example.com/landing' }),
        status: 'PENDING',
        attempts: 0,
        next_attempt_at: at,
        created_at: at,
        updated_at: at,
      });
    }
    await db.knex('webhook_deliveries').insert(rows);
  }
  const lastWrite = Date.now();

  for (;;) {
    const { count } = await ask<{ count: number }>(receiver, 'count', 'count');
    if (count >= TOTAL) break;
    await sleep(100);
  }
  const cpuAfter = cpuMs(service.pid);
  const receiverCpuAfter = cpuMs(receiver.pid);
  const { arrivals, bad } = await ask<{ arrivals: [number, number][]; bad: number }>(receiver, 'report', 'arrivals');
  const lastArrival = Math.max(...arrivals.map(([, t]) => t));
  const latencies = arrivals.map(([seq, t]) => t - writtenAt[seq]).sort((a, b) => a - b);
  const unique = new Set(arrivals.map(([seq]) => seq)).size;
  const [{ n: notDelivered }] = await db.knex('webhook_deliveries').whereNot('status', 'DELIVERED').count({ n: '*' });

  const seconds = (lastArrival - firstWrite) / 1000;
  log('');
  log(`written in            ${((lastWrite - firstWrite) / 1000).toFixed(2)} s`);
  log(`delivered in          ${seconds.toFixed(2)} s (first write to last arrival)`);
  log(`deliveries per second ${Math.round(TOTAL / seconds)}`);
  log(`latency p50           ${percentile(latencies, 50)} ms (written to the outbox -> arrived at the receiver)`);
  log(`latency p99           ${percentile(latencies, 99)} ms`);
  log(`latency max           ${latencies[latencies.length - 1]} ms`);
  log(`arrivals              ${arrivals.length} (${unique} distinct; ${arrivals.length - unique} duplicates)`);
  log(`bad signatures        ${bad}`);
  log(`not DELIVERED in db   ${notDelivered}`);
  log(
    `service CPU           ${(cpuAfter - cpuBefore).toFixed(0)} ms, ${((cpuAfter - cpuBefore) / TOTAL).toFixed(3)} ms per delivery`,
  );
  log(
    `receiver CPU          ${(receiverCpuAfter - receiverCpuBefore).toFixed(0)} ms, ${((receiverCpuAfter - receiverCpuBefore) / TOTAL).toFixed(3)} ms per delivery`,
  );
  finishing = true;
  if (profile.length) {
    // A clean exit writes the profile.
    service.kill('SIGTERM');
    await new Promise((r) => service.once('exit', r));
  }
  await cleanup();
}

await main();
