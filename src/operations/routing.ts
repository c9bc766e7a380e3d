// Where a link's visitors go (openapi/paths/api_v1_links_id_routing*.yaml): read and replace a
// link's routing, "Try a visit" on it, and its clicks and conversions by rule and variant. The
// public API's handlers and the dashboard's both call these.
import { audited, diffFields } from './audit.ts';
import type { components } from '../../generated/api.ts';
import { canUpdateLinks } from '../domain/access.ts';
import { invalid, notFound } from '../domain/errors.ts';
import { forwardedLocation } from '../domain/forwarding.ts';
import { newId } from '../domain/ids.ts';
import { locationOf } from '../domain/location.ts';
import { parseTimestamp } from '../domain/links.ts';
import type { ResolvedLink } from '../domain/resolve.ts';
import {
  chooseRoute,
  compileRouting,
  isDefaultRouting,
  routeId,
  routeLocation,
  routingOf,
  type CompiledRouting,
  type Route,
  type Routing,
} from '../domain/routing.ts';
import { parseAddress } from '../domain/addresses.ts';
import { checkRouting, isCountryCode, sameSplit, type RoutingBody } from '../domain/routing-document.ts';
import { explainRule } from '../domain/routing-explain.ts';
import { compareVariants, rateOf, round } from '../domain/split-stats.ts';
import * as repo from '../db/repos/link-routing.ts';
import { Facts } from '../redirect/visit-facts.ts';
import { linkRules, type Actor } from './link-rules.ts';
import type { OperationServices } from './services.ts';

type S = components['schemas'];
export type RoutingOperations = ReturnType<typeof routingOperations>;

const NO_CITIES = { hasCities: false, knowsCity: () => false };
const linkLocation = (row: repo.RoutingRow) => locationOf(row.original_url) ?? row.original_url;

export function routingOperations(services: OperationServices) {
  const knex = services.db.knex;
  const rules = linkRules(services);

  async function rowOf(auth: Actor, linkId: string) {
    const row = await repo.routingRow(knex, auth.workspaceId, linkId);
    if (!row) throw notFound('Link not found');
    return row;
  }

  /** The link as the redirect resolves it, for settling its split as a visit would. */
  const resolvedOf = (row: repo.RoutingRow, routing: CompiledRouting) =>
    ({ id: row.id, workspaceId: row.workspace_id, domainKey: row.domain_key, slug: row.slug, routing }) as ResolvedLink;

  return {
    async get(auth: Actor, linkId: string): Promise<Routing> {
      return routingOf((await rowOf(auth, linkId)).routing);
    },

    /** Replaces the routing; the change applies from the next click on every process. */
    async put(auth: Actor, linkId: string, body: S['RoutingUpdate']): Promise<Routing> {
      await rules.requireRole(auth, canUpdateLinks, 'update');
      const row = await rowOf(auth, linkId);
      const current = routingOf(row.routing);
      if (body.rules?.some((r) => r.conditions.some((c) => c.type === 'city'))) await services.geo?.loadCities?.();
      const next = checkRouting(body as RoutingBody, current, services.geo ?? NO_CITIES, newId);
      const stored = isDefaultRouting(next) ? null : JSON.stringify(next);
      await audited(
        knex,
        auth.audit,
        auth.workspaceId,
        (trx) => repo.writeRouting(trx, row, stored, next.indexable, sameSplit(current.split, next.split)),
        () => ({
          action: 'link.routing_changed',
          objectType: 'link',
          objectId: row.id,
          changes: diffFields({ routing: row.routing ?? null }, { routing: stored }),
        }),
      );
      await services.linkCache
        .invalidate([{ domainKey: row.domain_key, slug: row.slug }])
        .catch((err) => services.log.warn({ err }, 'redirect cache invalidation failed'));
      return next;
    },

    /** "Try a visit": where the visit would go and why, by the redirect's own decision. */
    async trial(auth: Actor, linkId: string, body: S['RoutingTrial']): Promise<S['RoutingTrialResult']['data']> {
      const row = await rowOf(auth, linkId);
      const country = body.country?.trim().toUpperCase();
      if (country !== undefined && !isCountryCode(country))
        throw invalid('country must be an ISO 3166-1 alpha-2 country code such as US', 'country');
      if (body.ip !== undefined && parseAddress(body.ip.trim()) === null)
        throw invalid('ip must be an IPv4 or IPv6 address', 'ip');
      const at = body.at === undefined ? Date.now() : parseTimestamp(body.at);
      if (at === null) throw invalid('at must be an ISO 8601 timestamp', 'at');
      const facts = new Facts(
        {
          now: at,
          userAgent: body.userAgent,
          acceptLanguage: body.language,
          trustedCountry: country,
          address: () => body.ip?.trim(),
          rawQuery: body.query?.replace(/^\?/, '') || null,
        },
        services.geo ?? null,
      );
      const url = linkLocation(row);
      const routing =
        compileRouting(row.routing, row.split_winner) ?? compileRouting(JSON.stringify(routingOf(null)), null)!;
      let route: Route = chooseRoute(routing, facts, body.variantId ?? null, null);
      if (route.kind === 'unsettled') {
        routing.split!.winnerId = await repo.settleSplit(knex, resolvedOf(row, routing));
        route = chooseRoute(routing, facts, body.variantId ?? null, null);
      }
      const doc = routingOf(routing.stored);
      const reasons = doc.rules.map((r, i) => explainRule(routing, i, r.conditions, facts));
      reasons.push(splitReason(routing, route));
      const destination = route.kind === 'split' ? null : routeLocation(route, url);
      return {
        url:
          destination === null
            ? null
            : forwardedLocation(destination, facts.rawQuery, routing.forwardQuery, null, null),
        served: { kind: route.kind === 'unsettled' ? 'split' : route.kind, id: routeId(route) },
        reasons,
        visitor: {
          device: facts.device(),
          os: facts.os(),
          browser: facts.browser(),
          language: facts.language(),
          country: facts.country(),
          city: facts.city(),
        },
        variants: route.kind === 'split' ? doc.split!.variants : [],
      };
    },

    /** Clicks and conversions by what served them; the split's comparison and winner. */
    async report(auth: Actor, linkId: string): Promise<S['RoutingReport']['data']> {
      const row = await rowOf(auth, linkId);
      const routing = routingOf(row.routing);
      const tallies = new Map((await repo.routeTallies(knex, auth.workspaceId, linkId)).map((t) => [t.route, t]));
      const take = (id: string | null) => {
        const t = tallies.get(id);
        tallies.delete(id);
        return { clicks: t?.clicks ?? 0, conversions: t?.conversions ?? 0 };
      };
      const routes: S['RoutingReport']['data']['routes'] = [
        { kind: 'link', id: null, url: linkLocation(row), ...take(null) },
        ...routing.rules.map((r) => ({ kind: 'rule' as const, id: r.id, url: r.url, ...take(r.id) })),
      ];
      const variants = (routing.split?.variants ?? []).map((v) => {
        const t = take(v.id);
        return { id: v.id, url: v.url, weight: v.weight, ...t, conversionRate: round(rateOf({ id: v.id, ...t })) };
      });
      routes.push(
        ...variants.map((v) => ({
          kind: 'variant' as const,
          id: v.id,
          url: v.url,
          clicks: v.clicks,
          conversions: v.conversions,
        })),
      );
      for (const t of tallies.values())
        routes.push({ kind: 'removed', id: t.route, url: null, clicks: t.clicks, conversions: t.conversions });
      return {
        routes,
        split: routing.split && {
          metric: routing.split.metric,
          endsAt: routing.split.endsAt,
          winnerId: row.split_winner,
          variants,
          comparison: compareVariants(variants),
        },
      };
    },
  };
}

function splitReason(routing: CompiledRouting, route: Route): string {
  const split = routing.split;
  if (route.kind === 'rule') return `Rule ${route.index + 1} matched: the split is not consulted.`;
  if (!split) return "No rule matched and there is no split: the link's own url.";
  switch (route.kind) {
    case 'winner':
      return `The split ended; its winner ${route.variant.id} serves everyone.`;
    case 'variant':
      return `No rule matched; the visitor holds variant ${route.variant.id} of the split.`;
    case 'split':
      return `No rule matched; a new visitor is given a variant by weight: ${routing.variants
        .map((v) => `${v.id} ${v.weight}%`)
        .join(', ')}.`;
    default:
      return "The split ended without a winner: the link's own url.";
  }
}
