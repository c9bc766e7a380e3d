// One delivery attempt over the network: resolve and vet the address (ssrf.ts), open a TLS
// connection to exactly that address, record that the request is being sent, write it, and wait
// for the status line. What happened is reported as an AttemptResult (schedule.ts), which tells
// apart "nothing was written" from "written, and then no answer".
//
// Never follows redirects (a 3xx is an answer like any other), never reuses a connection (a
// keep-alive connection the endpoint closes just as the request goes out would turn a plain
// retry into an UNKNOWN), and resumes TLS sessions so repeated deliveries to one endpoint skip
// the full handshake.
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { AttemptResult } from './schedule';
import { RefusedTarget, refusalReason, vetTarget, type Lookup, type NetworkPolicy, type VettedAddress } from './ssrf';

export interface OutgoingRequest {
  body: string;
  headers: Record<string, string>;
}

export interface AttemptOptions {
  url: string;
  /** Time allowed to connect, and then again to be answered once the request is written. */
  timeoutMs: number;
  policy: NetworkPolicy;
  /** Certificates trusted besides the system's (tests: the receiver's self-signed one). */
  extraCa?: string[];
  lookup?: Lookup;
  /** Aborts the attempt if it has not started writing yet (shutdown). */
  signal?: AbortSignal;
  /**
   * Called once connected, before any byte of the request is written; resolves false when the
   * request must not be sent after all (the lease was lost).
   */
  beforeSend(): Promise<boolean>;
  /** Builds the request at the moment it is sent (Variant A signs the time of sending). */
  compose(): OutgoingRequest;
}

export interface AttemptReport {
  result: AttemptResult;
  /** Whether request bytes were (or may have been) written. */
  sent: boolean;
  /** The attempt stopped before sending because of `signal` or a false `beforeSend`. */
  abandoned?: boolean;
}

const MAX_RESPONSE_BYTES = 64 * 1024;
const sessions = new Map<string, Buffer>();
const MAX_SESSIONS = 1_000;
let contextCache: { key: string; context: tls.SecureContext } | undefined;

/**
 * The TLS context of every delivery: Node's root certificates plus `extra`. Built once, because a
 * `ca` list passed to each connection would be parsed again every time (tens of milliseconds).
 */
function secureContext(extra: string[] | undefined): tls.SecureContext {
  const key = extra?.join('\n') ?? '';
  if (contextCache?.key !== key) {
    contextCache = { key, context: tls.createSecureContext(key ? { ca: [...tls.rootCertificates, ...extra!] } : {}) };
  }
  return contextCache.context;
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const msg = e?.message || String(err);
  return e?.code && !msg.includes(e.code) ? `${e.code}: ${msg}` : msg;
}

/** Connects a TLS socket to the vetted address, naming `hostname` for SNI and the certificate check. */
function connect(
  hostname: string,
  port: number,
  target: VettedAddress,
  extraCa: string[] | undefined,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<tls.TLSSocket> {
  const isLiteral = net.isIP(hostname) !== 0;
  const sessionKey = `${target.address}|${port}|${hostname}`;
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: hostname,
      port,
      servername: isLiteral ? undefined : hostname,
      secureContext: secureContext(extraCa),
      ALPNProtocols: ['http/1.1'],
      session: sessions.get(sessionKey),
      // The name is never looked up again: the socket goes to the address that was vetted.
      lookup: (_name: string, options: { all?: boolean }, cb: (...args: any[]) => void) =>
        options?.all ? cb(null, [{ address: target.address, family: target.family }]) : cb(null, target.address, target.family),
    } as tls.ConnectionOptions);
    socket.on('session', (session: Buffer) => {
      if (sessions.size >= MAX_SESSIONS && !sessions.has(sessionKey)) sessions.delete(sessions.keys().next().value!);
      sessions.set(sessionKey, session);
    });
    const fail = (err: Error) => {
      cleanup();
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new Error(`no TLS connection before the attempt's deadline`)), Math.max(0, deadline - Date.now()));
    const onAbort = () => fail(new Error('aborted'));
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.removeListener('error', fail);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      cleanup();
      // One small request and one small answer: Nagle's delay would only add latency.
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    work,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export async function attemptDelivery(o: AttemptOptions): Promise<AttemptReport> {
  const notSent = (error: string, abandoned = false): AttemptReport => ({ result: { kind: 'not_sent', error }, sent: false, abandoned });
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    return { result: { kind: 'refused', error: `not a URL: ${o.url}` }, sent: false };
  }
  const connectDeadline = Date.now() + o.timeoutMs;
  let target: VettedAddress;
  try {
    target = await withDeadline(vetTarget(url, o.policy, o.lookup), o.timeoutMs, `resolving ${url.hostname}`);
  } catch (err) {
    if (err instanceof RefusedTarget) return { result: { kind: 'refused', error: `${err.message}; nothing was sent` }, sent: false };
    return notSent(`${describe(err)} (nothing was sent)`);
  }
  if (o.signal?.aborted) return notSent('stopped before sending', true);

  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : 443;
  let socket: tls.TLSSocket;
  try {
    socket = await connect(hostname, port, target, o.extraCa, connectDeadline, o.signal);
  } catch (err) {
    if (o.signal?.aborted) return notSent('stopped before sending', true);
    return notSent(`${describe(err)} (nothing was sent)`);
  }
  // Belt and braces: the peer is the address that was vetted, and that address is acceptable.
  const peer = socket.remoteAddress ?? '';
  const reason = peer ? refusalReason(peer, o.policy) : 'the connection has no peer address';
  if (reason) {
    socket.destroy();
    return { result: { kind: 'refused', error: `refused: ${reason}; nothing was sent` }, sent: false };
  }

  let mayWrite: boolean;
  try {
    mayWrite = !o.signal?.aborted && (await o.beforeSend());
  } catch (err) {
    socket.destroy();
    return notSent(`could not record the attempt before sending: ${describe(err)} (nothing was sent)`, true);
  }
  if (!mayWrite) {
    socket.destroy();
    return notSent('stopped before sending', true);
  }

  const { body, headers } = o.compose();
  return new Promise<AttemptReport>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ result, sent: true });
    };
    const req = http.request({
      method: 'POST',
      host: hostname,
      port,
      defaultPort: 443,
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' },
      createConnection: () => socket,
    });
    const timer = setTimeout(() => {
      finish({ kind: 'lost', error: `no answer within ${o.timeoutMs} ms after the request was sent` });
      req.destroy();
      socket.destroy();
    }, o.timeoutMs);
    req.on('response', (res) => {
      finish({ kind: 'answered', statusCode: res.statusCode ?? 0 });
      // The status line is the answer; the body is read (and dropped) only to close politely.
      let seen = 0;
      res.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > MAX_RESPONSE_BYTES) socket.destroy();
      });
      res.on('end', () => socket.destroy());
      res.on('error', () => socket.destroy());
      setTimeout(() => socket.destroy(), 1_000).unref();
    });
    req.on('error', (err) => {
      finish({ kind: 'lost', error: `${describe(err)} after the request was sent` });
      socket.destroy();
    });
    req.end(body);
  });
}
