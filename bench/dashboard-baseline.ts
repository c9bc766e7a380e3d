// The dashboard's two reads as they were before migration 20261125000000 (src/db/repos/
// link-analytics.ts and link-search.ts at caf0259), the baseline bench/dashboard.ts measures on
// the same data: breakdowns as five GROUP BYs over the link's raw clicks, the search as LIKE over
// every live link of the workspace, the clicks order as a join on every link's summed daily counts.
import type { Knex } from 'knex';
import { readSnapshot } from '../src/db/knex';
import { clickTotals, tagsOf, type LinkRow } from '../src/db/repos/links';
import type { LinkSearch } from '../src/db/repos/link-search';

const COLUMN = {
  country: 'country',
  device: 'device',
  browser: 'browser',
  os: 'os',
  referrer: 'referrer_host',
} as const;

export async function baselineAnalytics(
  knex: Knex,
  workspaceId: string,
  linkId: string,
  fromDay: number,
  toDay: number,
  today: number,
) {
  return readSnapshot(knex, async (trx) => {
    const days = await trx('link_daily_clicks')
      .where({ workspace_id: workspaceId, link_id: linkId })
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .select('day', 'clicks', 'scans');
    const since = (today - 90 + 1) * 86_400_000;
    const breakdowns: Record<string, Array<{ value: string; clicks: number }>> = {};
    for (const [dim, col] of Object.entries(COLUMN)) {
      const counted = await trx('clicks')
        .where({ workspace_id: workspaceId, link_id: linkId })
        .where('occurred_at', '>=', since)
        .groupBy(col)
        .select({ value: col })
        .count({ n: '*' });
      breakdowns[dim] = counted
        .map((r: any) => ({ value: r.value ?? '', clicks: Number(r.n) }))
        .sort((a, b) => b.clicks - a.clicks || (a.value < b.value ? -1 : 1));
    }
    return { days, breakdowns };
  });
}

const likePattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function filteredLinks(knex: Knex, workspaceId: string, s: LinkSearch): Knex.QueryBuilder {
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
  if (s.tagId)
    q.whereExists((e) =>
      e.select(knex.raw('1')).from('link_tags as lt').whereRaw('lt.link_id = l.id').where('lt.tag_id', s.tagId!),
    );
  if (s.domainId) q.where('l.domain_key', s.domainId === 'short' ? '' : s.domainId);
  if (s.status) q.where('l.status', s.status);
  return q;
}

export async function baselineSearch(knex: Knex, workspaceId: string, s: LinkSearch) {
  return readSnapshot(knex, async (trx) => {
    const page = filteredLinks(trx, workspaceId, s);
    const dir = s.order === 'asc' ? 'asc' : 'desc';
    if (s.sort === 'clicks') {
      page
        .leftJoin(
          trx('link_daily_clicks')
            .where('workspace_id', workspaceId)
            .groupBy('link_id')
            .select('link_id')
            .sum({ total: 'clicks' })
            .as('c'),
          'c.link_id',
          'l.id',
        )
        .orderByRaw(`coalesce(c.total, 0) ${dir}`)
        .orderBy('l.seq', dir);
    } else {
      page.orderBy([
        { column: 'l.created_at', order: dir },
        { column: 'l.seq', order: dir },
      ]);
    }
    const rows = (await page
      .offset((s.page - 1) * s.limit)
      .limit(s.limit)
      .select('l.*')) as LinkRow[];
    const [{ n }] = await trx
      .from(filteredLinks(trx, workspaceId, s).select(trx.raw('1')).limit(10_001).as('m'))
      .count({ n: '*' });
    const ids = rows.map((r) => r.id);
    await tagsOf(trx, ids);
    await clickTotals(trx, workspaceId, ids);
    return { rows, total: Math.min(Number(n), 10_000) };
  });
}
