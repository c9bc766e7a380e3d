// `shortlink campaign create`: a name conversions are attributed to.
import * as ws from '../../db/repos/workspaces.ts';
import { text, type Command } from './command.ts';

export const campaignCommands: Record<string, Command> = {
  'campaign create': {
    flags: ['workspace', 'name'],
    required: ['workspace', 'name'],
    run: async ({ db, flags }) => ({
      id: await ws.createCampaign(db.knex, flags.workspace!, text(flags.name!, '--name', 200)),
    }),
  },
};
