// The click fold on a schedule inside every `serve` process (src/db/repos/click-folds.ts; one
// process folds at a time, the others find the lease taken): its first run folds the 90 days
// of raw clicks, later runs the few minutes since. Runs as a query, off the event loop on SQLite.
import type { Logger } from 'pino';
import type { Queries } from '../db/queries.ts';
import { FOLD_STEP_MS } from '../db/repos/click-folds.ts';

export function scheduleClickFold(queries: Pick<Queries, 'clickFold'>, log: Logger, intervalMs = FOLD_STEP_MS): () => void {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    queries
      .clickFold(Date.now())
      .then((r) => r.daysClosed > 1 && log.info(r, 'click fold caught up'))
      .catch((err) => log.warn({ err }, 'click fold failed'))
      .finally(() => (running = false));
  };
  const first = setTimeout(run, 15_000);
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
