// Tags, QR codes and custom domains in the public API (openapi/paths/api_v1_tags*.yaml,
// api_v1_qr_codes*.yaml, api_v1_domains.yaml): the dashboard's operations, acting in the key's
// workspace. Like createLink, they need only the key's scope (openapi.yaml, Roles).
import { listDomains } from '../../operations/domains.ts';
import type { qrCodeOperations } from '../../operations/qr-codes.ts';
import { canDeleteLinks } from '../../domain/access.ts';
import { requireRoleTo } from '../../operations/link-rules.ts';
import { createTag, deleteTag, listTags, updateTag } from '../../operations/tags.ts';
import type { Services } from '../services.ts';
import type { Handlers, ResultOf } from './types.ts';

export function workspaceObjectHandlers(
  services: Services,
  qrCodes: ReturnType<typeof qrCodeOperations>,
): Pick<
  Handlers,
  | 'listTags'
  | 'createTag'
  | 'updateTag'
  | 'deleteTag'
  | 'listQrCodes'
  | 'createQrCode'
  | 'getQrCode'
  | 'deleteQrCode'
  | 'listDomains'
> {
  const { knex } = services.db;
  return {
    async listTags(_request, { auth }): Promise<ResultOf<'listTags'>> {
      return { status: 200, body: { data: await listTags(knex, auth.workspaceId) } };
    },

    async createTag({ body }, { auth, audit }): Promise<ResultOf<'createTag'>> {
      return { status: 201, body: { data: await createTag(knex, audit, auth.workspaceId, body) } };
    },

    async updateTag({ params, body }, { auth, audit }): Promise<ResultOf<'updateTag'>> {
      return { status: 200, body: { data: await updateTag(knex, audit, auth.workspaceId, params.id, body) } };
    },

    async deleteTag({ params }, { auth, audit }): Promise<ResultOf<'deleteTag'>> {
      // Deleting is for those who may delete links: a tag leaves every link that had it.
      await requireRoleTo(knex, { ...auth, via: 'key' }, canDeleteLinks, 'delete tags');
      await deleteTag(knex, audit, auth.workspaceId, params.id);
      return { status: 204 };
    },

    async listQrCodes({ query }, { auth }): Promise<ResultOf<'listQrCodes'>> {
      const page = Number(query.page ?? 1);
      const limit = Number(query.limit ?? 20);
      return { status: 200, body: await qrCodes.page(auth.workspaceId, page, limit, query.linkId) };
    },

    async createQrCode({ body }, { auth, audit }): Promise<ResultOf<'createQrCode'>> {
      return { status: 201, body: { data: await qrCodes.create(audit, auth.workspaceId, body.linkId) } };
    },

    async getQrCode({ params }, { auth }): Promise<ResultOf<'getQrCode'>> {
      return { status: 200, body: { data: await qrCodes.get(auth.workspaceId, params.id) } };
    },

    async deleteQrCode({ params }, { auth, audit }): Promise<ResultOf<'deleteQrCode'>> {
      // Its printed code stops working: as deleting a link, for OWNER and ADMIN.
      await requireRoleTo(knex, { ...auth, via: 'key' }, canDeleteLinks, 'delete QR codes');
      await qrCodes.remove(audit, auth.workspaceId, params.id);
      return { status: 204 };
    },

    async listDomains(_request, { auth }): Promise<ResultOf<'listDomains'>> {
      return { status: 200, body: { data: await listDomains(knex, auth.workspaceId) } };
    },
  };
}
