// link_changes: every change that can alter what an address resolves to is written here in the
// same transaction; each process polls the recent rows to drop stale redirect-cache entries
// (src/redirect/changes.ts).
import type { Knex } from 'knex';

export type LinkChangeKind = 'link' | 'domain' | 'page' | 'applinks';

/**
 * The slug of an `applinks` change (a domain's /.well-known/ documents changed). The feed hands
 * it on as a link change; no link has this slug (a slug has no `/`), so a redirect cache that
 * is not told apart drops nothing that exists (src/start/server.ts tells it apart).
 */
export const APP_LINKS_CHANGED = '/.well-known';

export interface LinkChange {
  /** The row's id: a process applies each change once, however often its window reads it. */
  id: number | string;
  created_at: number | string;
  kind: LinkChangeKind;
  /** '' for the shared short domain, else the custom domain's id. */
  domain_key: string;
  /**
   * The slug (kind link), the domain's host (kind domain), the bio page's handle (kind page) or
   * APP_LINKS_CHANGED (kind applinks).
   */
  slug: string;
}

export async function recordLinkChange(
  trx: Knex,
  kind: LinkChangeKind,
  domainKey: string,
  slug: string,
): Promise<void> {
  await trx('link_changes').insert({ kind, domain_key: domainKey, slug, created_at: Date.now() });
}

/** recordLinkChange for many links at once: one statement per 200, since each is a round trip on Postgres. */
export async function recordLinkChanges(
  trx: Knex,
  kind: LinkChangeKind,
  addresses: Array<{ domainKey: string; slug: string }>,
): Promise<void> {
  const now = Date.now();
  const rows = addresses.map((a) => ({ kind, domain_key: a.domainKey, slug: a.slug, created_at: now }));
  for (let i = 0; i < rows.length; i += 200) await trx('link_changes').insert(rows.slice(i, i + 200));
}

export async function changesSince(knex: Knex, since: number): Promise<LinkChange[]> {
  return knex('link_changes').where('created_at', '>=', since).select('id', 'created_at', 'kind', 'domain_key', 'slug');
}

/** Deletes changes older than `before`; looks first, since a DELETE takes SQLite's write lock even when it matches nothing. */
export async function pruneLinkChanges(knex: Knex, before: number): Promise<void> {
  const old = knex('link_changes').where('created_at', '<', before);
  if (await old.clone().first('id')) await old.delete();
}
