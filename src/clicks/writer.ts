// The click writer: how a batch of buffered clicks reaches the database, parsed (device,
// browser, OS, referrer host) and written with the events it raises, in transactions of at most
// WRITE_CHUNK clicks.
//
// `ThreadClickWriter` (what `serve` uses) does all of that on the click writer thread, with its
// own database connection, so the redirect path's event loop only buffers clicks and hands each
// batch over: written on the event loop, a flush of a second's clicks held every redirect for
// hundreds of milliseconds (bench/README.md). `InlineClickWriter` does the same work on the
// calling thread; the thread runs one, and an in-memory SQLite database (which another thread
// cannot open) uses one directly.
import { Worker } from 'node:worker_threads';
import type { Db, Engine } from '../db/knex.ts';
import { writeClickBatch, type ClickSink, type StoredClick } from '../db/repos/click-batches.ts';
import { threadEntry } from '../platform/thread-entry.ts';
import { ClickWriteError, FIELD, type ClickBuffer, type ClickColumns, type ClickWriter } from './buffer.ts';

export { ClickWriteError, type ClickWriter };
import { parseDevice, referrerHost } from './device.ts';

/**
 * Clicks per transaction. On SQLite a flush holds the one write lock for its transaction, and
 * every other writer (the API, click-limit reservations) waits for it on a timer; small
 * transactions keep that wait short, large ones amortize the commit and the per-link upserts.
 * 5,000 against 2,000 (`npm run bench:click-writes`, in-process): 7.4 -> 5.9 µs of CPU per click
 * on the warm set and 12.2 -> 9.2 on a million links, for a lock held about 29 and 45 ms
 * instead of 13 and 23 (wall time per transaction; longer when the thread is preempted). In
 * bench:redirect the writer thread's CPU per request fell from 12-20 to 9-15 µs (million) and
 * from 4.4-7 to 3.4-5 (warm), three runs alternating with 2,000. 10,000 gave 5.1 and 9.1 µs,
 * little more on a million links for twice the wait.
 */
export const WRITE_CHUNK = 5_000;

/**
 * How much lower the writer thread's scheduling priority is than the process's (a nice value
 * added to the process's, at most 19; src/redirect/click-worker.ts). When every core is busy,
 * CFS gives a nice-5 thread a weight of 335 against 1,024, so sharing a core with one busy
 * visitor-serving thread it still gets about a quarter of it. It needs less than that at full
 * load: on 1,000,000 links at random 14-21 µs per click against 95-115 µs on the main thread
 * (bench/redirect). At 10 (weight 110, a tenth) it would fall behind if other processes kept
 * every core busy for minutes, and the buffer would drop clicks once full.
 *
 * `npm run bench:redirect -- --rounds 2` on a noisy afternoon, runs alternating, ratios to bare:
 *  - 0 (no change), 8 rounds: warm 63-81% (median 70.9%), million 35-48% (39.7%);
 *  - 5, 4 rounds: warm 73-86% (80.7%), million 36-43% (39.1%);
 *  - 10, 8 rounds: warm 68-79% (74.4%), million 38-47% (41.4%).
 * Every click was written in every run, and the writer's CPU per click did not change. The gain
 * on the warm set is in the direction the scheduling predicts and smaller than the spread
 * between runs of the same code; on the million none can be told apart.
 */
export const WRITER_NICE_INCREMENT = 5;

/** Clicks [from, to) of a batch as rows: User-Agent parsed, referrer reduced to its host, country checked. */
export function toStoredClicks(batch: ClickBuffer, from = 0, to = batch.length): StoredClick[] {
  const rows: StoredClick[] = [];
  for (let i = from; i < to; i++) {
    const d = parseDevice(batch.field(i, FIELD.userAgent));
    const country = batch.field(i, FIELD.country);
    rows.push({
      workspace_id: batch.field(i, FIELD.workspace)!,
      link_id: batch.field(i, FIELD.link)!,
      qr_code_id: batch.field(i, FIELD.qrCode) ?? null,
      occurred_at: batch.time(i),
      referrer_host: referrerHost(batch.field(i, FIELD.referer)),
      country: country && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null,
      device: d.device,
      browser: d.browser?.slice(0, 64) ?? null,
      os: d.os?.slice(0, 64) ?? null,
    });
  }
  return rows;
}

export class InlineClickWriter implements ClickWriter {
  constructor(
    private readonly knex: Db,
    private readonly engine: Engine,
    private readonly sinks: ClickSink[],
  ) {}

  async write(batch: ClickBuffer, onProgress?: (written: number) => void): Promise<void> {
    let written = 0;
    try {
      for (let i = 0; i < batch.length; i += WRITE_CHUNK) {
        const rows = toStoredClicks(batch, i, Math.min(i + WRITE_CHUNK, batch.length));
        await writeClickBatch(this.knex, this.engine, rows, this.sinks);
        written += rows.length;
        onProgress?.(written);
      }
    } catch (err) {
      const e = err as { message?: string; code?: string };
      throw new ClickWriteError(e?.message ?? String(err), written, e?.code);
    }
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {}
}

/** What the worker thread needs to build its own writer (plain data: it crosses threads). */
export interface ClickWorkerInit {
  databaseUrl: string;
  /** Options of the webhook click sink (link.clicked, qr.scanned, traffic alerts). */
  webhookEvents: { shortDomain: string; settleMs: number } | null;
}

/**
 * Clicks per message to the writer thread, as columns (ClickBuffer.columns); the event loop
 * serves visitors between parts. Structured-cloning 20,000 click objects held the loop 11-14 ms
 * per flush; as parts of columns the same batch takes about 1.4 ms (bench:click-writes).
 */
export const HANDOFF_PART = 4_000;

export type ToWorker =
  | { type: 'part'; id: number; clicks: ClickColumns }
  | { type: 'write'; id: number }
  | { type: 'close' };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'progress'; id: number; written: number }
  | { type: 'done'; id: number }
  | { type: 'failed'; id: number; written: number; message: string; code?: string };

interface Pending {
  resolve: () => void;
  reject: (err: Error) => void;
  written: number;
}

export class ThreadClickWriter implements ClickWriter {
  private worker: Worker | undefined;
  private started: Promise<void> | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly init: ClickWorkerInit) {}

  /**
   * Starts the thread and waits until it has its database connection. The service calls this
   * before it listens: a thread started by the first flush takes about a second to load, and
   * a crash in that second would lose every click since the start (test/crash found it).
   */
  ready(): Promise<void> {
    if (!this.worker) this.spawn();
    return this.started!;
  }

  async write(batch: ClickBuffer): Promise<void> {
    const worker = this.worker ?? this.spawn();
    const id = this.nextId++;
    const done = new Promise<void>((resolve, reject) => this.pending.set(id, { resolve, reject, written: 0 }));
    for (let i = 0; i < batch.length; i += HANDOFF_PART) {
      // The event loop serves visitors between parts.
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      const clicks = batch.columns(i, Math.min(i + HANDOFF_PART, batch.length));
      worker.postMessage({ type: 'part', id, clicks } satisfies ToWorker, [clicks.refs.buffer, clicks.at.buffer]);
    }
    worker.postMessage({ type: 'write', id } satisfies ToWorker);
    return done;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies ToWorker);
    await exited;
  }

  private spawn(): Worker {
    const worker = new Worker(threadEntry(import.meta.url, '../start/click-writer-thread'), { workerData: this.init });
    // The worker never keeps the process alive by itself: shutdown flushes, then closes it.
    worker.unref();
    let up: () => void;
    let down: (err: Error) => void;
    this.started = new Promise<void>((resolve, reject) => {
      up = resolve;
      down = reject;
    });
    this.started.catch(() => undefined); // a caller that never asked is told by its next write
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'ready') return up();
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.type === 'progress') {
        p.written = m.written;
        return;
      }
      this.pending.delete(m.id);
      if (m.type === 'done') p.resolve();
      else p.reject(new ClickWriteError(m.message, m.written, m.code));
    });
    const lost = (err: Error) => {
      down(err);
      if (this.worker === worker) this.worker = undefined;
      // Whatever the worker had not reported as committed is handed back to the caller.
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new ClickWriteError(`click writer thread stopped: ${err.message}`, p.written));
      }
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`exit code ${code}`)));
    this.worker = worker;
    return worker;
  }
}
