// `shortlink key ...`: API keys, made for a member of a workspace with the scopes named.
import { SCOPES, type Scope } from '../../domain/access.ts';
import { quoted, usage } from '../../domain/errors.ts';
import { createKey, revokeKey } from '../../db/repos/api-keys.ts';
import { keyName } from '../../operations/keys.ts';
import { isoTime, listFlag, type Command } from './command.ts';

export const keyCommands: Record<string, Command> = {
  'key create': {
    flags: ['workspace', 'user', 'scopes', 'expires-at', 'name'],
    required: ['workspace', 'user', 'scopes'],
    run: async ({ db, flags }) => {
      const scopes = [...new Set(listFlag(flags.scopes!))];
      if (!scopes.length) throw usage(`--scopes needs at least one of ${SCOPES.join(', ')}`);
      const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown.length) throw usage(`unknown scopes: ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
      const expiresAt = isoTime(flags['expires-at'], '--expires-at');
      if (expiresAt !== null && expiresAt <= Date.now()) {
        throw usage(`--expires-at must be in the future; got ${quoted(flags['expires-at'])}`);
      }
      // The dashboard's rule for a name: optional, trimmed, at most 100 characters.
      const name = keyName(flags.name, '--name');
      return createKey(db.knex, flags.workspace!, flags.user!, scopes as Scope[], expiresAt, name);
    },
  },
  'key revoke': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      await revokeKey(db.knex, flags.id!);
      return { id: flags.id, revoked: true };
    },
  },
};
