// Bulk links benchmark: N links made through POST /api/v1/links/bulk (100 per call) against the
// same N made by single POST /api/v1/links calls, one after another over one kept-alive HTTPS
// connection, on SQLite and on Postgres in one run. It prints the wall time of each, their ratio
// and the p50/p99 of a 100-item bulk call, and asserts nothing.
//
//   npm run bench:bulk -- [--engine sqlite|postgres|both] [--links 10000]
//
// The service runs in this process (the test suites' server, a fresh database per engine;
// Postgres at TEST_POSTGRES_URL). The key's limit of 60 requests a minute would make the singles
// take hours, so the bench gives the service a limiter with room for every request.
import https from 'node:https';
import { parseArgs } from 'node:util';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Engine } from '../src/db/knex';
import { seedWorkspace } from '../test/support/seed';
import { startTestServer } from '../test/support/server';
import { fmtMs, intOption, log, percentile, printHeaderAndExit, table } from './util';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'both' },
    links: { type: 'string', default: '10000' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});
if (args.help) printHeaderAndExit(import.meta.url);
const LINKS = intOption('links', args.links, 100);
const BATCH = 100;
const engines: Engine[] = args.engine === 'both' ? ['sqlite', 'postgres'] : [args.engine as Engine];
if (engines.includes('postgres') && !process.env.TEST_POSTGRES_URL) {
  log('TEST_POSTGRES_URL is not set: Postgres is needed (postgres://user:pass@host:5432/db)');
  process.exit(2);
}

/** A link body like a partner's: a destination of about 80 characters and a title. */
const body = (run: string, i: number) => ({
  url: `https://example.com/campaigns/${run}/landing-page-${i}?utm_source=partner&utm_medium=bulk`,
  title: `Partner link ${i}`,
});

async function measure(engine: Engine) {
  const server = await startTestServer(engine);
  try {
    (server.services as { limiter: unknown }).limiter = new RateLimiterMemory({ points: 1e9, duration: 60 });
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: server.ca });
    const url = new URL(server.url);
    const send = (method: string, path: string, key: string, payload: unknown) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const data = JSON.stringify(payload);
        const req = https.request(
          {
            host: url.hostname,
            port: url.port,
            method,
            path,
            agent,
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(data),
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        req.end(data);
      });
    const knex = server.services.db.knex;

    // Warm-up: the first requests compile validators and open connections.
    const warm = await seedWorkspace(knex);
    for (let i = 0; i < 20; i++) await send('POST', '/api/v1/links', warm.key, body('warm', i));
    await send('POST', '/api/v1/links/bulk', warm.key, { links: [body('warmb', 0)] });

    const singlesWs = await seedWorkspace(knex);
    const t0 = performance.now();
    for (let i = 0; i < LINKS; i++) {
      const r = await send('POST', '/api/v1/links', singlesWs.key, body('s', i));
      if (r.status !== 201) throw new Error(`single create answered ${r.status}: ${r.text}`);
    }
    const singlesMs = performance.now() - t0;

    const bulkWs = await seedWorkspace(knex);
    const calls: number[] = [];
    const t1 = performance.now();
    for (let i = 0; i < LINKS; i += BATCH) {
      const links = Array.from({ length: Math.min(BATCH, LINKS - i) }, (_, k) => body('b', i + k));
      const c0 = performance.now();
      const r = await send('POST', '/api/v1/links/bulk', bulkWs.key, { links });
      calls.push(performance.now() - c0);
      if (r.status !== 200 || (JSON.parse(r.text).data as Array<{ status: number }>).some((x) => x.status !== 201))
        throw new Error(`bulk create answered ${r.status}: ${r.text.slice(0, 300)}`);
    }
    const bulkMs = performance.now() - t1;
    agent.destroy();
    const made = await knex('links').where({ workspace_id: bulkWs.workspaceId }).count({ n: '*' }).first();
    if (Number(made?.n) !== LINKS) throw new Error(`bulk made ${made?.n} links, not ${LINKS}`);
    calls.sort((a, b) => a - b);
    return { engine, singlesMs, bulkMs, p50: percentile(calls, 50), p99: percentile(calls, 99) };
  } finally {
    await server.stop();
  }
}

const rows: string[][] = [];
for (const engine of engines) {
  log(`${engine}: ${LINKS} single creates, then ${Math.ceil(LINKS / BATCH)} bulk calls of ${BATCH}...`);
  const r = await measure(engine);
  rows.push([
    r.engine,
    `${(r.singlesMs / 1000).toFixed(1)} s`,
    `${(r.bulkMs / 1000).toFixed(1)} s`,
    `${(r.singlesMs / r.bulkMs).toFixed(1)}x`,
    `${fmtMs(r.p50)} ms`,
    `${fmtMs(r.p99)} ms`,
  ]);
}
log(
  table(
    ['engine', `${LINKS} single creates`, `${LINKS} in bulk calls`, 'bulk speed-up', 'p50 100-item call', 'p99'],
    rows,
  ),
);
process.exit(0);
