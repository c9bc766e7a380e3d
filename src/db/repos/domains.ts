// A workspace's custom domains: claimed, verified (one verified row per host) or disabled.
import type { Knex } from 'knex';
import { conflict, notFound } from '../../domain/errors.ts';
import { claimExpired, claimExpiresAt } from '../../domain/domains.ts';
import { newId } from '../../domain/ids.ts';
import { isUniqueViolation } from '../knex.ts';
import { recordLinkChange } from './link-changes.ts';
import { enqueueEvents, type EmitEvents } from './outbox.ts';
import { requireWorkspace } from './workspaces.ts';

const addedHere = (host: string) => conflict(`The domain ${host} is already added to this workspace`);
const verifiedElsewhere = (host: string) =>
  conflict(`The domain ${host} is already registered: another workspace verified it`);

/**
 * Claims a host for the workspace (PENDING until verified). Claims of other workspaces do not
 * stand in the way, a verified domain does (domain/domains.ts). The workspace's own lapsed claim
 * on the host is replaced: a new id, so a new verification record.
 */
export async function addDomain(knex: Knex, workspaceId: string, host: string, now = Date.now()): Promise<string> {
  const name = host.toLowerCase();
  try {
    return await knex.transaction(async (trx) => {
      await requireWorkspace(trx, workspaceId);
      const holder = await trx('domains').where({ host: name }).whereNotNull('verified_at').first('workspace_id');
      if (holder) throw holder.workspace_id === workspaceId ? addedHere(name) : verifiedElsewhere(name);
      const mine = await trx('domains')
        .where({ workspace_id: workspaceId, host: name })
        .first('id', 'verified_at', 'created_at');
      if (mine && !claimExpired(mine, now)) throw addedHere(name);
      if (mine) await trx('domains').where({ id: mine.id }).delete();
      const id = newId('dom');
      await trx('domains').insert({ id, workspace_id: workspaceId, host: name, status: 'PENDING', created_at: now });
      return id;
    });
  } catch (err) {
    // The same workspace adding the host twice at once: the second insert meets the first.
    if (isUniqueViolation(err)) throw addedHere(name);
    throw err;
  }
}

export interface DomainRow {
  id: string;
  workspace_id: string;
  host: string;
  status: 'PENDING' | 'ACTIVE' | 'DISABLED';
  verified_at: number | null;
  created_at?: number;
}

/**
 * Verifying (ACTIVE) or disabling a domain. Verifying a domain that is not yet ACTIVE sets
 * verified_at and raises what `onVerified` returns (domain.verified) in the same transaction;
 * verifying an ACTIVE domain again changes nothing and raises nothing. A lapsed claim is not
 * verified (409), nor a host another workspace verified: one verified row per host (the
 * migration 20261203010000_domain_claims), so of two workspaces verifying it at once, exactly
 * one wins and the other's claim stays as it was.
 */
export async function setDomainStatus(
  knex: Knex,
  id: string,
  status: 'ACTIVE' | 'DISABLED',
  onVerified?: EmitEvents<[domain: DomainRow]>,
  now = Date.now(),
) {
  let host: string | undefined;
  try {
    return await knex.transaction(async (trx) => {
      const current = await trx('domains').where({ id }).first('host', 'verified_at', 'created_at');
      if (!current) throw notFound(`domain ${id} not found`);
      host = current.host;
      if (status === 'ACTIVE' && claimExpired(current, now)) {
        const lapsed = new Date(claimExpiresAt(current)!).toISOString();
        throw conflict(`The claim on ${current.host} lapsed at ${lapsed} unverified; add the domain again`);
      }
      // The status condition makes one of two racing verifications the one that sends the event.
      const verifies =
        status === 'ACTIVE' &&
        (await trx('domains').where({ id }).whereNot({ status: 'ACTIVE' }).update({ status, verified_at: now })) > 0;
      if (!verifies) await trx('domains').where({ id }).update({ status });
      const domain = await trx('domains').where({ id }).first();
      if (verifies && onVerified) await enqueueEvents(trx, await onVerified(trx, domain));
      // Redirect caches forget the host, so the domain's links start or stop resolving.
      await recordLinkChange(trx, 'domain', id, domain.host);
      return domain as DomainRow;
    });
  } catch (err) {
    if (status === 'ACTIVE' && host && isUniqueViolation(err)) throw verifiedElsewhere(host);
    throw err;
  }
}

/** Whether `host` is a custom domain some workspace verified and has not disabled. */
export async function isServedCustomDomain(knex: Knex, host: string): Promise<boolean> {
  return Boolean(await knex('domains').where({ host, status: 'ACTIVE' }).whereNotNull('verified_at').first('id'));
}

export async function domainsOf(knex: Knex, workspaceId: string): Promise<DomainRow[]> {
  return knex('domains')
    .where({ workspace_id: workspaceId })
    .orderBy('host')
    .select('id', 'workspace_id', 'host', 'status', 'verified_at', 'created_at');
}

export async function findDomainOf(knex: Knex, workspaceId: string, id: string): Promise<DomainRow | undefined> {
  return knex('domains')
    .where({ workspace_id: workspaceId, id })
    .first('id', 'workspace_id', 'host', 'status', 'verified_at', 'created_at');
}
