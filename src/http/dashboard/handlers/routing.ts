// Where a link's visitors go, in the dashboard (openapi/dashboard.yaml, Links): the public API's
// routing operations as the signed-in person, so the rules and messages are the API's own.
import type { RoutingOperations } from '../../../operations/routing.ts';
import { sessionActor } from '../session.ts';
import type { DashboardHandlers, DashboardResult } from '../types.ts';

export function routingHandlers(
  routing: RoutingOperations,
): Pick<
  DashboardHandlers,
  'getDashboardLinkRouting' | 'setDashboardLinkRouting' | 'tryDashboardLinkRouting' | 'getDashboardLinkRoutingReport'
> {
  return {
    async getDashboardLinkRouting({ params }, ctx): Promise<DashboardResult<'getDashboardLinkRouting'>> {
      return { status: 200, body: { data: await routing.get(sessionActor(ctx), params.linkId) } };
    },

    async setDashboardLinkRouting({ params, body }, ctx): Promise<DashboardResult<'setDashboardLinkRouting'>> {
      return { status: 200, body: { data: await routing.put(sessionActor(ctx), params.linkId, body) } };
    },

    async tryDashboardLinkRouting({ params, body }, ctx): Promise<DashboardResult<'tryDashboardLinkRouting'>> {
      return { status: 200, body: { data: await routing.trial(sessionActor(ctx), params.linkId, body) } };
    },

    async getDashboardLinkRoutingReport({ params }, ctx): Promise<DashboardResult<'getDashboardLinkRoutingReport'>> {
      return { status: 200, body: { data: await routing.report(sessionActor(ctx), params.linkId) } };
    },
  };
}
