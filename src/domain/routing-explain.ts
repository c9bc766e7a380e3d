// Why a rule did or did not match a visit, in words, for "Try a visit": the same tests the
// redirect runs (routing.ts conditionHolds, ruleMatches), each with what the visit had.
import type { CompiledRouting, RoutingCondition, VisitFacts } from './routing.ts';
import { conditionHolds, ruleMatches } from './routing-program.ts';

const WANTS: Record<RoutingCondition['type'], string> = {
  device: 'device is',
  os: 'OS is',
  browser: 'browser is',
  language: 'preferred language is',
  country: 'country is',
  city: 'city is',
  query: 'query has',
  ip: 'address is in',
  after: 'time is at or after',
  before: 'time is before',
};

function had(c: RoutingCondition, f: VisitFacts): string | null {
  switch (c.type) {
    case 'device':
      return f.device();
    case 'os':
      return f.os();
    case 'browser':
      return f.browser();
    case 'language':
      return f.language();
    case 'country':
      return f.country();
    case 'city':
      return f.city();
    case 'query':
      return (
        f
          .query()
          .get(c.name ?? '')
          ?.join(', ') ?? null
      );
    case 'ip':
      return f.address()?.text ?? null;
    default:
      return new Date(f.now).toISOString();
  }
}

export function explainCondition(c: RoutingCondition, f: VisitFacts): string {
  const wanted = c.type === 'query' ? (c.value === undefined ? c.name : `${c.name}=${c.value}`) : c.value;
  const ok = conditionHolds(c, f);
  const value = had(c, f);
  return `${WANTS[c.type]} ${wanted}: ${ok ? 'yes' : 'no'} (visit: ${value === null ? 'unknown' : value})`;
}

/** `Rule 2 matches: OS is ios: yes (visit: ios)`, every condition checked. */
export function explainRule(
  routing: CompiledRouting,
  index: number,
  conditions: RoutingCondition[],
  f: VisitFacts,
): string {
  const parts = conditions.map((c) => explainCondition(c, f));
  const matches = ruleMatches(routing, index, f);
  return `Rule ${index + 1} ${matches ? 'matches' : 'does not match'}: ${parts.join('; ')}`;
}
