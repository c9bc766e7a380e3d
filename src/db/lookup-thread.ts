// The redirect path's cache misses, read on a thread of their own: SQLite's on a connection of
// that thread (lookup-worker.ts), Postgres's through a small pool of that thread
// (pg-lookup-worker.ts), one query per batch.
//
// better-sqlite3 answers synchronously, so a miss read on the event loop holds it for the whole
// B-tree walk, and the page reads evict the rest of the request's work from the core's caches.
// On Postgres a miss read on the event loop costs it the round trip's protocol work: writing the
// query, reading and parsing the answer, per miss (bench/README.md), where the thread costs it one message each way per batch.
// Here the misses of one event-loop turn go to the lookup thread as one message and are read
// there together (SQLite: in one read transaction; Postgres: in one statement); the event loop
// serves other visitors meanwhile, which lowers the main thread's CPU per request on a large set
// of links visited at random (bench:redirect's million scenario). The price is CPU on another core and a hop
// between threads per batch; the warm set's hits never come here. A lone miss with no batch in
// flight skips the hop (see the constructor).
//
// Written by hand: it is a few dozen lines of message passing around one statement, and no pool
// library keeps the per-turn batching that makes the hop cheap.
//
// Freshness: a batch is read after the thread receives it, after every change whose cache
// invalidation came before the lookups were asked for; an answer that crosses an invalidation is
// used for its own request but not cached (RedirectService).
import { Worker } from 'node:worker_threads';
import { closeThread } from '../platform/thread-close.ts';
import { threadEntry } from '../platform/thread-entry.ts';

export type LookupRow = unknown[];

/** Messages to the thread. */
export type ToLookupThread =
  | { type: 'find'; id: number; keys: string[] }
  /** Up to `limit` live links with ids after `after`, in id order (the cache's preload). */
  | { type: 'scan'; id: number; after: string; limit: number }
  | { type: 'close' };
/** Messages from the thread: a batch's rows (null for none) in the order asked, or its failure. */
export type FromLookupThread =
  | { type: 'rows'; id: number; rows: Array<LookupRow | null> }
  /** A scan's links in the resident table's format (platform/resident-table.ts), transferred. */
  | { type: 'page'; id: number; page: ArrayBuffer; rows: number; lastId: string | null }
  | { type: 'failed'; id: number; message: string; code?: string };

/** Which thread reads the misses: its entry (beside this file) and what it is started with. */
export interface LookupWorkerSpec {
  entry: './lookup-worker' | './pg-lookup-worker';
  data: unknown;
}

interface Waiting {
  resolve(row: LookupRow | null): void;
  reject(err: Error): void;
}

/** A page of the preload: its links encoded (keys by address, values each row's JSON), how many rows, the last id. */
export interface ScannedPage {
  page: Uint8Array;
  rows: number;
  lastId: string | null;
}

/** A scan's one waiter. */
interface ScanWaiting {
  resolve(page: ScannedPage): void;
  reject(err: Error): void;
  scan: true;
}

export class LookupThreadError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export class LinkLookupThread {
  private worker: Worker | undefined;
  /** Lookups asked for in this turn: (domain key, slug) pairs, flat. */
  private keys: string[] = [];
  private waiting: Waiting[] = [];
  private scheduled = false;
  private nextId = 0;
  private readonly inFlight = new Map<number, Waiting[] | ScanWaiting>();
  private closed = false;
  /** Batches sent so far (tests read it to see lookups share a message). */
  batches = 0;

  /**
   * `inline` reads one address on the caller's thread (it throws if the read fails). A batch of
   * one lookup while no batch is in flight is read with it: with no other visitor waiting there
   * is nothing to gain from the thread, and the hop would cost more than the read: at one
   * connection, sending every miss to the thread halved the throughput (bench/README.md).
   */
  constructor(
    private readonly spec: LookupWorkerSpec,
    private readonly inline?: (domainKey: string, slug: string) => LookupRow | null | Promise<LookupRow | null>,
  ) {
    this.worker = this.spawn();
  }

  /** Lone misses read inline that have not answered yet (Postgres's are asynchronous). */
  private inlineInFlight = 0;

  /** The link row at this address (LINK_COLUMNS order) or null; rejects if the read fails. */
  find(domainKey: string, slug: string): Promise<LookupRow | null> {
    if (this.closed) return Promise.reject(new LookupThreadError('the link lookup thread is closed'));
    return new Promise((resolve, reject) => {
      this.keys.push(domainKey, slug);
      this.waiting.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the poll phase: every request parsed in this turn joins the batch.
        setImmediate(this.send);
      }
    });
  }

  private readonly send = () => {
    this.scheduled = false;
    const keys = this.keys;
    const waiting = this.waiting;
    this.keys = [];
    this.waiting = [];
    if (!waiting.length) return;
    if (this.closed) {
      for (const w of waiting) w.reject(new LookupThreadError('the link lookup thread is closed'));
      return;
    }
    if (this.inline && waiting.length === 1 && this.inFlight.size === 0 && this.inlineInFlight === 0) {
      let answer: LookupRow | null | Promise<LookupRow | null>;
      try {
        answer = this.inline(keys[0], keys[1]);
      } catch (err) {
        waiting[0].reject(err as Error);
        return;
      }
      if (!(answer instanceof Promise)) return waiting[0].resolve(answer);
      // While it is out, the next misses go to the thread: only a lone one is worth the event loop's time.
      this.inlineInFlight++;
      answer.then(waiting[0].resolve, waiting[0].reject).finally(() => this.inlineInFlight--);
      return;
    }
    // A thread that stopped (it should not: see 'exit' below) is replaced at the next batch.
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    this.inFlight.set(id, waiting);
    this.batches++;
    worker.postMessage({ type: 'find', id, keys } satisfies ToLookupThread);
  };

  /**
   * Up to `limit` live links with ids after `after` ('' for the first), in id order, read on the
   * thread (the redirect cache's preload: RedirectService.preload). Rejects if the read fails.
   */
  scan(after: string, limit: number): Promise<ScannedPage> {
    if (this.closed) return Promise.reject(new LookupThreadError('the link lookup thread is closed'));
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.inFlight.set(id, { resolve, reject, scan: true });
      worker.postMessage({ type: 'scan', id, after, limit } satisfies ToLookupThread);
    });
  }

  private spawn(): Worker {
    const worker = new Worker(threadEntry(import.meta.url, this.spec.entry), { workerData: this.spec.data });
    // Never keeps the process alive by itself; the server's sockets do while visitors wait.
    worker.unref();
    worker.on('message', (m: FromLookupThread) => {
      const waiting = this.inFlight.get(m.id);
      if (!waiting) return;
      this.inFlight.delete(m.id);
      if (!Array.isArray(waiting)) {
        if (m.type === 'page') waiting.resolve({ page: new Uint8Array(m.page), rows: m.rows, lastId: m.lastId });
        else if (m.type === 'failed') waiting.reject(new LookupThreadError(m.message, m.code));
        return;
      }
      if (m.type === 'page') return;
      if (m.type === 'rows') for (let i = 0; i < waiting.length; i++) waiting[i].resolve(m.rows[i] ?? null);
      else for (const w of waiting) w.reject(new LookupThreadError(m.message, m.code));
    });
    const lost = (reason: string) => {
      if (this.worker === worker) this.worker = undefined;
      // Every batch the thread had not answered fails (its visitors get a 503); the next batch
      // starts a new thread.
      const err = new LookupThreadError(`the link lookup thread stopped: ${reason}`);
      for (const waiting of this.inFlight.values()) {
        if (Array.isArray(waiting)) for (const w of waiting) w.reject(err);
        else waiting.reject(err);
      }
      this.inFlight.clear();
    };
    worker.on('error', (err: unknown) => lost((err as Error)?.message ?? String(err)));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    return worker;
  }

  /** Test hook: stops the thread as a crash would. */
  async crashForTest(): Promise<void> {
    await this.worker?.terminate();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    // The thread holds no lock between batches; if it does not exit promptly, it is stopped.
    await closeThread(worker, { type: 'close' } satisfies ToLookupThread, 2_000);
  }
}
