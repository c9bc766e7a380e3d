// The link lookup thread on Postgres (src/db/lookup-thread.ts): the misses of one event-loop turn
// read in one statement, through a pool of this thread's own. The event loop that serves visitors
// pays one message each way per batch; the pg protocol's work (writing the query, reading and
// parsing the rows) happens here. Batches in flight at once each take a connection of the pool.
// Its statements are named unless DATABASE_URL says `pgbouncer=true` (pg-names.ts).
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { statementNames } from './pg-names.ts';
import { LINKS_AFTER_ID, PG_LINKS_BY_ADDRESSES } from './redirect-rows.ts';
import type { FromLookupThread, LookupRow, ToLookupThread } from './lookup-thread.ts';
import { lookupFailed, postLinkPage } from './lookup-replies.ts';

const { url, connections } = workerData as { url: string; connections: number };
const port = parentPort!;
const pool = new pg.Pool({ connectionString: url, max: connections });
const name = statementNames(url);
// An idle connection the server drops is replaced by the pool; without a listener the error
// would end the thread, and with it every batch in flight.
pool.on('error', () => undefined);
const send = (m: FromLookupThread) => port.postMessage(m);

port.on('message', async (m: ToLookupThread) => {
  if (m.type === 'close') {
    await pool.end().catch(() => undefined);
    port.close();
    return;
  }
  if (m.type === 'scan') {
    try {
      const res = await pool.query({
        name: name('sl_links_after_id'),
        text: LINKS_AFTER_ID((i) => `$${i}`),
        values: [m.after, m.limit],
        rowMode: 'array',
      });
      postLinkPage(port, m.id, res.rows as unknown[][]);
    } catch (err) {
      send(lookupFailed(m.id, err));
    }
    return;
  }
  const n = m.keys.length / 2;
  const domainKeys = new Array<string>(n);
  const slugs = new Array<string>(n);
  for (let i = 0, j = 0; i < m.keys.length; i += 2, j++) {
    domainKeys[j] = m.keys[i];
    slugs[j] = m.keys[i + 1];
  }
  try {
    const res = await pool.query({
      name: name('sl_links_by_addresses'),
      text: PG_LINKS_BY_ADDRESSES,
      values: [domainKeys, slugs],
      rowMode: 'array',
    });
    // Rows come with the 1-based position of the address they answer (WITH ORDINALITY).
    const rows: Array<LookupRow | null> = new Array(n).fill(null);
    for (const r of res.rows as unknown[][]) rows[Number(r[0]) - 1] = r.slice(1);
    send({ type: 'rows', id: m.id, rows });
  } catch (err) {
    send(lookupFailed(m.id, err));
  }
});
