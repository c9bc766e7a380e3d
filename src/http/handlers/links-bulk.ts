// The bulk links API (openapi/paths/api_v1_links_bulk.yaml): each item answered in its place as
// the single operation would answer it. An item of POST is checked against createLink's own
// schema here, one item at a time, so that a bad item is that item's 400 and not the call's.
import { invalid, type AppError } from '../../domain/errors.ts';
import { bulkLinkOperations, MAX_BULK_ITEMS, type ItemOutcome } from '../../operations/links-bulk.ts';
import type { LinkOperations } from '../../operations/links.ts';
import { errorAnswer } from '../errors.ts';
import type { Services } from '../services.ts';
import { actorOf } from './links.ts';
import type { Handlers, OperationId, ResultOf } from './types.ts';

/** The contract's check of a body of another operation: null when it passes, else its 400. */
export type BodyCheck = (operationId: OperationId, body: unknown) => AppError | null;

type ItemError = { status: 400 | 403 | 404 | 409; error: string; field?: string };

/** An item's refusal as the single operation's error answer would be, with its status. */
function itemError(err: AppError): ItemError {
  const { status, body } = errorAnswer(err);
  return { status: status as ItemError['status'], error: body.error, ...(body.field ? { field: body.field } : {}) };
}

export function linkBulkHandlers(
  services: Services,
  operations: LinkOperations,
  definition: any,
  checkBody: BodyCheck,
): Pick<Handlers, 'createLinksBulk' | 'updateLinksBulk' | 'deleteLinksBulk'> {
  const bulk = bulkLinkOperations(services, operations);
  // As POST /api/v1/links: unrecognised keys are ignored and named in meta.ignoredFields.
  const createFields = new Set(Object.keys(definition.components.schemas.LinkCreate.properties));

  async function changed<R>(outcomes: Array<ItemOutcome<R>>, answer: (r: R) => Promise<any>) {
    return Promise.all(outcomes.map((o) => ('ok' in o ? answer(o.ok) : itemError(o.error))));
  }

  return {
    async createLinksBulk({ body, headers }, { auth, requestId, audit }): Promise<ResultOf<'createLinksBulk'>> {
      const actor = actorOf(auth, requestId, audit);
      const key = headers['idempotency-key'] as string | undefined;
      const data = await bulk.idempotent(actor, 'createLinksBulk', key, body, async () => {
        const ignored: string[][] = [];
        const items = body.links.map((item, i) => {
          ignored[i] = Object.keys(item).filter((k) => !createFields.has(k));
          const refused = checkBody('createLink', item);
          if (refused) return refused;
          // Only LinkCreate's fields reach the operation, as a single create's body does.
          return Object.fromEntries(Object.entries(item).filter(([k]) => createFields.has(k)));
        });
        const outcomes = await bulk.create(actor, items as any);
        const links = await bulk.present(
          auth.workspaceId,
          outcomes.flatMap((o) => ('ok' in o ? [o.ok] : [])),
        );
        return outcomes.map((o, i) => {
          if (!('ok' in o)) return itemError(o.error);
          const link = { status: 201 as const, data: links.get(o.ok.id)! };
          return ignored[i].length ? { ...link, meta: { ignoredFields: ignored[i] } } : link;
        });
      });
      return { status: 200, body: { data } };
    },

    async updateLinksBulk({ body }, { auth, requestId, audit }): Promise<ResultOf<'updateLinksBulk'>> {
      const outcomes = await bulk.update(actorOf(auth, requestId, audit), body.ids, body.changes);
      // Every changed link's tags and clicks in one read, not one per item.
      const links = await bulk.present(
        auth.workspaceId,
        outcomes.flatMap((o) => ('ok' in o ? [o.ok.row] : [])),
      );
      const data = await changed(outcomes, async ({ row, result }) => {
        const link = links.get(row.id)!;
        return result.outcome === 'success' ? { status: 200, data: link } : { status: 207, data: link, result };
      });
      return { status: 200, body: { data } };
    },

    async deleteLinksBulk({ query }, { auth, requestId, audit }): Promise<ResultOf<'deleteLinksBulk'>> {
      const ids = String(query.ids).split(',');
      if (ids.length > MAX_BULK_ITEMS || ids.some((id) => id === ''))
        throw invalid(`ids must name 1 to ${MAX_BULK_ITEMS} link ids, separated by commas`, 'ids');
      const outcomes = await bulk.remove(actorOf(auth, requestId, audit), ids);
      const data = await changed(outcomes, async ({ row, result }) => ({
        status: result.outcome === 'success' ? 200 : 207,
        data: { id: row.id, deleted: true as const },
        result,
      }));
      return { status: 200, body: { data } };
    },
  };
}
