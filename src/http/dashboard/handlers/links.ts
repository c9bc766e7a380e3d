// Links in the dashboard (openapi/dashboard.yaml, Links): the shared link operations as the
// signed-in person, the list with search and filters, bulk actions, analytics, QR codes, the CSV
// import and export, and image uploads.
import fs from 'node:fs';
import { audited, createdFields } from '../../../operations/audit.ts';
import path from 'node:path';
import type { components } from '../../../../generated/dashboard.ts';
import type { LinkRow } from '../../../db/repos/links.ts';
import type { ExportPage } from '../../../db/repos/link-export.ts';
import { findDomainOf } from '../../../db/repos/domains.ts';
import { addAsset, createQrCode, qrCodeOfLink } from '../../../db/repos/workspace-objects.ts';
import { findLiveQrCode } from '../../../db/repos/qr-codes.ts';
import { IMAGE_EXTENSIONS, looksLike } from '../../../domain/assets.ts';
import { csvRecords } from '../../../domain/csv.ts';
import { type AppError, invalid, notFound, storageFailed, tooLarge, unavailable } from '../../../domain/errors.ts';
import { destinationPreview, PreviewFailed } from '../../../operations/destination-preview.ts';
import { isFaviconHost } from '../../../operations/favicons.ts';
import { BREAKDOWN_DIMENSIONS, BREAKDOWN_DAYS, BREAKDOWN_TOP } from '../../../db/repos/link-analytics.ts';
import { cityKey } from '../../../db/repos/click-folds.ts';
import type { LinkCreateWithTagNames } from '../../../operations/link-drafts.ts';
import type { LinkOperations } from '../../../operations/links.ts';
import { presentLink } from '../../../operations/link-presenter.ts';
import type { Services } from '../../services.ts';
import { sessionActor } from '../session.ts';
import type { DashboardHandlers, DashboardResult } from '../types.ts';
import { analyticsWindow } from '../analytics-window.ts';
import { readImportFile } from '../link-import.ts';
import { isoDay } from '../../../domain/conversion-series.ts';

type DashboardLink = components['schemas']['DashboardLink'];
type LinkAnalytics = components['schemas']['LinkAnalytics'];
/** The export's columns, which the import reads back (COLUMNS of ../link-import.ts). */
const EXPORT_COLUMNS = [
  'id',
  'short_url',
  'slug',
  'url',
  'title',
  'tags',
  'status',
  'clicks',
  'created_at',
  'expires_at',
];

export function linkHandlers(
  services: Services,
  operations: LinkOperations,
): Pick<
  DashboardHandlers,
  | 'listDashboardLinks'
  | 'createDashboardLink'
  | 'getDashboardLink'
  | 'updateDashboardLink'
  | 'deleteDashboardLink'
  | 'bulkLinks'
  | 'getLinkAnalytics'
  | 'makeLinkQr'
  | 'importLinks'
  | 'exportLinks'
  | 'uploadAsset'
  | 'getDestinationPreview'
  | 'getFavicon'
  | 'getLinkQr'
  | 'getDashboardQrCode'
> {
  const { knex } = services.db;
  const { config, destinationFetch, favicons } = services;

  const fetchAllowed = () => {
    if (!destinationFetch.enabled)
      throw unavailable('This service does not fetch destinations (DESTINATION_FETCH is off)', 'destination_fetch_off');
  };
  const qrView = (qr: { id: string; code: string }, linkId: string) => {
    const url = `https://${config.shortDomain}/qr/${qr.code}`;
    return { id: qr.id, linkId, url, svgUrl: `${url}.svg`, pngUrl: `${url}.png` };
  };
  const shortUrlOf = (row: LinkRow, host: string | undefined) => `https://${host ?? config.shortDomain}/${row.slug}`;

  async function present(row: LinkRow): Promise<DashboardLink> {
    const host = row.domain_id ? (await findDomainOf(knex, row.workspace_id, row.domain_id))?.host : undefined;
    return { ...(await operations.present(row)), shortUrl: shortUrlOf(row, host) };
  }

  return {
    async listDashboardLinks({ query }, ctx): Promise<DashboardResult<'listDashboardLinks'>> {
      const page = Number(query.page ?? 1);
      const limit = Number(query.limit ?? 25);
      const found = await services.queries.linkSearch(ctx.workspace!.id, {
        q: query.q,
        tagId: query.tagId,
        domainId: query.domainId,
        status: query.status,
        sort: query.sort ?? 'created',
        order: query.order ?? 'desc',
        page,
        limit,
      });
      const data = found.rows.map((r) => ({
        ...presentLink(r, found.tags.get(r.id) ?? [], found.clicks.get(r.id) ?? 0),
        shortUrl: shortUrlOf(r, r.domain_id ? found.hosts.get(r.domain_id) : undefined),
      }));
      return { status: 200, body: { data, meta: { page, limit, total: found.total, totalCapped: found.totalCapped } } };
    },

    async createDashboardLink({ body }, ctx): Promise<DashboardResult<'createDashboardLink'>> {
      const row = await operations.create(sessionActor(ctx), body, { preview: true });
      return { status: 201, body: { data: await present(row) } };
    },

    async getDashboardLink({ params }, ctx): Promise<DashboardResult<'getDashboardLink'>> {
      return { status: 200, body: { data: await present(await operations.get(sessionActor(ctx), params.linkId)) } };
    },

    async updateDashboardLink({ params, body }, ctx): Promise<DashboardResult<'updateDashboardLink'>> {
      const { row } = await operations.update(sessionActor(ctx), params.linkId, body);
      return { status: 200, body: { data: await present(row) } };
    },

    async deleteDashboardLink({ params }, ctx): Promise<DashboardResult<'deleteDashboardLink'>> {
      await operations.remove(sessionActor(ctx), params.linkId);
      return { status: 204 };
    },

    async bulkLinks({ body }, ctx): Promise<DashboardResult<'bulkLinks'>> {
      const data = await operations.bulk(sessionActor(ctx), body);
      return { status: 200, body: { data } };
    },

    async getFavicon({ params }): Promise<DashboardResult<'getFavicon'>> {
      fetchAllowed();
      const host = params.host.toLowerCase();
      if (!isFaviconHost(host)) throw invalid('host must be a host name, with its port when not 443', 'host');
      const icon = await favicons.get(host);
      if (!icon) throw notFound(`${host} names no icon this service serves`);
      return {
        status: 200,
        body: icon.bytes as unknown as string,
        // Someone else's bytes on the dashboard's origin: never sniffed, never a document.
        headers: {
          'Content-Type': icon.type,
          'Cache-Control': 'private, max-age=86400',
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'; sandbox",
        },
      };
    },

    async getDestinationPreview({ query }): Promise<DashboardResult<'getDestinationPreview'>> {
      fetchAllowed();
      let url: URL;
      try {
        url = new URL(query.url);
      } catch {
        throw invalid('url must be an absolute http or https URL', 'url');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw invalid('url must be an absolute http or https URL', 'url');
      try {
        const found = await destinationPreview(url.href, destinationFetch.fetch);
        return { status: 200, body: { data: { ...found, problem: null } } };
      } catch (err) {
        if (!(err instanceof PreviewFailed)) throw err;
        const problem = `The page could not be read: ${err.message}`;
        return { status: 200, body: { data: { title: null, description: null, image: null, problem } } };
      }
    },

    async getLinkAnalytics({ params, query }, ctx): Promise<DashboardResult<'getLinkAnalytics'>> {
      const actor = sessionActor(ctx);
      await operations.get(actor, params.linkId);
      return { status: 200, body: await linkAnalyticsView(services, actor.workspaceId, params.linkId, query) };
    },

    async getLinkQr({ params }, ctx): Promise<DashboardResult<'getLinkQr'>> {
      const actor = sessionActor(ctx);
      await operations.get(actor, params.linkId);
      const qr = await qrCodeOfLink(knex, actor.workspaceId, params.linkId);
      if (!qr) throw notFound('This link has no QR code yet');
      return { status: 200, body: { data: qrView(qr, params.linkId) } };
    },

    async getDashboardQrCode({ params }, ctx): Promise<DashboardResult<'getDashboardQrCode'>> {
      const actor = sessionActor(ctx);
      // Scoped to the workspace, and to codes whose link is live: a deleted one is not shown.
      const qr = await findLiveQrCode(knex, actor.workspaceId, params.qrCodeId);
      if (!qr) throw notFound(`QR code ${params.qrCodeId} not found`);
      return { status: 200, body: { data: qrView(qr, qr.link_id) } };
    },

    async makeLinkQr({ params }, ctx): Promise<DashboardResult<'makeLinkQr'>> {
      const actor = sessionActor(ctx);
      await operations.get(actor, params.linkId);
      // Made once per link: asking again answers the same code and records nothing.
      const qr =
        (await qrCodeOfLink(knex, actor.workspaceId, params.linkId)) ??
        (await audited(
          knex,
          ctx.audit,
          actor.workspaceId,
          (trx) => createQrCode(trx, actor.workspaceId, params.linkId),
          (made) => ({
            action: 'qr_code.created',
            objectType: 'qr_code',
            objectId: made.id,
            changes: { linkId: { to: params.linkId } },
          }),
        ));
      return { status: 200, body: { data: qrView(qr, params.linkId) } };
    },

    async importLinks(_request, ctx): Promise<DashboardResult<'importLinks'>> {
      const actor = sessionActor(ctx);
      // The whole file is read and checked before the first link is written.
      if (!ctx.bodyStream) throw invalid('A request body is required (Content-Type: text/csv)');
      const records = await readImportFile(ctx.bodyStream);
      // Tags are named in the file; those the workspace lacks are made with the first link that
      // names them (MEMBER may make tags), so a refused row makes none.
      const bodies: LinkCreateWithTagNames[] = [];
      const early: Array<AppError | null> = [];
      for (const rec of records) {
        const tagNames = (rec.tags ?? '')
          .split(/[|;,]/)
          .map((t) => t.trim())
          .filter(Boolean);
        const { url = '', slug, title, expiresAt } = rec;
        bodies.push({
          url,
          slug: slug || undefined,
          title: title || undefined,
          expiresAt: expiresAt || undefined,
          tagNames,
        });
        early.push(rec.url ? null : invalid('url is required', 'url'));
      }
      const valid = bodies.map((b, i) => ({ b, i })).filter(({ i }) => early[i] === null);
      const made = await operations.createMany(
        actor,
        valid.map(({ b }) => b),
      );
      const results = new Array<{ row: LinkRow } | { error: AppError }>(bodies.length);
      for (const [k, { i }] of valid.entries()) results[i] = made[k];
      for (const [i, e] of early.entries()) if (e) results[i] = { error: e };
      const rows = results.map((r, i) =>
        'row' in r
          ? { row: records[i].line, ok: true, linkId: r.row.id, slug: r.row.slug }
          : {
              row: records[i].line,
              ok: false,
              error: r.error.message,
              ...(r.error.details.field ? { field: r.error.details.field } : {}),
            },
      );
      const created = rows.filter((r) => r.ok).length;
      return { status: 200, body: { created, refused: rows.length - created, rows } };
    },

    async exportLinks(_request, ctx): Promise<DashboardResult<'exportLinks'>> {
      const workspaceId = ctx.workspace!.id;
      // The first page is read before answering, so a failure is still a clean error; the rest
      // stream (a page at a time: src/db/repos/link-export.ts).
      const first = await services.queries.linksExportPage(workspaceId, null);
      // Every cell through the one CSV writer: a title, slug or tag a spreadsheet would run as a
      // formula is written as text, which the import reads back as it was.
      const pageText = (page: ExportPage) =>
        csvRecords(
          page.rows.map((r) => [
            r.id,
            shortUrlOf(r, r.domain_id ? page.hosts.get(r.domain_id) : undefined),
            r.slug,
            r.original_url,
            r.title ?? '',
            (page.tags.get(r.id) ?? []).map((t) => t.name).join('|'),
            r.status,
            page.clicks.get(r.id) ?? 0,
            new Date(Number(r.created_at)).toISOString(),
            r.expires_at === null ? '' : new Date(Number(r.expires_at)).toISOString(),
          ]),
        );
      async function* csv() {
        yield csvRecords([EXPORT_COLUMNS]);
        let page: ExportPage = first;
        for (;;) {
          yield pageText(page);
          if (!page.next) return;
          page = await services.queries.linksExportPage(workspaceId, page.next);
        }
      }
      const name = `links-${workspaceId}-${new Date().toISOString().slice(0, 10)}.csv`;
      return {
        status: 200,
        body: csv() as unknown as string,
        headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${name}"` },
      };
    },

    async uploadAsset(request, ctx): Promise<DashboardResult<'uploadAsset'>> {
      const bytes = ctx.rawBody;
      const type = String(request.headers['content-type'] ?? '')
        .split(';')[0]
        .trim()
        .toLowerCase();
      if (!Buffer.isBuffer(bytes) || !bytes.length) throw invalid('The request body must be the image file');
      if (bytes.length > 2 * 2 ** 20) throw tooLarge('An image may be at most 2 MiB');
      const ext = IMAGE_EXTENSIONS[type];
      if (!ext || !looksLike(type, bytes.subarray(0, 12)))
        throw invalid(`The file is not a ${type || 'supported'} image: its content does not match its Content-Type`);
      const dir = path.join(config.dataDir, 'assets');
      const { fileName } = await audited(
        knex,
        ctx.audit,
        ctx.workspace!.id,
        (trx) =>
          addAsset(trx, ctx.workspace!.id, ext, type, (name) => {
            try {
              fs.mkdirSync(dir, { recursive: true });
              fs.writeFileSync(path.join(dir, name), bytes);
            } catch (err) {
              throw storageFailed(`The image could not be stored: ${(err as Error).message}`);
            }
          }),
        (a) => ({
          action: 'asset.uploaded',
          objectType: 'asset',
          objectId: a.id,
          changes: createdFields({ contentType: type, bytes: bytes.length }),
        }),
      );
      return { status: 201, body: { url: `${config.assetBaseUrl}${fileName}` } };
    },
  };
}

/**
 * A link's analytics as its screen shows them (getLinkAnalytics): clicks and scans per UTC day of
 * [from, to] (default the last 30 days, today included; at most 400 days) and the last 90 days'
 * breakdowns. The caller has checked the link is a live link of the workspace. A shared LINK
 * report is computed by it too (shared-reports.ts).
 */
export async function linkAnalyticsView(
  services: Services,
  workspaceId: string,
  linkId: string,
  query: { from?: string; to?: string },
): Promise<LinkAnalytics> {
  const { from, to, today } = analyticsWindow(query);
  const data = await services.queries.linkAnalytics(workspaceId, linkId, from, to, today);
  const series = [];
  let clicks = 0;
  let scans = 0;
  for (let d = from; d <= to; d++) {
    const day = data.days.get(d) ?? { clicks: 0, scans: 0 };
    clicks += day.clicks;
    scans += day.scans;
    series.push({ day: isoDay(d), clicks: day.clicks, scans: day.scans });
  }
  const key = {
    country: 'countries',
    city: 'cities',
    device: 'devices',
    browser: 'browsers',
    os: 'os',
    referrer: 'referrers',
  } as const;
  const breakdowns = { other: {} } as any;
  for (const dim of BREAKDOWN_DIMENSIONS) {
    const all = data.breakdowns[dim];
    const top = all.slice(0, BREAKDOWN_TOP);
    breakdowns[key[dim]] = dim === 'city' ? top.map((e) => ({ ...cityKey(e.value), clicks: e.clicks })) : top;
    breakdowns.other[key[dim]] = all.slice(BREAKDOWN_TOP).reduce((n, e) => n + e.clicks, 0);
  }
  return {
    linkId,
    window: { from: isoDay(from), to: isoDay(to) },
    series,
    totals: { clicks, scans },
    breakdownWindow: { from: isoDay(today - BREAKDOWN_DAYS + 1), to: isoDay(today) },
    breakdowns,
  };
}
