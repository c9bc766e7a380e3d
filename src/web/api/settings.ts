// A workspace's settings: API keys, custom domains, tags and campaigns.
import { useQuery } from '@tanstack/react-query';
import { api } from './client.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import type { Scope } from './types.ts';

const inWorkspace = (workspaceId: string) => ({ params: { path: { workspaceId } } });

export function useApiKeys(ws: string) {
  return useQuery({
    queryKey: keys.keys(ws),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/keys', inWorkspace(ws)))).data,
  });
}

export function useCampaigns(ws: string, enabled = true) {
  return useQuery({
    queryKey: keys.campaigns(ws),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/campaigns', inWorkspace(ws)))).data,
    enabled,
  });
}

export const apiKeysApi = {
  create: (workspaceId: string, scopes: Scope[], expiresAt: string | null | undefined) =>
    unwrap(api.POST('/workspaces/{workspaceId}/keys', { ...inWorkspace(workspaceId), body: { scopes, expiresAt } })),
  revoke: (workspaceId: string, keyId: string) =>
    unwrap(api.DELETE('/workspaces/{workspaceId}/keys/{keyId}', { params: { path: { workspaceId, keyId } } })),
};

const domain = (workspaceId: string, domainId: string) => ({ params: { path: { workspaceId, domainId } } });

export const domainsApi = {
  add: (workspaceId: string, host: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/domains', { ...inWorkspace(workspaceId), body: { host } })),
  verify: (workspaceId: string, domainId: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/domains/{domainId}/verify', domain(workspaceId, domainId))),
  disable: (workspaceId: string, domainId: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/domains/{domainId}/disable', domain(workspaceId, domainId))),
};

export const tagsApi = {
  create: (workspaceId: string, name: string, color: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/tags', { ...inWorkspace(workspaceId), body: { name, color } })),
};

export const campaignsApi = {
  create: (workspaceId: string, name: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/campaigns', { ...inWorkspace(workspaceId), body: { name } })),
};
