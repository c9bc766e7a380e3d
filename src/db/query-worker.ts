// A query thread (src/db/query-threads.ts): its own database connection, running the named
// queries of src/db/queries.ts one at a time (better-sqlite3 is synchronous, so two at once on
// one connection would only take turns).
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './knex.ts';
import { QUERIES, type QueryName } from './queries.ts';
import type { FromQueryThread, QueryThreadInit, ToQueryThread } from './query-threads.ts';
import { lowerThisThreadsPriority } from '../platform/thread-priority.ts';

const init = workerData as QueryThreadInit;
lowerThisThreadsPriority(init.niceIncrement);
const port = parentPort!;
// Waits for the write lock in SQLite's busy handler (this thread serves no visitors); never
// checkpoints (the click writer thread does, src/db/knex.ts).
const db = openDatabase(init.databaseUrl, { waitForLocks: 'busy-handler', checkpoints: false });
const queue: Array<Extract<ToQueryThread, { type: 'run' }>> = [];
let running = false;
let closing = false;
const send = (m: FromQueryThread) => port.postMessage(m);

port.on('message', (m: ToQueryThread) => {
  if (m.type === 'close') {
    closing = true;
    if (!running) void shutdown();
    return;
  }
  queue.push(m);
  if (!running) void drain();
});

async function drain() {
  running = true;
  while (queue.length) {
    const m = queue.shift()!;
    try {
      const query = QUERIES[m.name as QueryName] as ((...args: unknown[]) => Promise<unknown>) | undefined;
      if (!query) throw new Error(`no query named ${m.name}`);
      const result = await query(db.knex, ...m.args);
      send({ type: 'done', id: m.id, result });
    } catch (err) {
      const e = err as { message?: string; code?: string };
      send({ type: 'failed', id: m.id, message: e?.message ?? String(err), code: e?.code });
    }
  }
  running = false;
  if (closing) await shutdown();
}

async function shutdown() {
  await db.knex.destroy().catch(() => undefined);
  port.close();
}
