// The events of bio pages (asyncapi/): page.published (both variants), raised by the change that
// publishes, in its transaction; page.viewed (Variant B), one per counted view, raised inside the
// click flush that writes the view (src/db/repos/click-batches.ts), like link.clicked.
import type { DbTransaction } from '../db/knex.ts';
import type { ClickSink } from '../db/repos/click-batches.ts';
import type { PageRow } from '../db/repos/bio-pages.ts';
import { parseContent } from '../domain/bio-pages.ts';
import { serviceEvent, type ServiceEvent } from '../domain/events.ts';

/** page.published for a page whose published content was just set (`row` as it is after the change). */
export const pagePublished =
  (ctx: { shortDomain: string; requestId?: string | null }) =>
  async (_trx: DbTransaction, row: PageRow): Promise<ServiceEvent[]> => {
    const publishedAt = Number(row.published_at);
    return [
      serviceEvent('page.published', {
        workspaceId: row.workspace_id,
        requestId: ctx.requestId ?? null,
        occurredAt: publishedAt,
        subject: {
          pageId: row.id,
          handle: row.handle,
          title: parseContent(row.published!).title,
          url: `https://${ctx.shortDomain}/@${row.handle}`,
          publishedAt,
        },
      }),
    ];
  };

/** page.viewed for each view (not block click) of a workspace with a Variant B subscription to it. */
export function pageViewSink(): ClickSink {
  return async (trx, _clicks, targets, visits) => {
    const wanted = new Set(
      targets.filter((t) => t.variant === 'B' && t.events.has('page.viewed')).map((t) => t.workspaceId),
    );
    const views = visits.filter((v) => v.block_id === null && wanted.has(v.workspace_id));
    if (!views.length) return [];
    // The handle as it is now: a view counted moments before a rename is reported under the new one.
    const rows: Array<{ id: string; handle: string }> = await trx('bio_pages')
      .whereIn('id', [...new Set(views.map((v) => v.page_id))])
      .select('id', 'handle');
    const handles = new Map(rows.map((r) => [r.id, r.handle]));
    const events: ServiceEvent[] = [];
    for (const v of views) {
      const handle = handles.get(v.page_id);
      if (handle === undefined) continue;
      events.push(
        serviceEvent('page.viewed', {
          workspaceId: v.workspace_id,
          requestId: null,
          occurredAt: Number(v.occurred_at),
          subject: {
            pageId: v.page_id,
            handle,
            referrer: v.referrer_host,
            country: v.country,
            device: v.device,
            browser: v.browser,
          },
        }),
      );
    }
    return events;
  };
}
