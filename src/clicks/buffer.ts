// The click buffer: clicks are recorded on the redirect path and written in batches every
// CLICK_FLUSH_MS: raw events (90-day retention) and daily counts per link (their sum is the
// Link's clicks). The writing itself is a ClickWriter's (src/clicks/writer.ts), by default on the
// click writer thread (src/start/click-writer-thread.ts).
import type { Logger } from 'pino';

export interface ClickEvent {
  linkId: string;
  workspaceId: string;
  qrCodeId: string | null;
  at: number;
  referer: string | undefined;
  /** The trusted proxy's country header (CF-IPCountry, X-Country-Code); it wins over the address's. */
  country: string | undefined;
  userAgent: string | undefined;
  /**
   * The client address as the trusted proxy saw it (src/domain/client-address.ts). Only the click
   * writer reads it, to locate the click (src/platform/geo.ts); it is never stored or logged.
   */
  address: string | undefined;
  /** The id of the routing rule or split variant that served the click; null when none did. */
  route: string | null;
}

/**
 * A person's view of a bio page, or their click on one of its link blocks (`blockId`). It travels
 * with the clicks, in the same columns: the page's id where a click has its link's, the block's
 * where a click has its QR code's. Page ids (`pg_`) never look like link ids (`lnk_`), which is how
 * the writer tells the two apart (src/db/repos/click-batches.ts).
 */
export interface PageVisitEvent {
  pageId: string;
  blockId: string | null;
  workspaceId: string;
  at: number;
  referer: string | undefined;
  country: string | undefined;
  userAgent: string | undefined;
  /** As ClickEvent's: located by the click writer, never stored. */
  address: string | undefined;
}

/** Where the buffer hands its batches (src/clicks/writer.ts). */
export interface ClickWriter {
  /** Resolves once batches can be written (the thread is up and has its connection). */
  ready(): Promise<void>;
  /**
   * Writes the batch in order. On failure the error's `written` property says how many clicks
   * from the start of the batch were committed before it (the caller keeps the rest).
   */
  write(batch: ClickBuffer): Promise<void>;
  close(): Promise<void>;
}

export class ClickWriteError extends Error {
  constructor(
    message: string,
    readonly written: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The string fields of a click, in their order in ClickBuffer.refs and ClickColumns.refs. */
export const FIELD = {
  link: 0,
  workspace: 1,
  qrCode: 2,
  referer: 3,
  country: 4,
  userAgent: 5,
  address: 6,
  route: 7,
} as const;
const REFS = 8;

/**
 * Clicks as columns: each distinct string once, per click eight string indexes (-1 for none) and a
 * time. What crosses to the writer thread, a part of a batch at a time (ClickBuffer.columns).
 */
export interface ClickColumns {
  strings: string[];
  refs: Int32Array<ArrayBuffer>;
  at: Float64Array<ArrayBuffer>;
}

/**
 * Buffered clicks, held as columns from the moment they are recorded. Held as objects, a
 * second of clicks (with the User-Agent string each request brings) outlived two scavenges and
 * was copied into V8's old generation, whose collections then ran every second or two under
 * load on the event loop that serves visitors; as columns a click leaves nothing behind but
 * two typed-array slots, and a repeated string is kept once.
 */
export class ClickBuffer {
  private readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  // sharedRef's string and index of the last click, per field.
  private readonly last: Array<string | null | undefined> = new Array(REFS).fill(undefined);
  private readonly lastRef = new Int32Array(REFS);
  private refs: Int32Array<ArrayBuffer>;
  private at: Float64Array<ArrayBuffer>;
  length = 0;

  constructor(capacity = 1024) {
    this.refs = new Int32Array(capacity * REFS);
    this.at = new Float64Array(capacity);
  }

  private ref(s: string | null | undefined): number {
    if (s === null || s === undefined) return -1;
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.push(s) - 1;
      this.index.set(s, i);
    }
    return i;
  }

  /**
   * ref for a field that most clicks share with the click before (the workspace, the browser's
   * User-Agent, the referrer, the country): the same string as last time is its index without
   * a lookup.
   */
  private sharedRef(field: number, s: string | null | undefined): number {
    if (s === this.last[field] && s !== undefined) return this.lastRef[field];
    const i = this.ref(s);
    this.last[field] = s;
    this.lastRef[field] = i;
    return i;
  }

  private reserve(n: number): void {
    if (this.length + n <= this.at.length) return;
    let capacity = Math.max(16, this.at.length * 2);
    while (capacity < this.length + n) capacity *= 2;
    const refs = new Int32Array(capacity * REFS);
    refs.set(this.refs.subarray(0, this.length * REFS));
    const at = new Float64Array(capacity);
    at.set(this.at.subarray(0, this.length));
    this.refs = refs;
    this.at = at;
  }

  push(e: ClickEvent): void {
    this.reserve(1);
    const o = this.length * REFS;
    // A link's id is kept as it comes, not looked up: with many links visited at random nearly
    // every id is new to the buffer, and looking each up and adding it to `index` cost the event
    // loop 3% of its time on a million links (bench/README.md). A link visited again is the
    // same string object (the redirect cache keeps its parsed links), so a repeat costs a slot.
    this.refs[o + FIELD.link] = this.strings.push(e.linkId) - 1;
    this.refs[o + FIELD.workspace] = this.sharedRef(FIELD.workspace, e.workspaceId);
    this.refs[o + FIELD.qrCode] = this.ref(e.qrCodeId);
    this.refs[o + FIELD.referer] = this.sharedRef(FIELD.referer, e.referer);
    this.refs[o + FIELD.country] = this.sharedRef(FIELD.country, e.country);
    this.refs[o + FIELD.userAgent] = this.sharedRef(FIELD.userAgent, e.userAgent);
    this.refs[o + FIELD.address] = this.sharedRef(FIELD.address, e.address);
    this.refs[o + FIELD.route] = this.sharedRef(FIELD.route, e.route);
    this.at[this.length++] = e.at;
  }

  /** A bio page's view or block click (PageVisitEvent), apart from push so a click pays nothing for it. */
  pushPageVisit(e: PageVisitEvent): void {
    this.reserve(1);
    const o = this.length * REFS;
    this.refs[o + FIELD.link] = this.ref(e.pageId);
    this.refs[o + FIELD.workspace] = this.ref(e.workspaceId);
    this.refs[o + FIELD.qrCode] = this.ref(e.blockId);
    this.refs[o + FIELD.referer] = this.ref(e.referer);
    this.refs[o + FIELD.country] = this.ref(e.country);
    this.refs[o + FIELD.userAgent] = this.ref(e.userAgent);
    this.refs[o + FIELD.address] = this.ref(e.address);
    this.refs[o + FIELD.route] = -1;
    this.at[this.length++] = e.at;
  }

  /** One string field (FIELD) of click `i`; undefined when absent. */
  field(i: number, field: (typeof FIELD)[keyof typeof FIELD]): string | undefined {
    const r = this.refs[i * REFS + field];
    return r === -1 ? undefined : this.strings[r];
  }

  time(i: number): number {
    return this.at[i];
  }

  /** Clicks [from, to) as columns with their own string table (the strings they use, each once). */
  columns(from = 0, to = this.length): ClickColumns {
    const local = new Int32Array(this.strings.length).fill(-1);
    const strings: string[] = [];
    const refs = new Int32Array((to - from) * REFS);
    for (let i = from * REFS, o = 0; i < to * REFS; i++, o++) {
      const r = this.refs[i];
      if (r === -1) refs[o] = -1;
      else {
        if (local[r] === -1) local[r] = strings.push(this.strings[r]) - 1;
        refs[o] = local[r];
      }
    }
    return { strings, refs, at: this.at.slice(from, to) };
  }

  /** Appends clicks given as columns (a part from another thread, or another buffer's columns). */
  append(c: ClickColumns): this {
    const n = c.at.length;
    this.reserve(n);
    const mine = c.strings.map((s) => this.ref(s));
    const o = this.length * REFS;
    for (let i = 0; i < n * REFS; i++) {
      const r = c.refs[i];
      this.refs[o + i] = r === -1 ? -1 : mine[r];
    }
    this.at.set(c.at, this.length);
    this.length += n;
    return this;
  }

  /** Drops the oldest `n` clicks (their strings stay until the buffer is flushed). */
  dropOldest(n: number): void {
    n = Math.min(n, this.length);
    this.refs.copyWithin(0, n * REFS, this.length * REFS);
    this.at.copyWithin(0, n, this.length);
    this.length -= n;
  }
}

export const MAX_BUFFERED = 1_000_000;
/** When the buffer is full (the database unreachable for a long time), the oldest 1% goes at once. */
export const DROP_WHEN_FULL = MAX_BUFFERED / 100;

export class ClickRecorder {
  private buffer = new ClickBuffer();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Clicks of the flush under way (not yet known to be written). */
  private flushingCount = 0;
  /** Since the start, for /metrics: clicks (and page visits) recorded, written, and dropped unwritten. */
  recorded = 0;
  written = 0;
  dropped = 0;

  constructor(
    private readonly writer: ClickWriter,
    private readonly log: Logger,
    private readonly flushMs: number,
  ) {}

  record(event: ClickEvent): void {
    if (this.buffer.length >= MAX_BUFFERED) this.dropWhenFull();
    this.recorded++;
    this.buffer.push(event);
  }

  private dropWhenFull(): void {
    this.buffer.dropOldest(DROP_WHEN_FULL);
    this.dropped += DROP_WHEN_FULL;
    this.log.warn({ dropped: DROP_WHEN_FULL }, 'click buffer full: the oldest unflushed clicks were dropped');
  }

  /** A bio page's view or block click: buffered and written with the clicks. */
  recordPageVisit(event: PageVisitEvent): void {
    if (this.buffer.length >= MAX_BUFFERED) this.dropWhenFull();
    this.recorded++;
    this.buffer.pushPageVisit(event);
  }

  get pending(): number {
    return this.buffer.length;
  }

  /** Clicks recorded and not yet written: the buffer and the flush under way. */
  get backlog(): number {
    return this.buffer.length + this.flushingCount;
  }

  start(): void {
    this.timer = setInterval(
      () => void this.flush().catch((err) => this.log.error({ err }, 'click flush failed')),
      this.flushMs,
    );
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    try {
      await this.flush();
    } finally {
      await this.writer.close();
    }
  }

  /** Writes everything buffered so far; concurrent callers share one flush. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (!this.buffer.length) return;
    const batch = this.buffer;
    this.buffer = new ClickBuffer();
    this.flushingCount = batch.length;
    this.flushing = this.writer
      .write(batch)
      .then(() => {
        this.written += batch.length;
      })
      .catch((err: ClickWriteError) => {
        this.written += err.written ?? 0;
        // Keep what was not committed, ahead of what arrived meanwhile, rather than lose it.
        const kept = new ClickBuffer(batch.length)
          .append(batch.columns(err.written ?? 0))
          .append(this.buffer.columns());
        if (kept.length > MAX_BUFFERED) {
          this.dropped += kept.length - MAX_BUFFERED;
          kept.dropOldest(kept.length - MAX_BUFFERED);
        }
        this.buffer = kept;
        throw err;
      })
      .finally(() => {
        this.flushing = undefined;
        this.flushingCount = 0;
      });
    await this.flushing;
  }
}
