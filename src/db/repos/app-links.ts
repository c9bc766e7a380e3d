// A domain's app deep-link documents (migration 20261215000000_app_links): '' for the shared
// short domain, else a custom domain's id. A change writes link_changes in its transaction, so
// every process drops its copy of what the domain's host serves (src/http/well-known.ts).
import type { Knex } from 'knex';
import type { AppLinksText } from '../../domain/app-links.ts';
import { APP_LINKS_CHANGED, recordLinkChange } from './link-changes.ts';

export interface AppLinksRow extends AppLinksText {
  updated_at: number | null;
}

const NONE: AppLinksRow = { apple: null, android: null, updated_at: null };

export async function appLinksOf(knex: Knex, domainKey: string): Promise<AppLinksRow> {
  const row = await knex('app_links').where({ domain_key: domainKey }).first('apple', 'android', 'updated_at');
  return row ? { ...row, updated_at: Number(row.updated_at) } : NONE;
}

/** Replaces the domain's documents (both null: it has none). */
export async function setAppLinks(
  knex: Knex,
  domainKey: string,
  docs: AppLinksText,
  now = Date.now(),
): Promise<AppLinksRow> {
  return knex.transaction(async (trx) => {
    // One statement either way, so that two changes at once both succeed (the last one stays):
    // a delete followed by an insert would let both inserts meet on the key.
    if (docs.apple === null && docs.android === null) await trx('app_links').where({ domain_key: domainKey }).delete();
    else
      await trx('app_links')
        .insert({
          domain_key: domainKey,
          domain_id: domainKey === '' ? null : domainKey,
          apple: docs.apple,
          android: docs.android,
          updated_at: now,
        })
        .onConflict('domain_key')
        .merge(['apple', 'android', 'updated_at']);
    await recordLinkChange(trx, 'applinks', domainKey, APP_LINKS_CHANGED);
    return docs.apple !== null || docs.android !== null ? { ...docs, updated_at: now } : NONE;
  });
}

/**
 * What a host serves: the shared short domain's documents on its host, an ACTIVE custom
 * domain's on its own; none on any other host (a pending, disabled or unknown one).
 */
export async function appLinksOfHost(knex: Knex, host: string, shortHost: string): Promise<AppLinksText> {
  const row =
    host === shortHost
      ? await knex('app_links').where({ domain_key: '' }).first('apple', 'android')
      : await knex('app_links as a')
          .join('domains as d', 'd.id', 'a.domain_id')
          .where({ 'd.host': host, 'd.status': 'ACTIVE' })
          .first('a.apple', 'a.android');
  return row ? { apple: row.apple, android: row.android } : { apple: null, android: null };
}
