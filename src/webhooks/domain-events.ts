// domain.verified (asyncapi/), for the change that verifies a domain (src/db/repos/domains.ts
// setDomainStatus runs it only when the domain was not verified yet).
import type { DbTransaction } from '../db/knex.ts';
import type { DomainRow } from '../db/repos/domains.ts';
import { domainVerifiedEvent, type ServiceEvent } from '../domain/events.ts';

export const domainVerified =
  (requestId: string | null = null) =>
  async (_trx: DbTransaction, domain: DomainRow): Promise<ServiceEvent[]> => [domainVerifiedEvent(domain, requestId)];
