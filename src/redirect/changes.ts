// Keeps every process's redirect cache coherent: changes are written to link_changes in the
// transaction that makes them, and each process polls for recent rows. Polling by time with
// an overlap (not by id) cannot miss a row whose transaction committed late; dropping an entry
// twice costs nothing.
import type { Knex } from 'knex';
import type { Logger } from 'pino';

export const CHANGE_POLL_MS = 250;
const OVERLAP_MS = 5_000;
const KEEP_MS = 3_600_000;

export interface ChangeListener {
  linkChanged(domainKey: string, slug: string): void;
  domainChanged(): void;
}

export class ChangeFeed {
  private timer: NodeJS.Timeout | undefined;
  private since = Date.now() - OVERLAP_MS;
  private lastCleanup = 0;
  private polling = false;

  constructor(
    private readonly knex: Knex,
    private readonly listener: ChangeListener,
    private readonly log: Logger,
    private readonly pollMs = CHANGE_POLL_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    const startedAt = Date.now();
    try {
      const rows = await this.knex('link_changes').where('created_at', '>=', this.since - OVERLAP_MS).select('kind', 'domain_key', 'slug');
      for (const r of rows) {
        if (r.kind === 'domain') this.listener.domainChanged();
        else this.listener.linkChanged(r.domain_key, r.slug);
      }
      this.since = startedAt;
      if (startedAt - this.lastCleanup > 60_000) {
        this.lastCleanup = startedAt;
        // Looked for first: a DELETE takes SQLite's write lock even when it matches nothing.
        const old = this.knex('link_changes').where('created_at', '<', startedAt - KEEP_MS);
        if (await old.clone().first('id')) await old.delete();
      }
    } catch (err) {
      this.log.warn({ err }, 'polling link changes failed');
    } finally {
      this.polling = false;
    }
  }
}
