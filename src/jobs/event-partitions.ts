// The raw events' day partitions on Postgres, made ahead on a schedule inside every `serve`
// process (src/db/repos/event-partitions.ts; one process does the DDL at a time, the others find
// the lease taken). Hourly is far more often than needed: a day is made PARTITION_AHEAD_DAYS
// ahead, so a week of failed runs passes before a click lands in DEFAULT.
import type { Logger } from 'pino';
import type { Queries } from '../db/queries.ts';
import { every } from './every.ts';

export const PARTITION_INTERVAL_MS = 3_600_000;

export function scheduleEventPartitions(
  queries: Pick<Queries, 'eventPartitions'>,
  log: Logger,
  intervalMs = PARTITION_INTERVAL_MS,
  firstMs = 20_000,
): () => void {
  return every(
    'event partitions',
    async () => {
      const r = await queries.eventPartitions(Date.now());
      if (r.created) log.info(r, 'event partitions made');
    },
    log,
    firstMs,
    intervalMs,
  );
}
