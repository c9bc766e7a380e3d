// CSV import benchmark: how long the dashboard takes to import a file of links, through HTTP as a
// person does it, on the compiled service. It prints figures and asserts nothing.
//
//   npx tsx bench/import.ts [--engine sqlite|postgres|both] [--rows 10000] [--rounds 3] [--time-limit SECONDS]
//
// Per engine, on a fresh database (a SQLite file in a temp dir, or a scratch Postgres database on
// TEST_POSTGRES_URL, dropped at the end): `shortlink serve` (TLS off behind a trusted proxy, as
// bench/redirect runs it), a workspace and an OWNER with a password (the set-up link
// `shortlink member add` prints), signed in. Each round posts a file of --rows rows to
// POST /app/api/workspaces/{id}/links/import: half with a custom slug, a third with a title, a
// fifth with two tags, one in a hundred refused (a javascript: URL). Then, in the same script, the
// floor any import pays here: the same number of rows written straight into the links table with
// multi-row INSERTs of 250 (no checks, no tags, no events), as the ratio's baseline.
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
import { buildService, createScratchPostgres, fmtInt, fmtMs, freePort, log, sleep, table } from './util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    rows: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
    'time-limit': { type: 'string', default: '900' },
  },
});
const ROWS = Number(args.rows);
const ROUNDS = Number(args.rounds);
const engines: Engine[] = args.engine === 'both' ? ['sqlite', 'postgres'] : [args.engine as Engine];

const children = new Set<ChildProcess>();
const cleanups = benchCleanups();
const run = guardBenchRun({ children, cleanup: () => cleanups.cleanup(), timeLimitS: Number(args['time-limit']) });

function request(port: number, method: string, pathname: string, opts: { body?: string; type?: string; cookie?: string; csrf?: string } = {}) {
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
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

function cli(env: Record<string, string>, argv: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/shortlink.mjs'), ...argv], { cwd: ROOT, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`shortlink ${argv.join(' ')}: ${err}`))));
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

async function benchEngine(engine: Engine) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-import-bench-'));
  cleanups.onCleanup('data directory', async () => fs.rmSync(dir, { recursive: true, force: true }));
  let databaseUrl = `sqlite:${path.join(dir, 'shortlink.db')}`;
  if (engine === 'postgres') {
    const scratch = await createScratchPostgres('shortlink_import_bench');
    cleanups.onCleanup('scratch database', () => scratch.drop());
    databaseUrl = scratch.url;
  }
  const port = await freePort();
  const env = { DATABASE_URL: databaseUrl, DATA_DIR: dir, PORT: String(port), PUBLIC_URL: `https://localhost:${port}`, TLS: 'off', TRUST_PROXY: '1', LOG_LEVEL: 'warn' };
  const workspace = (await cli(env, ['workspace', 'create', '--name', 'Import bench'])).id;
  const member = await cli(env, ['member', 'add', '--workspace', workspace, '--email', 'bench@example.com', '--role', 'OWNER']);
  const proc = spawn(process.execPath, [path.join(ROOT, 'bin/shortlink.mjs'), 'serve'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
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
  const signedIn = await request(port, 'POST', '/app/api/password-setup', { body: JSON.stringify({ token, password: 'bench password 123' }) });
  const cookie = String(signedIn.headers['set-cookie']?.[0]).split(';')[0];
  const csrf = JSON.parse(signedIn.text).csrfToken;

  const rows: string[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const file = csvFile(round);
    const started = performance.now();
    const res = await request(port, 'POST', `/app/api/workspaces/${workspace}/links/import`, { body: file, type: 'text/csv', cookie, csrf });
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`import answered ${res.status}: ${res.text.slice(0, 300)}`);
    const report = JSON.parse(res.text);
    rows.push([`import round ${round}`, fmtInt(report.created), fmtInt(report.refused), fmtMs(ms / 1000, 2), fmtInt((ROWS / ms) * 1000)]);
  }
  await child.stop(5000);

  // The floor: the same number of rows straight into the links table.
  const db = openDatabase(databaseUrl, { poolMax: 2 });
  await migrateLatest(db);
  const user = await db.knex('users').first('id');
  const floorStarted = performance.now();
  const now = Date.now();
  for (let i = 0; i < ROWS; i += 250) {
    const chunk = Array.from({ length: Math.min(250, ROWS - i) }, (_, k) => ({
      id: newId('lnk'), workspace_id: workspace, created_by: user.id, domain_id: null, domain_key: '', slug: `floor-${i + k}`,
      original_url: `https://example.com/floor/${i + k}`, title: null, status: 'ACTIVE', policy_locked: false, redirect_type: 'TEMPORARY',
      expires_at: null, expired_url: null, click_limit: null, start_at: null, end_at: null, password_hash: null,
      preview_title: null, preview_description: null, preview_image: null, created_at: now, updated_at: now, deleted_at: null,
    }));
    await db.knex.transaction((trx) => trx('links').insert(chunk));
  }
  const floorMs = performance.now() - floorStarted;
  await db.knex.destroy();
  rows.push(['floor: plain inserts', fmtInt(ROWS), '0', fmtMs(floorMs / 1000, 2), fmtInt((ROWS / floorMs) * 1000)]);
  log(`\n${engine}: ${fmtInt(ROWS)} rows per file`);
  log(table(['run', 'created', 'refused', 'seconds', 'rows/s'], rows));
  const importSeconds = rows.slice(0, ROUNDS).map((r) => Number(r[3])).sort((a, b) => a - b);
  log(`median import ${importSeconds[Math.floor(importSeconds.length / 2)].toFixed(2)} s, ${(importSeconds[Math.floor(importSeconds.length / 2)] / (floorMs / 1000)).toFixed(1)}x the floor`);
}

await finishBench(
  async () => {
    buildService(ROOT);
    for (const engine of engines) await benchEngine(engine);
  },
  run,
  () => cleanups.cleanup(),
);
