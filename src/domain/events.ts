// The events a change can raise, and the `data` object of each per webhook variant, built from
// the facts of the event (its subject). Each builder names exactly the fields of the AsyncAPI
// schema of that event and variant (closed contracts: nothing else is ever sent). An event a
// variant does not have has no builder there, and is not delivered in that variant.
import type { GeoAnomaly, Spike } from './analytics-alerts.ts';
import type { Variant } from './webhook-delivery.ts';

export type ServiceEventType =
  | 'link.created'
  | 'link.updated'
  | 'link.deleted'
  | 'link.clicked'
  | 'qr.scanned'
  | 'conversion.created'
  | 'report.shared'
  | 'domain.verified'
  | 'analytics.spike'
  | 'analytics.geo_anomaly'
  | 'page.published'
  | 'page.viewed';

/** Something that happened, to be delivered to the workspace's subscriptions that name it. */
export interface ServiceEvent {
  type: ServiceEventType;
  workspaceId: string;
  /** The X-Service-Request-Id of the API request (or CLI run) that caused the event. */
  requestId?: string | null;
  occurredAt: number;
  /** The facts of the event; each variant's `data` object is built from them. */
  subject: Record<string, unknown>;
}

/** A link as the link events describe it. `domain` is the host it is served under. */
export interface LinkFacts {
  id: string;
  slug: string;
  destinationUrl: string;
  title: string | null;
  /** Host of the short URL (the shared short domain, or the link's custom domain). */
  domain: string;
}

export interface LinkCreatedSubject extends LinkFacts {
  tags: string[];
  createdBy: string;
}

export interface LinkUpdatedSubject extends LinkFacts {
  /** PATCH body names of the fields whose value changed; never empty. */
  changedFields: string[];
  updatedAt: number;
}

export type LinkDeletedSubject = Pick<LinkFacts, 'id' | 'slug' | 'domain'>;

export interface VisitFacts {
  linkId: string;
  slug: string;
  destinationUrl: string;
  domain: string;
  referrer: string | null;
  country: string | null;
  city: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
}

export type LinkClickedSubject = VisitFacts;
export interface QrScannedSubject extends VisitFacts {
  qrCodeId: string;
}

export interface DomainVerifiedSubject {
  id: string;
  host: string;
  verifiedAt: number;
}

/** What the conversion handler passes (times as ISO strings, as the API returns them). */
export interface ConversionCreatedSubject {
  id: string;
  eventType: string;
  customName: string | null;
  linkId: string | null;
  campaignId: string | null;
  qrCodeId: string | null;
  value: { amountMinor: number; currency: string } | null;
  occurredAt: string;
}

/** A report that became reachable outside its workspace (src/domain/reports.ts, sharingRaisesEvent). */
export interface ReportSharedSubject {
  reportId: string;
  title: string;
  /** The visibility it moved to: never PRIVATE. */
  visibility: 'UNLISTED' | 'PUBLIC';
}

/** A spike (domain/analytics-alerts.ts) of one link's clicks. */
export interface AnalyticsSpikeSubject extends Spike {
  linkId: string;
  slug: string;
}

/** A country's outsized share (domain/analytics-alerts.ts) of one link's clicks. */
export interface AnalyticsGeoAnomalySubject extends GeoAnomaly {
  linkId: string;
  slug: string;
}

/** A bio page that was just published; `url` is its address on the short domain. */
export interface PagePublishedSubject {
  pageId: string;
  handle: string;
  title: string;
  url: string;
  publishedAt: number;
}

/** A person's view of a published bio page (no IP address; the referrer reduced to its host). */
export interface PageViewedSubject {
  pageId: string;
  handle: string;
  referrer: string | null;
  country: string | null;
  device: string | null;
  browser: string | null;
}

export interface EventSubjects {
  'link.created': LinkCreatedSubject;
  'link.updated': LinkUpdatedSubject;
  'link.deleted': LinkDeletedSubject;
  'link.clicked': LinkClickedSubject;
  'qr.scanned': QrScannedSubject;
  'conversion.created': ConversionCreatedSubject;
  'report.shared': ReportSharedSubject;
  'domain.verified': DomainVerifiedSubject;
  'analytics.spike': AnalyticsSpikeSubject;
  'analytics.geo_anomaly': AnalyticsGeoAnomalySubject;
  'page.published': PagePublishedSubject;
  'page.viewed': PageViewedSubject;
}

/** A typed event, for callers that build one. */
export function serviceEvent<T extends ServiceEventType>(
  type: T,
  fields: { workspaceId: string; requestId?: string | null; occurredAt: number; subject: EventSubjects[T] },
): ServiceEvent {
  return { type, ...fields, subject: fields.subject as unknown as Record<string, unknown> };
}

/** domain.verified for a domain that was just verified. */
export function domainVerifiedEvent(
  domain: { id: string; workspace_id: string; host: string; verified_at: number | null },
  requestId: string | null = null,
): ServiceEvent {
  const verifiedAt = Number(domain.verified_at);
  return serviceEvent('domain.verified', {
    workspaceId: domain.workspace_id,
    requestId,
    occurredAt: verifiedAt,
    subject: { id: domain.id, host: domain.host, verifiedAt },
  });
}

const iso = (ms: number) => new Date(Number(ms)).toISOString();
const shortUrl = (domain: string, slug: string) => `https://${domain}/${slug}`;

type Builder<T extends ServiceEventType> = (subject: EventSubjects[T], workspaceId: string) => Record<string, unknown>;
type Builders = { [T in ServiceEventType]?: Builder<T> };

/** A link as Variant A's link events carry it; link.updated adds what changed, in this order. */
const linkOfVariantA = (s: LinkFacts, workspaceId: string) => ({
  id: s.id,
  workspaceId,
  slug: s.slug,
  domain: s.domain,
  destinationUrl: s.destinationUrl,
  title: s.title,
});

const variantA: Builders = {
  'link.created': (s, workspaceId) => linkOfVariantA(s, workspaceId),
  'link.updated': (s, workspaceId) => ({
    ...linkOfVariantA(s, workspaceId),
    changedFields: [...s.changedFields],
    updatedAt: iso(s.updatedAt),
  }),
  'link.deleted': (s, workspaceId) => ({ id: s.id, workspaceId, slug: s.slug, domain: s.domain }),
  'conversion.created': (s, workspaceId) => ({
    id: s.id,
    workspaceId,
    eventType: s.eventType,
    customName: s.customName,
    linkId: s.linkId,
    campaignId: s.campaignId,
    qrCodeId: s.qrCodeId,
    value: s.value ? { amountMinor: s.value.amountMinor, currency: s.value.currency } : null,
    occurredAt: s.occurredAt,
  }),
  'report.shared': (s, workspaceId) => ({
    workspaceId,
    reportId: s.reportId,
    title: s.title,
    visibility: s.visibility,
  }),
  'analytics.spike': (s, workspaceId) => ({
    workspaceId,
    linkId: s.linkId,
    slug: s.slug,
    windowStart: iso(s.windowStart),
    windowEnd: iso(s.windowEnd),
    clicks: s.clicks,
    baseline: s.baseline,
    ratio: s.ratio,
  }),
  'analytics.geo_anomaly': (s, workspaceId) => ({
    workspaceId,
    linkId: s.linkId,
    slug: s.slug,
    windowStart: iso(s.windowStart),
    windowEnd: iso(s.windowEnd),
    country: s.country,
    clicks: s.clicks,
    share: s.share,
    baselineShare: s.baselineShare,
  }),
  'domain.verified': (s, workspaceId) => ({ id: s.id, workspaceId, host: s.host, verifiedAt: iso(s.verifiedAt) }),
  'page.published': (s, workspaceId) => ({
    workspaceId,
    pageId: s.pageId,
    slug: s.handle,
    title: s.title,
    url: s.url,
    publishedAt: iso(s.publishedAt),
  }),
};

const visitB = (s: VisitFacts) => ({
  link_id: s.linkId,
  slug: s.slug,
  url: s.destinationUrl,
  short_url: shortUrl(s.domain, s.slug),
  referrer: s.referrer,
  country: s.country,
  city: s.city,
  device: s.device,
  browser: s.browser,
  os: s.os,
});

const variantB: Builders = {
  'link.created': (s) => ({
    link_id: s.id,
    slug: s.slug,
    url: s.destinationUrl,
    short_url: shortUrl(s.domain, s.slug),
    domain: s.domain,
    tags: [...s.tags],
    created_by: s.createdBy,
  }),
  'link.updated': (s) => ({
    link_id: s.id,
    slug: s.slug,
    url: s.destinationUrl,
    short_url: shortUrl(s.domain, s.slug),
    domain: s.domain,
    changed_fields: [...s.changedFields],
  }),
  'link.deleted': (s) => ({ link_id: s.id, slug: s.slug, short_url: shortUrl(s.domain, s.slug), domain: s.domain }),
  'link.clicked': (s) => visitB(s),
  'qr.scanned': (s) => ({ qr_code_id: s.qrCodeId, ...visitB(s) }),
  'domain.verified': (s) => ({ domain_id: s.id, domain: s.host, verified_at: iso(s.verifiedAt) }),
  'page.published': (s) => ({
    page_id: s.pageId,
    slug: s.handle,
    title: s.title,
    url: s.url,
    published_at: iso(s.publishedAt),
  }),
  'page.viewed': (s) => ({
    page_id: s.pageId,
    slug: s.handle,
    referrer: s.referrer,
    country: s.country,
    device: s.device,
    browser: s.browser,
  }),
};

const builders: Record<Variant, Builders> = { A: variantA, B: variantB };

/** The variant's `data` object for the event, or null when the variant does not have the event. */
export function buildEventData(variant: Variant, event: ServiceEvent): Record<string, unknown> | null {
  const build = builders[variant][event.type] as Builder<ServiceEventType> | undefined;
  return build ? build(event.subject as never, event.workspaceId) : null;
}
