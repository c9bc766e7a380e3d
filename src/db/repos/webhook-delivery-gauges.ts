// What /metrics reports of the webhook outbox.
import type { Knex } from 'knex';
import { TABLE } from './webhook-deliveries.ts';

/**
 * What /metrics reports of the outbox: deliveries waiting to be sent (PENDING, or SENDING under
 * a lease), UNKNOWN ones waiting for a person, and when the oldest waiting one was made. Counted
 * through the status index; read when scraped.
 */
export async function outboxGauges(
  knex: Knex,
): Promise<{ waiting: number; unknown: number; oldestWaitingAt: number | null }> {
  const rows: Array<{ status: string; n: number | string; oldest: number | string | null }> = await knex(TABLE)
    .whereIn('status', ['PENDING', 'SENDING', 'UNKNOWN'])
    .groupBy('status')
    .select('status')
    .count({ n: '*' })
    .min({ oldest: 'created_at' });
  let waiting = 0;
  let unknown = 0;
  let oldestWaitingAt: number | null = null;
  for (const r of rows) {
    if (r.status === 'UNKNOWN') unknown = Number(r.n);
    else {
      waiting += Number(r.n);
      if (r.oldest !== null && (oldestWaitingAt === null || Number(r.oldest) < oldestWaitingAt))
        oldestWaitingAt = Number(r.oldest);
    }
  }
  return { waiting, unknown, oldestWaitingAt };
}
