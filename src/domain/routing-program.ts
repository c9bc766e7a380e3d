// A routing's rules compiled for the redirect (routing.ts compileRouting): one flat program of
// numbers and the text operands beside it, and the one evaluation of a condition that both the
// redirect (chooseRoute) and "Try a visit" (routing-explain.ts) run.
import { type Address, inRange, parseRange, type Range } from './addresses.ts';

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
  /** Whether the query has a parameter `name` (with `value`, when given): query() without the map. */
  queryHas(name: string, value: string | undefined): boolean;
}

/**
 * The rules' conditions as one flat program: per rule, its condition count, then three numbers
 * per condition (an op below and two operands: an index into `strings` or `ranges`, a mask and
 * network, a time). Every cached routed link is read on its visits, and a visit to one of
 * thousands finds its objects out of the CPU's caches: a closure, context and value per condition
 * cost a memory read each, where this costs a few (bench/README.md, routed scenario).
 */
export interface Program {
  /** Numbers only, so V8 keeps them unboxed in one array on the heap, next to the routing. */
  code: number[];
  /** The operands that are text, shared between links through `interned`. */
  strings: string[];
  /** IPv6 ranges. */
  ranges: Range[];
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

export class ProgramBuilder implements Program {
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
      return f.queryHas(p.strings[a], undefined);
    case QUERY_IS:
      return f.queryHas(p.strings[a], p.strings[code[at + 2]]);
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
export function ruleHolds(p: Program, at: number, f: VisitFacts): boolean {
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
export function ruleMatches(r: Program, index: number, f: VisitFacts): boolean {
  let at = 0;
  for (let i = 0; i < index; i++) at += 1 + 3 * r.code[at];
  return ruleHolds(r, at, f);
}
