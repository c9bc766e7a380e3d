// A workspace's settings: its name, API keys, custom domains and their app links, tags and campaigns.
import { api, inWorkspace } from './client.ts';
import { useDataQuery } from './data-query.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import type { ApiKey, AppLinksUpdate, Domain, Scope, TagListEntry } from './types.ts';
import { type Answer, type OnWrite, useWrite } from './writes.ts';

export const useApiKeys = (ws: string) =>
  useDataQuery(keys.keys(ws), () => api.GET('/workspaces/{workspaceId}/keys', inWorkspace(ws)));

export const useCampaigns = (ws: string, enabled = true) =>
  useDataQuery(keys.campaigns(ws), () => api.GET('/workspaces/{workspaceId}/campaigns', inWorkspace(ws)), { enabled });

const workspaceApi = {
  rename: (workspaceId: string, name: string) =>
    unwrap(api.PATCH('/workspaces/{workspaceId}', { ...inWorkspace(workspaceId), body: { name } })),
};

/**
 * Renames the workspace: the answer is the workspace the General screen shows, and the session's
 * workspace list (the header's switcher) is read again so it names the workspace the new way.
 */
export const useRenameWorkspace = (ws: string, on?: OnWrite<Answer<typeof workspaceApi.rename>, string>) =>
  useWrite(
    (name: string) => workspaceApi.rename(ws, name),
    (answer) => {
      queryClient.setQueryData(keys.workspace(ws), answer.data);
      void queryClient.invalidateQueries({ queryKey: keys.session });
    },
    on,
  );

const apiKeysApi = {
  create: (workspaceId: string, body: NewKey) =>
    unwrap(api.POST('/workspaces/{workspaceId}/keys', { ...inWorkspace(workspaceId), body })),
  revoke: (workspaceId: string, keyId: string) =>
    unwrap(api.DELETE('/workspaces/{workspaceId}/keys/{keyId}', { params: { path: { workspaceId, keyId } } })),
};

const domain = (workspaceId: string, domainId: string) => ({ params: { path: { workspaceId, domainId } } });

const domainsApi = {
  add: (workspaceId: string, host: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/domains', { ...inWorkspace(workspaceId), body: { host } })),
  verify: (workspaceId: string, domainId: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/domains/{domainId}/verify', domain(workspaceId, domainId))),
  disable: (workspaceId: string, domainId: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/domains/{domainId}/disable', domain(workspaceId, domainId))),
  saveAppLinks: (workspaceId: string, domainId: string, body: AppLinksUpdate) =>
    unwrap(
      api.PUT('/workspaces/{workspaceId}/domains/{domainId}/app-links', { ...domain(workspaceId, domainId), body }),
    ),
};

/** A custom domain's app deep-link documents (apple-app-site-association, assetlinks.json). */
export const useDomainAppLinks = (ws: string, domainId: string) =>
  useDataQuery(keys.appLinks(ws, domainId), () =>
    api.GET('/workspaces/{workspaceId}/domains/{domainId}/app-links', domain(ws, domainId)),
  );

/** Replaces them; the answer is what the screen shows next. */
export const useSaveAppLinks = (
  ws: string,
  domainId: string,
  on?: OnWrite<Answer<typeof domainsApi.saveAppLinks>, AppLinksUpdate>,
) =>
  useWrite(
    (body: AppLinksUpdate) => domainsApi.saveAppLinks(ws, domainId, body),
    (answer) => queryClient.setQueryData(keys.appLinks(ws, domainId), answer.data),
    on,
  );

const tag = (workspaceId: string, tagId: string) => ({ params: { path: { workspaceId, tagId } } });

const tagsApi = {
  create: (workspaceId: string, name: string, color: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/tags', { ...inWorkspace(workspaceId), body: { name, color } })),
  rename: (workspaceId: string, tagId: string, name: string) =>
    unwrap(api.PATCH('/workspaces/{workspaceId}/tags/{tagId}', { ...tag(workspaceId, tagId), body: { name } })),
  delete: (workspaceId: string, tagId: string) =>
    unwrap(api.DELETE('/workspaces/{workspaceId}/tags/{tagId}', tag(workspaceId, tagId))),
};

const campaignsApi = {
  create: (workspaceId: string, name: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/campaigns', { ...inWorkspace(workspaceId), body: { name } })),
};

/** A name is sent only when one was given: a key without one is named by its last characters. */
type NewKey = { scopes: Scope[]; expiresAt: string | null | undefined; name?: string };
type NewTag = { name: string; color: string };

export const useCreateKey = (ws: string, on?: OnWrite<Answer<typeof apiKeysApi.create>, NewKey>) =>
  useWrite((key: NewKey) => apiKeysApi.create(ws, key), [keys.keys(ws)], on);

export const useRevokeKey = (ws: string, on?: OnWrite<Answer<typeof apiKeysApi.revoke>, ApiKey>) =>
  useWrite((key: ApiKey) => apiKeysApi.revoke(ws, key.id), [keys.keys(ws)], on);

export const useAddDomain = (ws: string, on?: OnWrite<Answer<typeof domainsApi.add>, string>) =>
  useWrite((host: string) => domainsApi.add(ws, host), [keys.domains(ws)], on);

export const useVerifyDomain = (ws: string, on?: OnWrite<Answer<typeof domainsApi.verify>, Domain>) =>
  useWrite((d: Domain) => domainsApi.verify(ws, d.id), [keys.domains(ws)], on);

export const useDisableDomain = (ws: string, on?: OnWrite<Answer<typeof domainsApi.disable>, Domain>) =>
  useWrite((d: Domain) => domainsApi.disable(ws, d.id), [keys.domains(ws)], on);

export const useCreateTag = (ws: string, on?: OnWrite<Answer<typeof tagsApi.create>, NewTag>) =>
  useWrite(({ name, color }: NewTag) => tagsApi.create(ws, name, color), [keys.tags(ws)], on);

type TagRename = { tag: TagListEntry; name: string };

/** A renamed tag shows its new name on every link: the reads of links (lists and each link) are stale too. */
export const useRenameTag = (ws: string, on?: OnWrite<Answer<typeof tagsApi.rename>, TagRename>) =>
  useWrite(
    ({ tag, name }: TagRename) => tagsApi.rename(ws, tag.id, name),
    [keys.tags(ws), keys.links(ws), ['link', ws]],
    on,
  );

/** A deleted tag leaves every link that had it. */
export const useDeleteTag = (ws: string, on?: OnWrite<Answer<typeof tagsApi.delete>, TagListEntry>) =>
  useWrite((t: TagListEntry) => tagsApi.delete(ws, t.id), [keys.tags(ws), keys.links(ws), ['link', ws]], on);

export const useCreateCampaign = (ws: string, on?: OnWrite<Answer<typeof campaignsApi.create>, string>) =>
  useWrite((name: string) => campaignsApi.create(ws, name), [keys.campaigns(ws)], on);
