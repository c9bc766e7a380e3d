// `shortlink workspace ...`: workspaces and their plans. A workspace made here starts its audit
// chain with its own making, as the first run's does; a plan changed is workspace.updated.
import { PLANS, type Plan } from '../../domain/access.ts';
import { createWorkspace, listWorkspaces, requireWorkspace, setPlan } from '../../db/repos/workspaces.ts';
import { audit, audited, CLI_ACTOR, diffFields } from '../../operations/audit.ts';
import { oneOf, text, type Command } from './command.ts';

export const workspaceCommands: Record<string, Command> = {
  'workspace create': {
    flags: ['name', 'plan'],
    required: ['name'],
    run: async ({ db, flags }) => {
      const name = text(flags.name!, '--name', 200);
      const plan = oneOf(flags.plan ?? 'growth', PLANS, '--plan') as Plan;
      const id = await db.knex.transaction(async (trx) => {
        const made = await createWorkspace(trx, name, plan);
        await audit(trx, CLI_ACTOR, made, {
          action: 'workspace.created',
          objectType: 'workspace',
          objectId: made,
          changes: diffFields(null, { name, plan }),
        });
        return made;
      });
      return { id };
    },
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
      const workspaceId = flags.workspace!;
      let before: Plan | undefined;
      await audited(
        db.knex,
        CLI_ACTOR,
        workspaceId,
        async (trx) => {
          before = (await requireWorkspace(trx, workspaceId)).plan;
          await setPlan(trx, workspaceId, plan);
        },
        // The same plan again changes nothing, and records nothing.
        () =>
          before === plan
            ? []
            : {
                action: 'workspace.updated',
                objectType: 'workspace',
                objectId: workspaceId,
                changes: diffFields({ plan: before }, { plan }),
              },
      );
      return { id: workspaceId, plan };
    },
  },
};
