// The click writer thread (src/clicks/writer.ts, ThreadClickWriter): its own database
// connection, the InlineClickWriter with the webhook click sink, and the WAL checkpoints. Batches
// arrive one at a time; each answer says how far the batch got. An entry point, so it is here:
// it puts the click writer and the webhook events together.
import { parentPort, workerData } from 'node:worker_threads';
import { ClickBuffer } from '../clicks/buffer.ts';
import {
  type ClickWriteError,
  InlineClickWriter,
  WRITER_NICE_INCREMENT,
  type ClickWorkerInit,
  type FromWorker,
  type ToWorker,
} from '../clicks/writer.ts';
import { startCheckpoints } from '../db/checkpoints.ts';
import { openDatabase, ping } from '../db/knex.ts';
import { geoLocator } from '../platform/geo.ts';
import { lowerThisThreadsPriority } from '../platform/thread-priority.ts';
import { clickSinks } from '../webhooks/click-events.ts';

const init = workerData as ClickWorkerInit;
// The writer yields the CPU to the threads that answer visitors (WRITER_NICE_INCREMENT says how much).
lowerThisThreadsPriority(WRITER_NICE_INCREMENT);
const port = parentPort!;
// Waits for SQLite's write lock in SQLite's busy handler: this thread serves no visitors, and its
// flush writes through better-sqlite3 statements of its own (src/db/repos/click-batches.ts).
const db = openDatabase(init.databaseUrl, { poolMax: 2, waitForLocks: 'busy-handler' });
// Clicks are located here, off the redirect path's event loop (src/platform/geo.ts).
const writer = new InlineClickWriter(
  db.knex,
  db.engine,
  init.webhookEvents ? clickSinks(init.webhookEvents) : [],
  geoLocator({ geoipDb: init.geoipDb }),
);
const send = (m: FromWorker) => port.postMessage(m);
// Ready once the connection answers; a database that cannot be reached ends the thread with
// the error, which the service reports at start-up.
await ping(db);
send({ type: 'ready' });

const checkpoints = startCheckpoints(init.databaseUrl);

// Batches arrive in parts (see ClickColumns), then a 'write' for the whole batch.
const arriving = new Map<number, ClickBuffer>();

port.on('message', (m: ToWorker) => {
  if (m.type === 'close') {
    checkpoints.close();
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
      (err: ClickWriteError) =>
        send({ type: 'failed', id: m.id, written: err.written ?? 0, message: err.message, code: err.code }),
    )
    .finally(checkpoints.checkpoint);
});
