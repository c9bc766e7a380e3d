// Query threads: on SQLite, the queries of src/db/queries.ts run here, each thread with its own
// connection, while the event loop goes on serving visitors. better-sqlite3 is synchronous, so a
// summary that reads for two seconds on the event loop holds every redirect for two seconds; on a
// thread it holds only the API request that asked for it.
//
// Written by hand: a few dozen lines of message passing around named functions; a pool library
// (piscina and the like) would bring its own task files and queueing and still need this naming.
//
// Freshness: a query sees every change committed before it starts, so an API client reads its own
// writes (a write is committed before its answer is sent). Each thread runs one query at a time;
// a call goes to the thread with the fewest queries waiting.
import { Worker } from 'node:worker_threads';
import type { Database } from './knex.ts';
import { inlineQueries, QUERIES, type Queries, type QueryName } from './queries.ts';
import { closeThread } from '../platform/thread-close.ts';
import { threadEntry } from '../platform/thread-entry.ts';

/** Query threads per process: two, so one long summary does not hold every other API read. */
export const QUERY_THREADS = 2;
/**
 * Nice value added to the query threads' (as for the click writer, src/start/click-writer-thread.ts):
 * an API read may wait a few milliseconds for a core, a redirect should not.
 */
export const QUERY_NICE_INCREMENT = 5;

export interface QueryThreadInit {
  databaseUrl: string;
  niceIncrement: number;
}
export type ToQueryThread = { type: 'run'; id: number; name: string; args: unknown[] } | { type: 'close' };
export type FromQueryThread =
  | { type: 'done'; id: number; result: unknown }
  | { type: 'failed'; id: number; message: string; code?: string };

interface Waiting {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

/** An error of a query run on a thread, with the database's code (SQLITE_BUSY, ...) when it had one. */
export class QueryError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

class QueryThread {
  worker: Worker | undefined;
  readonly waiting = new Map<number, Waiting>();

  constructor(private readonly init: QueryThreadInit) {}

  run(id: number, name: string, args: unknown[], w: Waiting) {
    const worker = (this.worker ??= this.spawn());
    this.waiting.set(id, w);
    worker.postMessage({ type: 'run', id, name, args } satisfies ToQueryThread);
  }

  private spawn(): Worker {
    const worker = new Worker(threadEntry(import.meta.url, './query-worker'), { workerData: this.init });
    // Never keeps the process alive by itself; an API request waiting for it does.
    worker.unref();
    worker.on('message', (m: FromQueryThread) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.type === 'done') w.resolve(m.result);
      else w.reject(new QueryError(m.message, m.code));
    });
    const lost = (reason: string) => {
      if (this.worker === worker) this.worker = undefined;
      // Its queries fail (their requests get a 500); the next query starts a new thread.
      const err = new QueryError(`a query thread stopped: ${reason}`);
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    worker.on('error', (err: unknown) => lost((err as Error)?.message ?? String(err)));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    return worker;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    // A query under way finishes first; one that does not within 10 s is stopped.
    await closeThread(worker, { type: 'close' } satisfies ToQueryThread, 10_000);
  }
}

export class QueryThreads {
  private readonly threads: QueryThread[];
  private nextId = 0;
  private closed = false;

  constructor(databaseUrl: string, size = QUERY_THREADS) {
    const init: QueryThreadInit = { databaseUrl, niceIncrement: QUERY_NICE_INCREMENT };
    this.threads = Array.from({ length: size }, () => new QueryThread(init));
  }

  run(name: QueryName, args: unknown[]): Promise<unknown> {
    if (this.closed) return Promise.reject(new QueryError('the query threads are closed'));
    let thread = this.threads[0];
    for (const t of this.threads) if (t.waiting.size < thread.waiting.size) thread = t;
    return new Promise((resolve, reject) => thread.run(this.nextId++, name, args, { resolve, reject }));
  }

  /** The queries, each run on a thread. */
  queries(): Queries {
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(QUERIES) as QueryName[]) out[name] = (...args: unknown[]) => this.run(name, args);
    return out as Queries;
  }

  /** Test hook: stops every thread as a crash would. */
  async crashForTest(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker?.terminate()));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((t) => t.close()));
  }
}

export interface QueryService {
  queries: Queries;
  /** The threads, when the queries run on them (SQLite on a file). */
  threads: QueryThreads | null;
  close(): Promise<void>;
}

/**
 * The service's queries: on query threads for SQLite on a file; on the caller's pool for Postgres,
 * whose reads do not hold the event loop, and for an in-memory SQLite database, which another
 * thread cannot open.
 */
export function openQueryService(db: Database, databaseUrl: string): QueryService {
  const inMemory = databaseUrl === 'sqlite:' || databaseUrl === 'sqlite::memory:';
  if (db.engine !== 'sqlite' || inMemory)
    return { queries: inlineQueries(db.knex), threads: null, close: async () => undefined };
  const threads = new QueryThreads(databaseUrl);
  return { queries: threads.queries(), threads, close: () => threads.close() };
}
