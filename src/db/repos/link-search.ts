// The dashboard's list of links: search by part of the slug, title or destination, filters by
// tag, domain and status, sorting by creation or clicks, a page at a time (openapi/dashboard.yaml,
// listDashboardLinks). Read in one snapshot on a query thread (src/db/queries.ts).
import type { Knex } from 'knex';
import { readSnapshot } from '../knex.ts';
import { clickTotals, tagsOf, type LinkRow, type TagRow } from './links.ts';

/** Matches are counted up to this many; beyond, the list says "10,000+". */
export const SEARCH_COUNT_CAP = 10_000;

export interface LinkSearch {
  q?: string;
  tagId?: string;
  /** A custom domain's id, or 'short' for the shared short domain. */
  domainId?: string;
  status?: 'ACTIVE' | 'DISABLED';
  sort: 'created' | 'clicks';
  order: 'asc' | 'desc';
  page: number;
  limit: number;
}

export interface LinkSearchPage {
  rows: LinkRow[];
  total: number;
  totalCapped: boolean;
  tags: Map<string, TagRow[]>;
  clicks: Map<string, number>;
  /** Host of each custom domain on the page. */
  hosts: Map<string, string>;
}

/** `%`, `_` and `\` match themselves in a LIKE pattern once escaped. */
const likePattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function filteredLinks(knex: Knex, workspaceId: string, s: Omit<LinkSearch, 'sort' | 'order' | 'page' | 'limit'>): Knex.QueryBuilder {
  const q = knex('links as l').where('l.workspace_id', workspaceId).whereNull('l.deleted_at');
  const text = s.q?.trim();
  if (text) {
    const pattern = likePattern(text);
    q.where((w) =>
      w
        .whereRaw("lower(l.slug) LIKE ? ESCAPE '\\'", [pattern])
        .orWhereRaw("lower(coalesce(l.title, '')) LIKE ? ESCAPE '\\'", [pattern])
        .orWhereRaw("lower(l.original_url) LIKE ? ESCAPE '\\'", [pattern]),
    );
  }
  if (s.tagId) q.whereExists((e) => e.select(knex.raw('1')).from('link_tags as lt').whereRaw('lt.link_id = l.id').where('lt.tag_id', s.tagId!));
  if (s.domainId) q.where('l.domain_key', s.domainId === 'short' ? '' : s.domainId);
  if (s.status) q.where('l.status', s.status);
  return q;
}

export async function searchLinks(knex: Knex, workspaceId: string, s: LinkSearch): Promise<LinkSearchPage> {
  return readSnapshot(knex, async (trx) => {
    const page = filteredLinks(trx, workspaceId, s);
    const dir = s.order === 'asc' ? 'asc' : 'desc';
    if (s.sort === 'clicks') {
      page
        .leftJoin(
          trx('link_daily_clicks').where('workspace_id', workspaceId).groupBy('link_id').select('link_id').sum({ total: 'clicks' }).as('c'),
          'c.link_id',
          'l.id',
        )
        .orderByRaw(`coalesce(c.total, 0) ${dir}`)
        .orderBy('l.seq', dir);
    } else {
      page.orderBy([{ column: 'l.created_at', order: dir }, { column: 'l.seq', order: dir }]);
    }
    const rows = (await page.offset((s.page - 1) * s.limit).limit(s.limit).select('l.*')) as LinkRow[];
    const [{ n }] = await trx.from(filteredLinks(trx, workspaceId, s).select(trx.raw('1')).limit(SEARCH_COUNT_CAP + 1).as('m')).count({ n: '*' });
    const counted = Number(n);
    const ids = rows.map((r) => r.id);
    const tags = await tagsOf(trx, ids);
    const clicks = await clickTotals(trx, workspaceId, ids);
    const domainIds = [...new Set(rows.map((r) => r.domain_id).filter((d): d is string => !!d))];
    const hosts = new Map<string, string>();
    if (domainIds.length) for (const d of await trx('domains').whereIn('id', domainIds).select('id', 'host')) hosts.set(d.id, d.host);
    return { rows, total: Math.min(counted, SEARCH_COUNT_CAP), totalCapped: counted > SEARCH_COUNT_CAP, tags, clicks, hosts };
  });
}
