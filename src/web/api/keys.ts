// Query keys: one place, so a change invalidates exactly what it made stale.
export const keys = {
  session: ['session'] as const,
  ownSessions: ['own-sessions'] as const,
  passwordReset: ['password-reset'] as const,
  workspace: (ws: string) => ['workspace', ws] as const,
  links: (ws: string) => ['links', ws] as const,
  link: (ws: string, id: string) => ['link', ws, id] as const,
  // Under the links' key: deleting a link (which takes its codes with it) reads it again.
  qrCode: (ws: string, id: string) => ['links', ws, 'qr-code', id] as const,
  analytics: (ws: string, id: string, from: string, to: string) => ['analytics', ws, id, from, to] as const,
  routing: (ws: string, id: string) => ['routing', ws, id] as const,
  routingReport: (ws: string, id: string) => ['routing', ws, id, 'report'] as const,
  tags: (ws: string) => ['tags', ws] as const,
  domains: (ws: string) => ['domains', ws] as const,
  appLinks: (ws: string, domainId: string) => ['domains', ws, domainId, 'app-links'] as const,
  keys: (ws: string) => ['keys', ws] as const,
  members: (ws: string) => ['members', ws] as const,
  invitations: (ws: string) => ['invitations', ws] as const,
  campaigns: (ws: string) => ['campaigns', ws] as const,
  conversions: (ws: string, query: string) => ['conversions', ws, query] as const,
  goals: (ws: string) => ['goals', ws] as const,
  pages: (ws: string) => ['pages', ws] as const,
  page: (ws: string, id: string) => ['pages', ws, id] as const,
  pageAnalytics: (ws: string, id: string, from: string, to: string) =>
    ['pages', ws, id, 'analytics', from, to] as const,
  pagePreview: (ws: string, draft: string) => ['page-preview', ws, draft] as const,
  goalReport: (ws: string, id: string, days: string, version: number) =>
    ['goals', ws, 'report', id, days, version] as const,
  reports: (ws: string) => ['reports', ws] as const,
  shared: (token: string) => ['shared', token] as const,
};
