// `shortlink qr create`: a QR code of a link, scanned at /qr/{code}.
import { createQrCode } from '../../db/repos/workspace-objects.ts';
import type { Command } from './command.ts';

export const qrCommands: Record<string, Command> = {
  'qr create': {
    flags: ['workspace', 'link'],
    required: ['workspace', 'link'],
    run: async ({ db, config, flags }) => {
      const { id, code } = await createQrCode(db.knex, flags.workspace!, flags.link!);
      return { id, url: `https://${config.shortDomain}/qr/${code}` };
    },
  },
};
