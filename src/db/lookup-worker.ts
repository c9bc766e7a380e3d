// The link lookup thread (src/db/lookup-thread.ts): a read-only use of its own SQLite
// connection. Each batch is read in one read transaction, begun when the batch arrives, so it
// sees every change committed before then; it ends with the batch, so the click writer's WAL
// checkpoints (src/start/click-writer-thread.ts) never wait long for it.
import { parentPort, workerData } from 'node:worker_threads';
import Sqlite from 'better-sqlite3';
import { LINKS_AFTER_ID, SQLITE_LINK_BY_ADDRESS } from './redirect-rows.ts';
import type { FromLookupThread, LookupRow, ToLookupThread } from './lookup-thread.ts';
import { lookupFailed, postLinkPage } from './lookup-replies.ts';

const { filename } = workerData as { filename: string };
const port = parentPort!;
const db = new Sqlite(filename, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
// Not memory-mapped, for the reason given in src/db/redirect-store.ts.
const begin = db.prepare('BEGIN');
const commit = db.prepare('COMMIT');
// Prepared at the first batch that can prepare it: until then (a schema that is not there) each
// batch fails with SQLite's reason, and the thread stays up.
let byAddress: Sqlite.Statement | undefined;
let afterId: Sqlite.Statement | undefined;
const send = (m: FromLookupThread) => port.postMessage(m);

port.on('message', (m: ToLookupThread) => {
  if (m.type === 'close') {
    db.close();
    port.close();
    return;
  }
  if (m.type === 'scan') {
    try {
      afterId ??= db.prepare(LINKS_AFTER_ID(() => '?')).raw(true);
      postLinkPage(port, m.id, afterId.all(m.after, m.limit) as unknown[][]);
    } catch (err) {
      send(lookupFailed(m.id, err));
    }
    return;
  }
  const rows: Array<LookupRow | null> = new Array(m.keys.length / 2);
  try {
    byAddress ??= db.prepare(SQLITE_LINK_BY_ADDRESS).raw(true);
    begin.run();
    for (let i = 0, j = 0; i < m.keys.length; i += 2, j++)
      rows[j] = (byAddress!.get(m.keys[i], m.keys[i + 1]) as LookupRow | undefined) ?? null;
    commit.run();
    send({ type: 'rows', id: m.id, rows });
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    send(lookupFailed(m.id, err));
  }
});
