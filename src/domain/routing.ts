// Where a visitor goes (openapi/components/schemas/Routing.yaml): a link's routing as stored,
// compiled once per cached link, and the one decision both the redirect and "Try a visit" make
// (chooseRoute). What it reads of a visit comes through VisitFacts, computed only when a
// condition asks for it: a link without rules reads nothing.
import { type Address, inRange, parseRange } from './addresses.ts';
import { locationOf } from './location.ts';

export const CONDITION_TYPES = [
  'device',
  'os',
  'browser',
  'language',
  'country',
  'city',
  'query',
  'ip',
  'after',
  'before',
] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

export interface RoutingCondition {
  type: ConditionType;
  value?: string;
  name?: string;
}
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

/** What a visit is, as far as routing asks: each read on demand, at most once per visit. */
export interface VisitFacts {
  readonly now: number;
  device(): string | null;
  os(): string | null;
  browser(): string | null;
  /** The primary subtag of the most preferred language, lower case. */
  language(): string | null;
  country(): string | null;
  city(): string | null;
  address(): Address | null;
  /** The visit's query parameters, names and values decoded. */
  query(): ReadonlyMap<string, readonly string[]>;
}

type Test = (f: VisitFacts) => boolean;

interface Destination {
  id: string;
  url: string;
  /** The url as a Location header value. */
  location: string;
}
export interface CompiledRule extends Destination {
  conditions: RoutingCondition[];
  tests: Test[];
}
export interface CompiledVariant extends Destination {
  weight: number;
}
export interface CompiledSplit {
  variants: CompiledVariant[];
  endsAt: number | null;
  metric: 'clicks' | 'conversions';
  /** The settled winner (links.split_winner), once a visit after endsAt asked for it. */
  winnerId: string | null;
  /** A settlement in progress on this process: the visits meanwhile wait for it. */
  settling?: Promise<string | null>;
}
export interface CompiledRouting {
  /** The document as stored (links.routing), which a settled winner is written against. */
  stored: string;
  source: Routing;
  rules: CompiledRule[];
  split: CompiledSplit | null;
  forwardQuery: boolean;
  indexable: boolean;
  clickIdParam: string | null;
  /** A rule reads the client's place or address: the redirect looks it up for this link only. */
  readsPlace: boolean;
}

/** A condition as a test. The document was checked when stored (routing-document.ts). */
export function conditionTest(c: RoutingCondition): Test {
  const value = c.value ?? '';
  switch (c.type) {
    case 'device':
      return (f) => f.device() === value;
    case 'os':
      return (f) => f.os() === value;
    case 'browser':
      return (f) => f.browser() === value;
    case 'language':
      return (f) => f.language() === value;
    case 'country':
      return (f) => f.country() === value;
    case 'city': {
      const city = value.toLowerCase();
      return (f) => f.city()?.toLowerCase() === city;
    }
    case 'query': {
      const name = c.name ?? '';
      if (c.value === undefined) return (f) => f.query().has(name);
      return (f) => f.query().get(name)?.includes(value) ?? false;
    }
    case 'ip': {
      const range = parseRange(value);
      return (f) => {
        const a = f.address();
        return a !== null && range !== null && inRange(a, range);
      };
    }
    case 'after': {
      const t = Date.parse(value);
      return (f) => f.now >= t;
    }
    case 'before': {
      const t = Date.parse(value);
      return (f) => f.now < t;
    }
  }
}

const destination = (d: { id: string; url: string }): Destination => ({
  id: d.id,
  url: d.url,
  location: locationOf(d.url) ?? d.url,
});

export function compileRouting(stored: string | null, winnerId: string | null): CompiledRouting | null {
  if (!stored) return null;
  const source = JSON.parse(stored) as Routing;
  return {
    stored,
    source,
    rules: source.rules.map((r) => ({
      ...destination(r),
      conditions: r.conditions,
      tests: r.conditions.map(conditionTest),
    })),
    split: source.split && {
      variants: source.split.variants.map((v) => ({ ...destination(v), weight: v.weight })),
      endsAt: source.split.endsAt === null ? null : Date.parse(source.split.endsAt),
      metric: source.split.metric,
      winnerId,
    },
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
  rules: for (let i = 0; i < r.rules.length; i++) {
    const rule = r.rules[i];
    for (const test of rule.tests) if (!test(f)) continue rules;
    return { kind: 'rule', index: i, rule };
  }
  const split = r.split;
  if (split === null) return LINK;
  if (split.endsAt !== null && f.now >= split.endsAt) {
    const winner = split.variants.find((v) => v.id === split.winnerId);
    return winner ? { kind: 'winner', variant: winner } : UNSETTLED;
  }
  if (heldVariant !== null) {
    const held = split.variants.find((v) => v.id === heldVariant);
    if (held) return { kind: 'variant', variant: held, drawn: false };
  }
  if (draw === null) return SPLIT;
  return { kind: 'variant', variant: drawVariant(split.variants, draw), drawn: true };
}

/** A variant drawn by weight (`draw` gives a number in [0, 1)). */
export function drawVariant(variants: CompiledVariant[], draw: () => number): CompiledVariant {
  let point = draw() * 100;
  for (const v of variants) {
    point -= v.weight;
    if (point < 0) return v;
  }
  return variants[variants.length - 1];
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
