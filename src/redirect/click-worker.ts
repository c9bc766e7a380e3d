// The click writer thread: its own database connection, the same InlineClickWriter and webhook
// click sink the service would otherwise run on its main thread. Batches arrive one at a time
// from ThreadClickWriter; each answer says how far the batch got.
import { parentPort, workerData } from 'node:worker_threads';
import Sqlite from 'better-sqlite3';
import { CHECKPOINT_WAIT_MS, openDatabase, sqliteFilename, WAL_CHECKPOINT_INTERVAL_MS } from '../db/knex';
import { lowerThisThreadsPriority } from '../db/thread-priority';
import { ClickBuffer } from './clicks';
import { webhookClickSink } from '../webhooks/click-events';
import { ClickWriteError, InlineClickWriter, WRITER_NICE_INCREMENT, type ClickWorkerInit, type FromWorker, type ToWorker } from './click-writer';

const init = workerData as ClickWorkerInit;
// The writer yields the CPU to the threads that answer visitors (WRITER_NICE_INCREMENT says how much).
lowerThisThreadsPriority(WRITER_NICE_INCREMENT);
const port = parentPort!;
// Waits for SQLite's write lock in SQLite's busy handler: this thread serves no visitors, and its
// flush writes through better-sqlite3 statements of its own (src/redirect/click-writes.ts).
const db = openDatabase(init.databaseUrl, { poolMax: 2, waitForLocks: 'busy-handler' });
const writer = new InlineClickWriter(db.knex, db.engine, init.webhookEvents ? [webhookClickSink(init.webhookEvents)] : []);
const send = (m: FromWorker) => port.postMessage(m);
// Ready once the connection answers; a database that cannot be reached ends the thread with
// the error, which the service reports at start-up.
await db.knex.raw('SELECT 1');
send({ type: 'ready' });

// SQLite: this thread runs the WAL checkpoints (src/db/knex.ts): after every batch, and every
// WAL_CHECKPOINT_INTERVAL_MS for the API's writes when no clicks arrive. RESTART, not PASSIVE:
// visitors start a read transaction every event-loop turn, so some reader nearly always holds a
// snapshot older than the last commit; a passive checkpoint then copies only part of the WAL, the
// WAL can never start over, and it grew past 360 MiB in a minute of bench/redirect on 1,000,000
// links, slowing every read that looks a page up in it. RESTART waits (in this thread's busy
// handler) for those readers, which end within a turn, then copies everything, so the next
// commit writes the WAL from its start; other writers wait meanwhile, on their timers. A
// checkpoint that gives up copies nothing and loses nothing: the next one copies those pages.
//
// On a connection of its own, which waits for readers at most CHECKPOINT_WAIT_MS: a pending
// RESTART holds up other writers, who give up after SQLITE_LOCK_WAIT_MS, so it must give up first.
const checkpointer = db.engine === 'sqlite' ? new Sqlite(sqliteFilename(init.databaseUrl)) : undefined;
checkpointer?.pragma(`busy_timeout = ${CHECKPOINT_WAIT_MS}`);
const checkpoint = () => {
  try {
    checkpointer?.pragma('wal_checkpoint(RESTART)');
  } catch {
    // Busy, or any other failure: a checkpoint changes no data, and the next one tries again.
  }
};
const checkpoints = checkpointer && setInterval(checkpoint, WAL_CHECKPOINT_INTERVAL_MS).unref();

// Batches arrive in parts (see ClickColumns), then a 'write' for the whole batch.
const arriving = new Map<number, ClickBuffer>();

port.on('message', (m: ToWorker) => {
  if (m.type === 'close') {
    clearInterval(checkpoints);
    checkpointer?.close();
    void db.knex.destroy().finally(() => port.close());
    return;
  }
  if (m.type === 'part') {
    arriving.set(m.id, (arriving.get(m.id) ?? new ClickBuffer(m.clicks.at.length)).append(m.clicks));
    return;
  }
  const batch = arriving.get(m.id) ?? new ClickBuffer(0);
  arriving.delete(m.id);
  writer
    .write(batch, (written) => send({ type: 'progress', id: m.id, written }))
    .then(
      () => send({ type: 'done', id: m.id }),
      (err: ClickWriteError) => send({ type: 'failed', id: m.id, written: err.written ?? 0, message: err.message, code: err.code }),
    )
    .finally(checkpoint);
});
