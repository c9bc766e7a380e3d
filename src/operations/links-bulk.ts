// The public API's bulk link operations (openapi/paths/api_v1_links_bulk.yaml). Every item is
// judged by the single operation's code (links.ts): a create by `createMany`, the many-link form
// of `create` with its rules and messages; a change by `update`; a delete by `remove`. Only the
// role is checked once for the whole call, since it is the key's and the same for every item.
import { canDeleteLinks, canUpdateLinks } from '../domain/access.ts';
import { type AppError, isAppError } from '../domain/errors.ts';
import { IDEMPOTENCY_TTL_MS, requestHash } from '../domain/idempotency.ts';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '../db/repos/idempotency.ts';
import { clickTotals, tagsOf, type LinkRow } from '../db/repos/links.ts';
import { type Link, presentLink } from './link-presenter.ts';
import type { LinkCreateWithTagNames } from './link-drafts.ts';
import { linkRules, type Actor } from './link-rules.ts';
import type { ChangeResult, LinkOperations } from './links.ts';
import type { OperationServices } from './services.ts';
import type { components } from '../../generated/api.ts';

type LinkUpdate = components['schemas']['LinkUpdate'];

/** Items per bulk call (the contract's maxItems). */
export const MAX_BULK_ITEMS = 100;
/**
 * How long a claimed key with no answer yet refuses a repeat (409): longer than any bulk call runs
 * (well under a second; a 100-item call's p99 is under 600 ms), short enough that a call whose
 * process died does not hold its key for the whole 24 hours. Its links commit in one transaction
 * (createMany's chunk holds 100), so such a call made none, unless it died between that commit and
 * storing its answer.
 */
const IDEMPOTENCY_LEASE_MS = 120_000;

/** One item's outcome: what the single operation returned, or the AppError it threw. */
export type ItemOutcome<T> = { ok: T } | { error: AppError };

/** Runs one item; an AppError is that item's answer, anything else fails the call. */
async function outcomeOf<T>(work: () => Promise<T>): Promise<ItemOutcome<T>> {
  try {
    return { ok: await work() };
  } catch (err) {
    if (!isAppError(err)) throw err;
    return { error: err };
  }
}

export function bulkLinkOperations(services: OperationServices, operations: LinkOperations) {
  const knex = services.db.knex;
  const rules = linkRules(services);

  return {
    /** The links as the API shows them, by id: their tags and clicks read once for all. */
    async present(workspaceId: string, rows: LinkRow[]): Promise<Map<string, Link>> {
      const ids = rows.map((r) => r.id);
      const [tags, clicks] = await Promise.all([tagsOf(knex, ids), clickTotals(knex, workspaceId, ids)]);
      return new Map(rows.map((r) => [r.id, presentLink(r, tags.get(r.id) ?? [], clicks.get(r.id) ?? 0)]));
    },

    /**
     * Creates the items that passed the contract's check (an item that did not is its AppError,
     * kept in its place) under `create`'s rules, each on its own, in the order given.
     */
    async create(auth: Actor, bodies: Array<LinkCreateWithTagNames | AppError>): Promise<Array<ItemOutcome<LinkRow>>> {
      const valid = bodies
        .map((body, index) => ({ body, index }))
        .filter((x): x is { body: LinkCreateWithTagNames; index: number } => !isAppError(x.body));
      const made = await operations.createMany(
        auth,
        valid.map((x) => x.body),
      );
      const out: Array<ItemOutcome<LinkRow>> = bodies.map((b) => ({ error: b as AppError }));
      valid.forEach(({ index }, i) => {
        const r = made[i];
        out[index] = 'row' in r ? { ok: r.row } : { error: r.error };
      });
      return out;
    },

    /** One change to many links, each under `update`'s rules. */
    async update(
      auth: Actor,
      ids: string[],
      changes: LinkUpdate,
    ): Promise<Array<ItemOutcome<{ row: LinkRow; result: ChangeResult }>>> {
      await rules.requireRole(auth, canUpdateLinks, 'update');
      const out: Array<ItemOutcome<{ row: LinkRow; result: ChangeResult }>> = [];
      // In order, so that the results are those of the same single calls made one after another.
      for (const id of ids) out.push(await outcomeOf(() => operations.update(auth, id, { ...changes })));
      return out;
    },

    /** Deletes many links, each as `remove` does; an id named twice is 404 the second time. */
    async remove(auth: Actor, ids: string[]): Promise<Array<ItemOutcome<{ row: LinkRow; result: ChangeResult }>>> {
      await rules.requireRole(auth, canDeleteLinks, 'delete');
      const out: Array<ItemOutcome<{ row: LinkRow; result: ChangeResult }>> = [];
      for (const id of ids) out.push(await outcomeOf(() => operations.remove(auth, id)));
      return out;
    },

    /**
     * Answers `answer()` once per Idempotency-Key and body: a repeat within 24 hours replays the
     * first answer without doing the work again. Without a key, just answers.
     */
    async idempotent<T>(
      auth: Actor,
      operationId: string,
      key: string | undefined,
      body: unknown,
      answer: () => Promise<T>,
    ): Promise<T> {
      if (!key) return answer();
      const claim = {
        workspaceId: auth.workspaceId,
        key,
        // The operation is part of the hash: a key used for a conversion is not this call's.
        requestHash: requestHash(body, operationId),
        now: Date.now(),
        ttlMs: IDEMPOTENCY_TTL_MS,
        leaseMs: IDEMPOTENCY_LEASE_MS,
      };
      const replay = await claimIdempotencyKey(knex, claim);
      if (replay !== null) return JSON.parse(replay) as T;
      let result: T;
      try {
        result = await answer();
      } catch (err) {
        await releaseIdempotencyKey(knex, auth.workspaceId, key).catch(() => undefined);
        throw err;
      }
      await completeIdempotencyKey(knex, auth.workspaceId, key, 200, JSON.stringify(result));
      return result;
    },
  };
}
