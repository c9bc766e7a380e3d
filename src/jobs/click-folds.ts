// The click fold on a schedule inside every `serve` process (src/db/repos/click-folds.ts; one
// process folds at a time, the others find the lease taken): its first run folds the 90 days
// of raw clicks, later runs the few minutes since. Runs as a query, off the event loop on SQLite.
import type { Logger } from 'pino';
import type { Queries } from '../db/queries.ts';
import { FOLD_STEP_MS } from '../db/repos/click-folds.ts';
import { every } from './every.ts';

export function scheduleClickFold(
  queries: Pick<Queries, 'clickFold'>,
  log: Logger,
  intervalMs = FOLD_STEP_MS,
  firstMs = 15_000,
): () => void {
  return every(
    'click fold',
    async () => {
      const r = await queries.clickFold(Date.now());
      if (r.daysClosed > 1) log.info(r, 'click fold caught up');
    },
    log,
    firstMs,
    intervalMs,
  );
}
