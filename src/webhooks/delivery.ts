// One delivery attempt over the network: resolve and vet the address (ssrf.ts), get a TLS
// connection to exactly that address, record that the request is being sent, write it, and wait
// for the status line. What happened is reported as an AttemptResult (schedule.ts), which tells
// apart "nothing was written" from "written, and then no answer".
//
// Redirects are never followed: a 3xx is an answer like any other.
//
// Connections are kept alive and reused, but conservatively: only a connection whose previous
// exchange completed (the whole answer read, no `Connection: close`), to the same vetted address,
// port and name, idle for less than a second. The risk of reuse is an endpoint closing an idle
// connection just as a request goes out, which would turn a plain retry into an UNKNOWN (Variant
// A); endpoints keep idle connections open for seconds (Node 5 s, nginx 75 s), so reusing only
// within one second leaves that to misconfigured endpoints. New connections resume TLS sessions.
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { AttemptResult } from '../domain/webhook-delivery.ts';
import {
  RefusedTarget,
  refusalReason,
  vetTarget,
  type Lookup,
  type NetworkPolicy,
  type VettedAddress,
} from './ssrf.ts';

export interface OutgoingRequest {
  body: string;
  headers: Record<string, string>;
  /** When it was composed for sending (kept by the delivery log). */
  sentAt: number;
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
  /** The request as composed, once it was handed to the connection (the delivery log keeps it). */
  request?: OutgoingRequest;
  /** The beginning of the answer's body, for the delivery log. */
  response?: ResponseExcerpt;
}

export interface ResponseExcerpt {
  /** The first RESPONSE_EXCERPT_BYTES bytes of the body, decoded as UTF-8 (invalid bytes replaced). */
  body: string;
  /** The body was longer, or did not end within DRAIN_MS of the status line. */
  truncated: boolean;
}

/** How much of an answer's body the delivery log keeps (bounded storage: 4 KiB per attempt). */
export const RESPONSE_EXCERPT_BYTES = 4 * 1024;
const MAX_RESPONSE_BYTES = 64 * 1024;
/** How long after the end of the answer the rest of it may take before the connection is dropped. */
const DRAIN_MS = 1_000;
/** A kept-alive connection is reused only within this time after its last answer. */
export const REUSE_IDLE_MS = 1_000;
const MAX_IDLE_PER_TARGET = 64;

// ---------------------------------------------------------------------------------------------
// TLS context, sessions and idle connections, shared by every attempt of the process

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

const sessions = new Map<string, Buffer>();
const MAX_SESSIONS = 1_000;

interface IdleConnection {
  socket: tls.TLSSocket;
  since: number;
  timer: NodeJS.Timeout;
  drop(): void;
}
const idle = new Map<string, IdleConnection[]>();

function takeIdle(key: string): tls.TLSSocket | undefined {
  const list = idle.get(key);
  while (list?.length) {
    const entry = list.pop()!;
    clearTimeout(entry.timer);
    const { socket } = entry;
    socket.removeListener('close', entry.drop);
    socket.removeListener('error', entry.drop);
    socket.removeListener('data', entry.drop);
    if (Date.now() - entry.since < REUSE_IDLE_MS && !socket.destroyed && socket.writable && socket.readable) {
      socket.ref();
      return socket;
    }
    socket.destroy();
  }
  idle.delete(key);
  return undefined;
}

function keepIdle(key: string, socket: tls.TLSSocket): void {
  const list = idle.get(key) ?? [];
  if (list.length >= MAX_IDLE_PER_TARGET || socket.destroyed) {
    socket.destroy();
    return;
  }
  const entry: IdleConnection = {
    socket,
    since: Date.now(),
    timer: setTimeout(() => drop(), REUSE_IDLE_MS).unref(),
    drop,
  };
  function drop() {
    clearTimeout(entry.timer);
    const i = list.indexOf(entry);
    if (i >= 0) list.splice(i, 1);
    if (!list.length && idle.get(key) === list) idle.delete(key);
    socket.destroy();
  }
  // An idle connection that closes, errs or speaks unasked is of no further use.
  socket.on('close', drop);
  socket.on('error', drop);
  socket.on('data', drop);
  socket.unref();
  list.push(entry);
  idle.set(key, list);
}

/** Closes every idle kept-alive connection (the worker is stopping). */
export function closeIdleConnections(): void {
  for (const list of idle.values())
    for (const entry of list.splice(0)) {
      clearTimeout(entry.timer);
      entry.socket.destroy();
    }
  idle.clear();
}

// ---------------------------------------------------------------------------------------------

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
  sessionKey: string,
  extraCa: string[] | undefined,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<tls.TLSSocket> {
  const isLiteral = net.isIP(hostname) !== 0;
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
        options?.all
          ? cb(null, [{ address: target.address, family: target.family }])
          : cb(null, target.address, target.family),
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
    const timer = setTimeout(
      () => fail(new Error(`no TLS connection before the attempt's deadline`)),
      Math.max(0, deadline - Date.now()),
    );
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
  const notSent = (error: string, abandoned = false): AttemptReport => ({
    result: { kind: 'not_sent', error },
    sent: false,
    abandoned,
  });
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
    if (err instanceof RefusedTarget)
      return { result: { kind: 'refused', error: `${err.message}; nothing was sent` }, sent: false };
    return notSent(`${describe(err)} (nothing was sent)`);
  }
  if (o.signal?.aborted) return notSent('stopped before sending', true);

  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : 443;
  const key = `${target.address}|${port}|${hostname}`;
  let socket = takeIdle(key);
  if (!socket) {
    try {
      socket = await connect(hostname, port, target, key, o.extraCa, connectDeadline, o.signal);
    } catch (err) {
      if (o.signal?.aborted) return notSent('stopped before sending', true);
      return notSent(`${describe(err)} (nothing was sent)`);
    }
  }
  const conn = socket;
  // Belt and braces: the peer is the address that was vetted, and that address is acceptable.
  const peer = conn.remoteAddress ?? '';
  const reason = peer ? refusalReason(peer, o.policy) : 'the connection has no peer address';
  if (reason) {
    conn.destroy();
    return { result: { kind: 'refused', error: `refused: ${reason}; nothing was sent` }, sent: false };
  }

  let mayWrite: boolean;
  try {
    mayWrite = !o.signal?.aborted && (await o.beforeSend());
  } catch (err) {
    conn.destroy();
    return notSent(`could not record the attempt before sending: ${describe(err)} (nothing was sent)`, true);
  }
  if (!mayWrite) {
    conn.destroy();
    return notSent('stopped before sending', true);
  }
  if (conn.destroyed || !conn.writable) {
    // A kept-alive connection the endpoint closed while the attempt was being recorded.
    return notSent('the connection closed before the request was written (nothing was sent)');
  }

  let request: OutgoingRequest;
  try {
    request = o.compose();
  } catch (err) {
    conn.destroy();
    return notSent(`the request could not be built: ${describe(err)} (nothing was sent)`);
  }
  const { body, headers } = request;
  return new Promise<AttemptReport>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult, response?: ResponseExcerpt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ result, sent: true, request, response });
    };
    let answered = false;
    let req: http.ClientRequest;
    try {
      req = http.request({
        method: 'POST',
        host: hostname,
        port,
        defaultPort: 443,
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'keep-alive' },
        createConnection: () => conn,
      });
    } catch (err) {
      // Refused by Node before anything went out (an invalid header value, say).
      conn.destroy();
      resolve(notSent(`the request could not be built: ${describe(err)} (nothing was sent)`));
      return;
    }
    const timer = setTimeout(() => {
      if (answered) return;
      finish({ kind: 'lost', error: `no answer within ${o.timeoutMs} ms after the request was sent` });
      req.destroy();
      conn.destroy();
    }, o.timeoutMs);
    req.on('response', (res) => {
      // The status line is the answer. The first 4 KiB of the body are kept for the delivery log
      // (the attempt is reported once they, or the end of the body, arrived, at most DRAIN_MS
      // later); the rest is read and dropped, so the connection can be reused if the endpoint
      // keeps it open ('free' is emitted once the exchange is complete).
      answered = true;
      clearTimeout(timer);
      const result: AttemptResult = { kind: 'answered', statusCode: res.statusCode ?? 0 };
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let seen = 0;
      const report = (complete: boolean) => {
        const excerpt = Buffer.concat(kept, keptBytes);
        finish(result, { body: new TextDecoder('utf-8').decode(excerpt), truncated: !complete || seen > keptBytes });
      };
      const drain = setTimeout(() => {
        report(false);
        conn.destroy();
      }, DRAIN_MS);
      drain.unref();
      res.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (keptBytes < RESPONSE_EXCERPT_BYTES) {
          const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - keptBytes);
          kept.push(part);
          keptBytes += part.length;
        }
        // Known to be longer than what is kept: no need to wait for the end.
        if (seen > keptBytes) report(true);
        if (seen > MAX_RESPONSE_BYTES) conn.destroy();
      });
      res.on('end', () => {
        clearTimeout(drain);
        report(true);
      });
      res.on('error', () => {
        report(false);
        conn.destroy();
      });
      res.on('close', () => report(false));
    });
    let freed = false;
    conn.once('free', () => {
      freed = true;
      keepIdle(key, conn);
    });
    req.on('close', () => {
      // Not freed for reuse: the endpoint closed it, asked to close it, or the answer was cut
      // short. ('free' follows 'close' in the same tick when the exchange completed.)
      setImmediate(() => {
        if (!freed) conn.destroy();
      });
    });
    req.on('error', (err) => {
      if (answered) return;
      finish({ kind: 'lost', error: `${describe(err)} after the request was sent` });
      conn.destroy();
    });
    req.end(body);
  });
}
