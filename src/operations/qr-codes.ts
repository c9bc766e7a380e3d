// QR codes through the public API: made for a live link of the workspace, listed, read, deleted.
// A code is scanned at /qr/{code} on the shared short domain and drawn at /qr/{code}.svg and .png
// (src/redirect/qr-route.ts), so its addresses are built from SHORT_DOMAIN, as the dashboard's are.
import * as qrCodes from '../db/repos/qr-codes.ts';
import { createQrCode as insertQrCode } from '../db/repos/workspace-objects.ts';
import { isAppError, notFound } from '../domain/errors.ts';
import type { OperationServices } from './services.ts';
import { audit, type AuditActor } from './audit.ts';

export interface QrCodeView {
  id: string;
  linkId: string;
  url: string;
  svgUrl: string;
  pngUrl: string;
  createdAt: string;
}

export function qrCodeOperations(services: Pick<OperationServices, 'db' | 'queries' | 'config' | 'linkCache' | 'log'>) {
  const { knex } = services.db;
  const present = (row: qrCodes.QrCodeRow): QrCodeView => {
    const url = `https://${services.config.shortDomain}/qr/${row.code}`;
    return {
      id: row.id,
      linkId: row.link_id,
      url,
      svgUrl: `${url}.svg`,
      pngUrl: `${url}.png`,
      createdAt: new Date(Number(row.created_at)).toISOString(),
    };
  };
  const live = async (workspaceId: string, id: string) => {
    const row = await qrCodes.findLiveQrCode(knex, workspaceId, id);
    if (!row) throw notFound('QR code not found');
    return row;
  };

  return {
    async create(actor: AuditActor, workspaceId: string, linkId: string): Promise<QrCodeView> {
      let id: string;
      try {
        id = await knex.transaction(async (trx) => {
          const made = await insertQrCode(trx, workspaceId, linkId);
          const changes = { linkId: { to: linkId } };
          await audit(trx, actor, workspaceId, {
            action: 'qr_code.created',
            objectType: 'qr_code',
            objectId: made.id,
            changes,
          });
          return made.id;
        });
      } catch (err) {
        // The repository's message names the workspace; the API's 404 names only what was asked.
        if (isAppError(err, 'not_found')) throw notFound('Link not found');
        throw err;
      }
      return present(await live(workspaceId, id));
    },

    async page(workspaceId: string, page: number, limit: number, linkId?: string) {
      // On the query threads on SQLite, as the link list: the count grows with the workspace's codes.
      const { rows, total } = await services.queries.qrCodesPage(workspaceId, page, limit, linkId);
      return { data: rows.map(present), meta: { page, limit, total } };
    },

    async get(workspaceId: string, id: string): Promise<QrCodeView> {
      return present(await live(workspaceId, id));
    },

    /** Scans of the code answer 404 from the next one: this process drops it now, others by the change feed. */
    async remove(actor: AuditActor, workspaceId: string, id: string): Promise<void> {
      const address = await knex.transaction(async (trx) => {
        const deleted = await qrCodes.softDeleteQrCode(trx, workspaceId, id);
        if (!deleted) throw notFound('QR code not found');
        await audit(trx, actor, workspaceId, { action: 'qr_code.deleted', objectType: 'qr_code', objectId: id });
        return deleted;
      });
      await services.linkCache.invalidate([address]).catch((err) => {
        services.log.warn({ err }, 'dropping a deleted QR code from the redirect cache failed; the change feed will');
      });
    },
  };
}
