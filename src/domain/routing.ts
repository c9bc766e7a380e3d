// Where a visitor goes (openapi/components/schemas/Routing.yaml): a link's routing as stored,
// compiled once per cached link, and the one decision both the redirect and "Try a visit" make
// (chooseRoute). What it reads of a visit comes through VisitFacts, computed only when a
// condition asks for it: a link without rules reads nothing.
import { type Address, inRange, parseRange, type Range } from './addresses.ts';
import { type LocationParts, locationParts } from './forwarding.ts';
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

export interface Destination extends LocationParts {
  id: string;
  url: string;
  /** The url as a Location header value, and its parts for forwarding a query into. */
  location: string;
  /** The signed part of its click ids, kept by the redirect (routed.ts) with the signer's key. */
  signedBy: object | null;
  signed: string;
  /** A variant's last split cookie, kept by the redirect (routed.ts) with what it was made of. */
  cookie: string;
  cookieMaxAge: number;
  cookiePath: string;
}
export type CompiledRule = Destination;
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
/**
 * The rules' conditions as one flat program: per rule, its condition count, then three numbers
 * per condition (an op below and two operands: an index into `strings` or `ranges`, a mask and
 * network, a time). Every cached routed link is read on its visits, and a visit to one of
 * thousands finds its objects out of the CPU's caches: a closure, context and value per condition
 * cost a memory read each, where this costs a few (bench/README.md, routed scenario).
 */
interface Program {
  /** Numbers only, so V8 keeps them unboxed in one array on the heap, next to the routing. */
  code: number[];
  /** The operands that are text, shared between links through `interned`. */
  strings: string[];
  /** IPv6 ranges. */
  ranges: Range[];
}
export interface CompiledRouting extends Program {
  /** Where the rules' program ends in `code`; the split's weights follow, one per variant. */
  rulesEnd: number;
  /**
   * The document as stored (links.routing), which a settled winner is written against. Only
   * what a visit reads is kept besides, so a cached link's routing is a few objects close
   * together: "Try a visit" parses this for the rest (routingOf).
   */
  stored: string;
  rules: CompiledRule[];
  split: CompiledSplit | null;
  forwardQuery: boolean;
  indexable: boolean;
  clickIdParam: string | null;
  /** A rule reads the client's place or address: the redirect looks it up for this link only. */
  readsPlace: boolean;
}

const DEVICE = 1;
const OS = 2;
const BROWSER = 3;
const LANGUAGE = 4;
const COUNTRY = 5;
const CITY = 6;
const QUERY_HAS = 7;
const QUERY_IS = 8;
const IP4 = 9;
const IP6 = 10;
const NEVER = 11;
const AFTER = 12;
const BEFORE = 13;
const SIMPLE: Partial<Record<ConditionType, number>> = {
  device: DEVICE,
  os: OS,
  browser: BROWSER,
  language: LANGUAGE,
  country: COUNTRY,
};

// One instance per distinct operand text across links, so the same "ios" or "JP" of many links is
// one string in memory and in the CPU's caches. Bounded: past it, a link keeps its own copy.
const interned = new Map<string, string>();
const INTERNED_MAX = 50_000;
function intern(s: string): string {
  const known = interned.get(s);
  if (known !== undefined) return known;
  if (interned.size < INTERNED_MAX) interned.set(s, s);
  return s;
}

class ProgramBuilder implements Program {
  readonly code: number[] = [];
  readonly strings: string[] = [];
  readonly ranges: Range[] = [];

  rule(conditions: RoutingCondition[]): void {
    this.code.push(conditions.length);
    for (const c of conditions) this.code.push(...this.condition(c));
  }

  private text(s: string): number {
    this.strings.push(intern(s));
    return this.strings.length - 1;
  }

  /** A condition as [op, a, b]. The document was checked when stored (routing-document.ts). */
  private condition(c: RoutingCondition): [number, number, number] {
    const value = c.value ?? '';
    const simple = SIMPLE[c.type];
    if (simple !== undefined) return [simple, this.text(value), 0];
    switch (c.type) {
      case 'city':
        return [CITY, this.text(value.toLowerCase()), 0];
      case 'query':
        return c.value === undefined
          ? [QUERY_HAS, this.text(c.name ?? ''), 0]
          : [QUERY_IS, this.text(c.name ?? ''), this.text(value)];
      case 'ip': {
        const range = parseRange(value);
        if (range === null) return [NEVER, 0, 0];
        if (range.v4 !== undefined) return [IP4, range.mask, range.v4];
        this.ranges.push(range);
        return [IP6, this.ranges.length - 1, 0];
      }
      case 'after':
        return [AFTER, Date.parse(value), 0];
      default:
        return [BEFORE, Date.parse(value), 0];
    }
  }
}

/**
 * Whether the condition at `at` of a program holds for the visit. A fact the visit lacks fails
 * before the operand is read: one memory read fewer per such condition.
 */
function holds(p: Program, at: number, f: VisitFacts): boolean {
  const code = p.code;
  const a = code[at + 1];
  let fact: string | null;
  switch (code[at]) {
    case DEVICE:
      fact = f.device();
      break;
    case OS:
      fact = f.os();
      break;
    case BROWSER:
      fact = f.browser();
      break;
    case LANGUAGE:
      fact = f.language();
      break;
    case COUNTRY:
      fact = f.country();
      break;
    case CITY:
      fact = f.city()?.toLowerCase() ?? null;
      break;
    case QUERY_HAS:
    case QUERY_IS: {
      const query = f.query();
      if (query.size === 0) return false;
      const values = query.get(p.strings[a]);
      return values !== undefined && (code[at] === QUERY_HAS || values.includes(p.strings[code[at + 2]]));
    }
    case IP4: {
      const v4 = f.address()?.v4;
      return v4 !== undefined && (v4 & a) >>> 0 === code[at + 2];
    }
    case IP6: {
      const address = f.address();
      return address !== null && address.v6 !== undefined && inRange(address, p.ranges[a]);
    }
    case AFTER:
      return f.now >= a;
    case BEFORE:
      return f.now < a;
    default:
      return false;
  }
  return fact !== null && fact === p.strings[a];
}

/** Whether every condition of the rule whose program starts at `at` holds. */
function ruleHolds(p: Program, at: number, f: VisitFacts): boolean {
  const end = at + 1 + 3 * p.code[at];
  for (let c = at + 1; c < end; c += 3) if (!holds(p, c, f)) return false;
  return true;
}

/** Whether one condition holds for a visit: the test the redirect runs, for "Try a visit". */
export function conditionHolds(c: RoutingCondition, f: VisitFacts): boolean {
  const b = new ProgramBuilder();
  b.rule([c]);
  return holds(b, 1, f);
}

/** Whether rule `index` of a compiled routing matches a visit (every condition holds). */
export function ruleMatches(r: CompiledRouting, index: number, f: VisitFacts): boolean {
  let at = 0;
  for (let i = 0; i < index; i++) at += 1 + 3 * r.code[at];
  return ruleHolds(r, at, f);
}

function destination(d: { id: string; url: string }): Destination {
  const location = locationOf(d.url) ?? d.url;
  // Every field set here, so each destination has one shape on the redirect path.
  return {
    id: d.id,
    url: d.url,
    location,
    ...locationParts(location),
    signedBy: null,
    signed: '',
    cookie: '',
    cookieMaxAge: 0,
    cookiePath: '',
  };
}

export function compileRouting(stored: string | null, winnerId: string | null): CompiledRouting | null {
  if (!stored) return null;
  const source = JSON.parse(stored) as Routing;
  const program = new ProgramBuilder();
  for (const r of source.rules) program.rule(r.conditions);
  const rulesEnd = program.code.length;
  // The weights beside the rules: a draw reads no variant but the one it picks.
  for (const v of source.split?.variants ?? []) program.code.push(v.weight);
  return {
    rulesEnd,
    code: program.code,
    strings: program.strings,
    ranges: program.ranges,
    stored,
    rules: source.rules.map(destination),
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
  const code = r.code;
  for (let i = 0, at = 0; at < r.rulesEnd; i++) {
    if (ruleHolds(r, at, f)) return { kind: 'rule', index: i, rule: r.rules[i] };
    at += 1 + 3 * code[at];
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
  return { kind: 'variant', variant: drawVariant(r, draw), drawn: true };
}

/** A variant of the split drawn by weight (`draw` gives a number in [0, 1)). */
export function drawVariant(r: CompiledRouting, draw: () => number): CompiledVariant {
  const code = r.code;
  const last = code.length - 1;
  let point = draw() * 100;
  let at = r.rulesEnd;
  while (at < last && (point -= code[at]) >= 0) at++;
  return r.split!.variants[at - r.rulesEnd];
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
