// `shortlink workspace ...`: workspaces and their plans.
import { PLANS, type Plan } from '../../domain/access.ts';
import { createWorkspace, listWorkspaces, setPlan } from '../../db/repos/workspaces.ts';
import { oneOf, text, type Command } from './command.ts';

export const workspaceCommands: Record<string, Command> = {
  'workspace create': {
    flags: ['name', 'plan'],
    required: ['name'],
    run: async ({ db, flags }) => ({
      id: await createWorkspace(
        db.knex,
        text(flags.name!, '--name', 200),
        oneOf(flags.plan ?? 'growth', PLANS, '--plan') as Plan,
      ),
    }),
  },
  // Variant A's webhook body names the workspace, which no API answer returns: this is where a
  // key holder's operator finds its id.
  'workspace list': {
    flags: [],
    required: [],
    run: async ({ db }) => ({ data: await listWorkspaces(db.knex) }),
  },
  'workspace set-plan': {
    flags: ['workspace', 'plan'],
    required: ['workspace', 'plan'],
    run: async ({ db, flags }) => {
      const plan = oneOf(flags.plan!, PLANS, '--plan');
      await setPlan(db.knex, flags.workspace!, plan);
      return { id: flags.workspace, plan };
    },
  },
};
