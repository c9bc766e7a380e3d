// Reads shared by several screens.
import { useQuery } from '@tanstack/react-query';
import { api } from './client.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';

const workspaceId = (ws: string) => ({ params: { path: { workspaceId: ws } } });

export function useWorkspace(ws: string) {
  return useQuery({
    queryKey: keys.workspace(ws),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}', workspaceId(ws)))).data,
  });
}

export function useTags(ws: string) {
  return useQuery({
    queryKey: keys.tags(ws),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/tags', workspaceId(ws)))).data,
  });
}

export function useDomains(ws: string) {
  return useQuery({
    queryKey: keys.domains(ws),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/domains', workspaceId(ws)))).data,
  });
}

export function useLink(ws: string, linkId: string) {
  return useQuery({
    queryKey: keys.link(ws, linkId),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/workspaces/{workspaceId}/links/{linkId}', { params: { path: { workspaceId: ws, linkId } } }),
        )
      ).data,
    enabled: linkId !== '',
  });
}
