// The links API (openapi/paths/api_v1_links*.yaml): the shared link operations
// (src/operations/links.ts) as the API's operations, acting as the key's creator.
import type { AuthContext } from '../auth.ts';
import type { AuditActor } from '../../domain/audit.ts';
import type { LinkRow, TagRow } from '../../db/repos/links.ts';
import type { Actor, LinkOperations } from '../../operations/links.ts';
import { presentLink } from '../../operations/link-presenter.ts';
import { linkListSearch } from '../../operations/link-list.ts';
import type { Services } from '../services.ts';
import type { Handlers, ResultOf } from './types.ts';

/** The key acts as the user who created it. */
export const actorOf = (auth: AuthContext, requestId: string | null, audit: AuditActor): Actor => ({
  workspaceId: auth.workspaceId,
  userId: auth.userId,
  plan: auth.plan,
  requestId,
  via: 'key',
  audit,
});

export function linkHandlers(
  services: Services,
  operations: LinkOperations,
  definition: any,
): Pick<Handlers, 'listLinks' | 'getLink' | 'createLink' | 'updateLink' | 'deleteLink'> {
  // POST ignores unrecognised keys (and names them in meta.ignoredFields).
  const createFields = new Set(Object.keys(definition.components.schemas.LinkCreate.properties));
  type Found = { rows: LinkRow[]; tags: Map<string, TagRow[]>; clicks: Map<string, number> };
  const presentAll = ({ rows, tags, clicks }: Found) =>
    rows.map((r) => presentLink(r, tags.get(r.id) ?? [], clicks.get(r.id) ?? 0));
  return {
    async listLinks({ query }, { auth }): Promise<ResultOf<'listLinks'>> {
      const page = Number(query.page ?? 1);
      const limit = Number(query.limit ?? 20);
      const search = linkListSearch(query, page, limit);
      if (!search) {
        // The interface's own page: every live link counted, and meta exactly as it names it.
        const found = await services.queries.linksPage(auth.workspaceId, page, limit);
        return { status: 200, body: { data: presentAll(found), meta: { page, limit, total: found.total } } };
      }
      const found = await services.queries.linkSearch(auth.workspaceId, search);
      const meta = { page, limit, total: found.total, totalCapped: found.totalCapped };
      return { status: 200, body: { data: presentAll(found), meta } };
    },

    async getLink({ params }, { auth, requestId, audit }): Promise<ResultOf<'getLink'>> {
      return {
        status: 200,
        body: { data: await operations.present(await operations.get(actorOf(auth, requestId, audit), params.id)) },
      };
    },

    async createLink(request, { auth, requestId, audit }): Promise<ResultOf<'createLink'>> {
      const body = request.body as Record<string, unknown>;
      const ignoredFields = Object.keys(body).filter((k) => !createFields.has(k));
      const row = await operations.create(actorOf(auth, requestId, audit), request.body);
      const data = await operations.present(row);
      return { status: 201, body: ignoredFields.length ? { data, meta: { ignoredFields } } : { data } };
    },

    async updateLink({ params, body }, { auth, requestId, audit }): Promise<ResultOf<'updateLink'>> {
      const { row, result } = await operations.update(actorOf(auth, requestId, audit), params.id, body);
      const data = await operations.present(row);
      return result.outcome === 'success' ? { status: 200, body: { data } } : { status: 207, body: { data, result } };
    },

    async deleteLink({ params }, { auth, requestId, audit }): Promise<ResultOf<'deleteLink'>> {
      const { row, result } = await operations.remove(actorOf(auth, requestId, audit), params.id);
      return {
        status: result.outcome === 'success' ? 200 : 207,
        body: { data: { id: row.id, deleted: true }, result },
      };
    },
  };
}
