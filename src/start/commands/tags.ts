// `shortlink tag create`: a name links are grouped under, once per workspace; recorded in the
// audit log as the dashboard's tag.created, in the tag's transaction.
import { createTag } from '../../db/repos/workspace-objects.ts';
import { audited, CLI_ACTOR, diffFields } from '../../operations/audit.ts';
import { text, unique, type Command } from './command.ts';

export const tagCommands: Record<string, Command> = {
  'tag create': {
    flags: ['workspace', 'name', 'color'],
    required: ['workspace', 'name'],
    run: async ({ db, flags }) => {
      const name = text(flags.name!, '--name', 100);
      const color = flags.color === undefined ? '#6b7280' : text(flags.color, '--color', 32);
      const workspaceId = flags.workspace!;
      return {
        id: await unique(
          audited(
            db.knex,
            CLI_ACTOR,
            workspaceId,
            (trx) => createTag(trx, workspaceId, name, color),
            (id) => ({
              action: 'tag.created',
              objectType: 'tag',
              objectId: id,
              changes: diffFields(null, { name, color }),
            }),
          ),
          `a tag named ${name} already exists in ${workspaceId}`,
        ),
      };
    },
  },
};
