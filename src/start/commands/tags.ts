// `shortlink tag create`: a name links are grouped under, once per workspace.
import { createTag } from '../../db/repos/workspace-objects.ts';
import { text, unique, type Command } from './command.ts';

export const tagCommands: Record<string, Command> = {
  'tag create': {
    flags: ['workspace', 'name', 'color'],
    required: ['workspace', 'name'],
    run: async ({ db, flags }) => {
      const name = text(flags.name!, '--name', 100);
      const color = flags.color === undefined ? '#6b7280' : text(flags.color, '--color', 32);
      return {
        id: await unique(
          createTag(db.knex, flags.workspace!, name, color),
          `a tag named ${name} already exists in ${flags.workspace}`,
        ),
      };
    },
  },
};
