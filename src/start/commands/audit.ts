// `shortlink audit list|verify`: the audit log as the operator reads it, and the check of each
// workspace's hash chain (src/operations/audit-log.ts). Neither changes an entry.
import { conflict } from '../../domain/errors.ts';
import { auditedWorkspaces, eachAudit, verifyChain, type ChainCheck } from '../../operations/audit-log.ts';
import { workspaceOf } from '../../operations/workspaces.ts';
import { isoTime, type Command } from './command.ts';

export const auditCommands: Record<string, Command> = {
  'audit list': {
    flags: ['workspace', 'since'],
    required: ['workspace'],
    run: async ({ db, flags }) => {
      const workspace = await workspaceOf(db.knex, flags.workspace!);
      const since = isoTime(flags.since, '--since') ?? undefined;
      const data = [];
      for await (const batch of eachAudit(db.knex, { workspaceId: workspace.id, since }))
        for (const e of batch)
          data.push({
            at: e.at,
            actor: { type: e.actor.type, id: e.actor.id },
            action: e.action,
            objectType: e.objectType,
            objectId: e.objectId,
          });
      return { data };
    },
  },
  'audit verify': {
    flags: ['workspace'],
    required: [],
    // Every workspace's chain, or the one named; exits 1 naming the first entry that does not hold.
    run: async ({ db, flags }) => {
      const ids = flags.workspace
        ? [(await workspaceOf(db.knex, flags.workspace)).id]
        : await auditedWorkspaces(db.knex);
      const checks: ChainCheck[] = [];
      for (const id of ids) {
        const check = await verifyChain(db.knex, id);
        if (!check.ok) {
          const bad = check.firstBad!;
          throw conflict(
            `audit chain of workspace ${id} is broken at entry ${bad.seq}${bad.id ? ` (${bad.id})` : ''}: ${bad.reason}`,
          );
        }
        checks.push(check);
      }
      return {
        ok: true,
        workspaces: checks.map((c) => ({ workspaceId: c.workspaceId, checked: c.checked, anchoredAt: c.anchoredAt })),
      };
    },
  },
};
