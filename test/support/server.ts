// A real Shortlink server over HTTPS on a random loopback port, on a fresh database.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/config';
import type { Engine } from '../../src/db/knex';
import type { LinkCacheInvalidator } from '../../src/redirect/cache';
import { startServer, type RunningServer } from '../../src/start/server';
import { generateDevCertificate, type TlsMaterial } from '../../src/start/tls';
import { createTestDatabase, type TestDatabase } from './databases';

let tls: Promise<TlsMaterial> | undefined;
export const testCertificate = () => (tls ??= generateDevCertificate());

export interface TestServer extends RunningServer {
  database: TestDatabase;
  dataDir: string;
  env: Record<string, string>;
  ca: string;
  request(method: string, pathname: string, opts?: RequestOptions): Promise<TestResponse>;
  stop(): Promise<void>;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

export async function startTestServer(
  engine: Engine,
  opts: {
    env?: Record<string, string>;
    linkCache?: LinkCacheInvalidator;
    logStream?: NodeJS.WritableStream;
    /** The level of the log written to logStream: debug (every detail) unless given. */
    logLevel?: 'info' | 'debug';
    /** Share another server's database (several processes on one Postgres). */
    database?: TestDatabase;
    /**
     * Run the webhook delivery worker. Off by default: suites that subscribe made-up URLs must
     * never send traffic off this machine (test/support/receiver.ts runs it against loopback).
     */
    deliverWebhooks?: boolean;
    /** Certificates the webhook worker trusts besides the system's (test receivers). */
    webhookCa?: string[];
    /** DNS TXT answers for domain verification (no test asks the real DNS). */
    resolveTxt?: (name: string) => Promise<string[][]>;
  } = {},
): Promise<TestServer> {
  const database = opts.database ?? (await createTestDatabase(engine));
  const ownsDatabase = !opts.database;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-data-'));
  const env = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: '0',
    PUBLIC_URL: 'https://localhost:8443',
    LOG_LEVEL: 'silent',
    ...replicaOf(database),
    ...opts.env,
  };
  const material = await testCertificate();
  const server = await startServer(loadConfig(env), {
    tls: material,
    log: opts.logStream
      ? pino({ level: opts.logLevel ?? 'debug' }, opts.logStream)
      : pino({ level: process.env.TEST_LOG_LEVEL || 'silent' }),
    linkCache: opts.linkCache,
    host: '127.0.0.1',
    webhookCa: opts.webhookCa,
    resolveTxt:
      opts.resolveTxt ??
      (async (name) => {
        throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      }),
  });
  if (!opts.deliverWebhooks) await server.webhooks.stop();
  const base = server.url;
  return {
    ...server,
    database,
    dataDir,
    env,
    ca: material.cert,
    request: (method, pathname, ro = {}) => httpsRequest(base, material.cert, method, pathname, ro),
    async stop() {
      await server.close();
      if (ownsDatabase) await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * With TEST_WITH_REPLICA=1 (test/support/global-setup.ts) a Postgres test database is read
 * through the run's streaming replica too: its heavy reads go there, its writes must not.
 */
function replicaOf(database: TestDatabase): Record<string, string> {
  const replica = process.env.TEST_REPLICA_URL;
  if (!replica || database.engine !== 'postgres') return {};
  const url = new URL(replica);
  url.pathname = new URL(database.url).pathname;
  return { DATABASE_READ_URL: url.toString() };
}

export function httpsRequest(
  base: string,
  ca: string,
  method: string,
  pathname: string,
  opts: RequestOptions = {},
): Promise<TestResponse> {
  const url = new URL(pathname, base);
  const headers: Record<string, string> = { ...opts.headers };
  const payload = requestPayload(opts, headers);
  const client = url.protocol === 'https:' ? https : (http as unknown as typeof https);
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method, headers, ca, agent: false, servername: url.hostname }, (res) =>
      readResponse(res, resolve),
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * The bytes a request sends (`rawBody`, or `body` as JSON), adding to `headers` what goes with
 * them: content-type for JSON unless given, content-length, and the key as a Bearer token.
 */
export function requestPayload(opts: RequestOptions, headers: Record<string, string>): string | Buffer | undefined {
  let payload: string | Buffer | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    payload = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  return payload;
}

/** Reads an answer to its end: the text, and the body parsed as JSON when it is JSON. */
export function readResponse(res: http.IncomingMessage, done: (r: TestResponse) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c) => chunks.push(c));
  res.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    done({ status: res.statusCode!, headers: res.headers, text, body });
  });
}

/**
 * Two processes of the service on one new Postgres database, as a deployment of several runs
 * them: `start` makes each, the second on the first's database. Started before the suite's tests
 * and stopped after them, the second first.
 */
export function twoProcessesOnOnePostgres<S extends TestServer>(
  start: (database?: TestDatabase) => Promise<S>,
): { a: S; b: S } {
  const pair = {} as { a: S; b: S };
  beforeAll(async () => {
    pair.a = await start();
    pair.b = await start(pair.a.database);
  });
  afterAll(async () => {
    await pair.b?.stop();
    await pair.a?.stop();
  });
  return pair;
}
