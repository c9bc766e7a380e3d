// Links: the list and its search, one link's analytics, and what changes links (the editor,
// bulk actions, QR codes, CSV import).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { paths } from '../../../generated/dashboard.ts';
import { api, API_BASE, inWorkspace, rawBody } from './client.ts';
import { asApiError, unwrap } from './errors.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import type { BulkLinks, DashboardLink, DashboardLinkCreate, LinkUpdate } from './types.ts';
import { type OnWrite, useWrite } from './writes.ts';

export type LinkQuery = NonNullable<paths['/workspaces/{workspaceId}/links']['get']['parameters']['query']>;

const oneLink = (workspaceId: string, linkId: string) => ({ params: { path: { workspaceId, linkId } } });

/** A page of the list; `name` tells the list's reads from other searches of the same links. */
export function useLinkList(ws: string, query: LinkQuery, name: readonly unknown[] = [query]) {
  return useQuery({
    queryKey: [...keys.links(ws), ...name],
    queryFn: () => unwrap(api.GET('/workspaces/{workspaceId}/links', { params: { path: { workspaceId: ws }, query } })),
    placeholderData: keepPreviousData,
  });
}

/** What a destination's page says of itself, asked once (the editor's "Take from the page"). */
export async function readDestinationPreview(workspaceId: string, url: string) {
  const answer = await unwrap(
    api.GET('/workspaces/{workspaceId}/destination-preview', { params: { path: { workspaceId }, query: { url } } }),
  );
  return answer.data;
}

/** A link's QR code, read without making one; null when it has none. */
export async function linkQrCode(workspaceId: string, linkId: string) {
  try {
    return (await unwrap(api.GET('/workspaces/{workspaceId}/links/{linkId}/qr', oneLink(workspaceId, linkId)))).data;
  } catch (err) {
    if (asApiError(err).status === 404) return null;
    throw err;
  }
}

/** The address of a destination site's icon (getFavicon), for an <img>. */
export const faviconUrl = (ws: string, host: string) =>
  `${API_BASE}/workspaces/${encodeURIComponent(ws)}/favicons/${encodeURIComponent(host)}`;

/** Set once the service has said it does not fetch destinations (503): not asked again. */
let destinationFetchOff = false;

/**
 * What a destination's page says of itself (title, description, image), where the operator lets
 * the service fetch it; null where it does not. `url` empty asks nothing.
 */
export function useDestinationPreview(ws: string, url: string) {
  return useQuery({
    queryKey: ['destination-preview', ws, url],
    queryFn: async () => {
      try {
        const answer = await unwrap(
          api.GET('/workspaces/{workspaceId}/destination-preview', {
            params: { path: { workspaceId: ws }, query: { url } },
          }),
        );
        return answer.data;
      } catch (err) {
        if (asApiError(err).status !== 503) throw err;
        destinationFetchOff = true;
        return null;
      }
    },
    enabled: url !== '' && !destinationFetchOff,
    retry: false,
    staleTime: 10 * 60_000,
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

const linksApi = {
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

type Answer<K extends keyof typeof linksApi> = Awaited<ReturnType<(typeof linksApi)[K]>>;

/** The saved link is what its editor shows; the list may now read differently. */
function settleLink(ws: string, answer: { data: DashboardLink } | null) {
  void queryClient.invalidateQueries({ queryKey: keys.links(ws) });
  if (answer) queryClient.setQueryData(keys.link(ws, answer.data.id), answer.data);
}

export const useCreateLink = (ws: string, callbacks?: OnWrite<Answer<'create'>, DashboardLinkCreate>) =>
  useWrite(
    (body: DashboardLinkCreate) => linksApi.create(ws, body),
    (answer) => settleLink(ws, answer),
    callbacks,
  );

/** Sends only what changed; with nothing changed, sends nothing and answers `null`. */
export const useUpdateLink = (ws: string, linkId: string, callbacks?: OnWrite<Answer<'update'> | null, LinkUpdate>) =>
  useWrite(
    async (body: LinkUpdate) => (Object.keys(body).length === 0 ? null : linksApi.update(ws, linkId, body)),
    (answer) => settleLink(ws, answer),
    callbacks,
  );

export const useDeleteLink = (ws: string, callbacks?: OnWrite<Answer<'remove'>, string>) =>
  useWrite(
    (linkId: string) => linksApi.remove(ws, linkId),
    (_answer, linkId) => {
      queryClient.removeQueries({ queryKey: keys.link(ws, linkId) });
      void queryClient.invalidateQueries({ queryKey: keys.links(ws) });
    },
    callbacks,
  );

export const useBulkLinks = (ws: string, callbacks?: OnWrite<Answer<'bulk'>, BulkLinks>) =>
  useWrite(
    (body: BulkLinks) => linksApi.bulk(ws, body),
    () => void queryClient.invalidateQueries({ queryKey: keys.links(ws) }),
    callbacks,
  );

/** A link's QR code; nothing cached changes. */
export const useCreateQr = (ws: string, linkId: string, callbacks?: OnWrite<Answer<'qr'>, void>) =>
  useWrite(() => linksApi.qr(ws, linkId), null, callbacks);

/** An import makes links and may make tags. */
export const useImportLinks = (ws: string, callbacks?: OnWrite<Answer<'import'>, File>) =>
  useWrite(
    (csv: File) => linksApi.import(ws, csv),
    () => {
      void queryClient.invalidateQueries({ queryKey: keys.links(ws) });
      void queryClient.invalidateQueries({ queryKey: keys.tags(ws) });
    },
    callbacks,
  );

/** Where the browser downloads the workspace's links as CSV (a plain link: the session cookie goes along). */
export const linksExportUrl = (workspaceId: string) =>
  `${API_BASE}/workspaces/${encodeURIComponent(workspaceId)}/links/export`;
