// `shortlink domain ...`: custom domains, added, verified by the operator, disabled.
import { hostProblem } from '../../domain/domains.ts';
import { quoted, usage } from '../../domain/errors.ts';
import { addDomain, setDomainStatus } from '../../db/repos/domains.ts';
import { domainVerified } from '../../webhooks/domain-events.ts';
import type { Command } from './command.ts';

export const domainCommands: Record<string, Command> = {
  'domain add': {
    flags: ['workspace', 'host'],
    required: ['workspace', 'host'],
    run: async ({ db, config, flags }) => {
      // Requests are matched on the Host header's name without its port, so a port could never match.
      const host = flags.host!.trim().toLowerCase();
      const problem = hostProblem(host, [config.shortDomain, new URL(config.publicUrl).host]);
      if (problem) throw usage(`--host ${problem}; got ${quoted(flags.host)}`);
      // As in the dashboard: another workspace's unverified claim does not block; a verified domain does.
      return { id: await addDomain(db.knex, flags.workspace!, host) };
    },
  },
  'domain verify': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      await setDomainStatus(db.knex, flags.id!, 'ACTIVE', domainVerified());
      return { id: flags.id };
    },
  },
  'domain disable': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      await setDomainStatus(db.knex, flags.id!, 'DISABLED');
      return { id: flags.id };
    },
  },
};
