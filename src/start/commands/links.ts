// `shortlink link policy-disable`: the operator's policy review (src/operations/links.ts), recorded
// in the link's workspace as link.updated, as the dashboard records a link's status changed.
import { CLI_ACTOR } from '../../operations/audit.ts';
import { policyDisable } from '../../operations/links.ts';
import type { Command } from './command.ts';

export const linkCommands: Record<string, Command> = {
  'link policy-disable': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, config, flags }) => {
      await policyDisable(db.knex, config.shortDomain, flags.id!, CLI_ACTOR);
      return { id: flags.id };
    },
  },
};
