// Idempotency keys of calls whose work spans several transactions (POST /api/v1/links/bulk):
// the key is claimed before the work, holding no answer while it runs, and the answer is written
// when it is done, so a repeat replays it. The table is the one POST /api/v1/conversions writes
// in the transaction of its conversion (src/db/repos/conversions.ts); keys are per workspace.
import type { Knex } from 'knex';
import { conflict } from '../../domain/errors.ts';
import { isUniqueViolation } from '../knex.ts';
import { findIdempotencyKey } from './conversions.ts';

export interface IdempotencyClaim {
  workspaceId: string;
  key: string;
  requestHash: string;
  now: number;
  ttlMs: number;
  /**
   * How long a claim with no answer holds the key: past it, the call that claimed it is taken to
   * have died with its process (a failed call frees its key itself), and a retry runs.
   */
  leaseMs: number;
}

/**
 * Claims the key for this request, or returns the first answer (JSON) of a repeat with the same
 * body. Another body, or a repeat while the first request runs, is a conflict.
 */
export async function claimIdempotencyKey(knex: Knex, claim: IdempotencyClaim): Promise<string | null> {
  const { workspaceId, key } = claim;
  try {
    await knex.transaction(async (trx) => {
      await trx('idempotency_keys')
        .where({ workspace_id: workspaceId, key })
        .where((w) =>
          w
            .where('created_at', '<', claim.now - claim.ttlMs)
            .orWhere((stale) => stale.whereNull('response').where('created_at', '<', claim.now - claim.leaseMs)),
        )
        .delete();
      await trx('idempotency_keys').insert({
        workspace_id: workspaceId,
        key,
        request_hash: claim.requestHash,
        status_code: null,
        response: null,
        created_at: claim.now,
      });
    });
    return null;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const first = await findIdempotencyKey(knex, workspaceId, key);
    if (!first || first.request_hash !== claim.requestHash)
      throw conflict('This Idempotency-Key was already used with a different request body');
    if (!first.response) throw conflict('A request with this Idempotency-Key is still being processed');
    return first.response;
  }
}

/** Stores the answer a repeat of the claimed request replays. */
export async function completeIdempotencyKey(
  knex: Knex,
  workspaceId: string,
  key: string,
  status: number,
  response: string,
): Promise<void> {
  await knex('idempotency_keys').where({ workspace_id: workspaceId, key }).update({ status_code: status, response });
}

/** Frees a claim whose request failed before it had an answer, so a retry can run. */
export async function releaseIdempotencyKey(knex: Knex, workspaceId: string, key: string): Promise<void> {
  await knex('idempotency_keys').where({ workspace_id: workspaceId, key }).whereNull('response').delete();
}
