// Conversions in the dashboard (openapi/dashboard.yaml, Conversions): the summary exactly as
// `GET /api/v1/conversions` gives it for the same query, its days in the same snapshot, and what
// its ids are called. It changes nothing, so every role reads it.
import type { components } from '../../../../generated/dashboard.ts';
import { conversionSummary, requireConversions, type ConversionSummaryQuery } from '../../../operations/conversions.ts';
import type { Services } from '../../services.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult } from '../types.ts';
import { gatedWorkspace } from './gated-workspace.ts';

type DashboardConversions = components['schemas']['DashboardConversions'];

export function conversionHandlers(services: Services): Pick<DashboardHandlers, 'getDashboardConversions'> {
  /** The workspace, when its plan and this deployment have conversion tracking (the API's gates). */
  const conversionsOf = (ctx: DashboardContext) =>
    gatedWorkspace(ctx, (plan) => requireConversions(services.config, plan));

  return {
    async getDashboardConversions({ query }, ctx): Promise<DashboardResult<'getDashboardConversions'>> {
      return { status: 200, body: await conversionsView(services, conversionsOf(ctx).id, query) };
    },
  };
}

/**
 * What the Conversions screen draws for a query: the summary as GET /api/v1/conversions gives
 * it, its days, and the names of its ids (this workspace's objects only). A shared CONVERSIONS
 * report is computed by it too (shared-reports.ts).
 */
export async function conversionsView(
  services: Services,
  workspaceId: string,
  query: ConversionSummaryQuery,
): Promise<DashboardConversions> {
  const { config } = services;
  // As the dashboard's links show it (handlers/links.ts): the custom domain's host, else the short domain.
  const shortUrlOf = (slug: string, host: string | null) => `https://${host ?? config.shortDomain}/${slug}`;
  const { data, series } = await conversionSummary(services, workspaceId, query, { series: true });
  const named = await services.queries.conversionNames(workspaceId, {
    links: [...data.byLink.map((l) => l.id), ...(query.linkId ? [query.linkId] : [])],
    campaigns: [...data.byCampaign.map((c) => c.id), ...(query.campaignId ? [query.campaignId] : [])],
    qrCodes: [...data.byQr.map((q) => q.id), ...(query.qrCodeId ? [query.qrCodeId] : [])],
  });
  const names = {
    links: named.links.map((l) => ({
      id: l.id,
      slug: l.slug,
      shortUrl: shortUrlOf(l.slug, l.host),
      title: l.title,
      deleted: l.deleted,
    })),
    campaigns: named.campaigns,
    qrCodes: named.qrCodes.map((q) => ({
      id: q.id,
      linkId: q.linkId,
      slug: q.slug,
      shortUrl: shortUrlOf(q.slug, q.host),
      deleted: q.deleted,
    })),
  };
  return { data, series, names };
}
