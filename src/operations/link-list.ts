// How GET /api/v1/links reads its page (openapi/paths/api_v1_links.yaml, listLinks): with no
// filter and the default order, as the interface has always answered it (every live link counted);
// with a filter or the order by clicks, through the dashboard's search (src/db/repos/link-search.ts)
// with the API's own rule that links with equal clicks come newest first (the dashboard's go by id).
// Its total stops at SEARCH_COUNT_CAP, as the dashboard's "10,000+" does, with `meta.totalCapped`:
// counting every match of a broad filter over a million links took up to half a second
// (bench/results/2026-11-29-api-list.md), and a partner pages until an empty page either way.
import type { operations } from '../../generated/api.ts';
import type { LinkSearch } from '../db/repos/link-search.ts';

export type LinkListQuery = NonNullable<operations['listLinks']['parameters']['query']>;

/** The search a listing asks for, or null for the plain page of the workspace's links. */
export function linkListSearch(query: LinkListQuery, page: number, limit: number): LinkSearch | null {
  const { search, tagId, domainId, status, sort } = query;
  if (search === undefined && tagId === undefined && domainId === undefined && !status && sort !== 'clicks')
    return null;
  return {
    q: search,
    tagId,
    domainId,
    status,
    sort: sort === 'clicks' ? 'clicks' : 'created',
    order: 'desc',
    page,
    limit,
    clickTies: 'creation',
  };
}
