// `shortlink key ...`: API keys, made for a member of a workspace with the scopes named.
import { SCOPES, type Scope } from '../../domain/access.ts';
import { notFound, quoted, usage } from '../../domain/errors.ts';
import { audited, CLI_ACTOR, diffFields } from '../../operations/audit.ts';
import { createKey, revokeKey, workspaceOfKey } from '../../db/repos/api-keys.ts';
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
      return audited(
        db.knex,
        CLI_ACTOR,
        flags.workspace!,
        (trx) => createKey(trx, flags.workspace!, flags.user!, scopes as Scope[], expiresAt, name),
        (made) => ({
          action: 'api_key.created',
          objectType: 'api_key',
          objectId: made.id,
          // The dashboard's fields (src/http/dashboard/handlers/settings.ts); the key by name only.
          changes: { ...diffFields(null, { name, scopes, expiresAt }), key: {} },
        }),
      );
    },
  },
  'key revoke': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      const workspaceId = await workspaceOfKey(db.knex, flags.id!);
      if (!workspaceId) throw notFound(`key ${flags.id} not found`);
      await audited(
        db.knex,
        CLI_ACTOR,
        workspaceId,
        (trx) => revokeKey(trx, flags.id!),
        () => ({ action: 'api_key.revoked', objectType: 'api_key', objectId: flags.id! }),
      );
      return { id: flags.id, revoked: true };
    },
  },
};
