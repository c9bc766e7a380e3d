// Single sign-on: the workspace's provider (an OWNER's settings), and leaving for the provider to
// sign in or to link an account (the browser goes to the address the service answers).
import { api, inWorkspace } from './client.ts';
import { useDataQuery } from './data-query.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import type { SsoProvider, SsoProviderUpdate } from './types.ts';
import { type OnWrite, useWrite } from './writes.ts';

export const useSsoProvider = (ws: string) =>
  useDataQuery<SsoProvider | null>(keys.sso(ws), () => api.GET('/workspaces/{workspaceId}/sso', inWorkspace(ws)));

const ssoApi = {
  save: (ws: string, body: SsoProviderUpdate) =>
    unwrap(api.PUT('/workspaces/{workspaceId}/sso', { ...inWorkspace(ws), body })),
  remove: (ws: string) => unwrap(api.DELETE('/workspaces/{workspaceId}/sso', inWorkspace(ws))),
  start: (email: string) => unwrap(api.POST('/sso/start', { body: { email } })),
  link: () => unwrap(api.POST('/sso/link')),
};

export const useSaveSso = (ws: string, on: OnWrite<{ data: SsoProvider | null }, SsoProviderUpdate>) =>
  useWrite(
    (body: SsoProviderUpdate) => ssoApi.save(ws, body),
    (answer) => queryClient.setQueryData(keys.sso(ws), answer.data),
    on,
  );

export const useRemoveSso = (ws: string, on: OnWrite<unknown, void>) =>
  useWrite(
    () => ssoApi.remove(ws),
    () => queryClient.setQueryData(keys.sso(ws), null),
    on,
  );

/** Leaves for the provider of the email's domain; the promise settles only when that fails. */
export const useStartSso = (on: OnWrite<unknown, string>) =>
  useWrite(async (email: string) => window.location.assign((await ssoApi.start(email)).authorizationUrl), null, on);

/** Leaves for the provider of the signed-in person's domain, to link their account to it. */
export const useLinkSso = (on: OnWrite<unknown, void>) =>
  useWrite(async () => window.location.assign((await ssoApi.link()).authorizationUrl), null, on);
