// The webhook event names of each variant as the interface lists them (spec/service-interface.md,
// "Events"), copied by hand on purpose: the AsyncAPI documents and the service's catalogue must
// match this list, not a list derived from either of them.
export const INTERFACE_EVENTS = {
  A: [
    'link.created',
    'link.updated',
    'link.deleted',
    'page.published',
    'report.shared',
    'conversion.created',
    'analytics.spike',
    'analytics.geo_anomaly',
    'domain.verified',
  ],
  B: [
    'link.created',
    'link.clicked',
    'link.updated',
    'link.deleted',
    'page.viewed',
    'page.published',
    'qr.scanned',
    'domain.verified',
  ],
} as const;
