// What the delivery worker (worker.ts) settles now and then besides its own attempts: attempts
// whose lease ran out (their process stopped), and pending deliveries whose subscription is gone.
// Any process may settle them; every write is fenced on the lease as it was on record
// (src/db/repos/webhook-delivery-leases.ts), so one settles each.
import type { Logger } from 'pino';
import type { Db } from '../db/knex.ts';
import { expiredLeases, failOrphaned, settleExpired } from '../db/repos/webhook-delivery-leases.ts';
import { deliveryOutcome, type AttemptResult } from '../domain/webhook-delivery.ts';

/**
 * Settles the expired leases and orphaned deliveries due at `now`; `wakeIn` is told when a
 * retry it scheduled falls due. A lost attempt says nothing of the endpoint's health: it ended
 * with this service's process.
 */
export async function sweepOutbox(
  o: { knex: Db; log: Logger; retryScale: number },
  now: number,
  clock: () => number,
  wakeIn: (ms: number) => void,
): Promise<void> {
  for (const e of await expiredLeases(o.knex, now)) {
    const result: AttemptResult = e.requestSent
      ? {
          kind: 'lost',
          error:
            'the process making this attempt stopped after writing the request; whether the endpoint acted cannot be told',
        }
      : {
          kind: 'not_sent',
          error: 'the process making this attempt stopped before writing the request (nothing was sent)',
        };
    const decision = deliveryOutcome(e.variant, e.attemptInRound, result, o.retryScale);
    if (await settleExpired(o.knex, e, decision, result, clock())) {
      o.log.warn(
        { delivery: e.id, attempt: e.attempt, previousOwner: e.owner, status: decision.status },
        'settled a webhook attempt whose lease ran out',
      );
      // A timer may fire a millisecond before the wall clock reaches the due time.
      if (decision.status === 'PENDING') wakeIn(decision.retryInMs + 2);
    }
  }
  const orphaned = await failOrphaned(o.knex, now);
  if (orphaned)
    o.log.info({ deliveries: orphaned }, 'webhook deliveries of deleted or disabled subscriptions marked FAILED');
}
