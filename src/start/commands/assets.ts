// `shortlink asset add`: an image hosted for a workspace (link previews, page avatars); recorded as
// the dashboard's asset.uploaded, in the asset's transaction.
import fs from 'node:fs';
import path from 'node:path';
import { IMAGE_TYPES, looksLike } from '../../domain/assets.ts';
import { quoted, storageFailed, usage } from '../../domain/errors.ts';
import { addAsset } from '../../db/repos/workspace-objects.ts';
import { audited, CLI_ACTOR, createdFields } from '../../operations/audit.ts';
import type { Command } from './command.ts';

export const assetCommands: Record<string, Command> = {
  'asset add': {
    flags: ['workspace', 'file'],
    required: ['workspace', 'file'],
    run: async ({ db, config, flags }) => {
      const source = path.resolve(flags.file!);
      const ext = path.extname(source).toLowerCase();
      if (!IMAGE_TYPES[ext])
        throw usage(`--file must be a .png, .jpg, .jpeg, .gif or .webp image; got ${quoted(flags.file)}`);
      if (!fs.existsSync(source) || !fs.statSync(source).isFile()) throw usage(`--file ${flags.file} does not exist`);
      const head = Buffer.alloc(12);
      const fd = fs.openSync(source, 'r');
      try {
        fs.readSync(fd, head, 0, 12, 0);
      } finally {
        fs.closeSync(fd);
      }
      if (!looksLike(IMAGE_TYPES[ext], head)) {
        throw usage(`--file ${flags.file} is not a ${ext.slice(1)} image: its content does not match its extension`);
      }
      const dir = path.join(config.dataDir, 'assets');
      const type = IMAGE_TYPES[ext];
      const bytes = fs.statSync(source).size;
      const { fileName } = await audited(
        db.knex,
        CLI_ACTOR,
        flags.workspace!,
        (trx) =>
          addAsset(trx, flags.workspace!, ext, type, (name) => {
            try {
              fs.mkdirSync(dir, { recursive: true });
              fs.copyFileSync(source, path.join(dir, name));
            } catch (err) {
              throw storageFailed(`cannot store the asset in ${dir}: ${(err as Error).message}`);
            }
          }),
        (a) => ({
          action: 'asset.uploaded',
          objectType: 'asset',
          objectId: a.id,
          changes: createdFields({ contentType: type, bytes }),
        }),
      );
      return { url: `${config.assetBaseUrl}${fileName}` };
    },
  },
};
