// App deep links: the apple-app-site-association and assetlinks.json documents a short domain
// serves at /.well-known/, so that `os: ios` / `os: android` routing rules open installed apps.
// A custom domain's are its workspace's (OWNER or ADMIN, in the dashboard); the shared short
// domain's are the operator's (`shortlink app-links set --shared`): every workspace's links live
// there, and an app claiming that host would open for all of them (an assetlinks.json
// statement cannot be limited to paths).
import type { Db } from '../db/knex.ts';
import * as appLinks from '../db/repos/app-links.ts';
import { getDomain } from '../db/repos/links.ts';
import { appLinksText, type AppLinksInput } from '../domain/app-links.ts';
import { notFound } from '../domain/errors.ts';
import { audit, type AuditActor } from './audit.ts';
import { domainOf } from './domains.ts';

export interface AppLinksOf {
  /** '' for the shared short domain. */
  domainKey: string;
  host: string;
  /** Whether the host serves them now: the shared domain always, a custom one while ACTIVE. */
  served: boolean;
  apple: unknown;
  android: unknown;
  updatedAt: number | null;
}

const parsed = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

function present(domainKey: string, host: string, served: boolean, row: appLinks.AppLinksRow): AppLinksOf {
  return {
    domainKey,
    host,
    served,
    apple: parsed(row.apple),
    android: parsed(row.android),
    updatedAt: row.updated_at,
  };
}

/** A custom domain of the workspace (404 for another workspace's) and its documents. */
export async function domainAppLinks(knex: Db, workspaceId: string, domainId: string): Promise<AppLinksOf> {
  const domain = await domainOf(knex, workspaceId, domainId);
  return present(domain.id, domain.host, domain.status === 'ACTIVE', await appLinks.appLinksOf(knex, domain.id));
}

/**
 * Replaces a custom domain's documents (one left out or null: none). A bad shape is a 400
 * naming the place (src/domain/app-links.ts) and stores nothing.
 */
export async function setDomainAppLinks(
  knex: Db,
  workspaceId: string,
  domainId: string,
  input: AppLinksInput,
): Promise<AppLinksOf> {
  const domain = await domainOf(knex, workspaceId, domainId);
  const docs = appLinksText(input);
  return present(domain.id, domain.host, domain.status === 'ACTIVE', await appLinks.setAppLinks(knex, domain.id, docs));
}

/** The operator's view: a domain by id, whatever its workspace, or the shared one (''), which is no workspace's. */
async function operatorDomain(knex: Db, domainKey: string, shortHost: string) {
  if (domainKey === '') return { host: shortHost, served: true, workspaceId: null };
  const domain = await getDomain(knex, domainKey);
  if (!domain) throw notFound(`domain ${domainKey} not found`);
  return { host: domain.host, served: domain.status === 'ACTIVE', workspaceId: domain.workspace_id };
}

export async function operatorAppLinks(knex: Db, domainKey: string, shortHost: string): Promise<AppLinksOf> {
  const { host, served } = await operatorDomain(knex, domainKey, shortHost);
  return present(domainKey, host, served, await appLinks.appLinksOf(knex, domainKey));
}

/**
 * Sets what the command line names, keeping the other document: `apple` or `android` given
 * (a document, or null to clear it) replaces that one. A custom domain's change is recorded in its
 * workspace as the dashboard's domain.app_links_changed, in the same transaction; the shared
 * domain belongs to no workspace, so its change has no workspace chain to go in.
 */
export async function setOperatorAppLinks(
  knex: Db,
  domainKey: string,
  shortHost: string,
  input: AppLinksInput,
  actor: AuditActor,
): Promise<AppLinksOf> {
  const { host, served, workspaceId } = await operatorDomain(knex, domainKey, shortHost);
  const given = appLinksText(input);
  return knex.transaction(async (trx) => {
    const current = await appLinks.appLinksOf(trx, domainKey);
    const docs = {
      apple: input.apple === undefined ? current.apple : given.apple,
      android: input.android === undefined ? current.android : given.android,
    };
    const stored = present(domainKey, host, served, await appLinks.setAppLinks(trx, domainKey, docs));
    if (workspaceId !== null)
      await audit(trx, actor, workspaceId, {
        action: 'domain.app_links_changed',
        objectType: 'domain',
        objectId: domainKey,
        changes: { apple: { to: stored.apple }, android: { to: stored.android } },
      });
    return stored;
  });
}
