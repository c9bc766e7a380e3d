// When each API key was last used (the dashboard's `lastUsedAt`), kept off the API's hot path:
// a request only notes its key in memory; a key is written at most once a minute per process,
// and the notes are written in one transaction a second. The time shown is therefore up to a
// minute early, which is what the contract promises. bench/README.md (bench:bulk) holds the
// figures before and after.
import type { Logger } from 'pino';
import type { Db } from '../db/knex.ts';
import { recordKeyUses } from '../db/repos/api-keys.ts';

/** A key's use is written at most this often per process. */
export const KEY_USE_RESOLUTION_MS = 60_000;
const FLUSH_MS = 1_000;
/** Keys remembered as written; past this the memory starts again (a key is then written once more). */
const REMEMBERED = 100_000;

export class KeyUses {
  private readonly written = new Map<string, number>();
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly knex: Db,
    private readonly log: Logger,
  ) {}

  /** Notes a request the key opened; cheap, synchronous, no I/O. */
  note(keyId: string, now = Date.now()): void {
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < KEY_USE_RESOLUTION_MS) return;
    if (this.written.size >= REMEMBERED) this.written.clear();
    this.written.set(keyId, now);
    this.pending.set(keyId, now);
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what was noted (also at a clean stop). */
  flush(): Promise<void> {
    const batch = [...this.pending].map(([id, at]) => ({ id, at }));
    this.pending = new Map();
    if (!batch.length) return this.flushing;
    this.flushing = this.flushing
      .then(() => recordKeyUses(this.knex, batch))
      .catch((err) => this.log.warn({ err, keys: batch.length }, "API keys' last use could not be recorded"));
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
