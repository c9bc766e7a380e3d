// Bio pages: the list, one page, its analytics and live preview, and what changes a page.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, inWorkspace } from './client.ts';
import { useDataQuery } from './data-query.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import type { BioPageCreate, BioPagePreviewRequest, BioPageUpdate } from './types.ts';

const onePage = (workspaceId: string, pageId: string) => ({ params: { path: { workspaceId, pageId } } });

export const usePages = (ws: string) =>
  useDataQuery(keys.pages(ws), () => api.GET('/workspaces/{workspaceId}/pages', inWorkspace(ws)));

export const usePage = (ws: string, pageId: string) =>
  useDataQuery(keys.page(ws, pageId), () => api.GET('/workspaces/{workspaceId}/pages/{pageId}', onePage(ws, pageId)), {
    enabled: pageId !== '',
  });

/** A page's analytics over the days [from, to]. */
export function usePageAnalytics(ws: string, pageId: string, from: string, to: string) {
  return useQuery({
    queryKey: keys.pageAnalytics(ws, pageId, from, to),
    queryFn: () =>
      unwrap(
        api.GET('/workspaces/{workspaceId}/pages/{pageId}/analytics', {
          params: { path: { workspaceId: ws, pageId }, query: { from, to } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** The HTML of a draft (`draft`: the request as JSON, once typing has paused). */
export function usePagePreview(workspaceId: string, draft: string) {
  return useQuery({
    queryKey: keys.pagePreview(workspaceId, draft),
    queryFn: async () =>
      (
        await unwrap(
          api.POST('/workspaces/{workspaceId}/page-preview', {
            ...inWorkspace(workspaceId),
            body: JSON.parse(draft) as BioPagePreviewRequest,
          }),
        )
      ).html,
    // The last preview stays while the next one is made, so the frame never goes blank.
    placeholderData: keepPreviousData,
    staleTime: Infinity,
    gcTime: 60_000,
  });
}

export const pagesApi = {
  create: (workspaceId: string, body: BioPageCreate) =>
    unwrap(api.POST('/workspaces/{workspaceId}/pages', { ...inWorkspace(workspaceId), body })),
  update: (workspaceId: string, pageId: string, body: BioPageUpdate) =>
    unwrap(api.PATCH('/workspaces/{workspaceId}/pages/{pageId}', { ...onePage(workspaceId, pageId), body })),
  publish: (workspaceId: string, pageId: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/pages/{pageId}/publish', onePage(workspaceId, pageId))),
  unpublish: (workspaceId: string, pageId: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/pages/{pageId}/unpublish', onePage(workspaceId, pageId))),
  remove: (workspaceId: string, pageId: string) =>
    unwrap(api.DELETE('/workspaces/{workspaceId}/pages/{pageId}', onePage(workspaceId, pageId))),
};
