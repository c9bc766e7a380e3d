// Links: the list and its search, one link's analytics, and what changes links (the editor,
// bulk actions, QR codes, CSV import).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { paths } from '../../../generated/dashboard.ts';
import { api, API_BASE, rawBody } from './client.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import type { BulkLinks, DashboardLinkCreate, LinkUpdate } from './types.ts';

export type LinkQuery = NonNullable<paths['/workspaces/{workspaceId}/links']['get']['parameters']['query']>;

const inWorkspace = (workspaceId: string) => ({ params: { path: { workspaceId } } });
const oneLink = (workspaceId: string, linkId: string) => ({ params: { path: { workspaceId, linkId } } });

/** A page of the list; `name` tells the list's reads from other searches of the same links. */
export function useLinkList(ws: string, query: LinkQuery, name: readonly unknown[] = [query]) {
  return useQuery({
    queryKey: [...keys.links(ws), ...name],
    queryFn: () => unwrap(api.GET('/workspaces/{workspaceId}/links', { params: { path: { workspaceId: ws }, query } })),
    placeholderData: keepPreviousData,
  });
}

/** A link's analytics over [from, to] (days); without a window, the service's default. */
export function useLinkAnalytics(ws: string, linkId: string, window: { from: string; to: string } | null) {
  return useQuery({
    queryKey: keys.analytics(ws, linkId, window?.from ?? '', window?.to ?? ''),
    queryFn: () =>
      unwrap(
        api.GET('/workspaces/{workspaceId}/links/{linkId}/analytics', {
          params: { path: { workspaceId: ws, linkId }, query: window ?? {} },
        }),
      ),
    enabled: window !== null,
    placeholderData: keepPreviousData,
  });
}

export const linksApi = {
  create: (workspaceId: string, body: DashboardLinkCreate) =>
    unwrap(api.POST('/workspaces/{workspaceId}/links', { ...inWorkspace(workspaceId), body })),
  update: (workspaceId: string, linkId: string, body: LinkUpdate) =>
    unwrap(api.PATCH('/workspaces/{workspaceId}/links/{linkId}', { ...oneLink(workspaceId, linkId), body })),
  remove: (workspaceId: string, linkId: string) =>
    unwrap(api.DELETE('/workspaces/{workspaceId}/links/{linkId}', oneLink(workspaceId, linkId))),
  qr: (workspaceId: string, linkId: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/links/{linkId}/qr', oneLink(workspaceId, linkId))),
  bulk: (workspaceId: string, body: BulkLinks) =>
    unwrap(api.POST('/workspaces/{workspaceId}/links/bulk', { ...inWorkspace(workspaceId), body })),
  import: (workspaceId: string, csv: File) =>
    unwrap(
      api.POST('/workspaces/{workspaceId}/links/import', {
        ...inWorkspace(workspaceId),
        // The contract types the CSV body as text; the browser sends the file as it is.
        body: csv as unknown as string,
        ...rawBody('text/csv'),
      }),
    ),
};

/** Where the browser downloads the workspace's links as CSV (a plain link: the session cookie goes along). */
export const linksExportUrl = (workspaceId: string) =>
  `${API_BASE}/workspaces/${encodeURIComponent(workspaceId)}/links/export`;
