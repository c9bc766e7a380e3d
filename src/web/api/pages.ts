// Bio pages: the list, one page, its analytics and live preview, and what changes a page.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from './client.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import type { BioPage, BioPageCreate, BioPagePreviewRequest, BioPageUpdate } from './types.ts';
import { type ScreenCallbacks, useWrite } from './write.ts';

const inWorkspace = (workspaceId: string) => ({ params: { path: { workspaceId } } });
const onePage = (workspaceId: string, pageId: string) => ({ params: { path: { workspaceId, pageId } } });

export function usePages(ws: string) {
  return useQuery({
    queryKey: keys.pages(ws),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/pages', inWorkspace(ws)))).data,
  });
}

export function usePage(ws: string, pageId: string) {
  return useQuery({
    queryKey: keys.page(ws, pageId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/pages/{pageId}', onePage(ws, pageId)))).data,
    enabled: pageId !== '',
  });
}

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

const pagesApi = {
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

/** The page as the service now has it: its editor shows it, the list reads it again. */
function storePage(ws: string, page: BioPage) {
  queryClient.setQueryData(keys.page(ws, page.id), page);
  void queryClient.invalidateQueries({ queryKey: keys.pages(ws), exact: true });
}

export const useCreatePage = (ws: string, callbacks?: ScreenCallbacks<BioPage, BioPageCreate>) =>
  useWrite(
    async (body: BioPageCreate) => (await pagesApi.create(ws, body)).data,
    (made) => storePage(ws, made),
    callbacks,
  );

export type PageSave = { body: BioPageUpdate; publish: boolean };
export type PageSaved = { page: BioPage; outcome: 'saved' | 'unchanged' | 'published' };

/**
 * Sends what changed of a saved page, then publishes it if asked. `onStored` hears of the saved
 * changes before publishing starts: they stand even if publishing fails.
 */
export function useSavePage(
  ws: string,
  page: BioPage | undefined,
  { onStored, ...callbacks }: ScreenCallbacks<PageSaved, PageSave> & { onStored?: (page: BioPage) => void } = {},
) {
  return useWrite(
    async ({ body, publish }: PageSave): Promise<PageSaved> => {
      const changed = Object.keys(body).length > 0;
      let current = page!;
      if (changed) {
        current = (await pagesApi.update(ws, current.id, body)).data;
        storePage(ws, current);
        onStored?.(current);
      }
      if (publish) current = (await pagesApi.publish(ws, current.id)).data;
      return { page: current, outcome: publish ? 'published' : changed ? 'saved' : 'unchanged' };
    },
    ({ page: saved, outcome }) => {
      if (outcome !== 'unchanged') storePage(ws, saved);
    },
    callbacks,
  );
}

/** What visitors see of a saved page (the draft is not sent): unpublished, disabled or enabled again. */
export type PageVisibility = 'unpublished' | 'disabled' | 'enabled';

export const usePageVisibility = (ws: string, pageId: string, callbacks?: ScreenCallbacks<BioPage, PageVisibility>) =>
  useWrite(
    async (change: PageVisibility) =>
      (change === 'unpublished'
        ? await pagesApi.unpublish(ws, pageId)
        : await pagesApi.update(ws, pageId, { status: change === 'disabled' ? 'DISABLED' : 'ACTIVE' })
      ).data,
    (changed) => storePage(ws, changed),
    callbacks,
  );

export const useDeletePage = (ws: string, callbacks?: ScreenCallbacks<unknown, string>) =>
  useWrite(
    (pageId: string) => pagesApi.remove(ws, pageId),
    (_answer, pageId) => {
      queryClient.removeQueries({ queryKey: keys.page(ws, pageId) });
      void queryClient.invalidateQueries({ queryKey: keys.pages(ws), exact: true });
    },
    callbacks,
  );
