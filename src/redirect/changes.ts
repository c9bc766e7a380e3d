// Keeps every process's redirect cache coherent: changes are written to link_changes in the
// transaction that makes them, and each process polls for recent rows. Polling by time with
// an overlap (not by id) cannot miss a row whose transaction committed late. Each row is applied
// once: the overlap reads a row some twenty times, and a domain's change empties the whole cache
// and starts the preload again, which must not happen twenty times over.
import type { Logger } from 'pino';
import type { Db } from '../db/knex.ts';
import { changesSince, pruneLinkChanges } from '../db/repos/link-changes.ts';

export const CHANGE_POLL_MS = 250;
const OVERLAP_MS = 5_000;
const KEEP_MS = 3_600_000;

export interface ChangeListener {
  linkChanged(domainKey: string, slug: string): void;
  domainChanged(): void;
  /** A bio page's address (/@{handle}) may show something else now. */
  pageChanged(handle: string): void;
}

export class ChangeFeed {
  private timer: NodeJS.Timeout | undefined;
  private since = Date.now() - OVERLAP_MS;
  private lastCleanup = 0;
  private polling = false;
  /** The ids of the rows applied, with their time, kept while the overlap can read them again. */
  private readonly applied = new Map<string, number>();

  constructor(
    private readonly knex: Db,
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
      const from = this.since - OVERLAP_MS;
      const rows = await changesSince(this.knex, from);
      for (const [id, at] of this.applied) if (at < from) this.applied.delete(id);
      for (const r of rows) {
        const id = String(r.id);
        if (this.applied.has(id)) continue;
        this.applied.set(id, Number(r.created_at));
        if (r.kind === 'domain') this.listener.domainChanged();
        else if (r.kind === 'page') this.listener.pageChanged(r.slug);
        else this.listener.linkChanged(r.domain_key, r.slug);
      }
      this.since = startedAt;
      if (startedAt - this.lastCleanup > 60_000) {
        this.lastCleanup = startedAt;
        await pruneLinkChanges(this.knex, startedAt - KEEP_MS);
      }
    } catch (err) {
      this.log.warn({ err }, 'polling link changes failed');
    } finally {
      this.polling = false;
    }
  }
}
