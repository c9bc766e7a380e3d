// Clicks are buffered on the redirect path and written in batches every CLICK_FLUSH_MS: raw
// events (90-day retention), the Link's clicks counter and daily counts per link.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { writeClicks } from './click-writes';
import { parseDevice, referrerHost } from './visitor';

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
  private readonly sinks: ClickSink[] = [];

  constructor(
    private readonly knex: Knex,
    private readonly log: Logger,
    private readonly flushMs: number,
    private readonly engine: 'sqlite' | 'postgres' = knex.client.config.client === 'pg' ? 'postgres' : 'sqlite',
  ) {}

  addSink(sink: ClickSink) {
    this.sinks.push(sink);
  }

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
    await this.flush();
  }

  /** Writes everything buffered so far; concurrent callers share one flush. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (!this.buffer.length) return;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.write(batch)
      .catch((err) => {
        // Keep the batch for the next flush rather than lose it.
        this.buffer = batch.concat(this.buffer).slice(-MAX_BUFFERED);
        throw err;
      })
      .finally(() => {
        this.flushing = undefined;
      });
    await this.flushing;
  }

  private async write(batch: ClickEvent[]): Promise<void> {
    const rows: StoredClick[] = batch.map((e) => {
      const d = parseDevice(e.userAgent);
      return {
        workspace_id: e.workspaceId,
        link_id: e.linkId,
        qr_code_id: e.qrCodeId,
        occurred_at: e.at,
        referrer_host: referrerHost(e.referer),
        country: e.country && /^[A-Za-z]{2}$/.test(e.country) ? e.country.toUpperCase() : null,
        device: d.device,
        browser: d.browser?.slice(0, 64) ?? null,
        os: d.os?.slice(0, 64) ?? null,
      };
    });
    await this.knex.transaction(async (trx) => {
      await writeClicks(trx, this.engine, rows);
      for (const sink of this.sinks) await sink(trx, rows);
    });
  }
}
