// SQLite WAL checkpoints, run by the click writer thread only (src/db/knex.ts says why not on a
// thread that serves visitors): after every batch, and every WAL_CHECKPOINT_INTERVAL_MS for the
// API's writes when no clicks arrive.
//
// RESTART, not PASSIVE: visitors start a read transaction every event-loop turn, so some reader
// nearly always holds a snapshot older than the last commit; a passive checkpoint then copies only
// part of the WAL, the WAL never starts over and grows without bound (bench/README.md), slowing
// every read that looks a page up in it. RESTART waits for those readers, which end within a
// turn, copies everything, and the next commit writes the WAL from its start; other writers wait
// meanwhile, on their timers. A checkpoint that gives up copies nothing and loses nothing.
//
// On a connection of its own, which waits for readers at most CHECKPOINT_WAIT_MS: a pending
// RESTART holds up other writers, who give up after SQLITE_LOCK_WAIT_MS, so it must give up first.
import Sqlite from 'better-sqlite3';
import { CHECKPOINT_WAIT_MS, engineOf, sqliteFilename, WAL_CHECKPOINT_INTERVAL_MS } from './knex.ts';

export interface Checkpointer {
  /** A RESTART checkpoint now; a busy database or any failure is left to the next one. */
  checkpoint(): void;
  close(): void;
}

export function startCheckpoints(databaseUrl: string): Checkpointer {
  if (engineOf(databaseUrl) !== 'sqlite') return { checkpoint: () => undefined, close: () => undefined };
  const db = new Sqlite(sqliteFilename(databaseUrl));
  db.pragma(`busy_timeout = ${CHECKPOINT_WAIT_MS}`);
  const checkpoint = () => {
    try {
      db.pragma('wal_checkpoint(RESTART)');
    } catch {
      // Busy, or any other failure: a checkpoint changes no data, and the next one tries again.
    }
  };
  const timer = setInterval(checkpoint, WAL_CHECKPOINT_INTERVAL_MS).unref();
  return {
    checkpoint,
    close() {
      clearInterval(timer);
      db.close();
    },
  };
}
