// Where a link's visitors go: its routing, "Try a visit" on the saved routing, and its clicks and
// conversions by rule and variant.
import { api } from './client.ts';
import { useDataQuery } from './data-query.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import type { RoutingTrial, RoutingUpdate } from './types.ts';
import { type Answer, type OnWrite, useWrite } from './writes.ts';

const oneLink = (workspaceId: string, linkId: string) => ({ params: { path: { workspaceId, linkId } } });

export const useRouting = (ws: string, linkId: string) =>
  useDataQuery(keys.routing(ws, linkId), () =>
    api.GET('/workspaces/{workspaceId}/links/{linkId}/routing', oneLink(ws, linkId)),
  );

export const useRoutingReport = (ws: string, linkId: string) =>
  useDataQuery(keys.routingReport(ws, linkId), () =>
    api.GET('/workspaces/{workspaceId}/links/{linkId}/routing/report', oneLink(ws, linkId)),
  );

const saveRouting = (ws: string, linkId: string, body: RoutingUpdate) =>
  unwrap(api.PUT('/workspaces/{workspaceId}/links/{linkId}/routing', { ...oneLink(ws, linkId), body }));

const tryVisit = (ws: string, linkId: string, body: RoutingTrial) =>
  unwrap(api.POST('/workspaces/{workspaceId}/links/{linkId}/routing/trial', { ...oneLink(ws, linkId), body }));

/** The saved routing is what the editor and "Try a visit" read next; the report names its routes. */
export const useSaveRouting = (
  ws: string,
  linkId: string,
  callbacks?: OnWrite<Answer<typeof saveRouting>, RoutingUpdate>,
) =>
  useWrite(
    (body: RoutingUpdate) => saveRouting(ws, linkId, body),
    (answer) => {
      queryClient.setQueryData(keys.routing(ws, linkId), answer.data);
      void queryClient.invalidateQueries({ queryKey: keys.routingReport(ws, linkId) });
    },
    callbacks,
  );

/** Nothing is recorded, so nothing cached changes. */
export const useTryVisit = (ws: string, linkId: string, callbacks?: OnWrite<Answer<typeof tryVisit>, RoutingTrial>) =>
  useWrite((body: RoutingTrial) => tryVisit(ws, linkId, body), null, callbacks);
