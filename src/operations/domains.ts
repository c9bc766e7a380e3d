// Custom domains: claimed by a workspace, verified by a DNS TXT record only this service can
// make for it (MASTER_KEY), disabled. Another workspace's unverified claim does not stand in the
// way of a claim; a verified domain does (409). A claim left unverified past its time lapses.
import { withAudit, type AuditActor } from './audit.ts';
import { createHmac } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import * as domains from '../db/repos/domains.ts';
import { claimExpired, hostProblem, verificationRecord } from '../domain/domains.ts';
import { conflict, invalid, notFound, quoted } from '../domain/errors.ts';
import { domainVerified } from '../webhooks/domain-events.ts';

export interface DomainDeps {
  knex: Db;
  config: Pick<Config, 'shortDomain' | 'publicUrl'>;
  masterKey: Buffer;
  /** DNS TXT lookups (node:dns by default; tests answer their own). */
  resolveTxt: (name: string) => Promise<string[][]>;
}

/** What a domain must publish: a proof only this service (MASTER_KEY) can make for it. */
export const verification = (deps: Pick<DomainDeps, 'config' | 'masterKey'>, domain: domains.DomainRow) => ({
  cname: deps.config.shortDomain.replace(/:\d+$/, ''),
  ...verificationRecord(
    domain.host,
    createHmac('sha256', deps.masterKey).update(`domain ${domain.id}`).digest('hex').slice(0, 32),
  ),
});

export async function domainOf(knex: Db, workspaceId: string, id: string): Promise<domains.DomainRow> {
  const domain = await domains.findDomainOf(knex, workspaceId, id);
  if (!domain) throw notFound('Domain not found');
  return domain;
}

/**
 * The workspace's domains as the public API lists them: no verification record (managing a
 * domain stays in the dashboard). A claim left unverified past its time reads EXPIRED, as there.
 */
export async function listDomains(knex: Db, workspaceId: string) {
  const now = Date.now();
  return (await domains.domainsOf(knex, workspaceId)).map((d) => ({
    id: d.id,
    host: d.host,
    status: claimExpired(d, now) ? ('EXPIRED' as const) : d.status,
    verifiedAt:
      d.verified_at === null || d.verified_at === undefined ? null : new Date(Number(d.verified_at)).toISOString(),
  }));
}

/** Claims the host for the workspace; its name without a port, as requests are matched. */
export async function addDomain(
  deps: Pick<DomainDeps, 'knex' | 'config'>,
  workspaceId: string,
  raw: string,
): Promise<string> {
  const host = raw.trim().toLowerCase();
  const problem = hostProblem(host, [deps.config.shortDomain, new URL(deps.config.publicUrl).host]);
  if (problem) throw invalid(`host ${problem}`, 'host');
  return domains.addDomain(deps.knex, workspaceId, host);
}

/** Verifies the claim when the TXT record holds the proof; raises domain.verified with it. */
export async function verifyDomain(
  deps: DomainDeps,
  workspaceId: string,
  id: string,
  requestId: string | null,
  actor: AuditActor,
): Promise<void> {
  const domain = await domainOf(deps.knex, workspaceId, id);
  if (claimExpired(domain, Date.now())) {
    throw conflict(`The claim on ${domain.host} lapsed unverified; add the domain again for a new record`);
  }
  const { txtName, txtValue } = verification(deps, domain);
  let records: string[] = [];
  try {
    records = (await deps.resolveTxt(txtName)).map((chunks) => chunks.join(''));
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code && code !== 'ENOTFOUND' && code !== 'ENODATA' ? ` (${code})` : '';
    throw conflict(`No TXT record ${txtName} was found${why}; publish ${txtName} = ${txtValue}, then verify again`);
  }
  if (!records.includes(txtValue)) {
    const found = records.length ? ` (found: ${records.map(quoted).join(', ')})` : '';
    throw conflict(`The TXT record ${txtName} does not hold ${txtValue}${found}`);
  }
  // Recorded only when this call verifies it (a second verification changes nothing).
  await domains.setDomainStatus(
    deps.knex,
    domain.id,
    'ACTIVE',
    withAudit(domainVerified(requestId), actor, workspaceId, (d) => ({
      action: 'domain.verified',
      objectType: 'domain',
      objectId: d.id,
      changes: { host: { to: d.host }, status: { to: 'ACTIVE' } },
    })),
  );
}

export async function disableDomain(knex: Db, workspaceId: string, id: string): Promise<void> {
  const domain = await domainOf(knex, workspaceId, id);
  await domains.setDomainStatus(knex, domain.id, 'DISABLED');
}
