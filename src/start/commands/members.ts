// `shortlink member ...`: the people in a workspace and their roles (src/operations/members.ts),
// each change recorded as the dashboard records it. `reset-password` changes no workspace: it
// issues a one-time link, and the password it sets is recorded (user.password_set) when used.
import { ROLES, type Role } from '../../domain/access.ts';
import { quoted, usage } from '../../domain/errors.ts';
import { removeMember, roleOf, setRole } from '../../db/repos/workspaces.ts';
import { audited, CLI_ACTOR, diffFields } from '../../operations/audit.ts';
import { addMember, resetPassword } from '../../operations/members.ts';
import { oneOf, text, type Command } from './command.ts';

export const memberCommands: Record<string, Command> = {
  'member add': {
    flags: ['workspace', 'email', 'role'],
    required: ['workspace', 'email', 'role'],
    run: async ({ db, config, flags }) => {
      if (!/^[^@\s]+@[^@\s]+$/.test(flags.email!.trim()))
        throw usage(`--email must be an e-mail address; got ${quoted(flags.email)}`);
      text(flags.email!, '--email', 320);
      const role = oneOf(flags.role!, ROLES, '--role') as Role;
      return addMember(db.knex, config, flags.workspace!, flags.email!, role, CLI_ACTOR);
    },
  },
  'member reset-password': {
    flags: ['email'],
    required: ['email'],
    run: async ({ db, config, flags }) => resetPassword(db.knex, config, flags.email!),
  },
  'member set-role': {
    flags: ['workspace', 'user', 'role'],
    required: ['workspace', 'user', 'role'],
    run: async ({ db, flags }) => {
      const role = oneOf(flags.role!, ROLES, '--role') as Role;
      let before: Role | null = null;
      await audited(
        db.knex,
        CLI_ACTOR,
        flags.workspace!,
        async (trx) => {
          before = await roleOf(trx, flags.workspace!, flags.user!);
          await setRole(trx, flags.workspace!, flags.user!, role);
        },
        () => ({
          action: 'member.role_changed',
          objectType: 'member',
          objectId: flags.user!,
          changes: diffFields({ role: before }, { role }),
        }),
      );
      return { id: flags.user };
    },
  },
  'member remove': {
    flags: ['workspace', 'user'],
    required: ['workspace', 'user'],
    run: async ({ db, flags }) => {
      await audited(
        db.knex,
        CLI_ACTOR,
        flags.workspace!,
        (trx) => removeMember(trx, flags.workspace!, flags.user!),
        () => ({ action: 'member.removed', objectType: 'member', objectId: flags.user! }),
      );
      return { id: flags.user };
    },
  },
};
