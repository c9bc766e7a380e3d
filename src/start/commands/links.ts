// `shortlink link policy-disable`: the operator's policy review (src/operations/links.ts).
import { policyDisable } from '../../operations/links.ts';
import type { Command } from './command.ts';

export const linkCommands: Record<string, Command> = {
  'link policy-disable': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, config, flags }) => {
      await policyDisable(db.knex, config.shortDomain, flags.id!);
      return { id: flags.id };
    },
  },
};
