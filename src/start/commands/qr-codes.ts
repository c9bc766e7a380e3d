// `shortlink qr create`: a QR code of a link, scanned at /qr/{code}; recorded as the dashboard's
// qr_code.created, in the code's transaction.
import { createQrCode } from '../../db/repos/workspace-objects.ts';
import { audited, CLI_ACTOR } from '../../operations/audit.ts';
import type { Command } from './command.ts';

export const qrCommands: Record<string, Command> = {
  'qr create': {
    flags: ['workspace', 'link'],
    required: ['workspace', 'link'],
    run: async ({ db, config, flags }) => {
      const workspaceId = flags.workspace!;
      const linkId = flags.link!;
      const { id, code } = await audited(
        db.knex,
        CLI_ACTOR,
        workspaceId,
        (trx) => createQrCode(trx, workspaceId, linkId),
        (made) => ({
          action: 'qr_code.created',
          objectType: 'qr_code',
          objectId: made.id,
          changes: { linkId: { to: linkId } },
        }),
      );
      return { id, url: `https://${config.shortDomain}/qr/${code}` };
    },
  },
};
