// Conversions in the dashboard (openapi/dashboard.yaml, Conversions): the summary exactly as
// `GET /api/v1/conversions` gives it for the same query, its days in the same snapshot, and what
// its ids are called. It changes nothing, so every role reads it.
import { planHasApi } from '../../../domain/access.ts';
import { forbidden, unavailable } from '../../../domain/errors.ts';
import { conversionSummary } from '../../handlers/conversions.ts';
import type { Services } from '../../services.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult } from '../types.ts';

export function conversionHandlers(services: Services): Pick<DashboardHandlers, 'getDashboardConversions'> {
  const { config } = services;

  /** The workspace, when its plan and this deployment have conversion tracking (the API's gates). */
  function conversionsOf(ctx: DashboardContext) {
    const w = ctx.workspace!;
    if (!config.featureConversions) throw unavailable('Conversion tracking is not available on this deployment', 'conversions_unavailable');
    if (!planHasApi(w.plan)) throw forbidden(`The ${w.plan} plan does not include conversions; conversions need the Growth plan or above`);
    return w;
  }

  // As the dashboard's links show it (handlers/links.ts): the custom domain's host, else the short domain.
  const shortUrlOf = (slug: string, host: string | null) => `https://${host ?? config.shortDomain}/${slug}`;

  return {
    async getDashboardConversions({ query }, ctx): Promise<DashboardResult<'getDashboardConversions'>> {
      const w = conversionsOf(ctx);
      const { data, series } = await conversionSummary(services, w.id, query, { series: true });
      const named = await services.queries.conversionNames(w.id, {
        links: [...data.byLink.map((l) => l.id), ...(query.linkId ? [query.linkId] : [])],
        campaigns: [...data.byCampaign.map((c) => c.id), ...(query.campaignId ? [query.campaignId] : [])],
        qrCodes: [...data.byQr.map((q) => q.id), ...(query.qrCodeId ? [query.qrCodeId] : [])],
      });
      const names = {
        links: named.links.map((l) => ({ id: l.id, slug: l.slug, shortUrl: shortUrlOf(l.slug, l.host), title: l.title, deleted: l.deleted })),
        campaigns: named.campaigns,
        qrCodes: named.qrCodes.map((q) => ({ id: q.id, linkId: q.linkId, slug: q.slug, shortUrl: shortUrlOf(q.slug, q.host), deleted: q.deleted })),
      };
      return { status: 200, body: { data, series, names } };
    },
  };
}
