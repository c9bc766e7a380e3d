// Clicks are buffered on the redirect path and written in batches every CLICK_FLUSH_MS: raw
// events (90-day retention), the Link's clicks counter and daily counts per link.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
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

const DAY_MS = 86_400_000;
const MAX_BUFFERED = 1_000_000;
const INSERT_CHUNK = 400;

export class ClickRecorder {
  private buffer: ClickEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly sinks: ClickSink[] = [];

  constructor(
    private readonly knex: Knex,
    private readonly log: Logger,
    private readonly flushMs: number,
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
    const perLink = new Map<string, number>();
    const perDay = new Map<string, { link_id: string; workspace_id: string; day: number; clicks: number; scans: number }>();
    for (const r of rows) {
      perLink.set(r.link_id, (perLink.get(r.link_id) ?? 0) + 1);
      const day = Math.floor(r.occurred_at / DAY_MS);
      const key = `${r.link_id}|${day}`;
      const entry = perDay.get(key) ?? { link_id: r.link_id, workspace_id: r.workspace_id, day, clicks: 0, scans: 0 };
      entry.clicks++;
      if (r.qr_code_id) entry.scans++;
      perDay.set(key, entry);
    }
    await this.knex.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) await trx('clicks').insert(rows.slice(i, i + INSERT_CHUNK));
      // One lock order for every process, so concurrent flushes on Postgres cannot deadlock.
      for (const [linkId, n] of [...perLink].sort(([a], [b]) => (a < b ? -1 : 1))) await trx('links').where({ id: linkId }).increment('clicks', n);
      const daily = [...perDay.values()].sort((a, b) => (a.link_id < b.link_id ? -1 : a.link_id > b.link_id ? 1 : a.day - b.day));
      for (let i = 0; i < daily.length; i += INSERT_CHUNK) {
        await trx('link_daily_clicks')
          .insert(daily.slice(i, i + INSERT_CHUNK))
          .onConflict(['link_id', 'day'])
          .merge({
            clicks: trx.raw('link_daily_clicks.clicks + excluded.clicks'),
            scans: trx.raw('link_daily_clicks.scans + excluded.scans'),
          });
      }
      // Scans per QR code and day: a QR code's conversion rate uses its scans as clicks.
      const scans = new Map<string, { qr_code_id: string; workspace_id: string; day: number; scans: number }>();
      for (const r of rows) {
        if (!r.qr_code_id) continue;
        const day = Math.floor(r.occurred_at / DAY_MS);
        const key = `${r.qr_code_id}|${day}`;
        const entry = scans.get(key) ?? { qr_code_id: r.qr_code_id, workspace_id: r.workspace_id, day, scans: 0 };
        entry.scans++;
        scans.set(key, entry);
      }
      const scanRows = [...scans.values()].sort((a, b) => (a.qr_code_id < b.qr_code_id ? -1 : a.qr_code_id > b.qr_code_id ? 1 : a.day - b.day));
      for (let i = 0; i < scanRows.length; i += INSERT_CHUNK) {
        await trx('qr_daily_scans')
          .insert(scanRows.slice(i, i + INSERT_CHUNK))
          .onConflict(['qr_code_id', 'day'])
          .merge({ scans: trx.raw('qr_daily_scans.scans + excluded.scans') });
      }
      for (const sink of this.sinks) await sink(trx, rows);
    });
  }
}
