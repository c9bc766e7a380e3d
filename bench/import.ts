// CSV import benchmark: how long the dashboard takes to import a file of links, through HTTP as a
// person does it, on the compiled service, and what an import costs the visitors meanwhile. It
// prints figures and asserts nothing.
//
//   npx tsx bench/import.ts [--engine sqlite|postgres|both] [--scenario rate|stall|both] [--rows 10000] [--rounds 3]
//                           [--time-limit SECONDS]
//
// Per engine, on a fresh database (a SQLite file in a temp dir, or a scratch Postgres database on
// TEST_POSTGRES_URL, dropped at the end): `shortlink serve` (TLS off behind a trusted proxy, as
// bench/redirect runs it), a workspace and an OWNER with a password (the set-up link
// `shortlink member add` prints), signed in. Each round posts a file of --rows rows to
// POST /app/api/workspaces/{id}/links/import: half with a custom slug, a third with a title, a
// fifth with two tags, one in a hundred refused (a javascript: URL). Then, in the same script, the
// floor any import pays here: the same number of rows written straight into the links table with
// multi-row INSERTs of 250 (no checks, no tags, no events), as the ratio's baseline.
//
// --scenario stall: what an import costs the redirects served meanwhile. The service runs with
// bench/soak-probe.mjs (its own event-loop delay, perf_hooks.monitorEventLoopDelay, read over IPC)
// while this process follows a short link every 2 ms on one kept-alive connection. Per phase: the
// redirects' p50/p99/max and the service's longest event-loop delay, for 3 s of no import (the
// baseline), a file of 150,000 rows (9.7 MiB, refused for its row count), a file of 20,000 rows
// filling 9.4 MiB (the largest accepted: parsed, then 20,000 links written, each with two of 8
// tags) and one of 19,000 rows whose last line breaks the CSV (refused as unreadable once all of
// it is parsed). Each --rounds times.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { migrateLatest, openDatabase, type Engine } from '../src/db/knex';
import { newId } from '../src/domain/ids';
import { benchCleanups, finishBench, guardBenchRun, watchChild } from './lifecycle';
import { buildService, createScratchPostgres, fmtInt, fmtMs, freePort, log, percentile, sleep, table } from './util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    scenario: { type: 'string', default: 'rate' },
    rows: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
    'time-limit': { type: 'string', default: '900' },
  },
});
const ROWS = Number(args.rows);
const ROUNDS = Number(args.rounds);
const engines: Engine[] = args.engine === 'both' ? ['sqlite', 'postgres'] : [args.engine as Engine];
const scenarios = args.scenario === 'both' ? ['rate', 'stall'] : [args.scenario!];
if (!scenarios.every((s) => s === 'rate' || s === 'stall')) {
  process.stderr.write(`--scenario must be rate, stall or both; got ${args.scenario}\n`);
  process.exit(2);
}
const PROBE = path.join(ROOT, 'bench/soak-probe.mjs');
const MiB = 2 ** 20;

const children = new Set<ChildProcess>();
const cleanups = benchCleanups();
const run = guardBenchRun({ children, cleanup: () => cleanups.cleanup(), timeLimitS: Number(args['time-limit']) });

function request(
  port: number,
  method: string,
  pathname: string,
  opts: { body?: string; type?: string; cookie?: string; csrf?: string } = {},
) {
  return new Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const headers: Record<string, string> = { 'x-forwarded-proto': 'https', host: `localhost:${port}` };
    if (opts.body !== undefined) {
      headers['content-type'] = opts.type ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(opts.body));
    }
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.csrf) headers['x-csrf-token'] = opts.csrf;
    const req = http.request({ host: '127.0.0.1', port, method, path: pathname, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
      );
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

function cli(env: Record<string, string>, argv: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/shortlink.mjs'), ...argv], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`shortlink ${argv.join(' ')}: ${err}`)),
    );
  });
}

function csvFile(round: number): string {
  const lines = ['url,slug,title,tags'];
  for (let i = 0; i < ROWS; i++) {
    const url = i % 100 === 99 ? 'javascript:alert(1)' : `https://example.com/r${round}/page-${i}?utm_source=import`;
    const slug = i % 2 === 0 ? `imp${round}-${i}` : '';
    const title = i % 3 === 0 ? `"Imported link ${i}, round ${round}"` : '';
    const tags = i % 5 === 0 ? `spring|batch-${i % 7}` : '';
    lines.push([url, slug, title, tags].join(','));
  }
  return lines.join('\n');
}

/**
 * A file of `rows` valid rows of about `bytesPerRow` bytes each, the bulk in a column the import
 * ignores (long destinations would measure the search indexes' writes instead: bench/link-writes).
 */
function paddedFile(tag: string, rows: number, bytesPerRow: number): string {
  const lines = ['url,slug,title,tags,note'];
  for (let i = 0; i < rows; i++) {
    const url = `https://example.com/${tag}/${i}?utm_source=import`;
    const row = `${url},${tag}-${i},"Link ${i} of the ${tag} file",${tag}|batch-${i % 7},`;
    lines.push(`${row}${'n'.repeat(Math.max(0, bytesPerRow - row.length - 1))}`);
  }
  return `${lines.join('\n')}\n`;
}

interface Service {
  port: number;
  workspace: string;
  cookie: string;
  csrf: string;
  /** The service's event-loop delay since the previous call (bench/soak-probe.mjs). */
  loopDelay(): Promise<{ p99: number; max: number; resolutionMs: number }>;
  stop(): Promise<void>;
}

async function startService(engine: Engine): Promise<{ service: Service; databaseUrl: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-import-bench-'));
  cleanups.onCleanup('data directory', async () => fs.rmSync(dir, { recursive: true, force: true }));
  let databaseUrl = `sqlite:${path.join(dir, 'shortlink.db')}`;
  if (engine === 'postgres') {
    const scratch = await createScratchPostgres('shortlink_import_bench');
    cleanups.onCleanup('scratch database', () => scratch.drop());
    databaseUrl = scratch.url;
  }
  const port = await freePort();
  const env = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dir,
    PORT: String(port),
    PUBLIC_URL: `https://localhost:${port}`,
    TLS: 'off',
    TRUST_PROXY: '1',
    LOG_LEVEL: 'warn',
  };
  const workspace = (await cli(env, ['workspace', 'create', '--name', 'Import bench'])).id;
  const member = await cli(env, [
    'member',
    'add',
    '--workspace',
    workspace,
    '--email',
    'bench@example.com',
    '--role',
    'OWNER',
  ]);
  const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --import ${PROBE}`.trim();
  const proc = spawn(process.execPath, [path.join(ROOT, 'bin/shortlink.mjs'), 'serve'], {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_OPTIONS: nodeOptions, SOAK_PROBE: '1' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const child = watchChild(proc, children, (err) => log(`serve failed to start: ${err.message}`));
  cleanups.onCleanup('serve', () => child.stop(5000));
  for (let i = 0; i < 200; i++) {
    try {
      if ((await request(port, 'GET', '/healthz')).status === 200) break;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  const token = new URL(member.setupUrl).searchParams.get('token')!;
  const signedIn = await request(port, 'POST', '/app/api/password-setup', {
    body: JSON.stringify({ token, password: 'bench password 123' }),
  });
  const cookie = String(signedIn.headers['set-cookie']?.[0]).split(';')[0];
  const csrf = JSON.parse(signedIn.text).csrfToken;
  const loopDelay = () =>
    new Promise<{ p99: number; max: number; resolutionMs: number }>((resolve) => {
      const onMessage = (m: any) => {
        if (m?.type !== 'soak-sample') return;
        proc.off('message', onMessage);
        resolve(m);
      };
      proc.on('message', onMessage);
      proc.send({ type: 'soak-sample' });
    });
  return { service: { port, workspace, cookie, csrf, loopDelay, stop: () => child.stop(5000) }, databaseUrl };
}

async function rateScenario(engine: Engine, service: Service, databaseUrl: string) {
  const { port, workspace, cookie, csrf } = service;
  const rows: string[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const file = csvFile(round);
    const started = performance.now();
    const res = await request(port, 'POST', `/app/api/workspaces/${workspace}/links/import`, {
      body: file,
      type: 'text/csv',
      cookie,
      csrf,
    });
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`import answered ${res.status}: ${res.text.slice(0, 300)}`);
    const report = JSON.parse(res.text);
    rows.push([
      `import round ${round}`,
      fmtInt(report.created),
      fmtInt(report.refused),
      fmtMs(ms / 1000, 2),
      fmtInt((ROWS / ms) * 1000),
    ]);
  }
  await service.stop();

  // The floor: the same number of rows straight into the links table.
  const db = openDatabase(databaseUrl, { poolMax: 2 });
  await migrateLatest(db);
  const user = await db.knex('users').first('id');
  const floorStarted = performance.now();
  const now = Date.now();
  for (let i = 0; i < ROWS; i += 250) {
    const chunk = Array.from({ length: Math.min(250, ROWS - i) }, (_, k) => ({
      id: newId('lnk'),
      workspace_id: workspace,
      created_by: user.id,
      domain_id: null,
      domain_key: '',
      slug: `floor-${i + k}`,
      original_url: `https://example.com/floor/${i + k}`,
      title: null,
      status: 'ACTIVE',
      policy_locked: false,
      redirect_type: 'TEMPORARY',
      expires_at: null,
      expired_url: null,
      click_limit: null,
      start_at: null,
      end_at: null,
      password_hash: null,
      preview_title: null,
      preview_description: null,
      preview_image: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    }));
    await db.knex.transaction((trx) => trx('links').insert(chunk));
  }
  const floorMs = performance.now() - floorStarted;
  await db.knex.destroy();
  rows.push(['floor: plain inserts', fmtInt(ROWS), '0', fmtMs(floorMs / 1000, 2), fmtInt((ROWS / floorMs) * 1000)]);
  log(`\n${engine}: ${fmtInt(ROWS)} rows per file`);
  log(table(['run', 'created', 'refused', 'seconds', 'rows/s'], rows));
  const importSeconds = rows
    .slice(0, ROUNDS)
    .map((r) => Number(r[3]))
    .sort((a, b) => a - b);
  log(
    `median import ${importSeconds[Math.floor(importSeconds.length / 2)].toFixed(2)} s, ${(importSeconds[Math.floor(importSeconds.length / 2)] / (floorMs / 1000)).toFixed(1)}x the floor`,
  );
}

/** Follows `slug` every 2 ms on one kept-alive connection until stopped; each redirect's latency, ms. */
function followEvery2ms(port: number, slug: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let stopped = false;
  const get = () =>
    new Promise<void>((resolve, reject) => {
      const headers = { 'x-forwarded-proto': 'https', host: `localhost:${port}`, 'user-agent': 'import-bench' };
      const req = http.get({ host: '127.0.0.1', port, path: `/${slug}`, agent, headers }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 302 ? resolve() : reject(new Error(`redirect: ${res.statusCode}`))));
      });
      req.on('error', reject);
    });
  const done = (async () => {
    while (!stopped) {
      const started = performance.now();
      await get();
      latencies.push(performance.now() - started);
      const left = 2 - (performance.now() - started);
      if (left > 0) await sleep(left);
    }
    agent.destroy();
  })();
  return {
    async stop() {
      stopped = true;
      await done;
      return latencies.sort((a, b) => a - b);
    },
  };
}

async function stallScenario(engine: Engine, service: Service) {
  const { port, workspace, cookie, csrf } = service;
  const probeLink = JSON.stringify({ url: 'https://example.com/probe', slug: 'stall-probe' });
  const made = await request(port, 'POST', `/app/api/workspaces/${workspace}/links`, { body: probeLink, cookie, csrf });
  if (made.status !== 201) throw new Error(`probe link answered ${made.status}: ${made.text.slice(0, 300)}`);
  // 150,000 rows of 68 bytes: 9.7 MiB, under the byte limit, over the row limit.
  const refused = (() => {
    const lines = ['url,slug,title,tags'];
    for (let i = 0; i < 150_000; i++) {
      const row = `https://e.example/${i}/,m-${i},Link ${i},a|b`;
      lines.push(row.replace('/,', `/${'p'.repeat(Math.max(0, 67 - row.length))},`));
    }
    return `${lines.join('\n')}\n`;
  })();
  const broken = `${paddedFile('broken', 19_000, 495)}"unterminated\n`;
  const phases: Array<{ name: string; file?: (round: number) => string }> = [
    { name: 'no import (baseline)' },
    { name: '150,000 rows (refused)', file: () => refused },
    { name: '20,000 rows (made)', file: (round) => paddedFile(`big${round}`, 20_000, 495) },
    { name: 'broken last line', file: () => broken },
  ];
  const importPath = `/app/api/workspaces/${workspace}/links/import`;
  const out: string[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const phase of phases) {
      const file = phase.file?.(round);
      await sleep(300);
      await service.loopDelay();
      const probe = followEvery2ms(port, 'stall-probe');
      const started = performance.now();
      let answer = '-';
      if (file === undefined) await sleep(3000);
      else {
        const res = await request(port, 'POST', importPath, { body: file, type: 'text/csv', cookie, csrf });
        answer = res.status === 200 ? `200 (${fmtInt(JSON.parse(res.text).created)} made)` : `${res.status}`;
        if (res.status >= 500) throw new Error(`import answered ${res.status}: ${res.text.slice(0, 300)}`);
      }
      const seconds = (performance.now() - started) / 1000;
      const latencies = await probe.stop();
      const delay = await service.loopDelay();
      out.push([
        `${phase.name}${ROUNDS > 1 ? `, round ${round}` : ''}`,
        file === undefined ? '-' : `${(Buffer.byteLength(file) / MiB).toFixed(1)} MiB`,
        answer,
        fmtMs(seconds, 2),
        fmtInt(latencies.length),
        fmtMs(percentile(latencies, 50), 2),
        fmtMs(percentile(latencies, 99), 1),
        fmtMs(latencies[latencies.length - 1] ?? NaN, 1),
        fmtMs(delay.max - delay.resolutionMs, 1),
      ]);
    }
  }
  await service.stop();
  log(`\n${engine}: redirects followed every 2 ms while a file is imported`);
  const headers = ['phase', 'file', 'answer', 'seconds', 'redirects', 'p50 ms', 'p99 ms', 'max ms', 'loop max ms'];
  log(table(headers, out));
}

async function benchEngine(engine: Engine) {
  for (const scenario of scenarios) {
    const { service, databaseUrl } = await startService(engine);
    if (scenario === 'rate') await rateScenario(engine, service, databaseUrl);
    else await stallScenario(engine, service);
  }
}

await finishBench(
  async () => {
    buildService(ROOT);
    for (const engine of engines) await benchEngine(engine);
  },
  run,
  () => cleanups.cleanup(),
);
