// Where a visitor goes (openapi/components/schemas/Routing.yaml): a link's routing as stored,
// compiled once per cached link, and the one decision both the redirect and "Try a visit" make
// (chooseRoute). What it reads of a visit comes through VisitFacts, computed only when a
// condition asks for it: a link without rules reads nothing.
import { type LocationParts, locationParts } from './forwarding.ts';
import { locationOf } from './location.ts';
import {
  type ConditionType,
  type Program,
  ProgramBuilder,
  type RoutingCondition,
  ruleHolds,
  type VisitFacts,
} from './routing-program.ts';

export { CONDITION_TYPES, type ConditionType, type RoutingCondition, type VisitFacts } from './routing-program.ts';

export interface RoutingRule {
  id: string;
  conditions: RoutingCondition[];
  url: string;
}
export interface RoutingVariant {
  id: string;
  url: string;
  weight: number;
}
export interface RoutingSplit {
  variants: RoutingVariant[];
  endsAt: string | null;
  metric: 'clicks' | 'conversions';
}
export interface Routing {
  rules: RoutingRule[];
  split: RoutingSplit | null;
  forwardQuery: boolean;
  indexable: boolean;
  clickIdParam: string | null;
}

export const DEFAULT_ROUTING: Readonly<Routing> = Object.freeze({
  rules: [],
  split: null,
  forwardQuery: true,
  indexable: false,
  clickIdParam: null,
});

export const isDefaultRouting = (r: Routing): boolean =>
  r.rules.length === 0 && r.split === null && r.forwardQuery && !r.indexable && r.clickIdParam === null;

/** A stored routing column (null: every default) as the document the API shows. */
export function routingOf(stored: string | null | undefined): Routing {
  return stored ? (JSON.parse(stored) as Routing) : { ...DEFAULT_ROUTING };
}

export interface Destination extends LocationParts {
  id: string;
  url: string;
  /** The url as a Location header value, and its parts for forwarding a query into. */
  location: string;
  /** The signed part of its click ids, kept by the redirect (routed.ts) with the signer's key. */
  signedBy: object | null;
  signed: string;
}
export type CompiledRule = Destination;
export interface CompiledVariant extends Destination {
  weight: number;
}
/** A split's state beyond its variants (CompiledRouting.variants) and its end (splitEnd). */
export interface CompiledSplit {
  metric: 'clicks' | 'conversions';
  /** The settled winner (links.split_winner), once a visit after the end asked for it. */
  winnerId: string | null;
  /** A settlement in progress on this process: the visits meanwhile wait for it. */
  settling?: Promise<string | null>;
}

export interface CompiledRouting extends Program {
  /**
   * Where the rules' program ends in `code`. With a split, its weights follow, one per variant,
   * then its end (Infinity for none): a visit reads them from the array it read the rules from.
   */
  rulesEnd: number;
  /**
   * The document as stored (links.routing), which a settled winner is written against. Only
   * what a visit reads is kept besides, so a cached link's routing is a few objects close
   * together: "Try a visit" parses this for the rest (routingOf).
   */
  stored: string;
  rules: CompiledRule[];
  split: CompiledSplit | null;
  /** The split's variants, or none: on the routing, one object fewer to read on a visit. */
  variants: CompiledVariant[];
  forwardQuery: boolean;
  indexable: boolean;
  clickIdParam: string | null;
  /** A rule reads the client's place or address: the redirect looks it up for this link only. */
  readsPlace: boolean;
}

function destination(d: { id: string; url: string }, weight: number): CompiledVariant {
  const location = locationOf(d.url) ?? d.url;
  const parts = locationParts(location);
  // Every field named here, in one literal: rules and variants have one shape on the redirect
  // path, each in one object (a spread and a field added after it made a second map, and put the
  // added field in a second object).
  return {
    id: d.id,
    url: d.url,
    location,
    path: parts.path,
    own: parts.own,
    ownInitials: parts.ownInitials,
    prefix: parts.prefix,
    fragment: parts.fragment,
    signedBy: null,
    signed: '',
    weight,
  };
}

export function compileRouting(stored: string | null, winnerId: string | null): CompiledRouting | null {
  if (!stored) return null;
  const source = JSON.parse(stored) as Routing;
  const program = new ProgramBuilder();
  for (const r of source.rules) program.rule(r.conditions);
  const rulesEnd = program.code.length;
  // The weights and the end beside the rules: a draw reads no variant but the one it picks.
  if (source.split) {
    for (const v of source.split.variants) program.code.push(v.weight);
    program.code.push(source.split.endsAt ? Date.parse(source.split.endsAt) : Number.POSITIVE_INFINITY);
  }
  const variants = (source.split?.variants ?? []).map((v) => destination(v, v.weight));
  return {
    rulesEnd,
    code: program.code,
    strings: program.strings,
    ranges: program.ranges,
    stored,
    rules: source.rules.map((r) => destination(r, 0)),
    split: source.split && { metric: source.split.metric, winnerId },
    variants,
    forwardQuery: source.forwardQuery,
    indexable: source.indexable,
    clickIdParam: source.clickIdParam,
    readsPlace: source.rules.some((r) => r.conditions.some((c) => PLACE.has(c.type))),
  };
}
const PLACE = new Set<ConditionType>(['country', 'city', 'ip']);

/**
 * What served a visit: a rule, the visitor's variant (`held`: from their cookie; else `drawn`),
 * the split's winner after its end, the link's own url; `unsettled` when the split has ended and
 * its winner is not known yet (the caller settles it and asks again); `split` when a new visitor
 * would be drawn a variant and no draw was asked for ("Try a visit").
 */
export type Route =
  | { kind: 'rule'; index: number; rule: CompiledRule }
  | { kind: 'variant'; variant: CompiledVariant; drawn: boolean }
  | { kind: 'winner'; variant: CompiledVariant }
  | { kind: 'unsettled' }
  | { kind: 'split' }
  | { kind: 'link' };

const LINK: Route = { kind: 'link' };
const UNSETTLED: Route = { kind: 'unsettled' };
const SPLIT: Route = { kind: 'split' };

/**
 * The first rule whose conditions all match; else the split: its winner from endsAt on, the
 * variant the visitor holds, or one drawn by weight (`draw` gives a number in [0, 1)); else the
 * link. The one decision of both the redirect and "Try a visit".
 */
export function chooseRoute(
  r: CompiledRouting,
  f: VisitFacts,
  heldVariant: string | null,
  draw: (() => number) | null,
): Route {
  const code = r.code;
  for (let i = 0, at = 0; at < r.rulesEnd; i++) {
    if (ruleHolds(r, at, f)) return { kind: 'rule', index: i, rule: r.rules[i] };
    at += 1 + 3 * code[at];
  }
  const split = r.split;
  if (split === null) return LINK;
  // The split itself is read only once its end has passed.
  if (f.now >= splitEnd(r)) {
    const winner = r.variants.find((v) => v.id === split.winnerId);
    return winner ? { kind: 'winner', variant: winner } : UNSETTLED;
  }
  if (heldVariant !== null) {
    const held = r.variants.find((v) => v.id === heldVariant);
    if (held) return { kind: 'variant', variant: held, drawn: false };
  }
  if (draw === null) return SPLIT;
  return { kind: 'variant', variant: drawVariant(r, draw), drawn: true };
}

/**
 * When a routing's split ends, in ms (Infinity for never): the last number of its program, after
 * the weights (compileRouting). Only for a routing with a split.
 */
export const splitEnd = (r: CompiledRouting): number => r.code[r.code.length - 1];

/** A variant of the split drawn by weight (`draw` gives a number in [0, 1)). */
export function drawVariant(r: CompiledRouting, draw: () => number): CompiledVariant {
  const code = r.code;
  const last = code.length - 2; // the last weight: the split's end follows it
  let point = draw() * 100;
  let at = r.rulesEnd;
  while (at < last && (point -= code[at]) >= 0) at++;
  return r.variants[at - r.rulesEnd];
}

/** The id a click records for what served it (clicks.route): null for the link's own url. */
export function routeId(route: Route): string | null {
  switch (route.kind) {
    case 'rule':
      return route.rule.id;
    case 'variant':
    case 'winner':
      return route.variant.id;
    default:
      return null;
  }
}

/** Where a client address is (platform/geo.ts gives one): for `country`, `city` and `ip` rules. */
export interface PlaceLookup {
  readonly hasCities: boolean;
  locate(address: string): { country: string | null; city: string | null } | null;
  knowsCity(name: string): boolean;
  /** Makes knowsCity answer without building the names on the caller's thread. */
  loadCities?(): Promise<void>;
}

/** The destination a route sends to: the rule's or variant's url, else the link's own. */
export function routeLocation(route: Route, linkLocation: string): string {
  switch (route.kind) {
    case 'rule':
      return route.rule.location;
    case 'variant':
    case 'winner':
      return route.variant.location;
    default:
      return linkLocation;
  }
}
