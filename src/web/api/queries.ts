// Reads shared by several screens.
import { api, inWorkspace } from './client.ts';
import { useDataQuery } from './data-query.ts';
import { keys } from './keys.ts';

export const useWorkspace = (ws: string) =>
  useDataQuery(keys.workspace(ws), () => api.GET('/workspaces/{workspaceId}', inWorkspace(ws)));

export const useTags = (ws: string) =>
  useDataQuery(keys.tags(ws), () => api.GET('/workspaces/{workspaceId}/tags', inWorkspace(ws)));

export const useDomains = (ws: string) =>
  useDataQuery(keys.domains(ws), () => api.GET('/workspaces/{workspaceId}/domains', inWorkspace(ws)));

export function useLink(ws: string, linkId: string) {
  return useDataQuery(
    keys.link(ws, linkId),
    () => api.GET('/workspaces/{workspaceId}/links/{linkId}', { params: { path: { workspaceId: ws, linkId } } }),
    { enabled: linkId !== '' },
  );
}

/** A QR code by its id, with its link's id (how a goal or a filter names it by its link). */
export function useQrCode(ws: string, qrCodeId: string) {
  return useDataQuery(
    keys.qrCode(ws, qrCodeId),
    () => api.GET('/workspaces/{workspaceId}/qr-codes/{qrCodeId}', { params: { path: { workspaceId: ws, qrCodeId } } }),
    { enabled: qrCodeId !== '' },
  );
}
