// The rules of a routing document (openapi/paths/api_v1_links_id_routing.yaml, PUT): the body as
// the routing stored, or a 400 naming the first field that breaks a rule. Types were checked by
// the contract's schema; what is checked here is what a schema cannot say (or say clearly).
import { invalid } from './errors.ts';
import { normalizeDestination, parseTimestamp } from './links.ts';
import type { ConditionType, Routing, RoutingCondition, RoutingRule, RoutingSplit } from './routing.ts';
import { parseRange } from './addresses.ts';

export const MAX_RULES = 20;
export const MAX_CONDITIONS = 10;

const ALLOWED: Partial<Record<ConditionType, readonly string[]>> = {
  device: ['mobile', 'tablet', 'desktop'],
  os: ['ios', 'android', 'windows', 'macos', 'linux', 'chromeos'],
  browser: ['chrome', 'safari', 'firefox', 'edge', 'opera', 'samsung'],
};

const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
/** An ISO 3166-1 alpha-2 code ICU knows as a region (not `ZZ`, `EU` or `UN`). */
export const isCountryCode = (code: string): boolean =>
  /^[A-Z]{2}$/.test(code) && !['EU', 'EZ', 'UN', 'ZZ', 'QO'].includes(code) && regions.of(code) !== undefined;

export interface RoutingBody {
  rules?: Array<{ id?: string; conditions: Array<Partial<RoutingCondition> & { type: string }>; url: string }>;
  split?: {
    variants: Array<{ id?: string; url: string; weight: number }>;
    endsAt?: string | null;
    metric?: 'clicks' | 'conversions';
  } | null;
  forwardQuery?: boolean;
  indexable?: boolean;
  clickIdParam?: string | null;
}

/** What the IP-location data can say, for `city` conditions. */
export interface CityData {
  hasCities: boolean;
  knowsCity(name: string): boolean;
}

const url = (value: string, field: string): string => {
  const d = normalizeDestination(value);
  if ('problem' in d) throw invalid(`${field} ${d.problem}`, field);
  return d.href;
};

function condition(c: Partial<RoutingCondition> & { type: string }, field: string, cities: CityData): RoutingCondition {
  const type = c.type as ConditionType;
  if (type !== 'query' && c.name !== undefined)
    throw invalid(`${field}.name is only for a query condition`, `${field}.name`);
  if (type === 'query') {
    if (!c.name) throw invalid(`${field}.name is required for a query condition`, `${field}.name`);
    return c.value === undefined ? { type, name: c.name } : { type, name: c.name, value: c.value };
  }
  const at = `${field}.value`;
  const value = c.value?.trim();
  if (!value) throw invalid(`${at} is required for a ${type} condition`, at);
  const allowed = ALLOWED[type];
  if (allowed) {
    const v = value.toLowerCase();
    if (!allowed.includes(v)) throw invalid(`${at} must be one of ${allowed.join(', ')} for ${type}`, at);
    return { type, value: v };
  }
  switch (type) {
    case 'language': {
      const v = value.toLowerCase();
      if (!/^[a-z]{2,3}$/.test(v))
        throw invalid(`${at} must be a BCP 47 primary language subtag such as en or fr (no region)`, at);
      return { type, value: v };
    }
    case 'country': {
      const v = value.toUpperCase();
      if (!isCountryCode(v)) throw invalid(`${at} must be an ISO 3166-1 alpha-2 country code such as US`, at);
      return { type, value: v };
    }
    case 'city':
      if (!cities.hasCities)
        throw invalid(`${at}: this service's IP-location data has no cities (GEOIP_DB can name a City database)`, at);
      if (!cities.knowsCity(value)) throw invalid(`${at}: the IP-location data has no city named "${value}"`, at);
      return { type, value };
    case 'ip':
      if (!parseRange(value)) throw invalid(`${at} must be an IPv4 or IPv6 address or CIDR range`, at);
      return { type, value };
    default: {
      const ms = parseTimestamp(value);
      if (ms === null) throw invalid(`${at} must be an ISO 8601 timestamp`, at);
      return { type, value: new Date(ms).toISOString() };
    }
  }
}

/** A given id kept when it is one of `known`, a new one made when none was given. */
function idOf(given: string | undefined, known: Set<string>, make: () => string, field: string): string {
  if (given === undefined) return make();
  if (!known.has(given)) throw invalid(`${field} names no rule or variant of this link`, field);
  known.delete(given);
  return given;
}

function split(body: NonNullable<RoutingBody['split']>, current: Routing, newId: (p: string) => string): RoutingSplit {
  const n = body.variants.length;
  if (n < 2 || n > 5) throw invalid('split.variants must hold 2 to 5 variants', 'split.variants');
  const known = new Set(current.split?.variants.map((v) => v.id));
  const variants = body.variants.map((v, i) => {
    const at = `split.variants.${i}`;
    if (!Number.isInteger(v.weight) || v.weight < 1 || v.weight > 99)
      throw invalid(`${at}.weight must be a whole number from 1 to 99`, `${at}.weight`);
    return { id: idOf(v.id, known, () => newId('var'), `${at}.id`), url: url(v.url, `${at}.url`), weight: v.weight };
  });
  const total = variants.reduce((s, v) => s + v.weight, 0);
  if (total !== 100) throw invalid(`split.variants weights must sum to 100, not ${total}`, 'split.variants');
  let endsAt: string | null = null;
  if (body.endsAt !== undefined && body.endsAt !== null) {
    const ms = parseTimestamp(body.endsAt);
    if (ms === null) throw invalid('split.endsAt must be an ISO 8601 timestamp', 'split.endsAt');
    endsAt = new Date(ms).toISOString();
  }
  return { variants, endsAt, metric: body.metric ?? 'clicks' };
}

/** The body as the routing to store, or a 400 naming the field; `current` gives the ids kept. */
export function checkRouting(
  body: RoutingBody,
  current: Routing,
  cities: CityData,
  newId: (prefix: string) => string,
): Routing {
  const rulesIn = body.rules ?? [];
  if (rulesIn.length > MAX_RULES) throw invalid(`rules may hold at most ${MAX_RULES} rules`, 'rules');
  const knownRules = new Set(current.rules.map((r) => r.id));
  const rules: RoutingRule[] = rulesIn.map((r, i) => {
    const at = `rules.${i}`;
    const n = r.conditions.length;
    if (n < 1 || n > MAX_CONDITIONS)
      throw invalid(`${at}.conditions must hold 1 to ${MAX_CONDITIONS} conditions`, `${at}.conditions`);
    return {
      id: idOf(r.id, knownRules, () => newId('rul'), `${at}.id`),
      conditions: r.conditions.map((c, j) => condition(c, `${at}.conditions.${j}`, cities)),
      url: url(r.url, `${at}.url`),
    };
  });
  const clickIdParam = body.clickIdParam ?? null;
  if (clickIdParam !== null && !/^[A-Za-z0-9_.~-]{1,64}$/.test(clickIdParam))
    throw invalid('clickIdParam must be 1 to 64 letters, digits, _, ., ~ or -', 'clickIdParam');
  return {
    rules,
    split: body.split ? split(body.split, current, newId) : null,
    forwardQuery: body.forwardQuery ?? true,
    indexable: body.indexable ?? false,
    clickIdParam,
  };
}

/** Whether two splits would settle the same winner (same variants, weights, end and metric). */
export function sameSplit(a: RoutingSplit | null, b: RoutingSplit | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
