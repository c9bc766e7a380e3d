// The click writer thread: its own database connection, the same InlineClickWriter and webhook
// click sink the service would otherwise run on its main thread. Batches arrive one at a time
// from ThreadClickWriter; each answer says how far the batch got.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase, WAL_CHECKPOINT_INTERVAL_MS } from '../db/knex';
import type { ClickEvent } from './clicks';
import { webhookClickSink } from '../webhooks/click-events';
import { ClickWriteError, decodeClicks, InlineClickWriter, type ClickWorkerInit, type FromWorker, type ToWorker } from './click-writer';

const init = workerData as ClickWorkerInit;
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

// SQLite: this thread runs the WAL checkpoints (src/db/knex.ts). Its commits checkpoint once the
// WAL is large; this passive one, which waits for no lock, covers the API's writes when no
// clicks arrive. It queues behind a flush for the thread's one connection. A checkpoint that
// fails (another connection is checkpointing) copies nothing and loses nothing: the next one
// copies those pages.
const checkpoints =
  db.engine === 'sqlite'
    ? setInterval(() => void db.knex.raw('PRAGMA wal_checkpoint(PASSIVE)').catch(() => {}), WAL_CHECKPOINT_INTERVAL_MS)
    : undefined;
checkpoints?.unref();

// Batches arrive in parts (see ClickColumns), then a 'write' for the whole batch.
const arriving = new Map<number, ClickEvent[]>();

port.on('message', (m: ToWorker) => {
  if (m.type === 'close') {
    clearInterval(checkpoints);
    void db.knex.destroy().finally(() => port.close());
    return;
  }
  if (m.type === 'part') {
    arriving.set(m.id, decodeClicks(m.clicks, arriving.get(m.id)));
    return;
  }
  const batch = arriving.get(m.id) ?? [];
  arriving.delete(m.id);
  writer.write(batch, (written) => send({ type: 'progress', id: m.id, written })).then(
    () => send({ type: 'done', id: m.id }),
    (err: ClickWriteError) => send({ type: 'failed', id: m.id, written: err.written ?? 0, message: err.message, code: err.code }),
  );
});
