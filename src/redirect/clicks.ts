// Clicks are buffered on the redirect path and written in batches every CLICK_FLUSH_MS: raw
// events (90-day retention) and daily counts per link (their sum is the Link's clicks). The writing
// itself is a ClickWriter's (src/redirect/click-writer.ts), by default on its own thread.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ClickWriteError, ClickWriter } from './click-writer';

export interface ClickEvent {
  linkId: string;
  workspaceId: string;
  qrCodeId: string | null;
  at: number;
  referer: string | undefined;
  country: string | undefined;
  userAgent: string | undefined;
}

export interface StoredClick {
  workspace_id: string;
  link_id: string;
  qr_code_id: string | null;
  occurred_at: number;
  referrer_host: string | null;
  country: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
}

/** Called inside the flush transaction, e.g. to put webhook events in the outbox. */
export type ClickSink = (trx: Knex.Transaction, clicks: StoredClick[]) => Promise<void>;

const MAX_BUFFERED = 1_000_000;

export class ClickRecorder {
  private buffer: ClickEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly writer: ClickWriter,
    private readonly log: Logger,
    private readonly flushMs: number,
  ) {}

  record(event: ClickEvent): void {
    if (this.buffer.length >= MAX_BUFFERED) {
      this.buffer.shift();
      this.log.warn('click buffer full: the oldest unflushed click was dropped');
    }
    this.buffer.push(event);
  }

  get pending(): number {
    return this.buffer.length;
  }

  start(): void {
    this.timer = setInterval(() => void this.flush().catch((err) => this.log.error({ err }, 'click flush failed')), this.flushMs);
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
    this.buffer = [];
    this.flushing = this.writer
      .write(batch)
      .catch((err: ClickWriteError) => {
        // Keep what was not committed for the next flush rather than lose it.
        const kept = batch.slice(err.written ?? 0);
        this.buffer = kept.concat(this.buffer).slice(-MAX_BUFFERED);
        throw err;
      })
      .finally(() => {
        this.flushing = undefined;
      });
    await this.flushing;
  }
}
