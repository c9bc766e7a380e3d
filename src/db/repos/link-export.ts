// The workspace's links for the CSV export (openapi/dashboard.yaml, exportLinks), a page at a
// time in creation order: the export streams, so a workspace of a million links never sits in
// memory whole. Each page is read in one snapshot; a link made during the export appears if its
// page is read after it was made.
import type { Knex } from 'knex';
import { readSnapshot } from '../knex.ts';
import { clickTotals, tagsOf, type LinkRow, type TagRow } from './links.ts';

export const EXPORT_PAGE = 2_000;

/** Where the next page starts: after this link in (created_at, seq) order. */
export interface ExportCursor {
  createdAt: number;
  seq: number;
}

export interface ExportPage {
  rows: LinkRow[];
  tags: Map<string, TagRow[]>;
  clicks: Map<string, number>;
  /** Host of each custom domain on the page. */
  hosts: Map<string, string>;
  /** null after the last page. */
  next: ExportCursor | null;
}

export async function linksExportPage(
  knex: Knex,
  workspaceId: string,
  after: ExportCursor | null,
  limit = EXPORT_PAGE,
): Promise<ExportPage> {
  return readSnapshot(knex, async (trx) => {
    const q = trx('links').where({ workspace_id: workspaceId }).whereNull('deleted_at');
    if (after)
      q.where((w) =>
        w
          .where('created_at', '>', after.createdAt)
          .orWhere((e) => e.where('created_at', after.createdAt).where('seq', '>', after.seq)),
      );
    const rows = (await q.orderBy([{ column: 'created_at' }, { column: 'seq' }]).limit(limit)) as LinkRow[];
    const ids = rows.map((r) => r.id);
    // In slices: either engine prefers short IN lists.
    const tags = new Map<string, TagRow[]>();
    const clicks = new Map<string, number>();
    for (let i = 0; i < ids.length; i += 500) {
      for (const [k, v] of await tagsOf(trx, ids.slice(i, i + 500))) tags.set(k, v);
      for (const [k, v] of await clickTotals(trx, workspaceId, ids.slice(i, i + 500))) clicks.set(k, v);
    }
    const domainIds = [...new Set(rows.map((r) => r.domain_id).filter((d): d is string => !!d))];
    const hosts = new Map<string, string>();
    if (domainIds.length)
      for (const d of await trx('domains').whereIn('id', domainIds).select('id', 'host')) hosts.set(d.id, d.host);
    const last = rows[rows.length - 1];
    return {
      rows,
      tags,
      clicks,
      hosts,
      next: rows.length === limit ? { createdAt: Number(last.created_at), seq: Number(last.seq) } : null,
    };
  });
}
