// The audit log (Settings › Audit log, OWNER and ADMIN): entries newest first, a page at a time,
// and the CSV of the same filters.
import { useInfiniteQuery } from '@tanstack/react-query';
import type { components, operations } from '../../../generated/dashboard.ts';
import { API_BASE, api } from './client.ts';
import { unwrap } from './errors.ts';

export type AuditEntry = components['schemas']['AuditEntry'];
/** The filters both operations take; empty ones are left out. */
export type AuditQuery = Omit<NonNullable<operations['listAuditEntries']['parameters']['query']>, 'before' | 'limit'>;

const PAGE = 50;

const defined = (q: AuditQuery) =>
  Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== '')) as AuditQuery;

export const useAuditLog = (ws: string, query: AuditQuery) =>
  useInfiniteQuery({
    queryKey: ['audit', ws, JSON.stringify(defined(query))],
    queryFn: async ({ pageParam }) =>
      unwrap(
        api.GET('/workspaces/{workspaceId}/audit', {
          params: {
            path: { workspaceId: ws },
            query: { ...defined(query), limit: PAGE, ...(pageParam ? { before: pageParam } : {}) },
          },
        }),
      ),
    initialPageParam: 0,
    getNextPageParam: (last) => last.next ?? undefined,
  });

/** Where the browser downloads the filtered entries as CSV (a plain link: the session cookie goes along). */
export const auditExportUrl = (ws: string, query: AuditQuery) => {
  const q = new URLSearchParams(defined(query) as Record<string, string>).toString();
  return `${API_BASE}/workspaces/${encodeURIComponent(ws)}/audit/export${q ? `?${q}` : ''}`;
};
