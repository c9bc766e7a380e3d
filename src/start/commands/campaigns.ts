// `shortlink campaign create`: a name conversions are attributed to; recorded as the dashboard's
// campaign.created, in the campaign's transaction.
import { createCampaign } from '../../db/repos/workspace-objects.ts';
import { audited, CLI_ACTOR, diffFields } from '../../operations/audit.ts';
import { text, type Command } from './command.ts';

export const campaignCommands: Record<string, Command> = {
  'campaign create': {
    flags: ['workspace', 'name'],
    required: ['workspace', 'name'],
    run: async ({ db, flags }) => {
      const name = text(flags.name!, '--name', 200);
      const workspaceId = flags.workspace!;
      return {
        id: await audited(
          db.knex,
          CLI_ACTOR,
          workspaceId,
          (trx) => createCampaign(trx, workspaceId, name),
          (id) => ({
            action: 'campaign.created',
            objectType: 'campaign',
            objectId: id,
            changes: diffFields(null, { name }),
          }),
        ),
      };
    },
  },
};
