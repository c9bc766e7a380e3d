// Where a link's visitors go (openapi/paths/api_v1_links_id_routing*.yaml): the shared routing
// operations (src/operations/routing.ts) as the API's operations, acting as the key's creator.
import { actorOf } from './links.ts';
import type { RoutingOperations } from '../../operations/routing.ts';
import type { Handlers, ResultOf } from './types.ts';

export function routingHandlers(
  routing: RoutingOperations,
): Pick<Handlers, 'getLinkRouting' | 'setLinkRouting' | 'tryLinkRouting' | 'getLinkRoutingReport'> {
  return {
    async getLinkRouting({ params }, { auth, requestId, audit }): Promise<ResultOf<'getLinkRouting'>> {
      return { status: 200, body: { data: await routing.get(actorOf(auth, requestId, audit), params.id) } };
    },
    async setLinkRouting({ params, body }, { auth, requestId, audit }): Promise<ResultOf<'setLinkRouting'>> {
      return { status: 200, body: { data: await routing.put(actorOf(auth, requestId, audit), params.id, body) } };
    },
    async tryLinkRouting({ params, body }, { auth, requestId, audit }): Promise<ResultOf<'tryLinkRouting'>> {
      return { status: 200, body: { data: await routing.trial(actorOf(auth, requestId, audit), params.id, body) } };
    },
    async getLinkRoutingReport({ params }, { auth, requestId, audit }): Promise<ResultOf<'getLinkRoutingReport'>> {
      return { status: 200, body: { data: await routing.report(actorOf(auth, requestId, audit), params.id) } };
    },
  };
}
