// Bio pages in the dashboard (openapi/dashboard.yaml, Pages): the page operations
// (src/operations/pages.ts) as the signed-in person, the editor's live preview rendered by the
// redirect path's own renderer, and a page's analytics (also what a shared PAGE report shows).
import type { components } from '../../../../generated/dashboard.ts';
import * as pages from '../../../db/repos/bio-pages.ts';
import { BREAKDOWN_DAYS, BREAKDOWN_TOP } from '../../../db/repos/link-analytics.ts';
import { LIMITS, PAGE_THEMES, parseContent, type PageTheme } from '../../../domain/bio-pages.ts';
import { isoDay } from '../../../domain/conversion-series.ts';
import { DAY_MS } from '../../../domain/conversions.ts';
import { renderBioPage } from '../../../redirect/bio-page.ts';
import type { PageOperations } from '../../../operations/pages.ts';
import type { Services } from '../../services.ts';
import { analyticsWindow } from '../analytics-window.ts';
import { sessionActor } from '../session.ts';
import type { DashboardHandlers, DashboardResult } from '../types.ts';

type BioPageAnalytics = components['schemas']['BioPageAnalytics'];

type PageOperation =
  | 'listPages'
  | 'createPage'
  | 'previewPage'
  | 'getPage'
  | 'updatePage'
  | 'deletePage'
  | 'publishPage'
  | 'unpublishPage'
  | 'getPageAnalytics';

/** At most `max` characters, for a preview of text that saving would refuse as too long. */
const clip = (v: string | null | undefined, max: number) => (v ? [...v.trim()].slice(0, max).join('') : null);

/**
 * The link blocks whose clicks a page's analytics list: the draft's, in its order, then the
 * published version's that the draft no longer has (still live, still clicked).
 */
function analyticsBlocks(page: pages.PageRow, clicks: Map<string, number>) {
  const listed = new Set<string>();
  const out: Array<{ blockId: string; text: string; linkId: string; clicks: number }> = [];
  for (const content of [page.draft, page.published]) {
    if (content === null) continue;
    for (const b of parseContent(content).blocks) {
      if (b.type !== 'link' || listed.has(b.id)) continue;
      listed.add(b.id);
      out.push({ blockId: b.id, text: b.text, linkId: b.linkId, clicks: clicks.get(b.id) ?? 0 });
    }
  }
  return out;
}

export function pageHandlers(services: Services, operations: PageOperations): Pick<DashboardHandlers, PageOperation> {
  const { config } = services;
  const envelope = async (row: pages.PageRow) => ({ data: await operations.present(row) });

  return {
    async listPages(_request, ctx): Promise<DashboardResult<'listPages'>> {
      return { status: 200, body: { data: await operations.list(ctx.workspace!.id) } };
    },

    async createPage({ body }, ctx): Promise<DashboardResult<'createPage'>> {
      return { status: 201, body: await envelope(await operations.create(sessionActor(ctx), body)) };
    },

    async getPage({ params }, ctx): Promise<DashboardResult<'getPage'>> {
      return { status: 200, body: await envelope(await operations.get(ctx.workspace!.id, params.pageId)) };
    },

    async updatePage({ params, body }, ctx): Promise<DashboardResult<'updatePage'>> {
      return { status: 200, body: await envelope(await operations.update(sessionActor(ctx), params.pageId, body)) };
    },

    async deletePage({ params }, ctx): Promise<DashboardResult<'deletePage'>> {
      await operations.remove(ctx.audit, ctx.workspace!.id, params.pageId);
      return { status: 204 };
    },

    async publishPage({ params }, ctx): Promise<DashboardResult<'publishPage'>> {
      const current = await operations.get(ctx.workspace!.id, params.pageId);
      const row = await operations.publish(current, ctx.requestId, ctx.audit);
      return { status: 200, body: await envelope(row) };
    },

    async unpublishPage({ params }, ctx): Promise<DashboardResult<'unpublishPage'>> {
      return {
        status: 200,
        body: await envelope(
          await operations.unpublish(await operations.get(ctx.workspace!.id, params.pageId), ctx.audit),
        ),
      };
    },

    // A preview shows what it is given, cut to the limits saving holds it to: a draft being typed
    // is still worth seeing, and saving says what is wrong with it.
    async previewPage({ body }): Promise<DashboardResult<'previewPage'>> {
      const theme: PageTheme = PAGE_THEMES.includes(body.theme as PageTheme) ? (body.theme as PageTheme) : 'classic';
      const handle =
        (body.handle ?? '')
          .trim()
          .toLowerCase()
          .replace(/[^a-z0-9_-]/g, '')
          .slice(0, 64) || 'your-handle';
      const html = renderBioPage(
        {
          title: clip(body.title, LIMITS.title) || 'Untitled page',
          bio: clip(body.bio, LIMITS.bio),
          avatarUrl: body.avatarUrl?.startsWith('https://') ? body.avatarUrl : null,
          theme,
          blocks: (body.blocks ?? [])
            .map((b, i) => ({
              id: `preview${i}`,
              type: b.type,
              text: clip(b.text, LIMITS[b.type as keyof typeof LIMITS] ?? LIMITS.paragraph) ?? '',
            }))
            .filter((b) => b.text),
        },
        { host: config.shortDomain, handle, preview: true },
      );
      return { status: 200, body: { html } };
    },

    async getPageAnalytics({ params, query }, ctx): Promise<DashboardResult<'getPageAnalytics'>> {
      const page = await operations.get(ctx.workspace!.id, params.pageId);
      return { status: 200, body: await pageAnalyticsView(services, page, query) };
    },
  };
}

/**
 * A page's analytics as its screen shows them (getPageAnalytics): views and link-block clicks per
 * UTC day of [from, to] (default the last 30 days, today included; at most 400 days), each link
 * block's clicks, and the last 90 days' breakdowns. The caller has checked the page is a page of
 * its workspace. A shared PAGE report is computed by it too (shared-reports.ts).
 */
export async function pageAnalyticsView(
  services: Services,
  page: pages.PageRow,
  query: { from?: string; to?: string },
): Promise<BioPageAnalytics> {
  const { knex } = services.db;
  const { from, to, today } = analyticsWindow(query);
  const [views, clicks, byBlock, b] = await Promise.all([
    pages.pageDailyViews(knex, page.id, from, to),
    pages.pageDailyBlockClicks(knex, page.id, from, to),
    pages.pageBlockClicks(knex, page.id, from, to),
    pages.pageBreakdowns(knex, page.id, (today - BREAKDOWN_DAYS + 1) * DAY_MS),
  ]);
  const series = [];
  const totals = { views: 0, clicks: 0 };
  for (let d = from; d <= to; d++) {
    const day = { day: isoDay(d), views: views.get(d) ?? 0, clicks: clicks.get(d) ?? 0 };
    totals.views += day.views;
    totals.clicks += day.clicks;
    series.push(day);
  }
  const top = (all: Array<{ value: string; views: number }>) => all.slice(0, BREAKDOWN_TOP);
  const rest = (all: Array<{ value: string; views: number }>) =>
    all.slice(BREAKDOWN_TOP).reduce((n, e) => n + e.views, 0);
  return {
    pageId: page.id,
    window: { from: isoDay(from), to: isoDay(to) },
    series,
    totals,
    blocks: analyticsBlocks(page, byBlock),
    breakdownWindow: { from: isoDay(today - BREAKDOWN_DAYS + 1), to: isoDay(today) },
    breakdowns: {
      countries: top(b.country),
      devices: top(b.device),
      browsers: top(b.browser),
      referrers: top(b.referrer_host),
      other: {
        countries: rest(b.country),
        devices: rest(b.device),
        browsers: rest(b.browser),
        referrers: rest(b.referrer_host),
      },
    },
  };
}
