// `shortlink domain ...`: custom domains, added, verified by the operator, disabled. Each change is
// recorded in its domain's workspace as the dashboard records it (domain.added, domain.verified,
// domain.disabled), in the change's transaction.
import { hostProblem } from '../../domain/domains.ts';
import { notFound, quoted, usage } from '../../domain/errors.ts';
import { addDomain, setDomainStatus } from '../../db/repos/domains.ts';
import { getDomain } from '../../db/repos/links.ts';
import type { Db } from '../../db/knex.ts';
import { audited, CLI_ACTOR, diffFields, withAudit } from '../../operations/audit.ts';
import { domainVerified } from '../../webhooks/domain-events.ts';
import type { Command } from './command.ts';

/** The domain by id, whatever its workspace (the operator names any). */
async function anyDomain(knex: Db, id: string) {
  const domain = await getDomain(knex, id);
  if (!domain) throw notFound(`domain ${id} not found`);
  return domain;
}

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
      const id = await audited(
        db.knex,
        CLI_ACTOR,
        flags.workspace!,
        (trx) => addDomain(trx, flags.workspace!, host),
        (domainId) => ({
          action: 'domain.added',
          objectType: 'domain',
          objectId: domainId,
          changes: diffFields(null, { host }),
        }),
      );
      return { id };
    },
  },
  'domain verify': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      const domain = await anyDomain(db.knex, flags.id!);
      // Recorded only when this call verifies it, as in the dashboard (src/operations/domains.ts).
      await setDomainStatus(
        db.knex,
        domain.id,
        'ACTIVE',
        withAudit(domainVerified(), CLI_ACTOR, domain.workspace_id, (d) => ({
          action: 'domain.verified',
          objectType: 'domain',
          objectId: d.id,
          changes: { host: { to: d.host }, status: { to: 'ACTIVE' } },
        })),
      );
      return { id: flags.id };
    },
  },
  'domain disable': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      const domain = await anyDomain(db.knex, flags.id!);
      await audited(
        db.knex,
        CLI_ACTOR,
        domain.workspace_id,
        (trx) => setDomainStatus(trx, domain.id, 'DISABLED'),
        () => ({
          action: 'domain.disabled',
          objectType: 'domain',
          objectId: domain.id,
          changes: { status: { to: 'DISABLED' } },
        }),
      );
      return { id: flags.id };
    },
  },
};
