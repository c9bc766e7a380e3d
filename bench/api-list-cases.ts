// The public API's link list (GET /api/v1/links with its filters, src/operations/link-list.ts)
// as cases of bench/dashboard.ts: the same filters as the dashboard's list cases, timed in the
// same run over the same links, so each figure sits beside the dashboard's. Requests carry an
// API key (links:read), one per case: a key may make 60 requests a minute.
import type { Knex } from 'knex';
import type { Queries } from '../src/db/queries';
import type { LinkSearch } from '../src/db/repos/link-search';
import { linkListSearch, type LinkListQuery } from '../src/operations/link-list';

export interface ApiListCase {
  name: string;
  /** The request's whole path: /api/v1/links?… */
  path: string;
  run(queries: Queries): Promise<{ total: number }>;
  describe(result: { total: number }): string;
}

const fmtInt = (n: number) => n.toLocaleString('en-US');

export function apiListCases(
  s: { workspaceId: string; tags: Array<{ id: string; links: number }>; domains: string[] },
  limit: number,
): ApiListCase[] {
  const [commonTag, , , , midTag] = s.tags;
  const rareTag = s.tags[s.tags.length - 1];
  const list = (name: string, query: LinkListQuery): ApiListCase => {
    const params = new URLSearchParams({ limit: String(limit) });
    for (const [k, v] of Object.entries(query)) params.set(k, String(v));
    const search: LinkSearch | null = linkListSearch(query, Number(query.page ?? 1), limit);
    return {
      name: `(g) API: ${name}`,
      path: `/api/v1/links?${params}`,
      run: (q) =>
        search ? q.linkSearch(s.workspaceId, search) : q.linksPage(s.workspaceId, Number(query.page ?? 1), limit),
      describe: (r) => `${fmtInt(r.total)} matches`,
    };
  };
  return [
    list("no filter (the interface's page)", {}),
    list('search "webinar"', { search: 'webinar' }),
    list('search "spring sale"', { search: 'spring sale' }),
    list('search "zzq" (no match)', { search: 'zzq' }),
    list('search "shop" (dense)', { search: 'shop' }),
    list('search "e" (1 character)', { search: 'e' }),
    list(`tag with ${fmtInt(midTag.links)} links`, { tagId: midTag.id }),
    list(`tag with ${fmtInt(commonTag.links)} links`, { tagId: commonTag.id }),
    list(`tag with ${fmtInt(rareTag.links)} links`, { tagId: rareTag.id }),
    list('a custom domain', { domainId: s.domains[0] }),
    list('the shared short domain', { domainId: 'short' }),
    list('disabled links', { status: 'DISABLED' }),
    list('active links', { status: 'ACTIVE' }),
    list('sort by clicks', { sort: 'clicks' }),
    list('sort by clicks, page 50', { sort: 'clicks', page: 50 }),
    list(`tag with ${fmtInt(midTag.links)} links, by clicks`, { tagId: midTag.id, sort: 'clicks' }),
    list('search "webinar", active, short domain, by clicks', {
      search: 'webinar',
      status: 'ACTIVE',
      domainId: 'short',
      sort: 'clicks',
    }),
  ];
}

/** A key for one case's requests. */
export async function caseKey(knex: Knex, workspaceId: string, email: string): Promise<string> {
  const { findUserByEmail } = await import('../src/db/repos/accounts');
  const { createKey } = await import('../src/db/repos/api-keys');
  const user = await findUserByEmail(knex, email);
  return (await createKey(knex, workspaceId, user!.id, ['links:read'], null)).key;
}
