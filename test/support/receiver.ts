// Webhook test support: a real HTTPS receiver on loopback whose answers each test scripts per
// path, and a Shortlink server whose worker trusts that receiver's self-signed certificate.
// Seeding the outbox is in test/support/outbox.ts, the AsyncAPI check of a body in
// test/support/envelopes.ts.
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { Engine } from '../../src/db/knex';
import { generateDevCertificate, type TlsMaterial } from '../../src/start/tls';
import type { TestDatabase } from './databases';
import { startTestServer, testCertificate, type TestServer } from './server';

// ---------------------------------------------------------------------------------------------
// The receiver

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  body: any;
  receivedAt: number;
  /** 1 for the first request to this path, 2 for the second, ... */
  nth: number;
}

/** What the receiver does with a request. */
export type Reply =
  | { status: number; headers?: Record<string, string>; body?: string | Buffer }
  /** Reads the request and never answers (until the receiver closes). */
  | { hang: true }
  /** Reads the request, then drops the connection without an answer. */
  | { reset: true }
  /** Sends the status, the headers and `body` as the answer's first bytes, then drops the connection. */
  | { status: number; headers?: Record<string, string>; body: string | Buffer; cut: true };

export type Script = (req: ReceivedDelivery) => Reply | Promise<Reply>;

export interface Receiver {
  port: number;
  /** The receiver's certificate: what the worker must trust. */
  ca: string;
  /** TCP connections accepted so far (also those that never sent a request). */
  connections: number;
  requests: ReceivedDelivery[];
  url(pathname: string, host?: string): string;
  to(pathname: string): ReceivedDelivery[];
  /** Scripts the answers for `pathname`: a function, or one reply per request (the last repeats). */
  reply(pathname: string, script: Script | Reply[]): void;
  /** Resolves once `pathname` has seen `count` requests. */
  waitFor(pathname: string, count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(opts: { port?: number; host?: string; tls?: TlsMaterial } = {}): Promise<Receiver> {
  const material = opts.tls ?? (await testCertificate());
  const scripts = new Map<string, Script>();
  const requests: ReceivedDelivery[] = [];
  const byPath = new Map<string, ReceivedDelivery[]>();
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  let connections = 0;

  const server = https.createServer({ cert: material.cert, key: material.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const rawBody = Buffer.concat(chunks);
      const pathname = new URL(req.url ?? '/', 'https://receiver').pathname;
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        body = undefined;
      }
      const received: ReceivedDelivery = {
        path: pathname,
        headers: req.headers,
        rawBody,
        body,
        receivedAt: Date.now(),
        nth: (byPath.get(pathname)?.length ?? 0) + 1,
      };
      requests.push(received);
      if (!byPath.has(pathname)) byPath.set(pathname, []);
      byPath.get(pathname)!.push(received);
      for (const w of waiters) w();
      const script: Script = scripts.get(pathname) ?? (() => ({ status: 200 }));
      const reply: Reply = await script(received);
      if ('hang' in reply) return;
      if ('reset' in reply) {
        req.socket.destroy();
        return;
      }
      if ('cut' in reply) {
        // Chunked, so the answer is unfinished when the connection goes: once the bytes are out.
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.write(reply.body, () => req.socket.destroy());
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? '');
    });
  });
  server.on('secureConnection', () => undefined);
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // '::' takes IPv4 and IPv6 loopback alike, so [::1] and 127.0.0.1 reach the same receiver.
    server.listen(opts.port ?? 0, opts.host ?? '::', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const receiver: Receiver = {
    port,
    ca: material.cert,
    get connections() {
      return connections;
    },
    requests,
    url: (pathname, host = '127.0.0.1') => `https://${host.includes(':') ? `[${host}]` : host}:${port}${pathname}`,
    to: (pathname) => [...(byPath.get(pathname) ?? [])],
    reply(pathname, script) {
      scripts.set(pathname, Array.isArray(script) ? (req) => script[Math.min(req.nth, script.length) - 1] : script);
    },
    waitFor(pathname, count, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if ((byPath.get(pathname)?.length ?? 0) >= count) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(receiver.to(pathname));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${pathname}: ${receiver.to(pathname).length} of ${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** A certificate nobody trusts (a TLS failure before anything is sent). */
export const untrustedCertificate = (() => {
  let material: Promise<TlsMaterial> | undefined;
  return () => (material ??= generateDevCertificate());
})();

// ---------------------------------------------------------------------------------------------
// A Shortlink server whose deliveries trust the receiver's certificate

/** A test server with the delivery worker on (what startTestServer gives, the worker running). */
export type DeliveringServer = TestServer;

/**
 * Like startTestServer, plus `webhookCa`: the worker trusts the test certificate (the one every
 * receiver uses by default). `env` sets WEBHOOK_* as each test needs.
 */
export async function startDeliveringServer(
  engine: Engine,
  opts: { env?: Record<string, string>; database?: TestDatabase; webhookCa?: string[] } = {},
): Promise<DeliveringServer> {
  return startTestServer(engine, {
    env: { MASTER_KEY: TEST_MASTER_KEY, ...opts.env },
    database: opts.database,
    deliverWebhooks: true,
    webhookCa: opts.webhookCa ?? [(await testCertificate()).cert],
  });
}

/** The webhook suites' fixture: a receiver, and a server on `engine` that delivers to it. */
export interface Deliveries {
  receiver: Receiver;
  server: DeliveringServer;
}

/** Starts a receiver, then a delivering server (`env` as startDeliveringServer takes it). */
export async function startDeliveries(
  engine: Engine,
  opts: { env?: Record<string, string> } = {},
): Promise<Deliveries> {
  const receiver = await startReceiver();
  try {
    return { receiver, server: await startDeliveringServer(engine, opts) };
  } catch (err) {
    await receiver.close();
    throw err;
  }
}

/**
 * The WEBHOOK_* env of the delivery suites: loopback receivers allowed, retries 100 times sooner
 * (10 s becomes 100 ms), and each attempt's timeout.
 */
export function loopbackDeliveryEnv(timeoutMs: number): Record<string, string> {
  return { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_RETRY_SCALE: '0.01', WEBHOOK_TIMEOUT_MS: String(timeoutMs) };
}

/**
 * For a describe block: startDeliveries before its tests (`opts` as it takes them) and
 * stopDeliveries after them. The object returned is filled in by the time the tests run.
 */
export function deliveriesFor(engine: Engine, opts: { env?: Record<string, string> } = {}): Deliveries {
  const d = {} as Deliveries;
  beforeAll(async () => {
    Object.assign(d, await startDeliveries(engine, opts));
  });
  afterAll(() => stopDeliveries(d));
  return d;
}

/** Stops what startDeliveries started (either may be missing when a start failed). */
export async function stopDeliveries(d: Partial<Deliveries>): Promise<void> {
  await d.server?.stop();
  await d.receiver?.close();
}

/** One MASTER_KEY for every process of a test, so each can open the secrets the others sealed. */
export const TEST_MASTER_KEY = 'a'.repeat(64);
