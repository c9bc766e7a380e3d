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
import type { GeoLocator } from '../platform/geo.ts';
import { closeThread } from '../platform/thread-close.ts';
import { threadEntry } from '../platform/thread-entry.ts';
import { ClickWriteError, FIELD, type ClickBuffer, type ClickColumns, type ClickWriter } from './buffer.ts';
import { parseDevice, referrerHost } from './device.ts';

export { ClickWriteError, type ClickWriter };

/**
 * Clicks per transaction. On SQLite a flush holds the one write lock for its transaction, and
 * every other writer (the API, click-limit reservations) waits for it on a timer; small
 * transactions keep that wait short, large ones amortize the commit and the per-link upserts.
 * 5,000 costs a fifth less CPU per click than 2,000 for a lock held tens of milliseconds;
 * 10,000 gained little more for twice the wait (bench/README.md, click writer).
 */
export const WRITE_CHUNK = 5_000;

/**
 * How much lower the writer thread's scheduling priority is than the process's (a nice value
 * added to the process's, at most 19; src/platform/thread-priority.ts). Clicks wait in a buffer
 * anyway; a redirect should not wait for the writer's time slice. When every core is busy, CFS
 * gives a nice-5 thread a weight of 335 against 1,024, about a quarter of a core it shares with
 * a busy thread: more than the writer needs at full load. At 10 (a tenth) it would fall behind
 * if other processes kept every core busy for minutes, and a full buffer drops clicks.
 */
export const WRITER_NICE_INCREMENT = 5;

/**
 * Clicks [from, to) of a batch as rows: User-Agent parsed, referrer reduced to its host, the
 * client address reduced to a country and city by `geo` and dropped. The trusted proxy's country
 * header wins over the address's; the address's city is kept only when its country agrees with
 * the one recorded (a city of another country would contradict it).
 */
export function toStoredClicks(batch: ClickBuffer, from = 0, to = batch.length, geo?: GeoLocator): StoredClick[] {
  const rows: StoredClick[] = [];
  for (let i = from; i < to; i++) {
    const d = parseDevice(batch.field(i, FIELD.userAgent));
    const header = batch.field(i, FIELD.country);
    const address = geo && batch.field(i, FIELD.address);
    const place = address ? geo!.locate(address) : null;
    const country = header && /^[A-Za-z]{2}$/.test(header) ? header.toUpperCase() : (place?.country ?? null);
    const city = place?.city && place.country === country ? place.city.slice(0, 128) : null;
    rows.push({
      workspace_id: batch.field(i, FIELD.workspace)!,
      link_id: batch.field(i, FIELD.link)!,
      qr_code_id: batch.field(i, FIELD.qrCode) ?? null,
      route: batch.field(i, FIELD.route)?.slice(0, 40) ?? null,
      occurred_at: batch.time(i),
      referrer_host: referrerHost(batch.field(i, FIELD.referer)),
      country,
      city,
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
    /** Locates each click's client address; without it clicks keep only the proxy's country. */
    private readonly geo?: GeoLocator,
  ) {}

  async write(batch: ClickBuffer, onProgress?: (written: number) => void): Promise<void> {
    let written = 0;
    try {
      for (let i = 0; i < batch.length; i += WRITE_CHUNK) {
        const rows = toStoredClicks(batch, i, Math.min(i + WRITE_CHUNK, batch.length), this.geo);
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
  /** GEOIP_DB, when the operator names one (src/platform/geo.ts); the packaged data otherwise. */
  geoipDb?: string;
}

/**
 * Clicks per message to the writer thread, as columns (ClickBuffer.columns); the event loop
 * serves visitors between parts. Cloning click objects held the loop ten times longer
 * (bench/README.md, click writer).
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
    await closeThread(worker, { type: 'close' } satisfies ToWorker);
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
