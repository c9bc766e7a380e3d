// `shortlink campaign create`: a name conversions are attributed to.
import { createCampaign } from '../../db/repos/workspace-objects.ts';
import { text, type Command } from './command.ts';

export const campaignCommands: Record<string, Command> = {
  'campaign create': {
    flags: ['workspace', 'name'],
    required: ['workspace', 'name'],
    run: async ({ db, flags }) => ({
      id: await createCampaign(db.knex, flags.workspace!, text(flags.name!, '--name', 200)),
    }),
  },
};
