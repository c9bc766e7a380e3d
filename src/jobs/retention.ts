// Retention on a schedule inside every `serve` process (deletes are idempotent, so several
// processes may run it); `shortlink retention run` runs it on demand. The deletes themselves are
// in src/db/repos/retention.ts; here they run as a query, off the event loop on SQLite.
import type { Logger } from 'pino';
import type { Queries } from '../db/queries.ts';
import { every } from './every.ts';

export const RETENTION_INTERVAL_MS = 3_600_000;

export function scheduleRetention(
  queries: Pick<Queries, 'retention'>,
  log: Logger,
  intervalMs = RETENTION_INTERVAL_MS,
  auditRetentionDays?: number,
): () => void {
  return every(
    'retention run',
    async () => {
      const r = await queries.retention(Date.now(), auditRetentionDays);
      if (r.clicksDeleted || r.conversionsDeleted || r.auditEntriesDeleted) log.info(r, 'retention removed old events');
    },
    log,
    10_000,
    intervalMs,
  );
}
