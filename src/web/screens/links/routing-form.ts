// The routing editor's form: the saved routing as drafts the inputs edit (each rule, condition and
// variant keyed, so moving one keeps its inputs), and the PUT body made back from them. The
// API's errors name fields by position (`rules.1.conditions.0.value`); routingFieldNames maps
// each to the input at that position, so an error lands where it was when the form was sent.
import type { Routing, RoutingCondition, RoutingUpdate } from '../../api/types.ts';
import { isoToLocalInput, localInputToIso } from '../../lib/dates.ts';

export type ConditionType = RoutingCondition['type'];

let lastKey = 0;
const nextKey = () => `r${++lastKey}`;

export interface ConditionDraft {
  key: string;
  type: ConditionType;
  value: string;
  name: string;
}

export interface RuleDraft {
  key: string;
  id: string | undefined;
  conditions: ConditionDraft[];
  url: string;
}

export interface VariantDraft {
  key: string;
  id: string | undefined;
  url: string;
  weight: string;
}

export interface SplitDraft {
  variants: VariantDraft[];
  /** A datetime-local value, empty for never. */
  endsAt: string;
  metric: 'clicks' | 'conversions';
}

export interface RoutingForm {
  rules: RuleDraft[];
  split: SplitDraft | null;
  forwardQuery: boolean;
  indexable: boolean;
  clickIdParam: string;
}

export const LIMITS = { rules: 20, conditions: 10, variants: 5, minVariants: 2 } as const;

/** Each condition type, what its value is, and the values it offers when it has a fixed list. */
export const CONDITION_TYPES: ReadonlyArray<{
  value: ConditionType;
  label: string;
  hint: string;
  choices?: ReadonlyArray<{ value: string; label: string }>;
}> = [
  {
    value: 'device',
    label: 'Device',
    hint: 'The kind of device.',
    choices: [
      { value: 'mobile', label: 'Mobile' },
      { value: 'tablet', label: 'Tablet' },
      { value: 'desktop', label: 'Desktop' },
    ],
  },
  {
    value: 'os',
    label: 'Operating system',
    hint: 'iPadOS counts as iOS.',
    choices: [
      { value: 'ios', label: 'iOS' },
      { value: 'android', label: 'Android' },
      { value: 'windows', label: 'Windows' },
      { value: 'macos', label: 'macOS' },
      { value: 'linux', label: 'Linux' },
      { value: 'chromeos', label: 'ChromeOS' },
    ],
  },
  {
    value: 'browser',
    label: 'Browser',
    hint: 'Mobile and in-app forms included.',
    choices: [
      { value: 'chrome', label: 'Chrome' },
      { value: 'safari', label: 'Safari' },
      { value: 'firefox', label: 'Firefox' },
      { value: 'edge', label: 'Edge' },
      { value: 'opera', label: 'Opera' },
      { value: 'samsung', label: 'Samsung Internet' },
    ],
  },
  { value: 'language', label: 'Language', hint: "The visitor's first language, as a primary tag: en, fr, pt." },
  { value: 'country', label: 'Country', hint: 'A two-letter code: US, FR, DE.' },
  { value: 'city', label: 'City', hint: 'As the IP-location data spells it: Paris.' },
  { value: 'query', label: 'Query parameter', hint: 'Present, or with exactly this value when one is given.' },
  { value: 'ip', label: 'IP address', hint: 'An address or a CIDR range: 203.0.113.0/24.' },
  { value: 'after', label: 'At or after', hint: 'The visit is at or after this moment.' },
  { value: 'before', label: 'Before', hint: 'The visit is before this moment.' },
];

export const conditionType = (type: ConditionType) => CONDITION_TYPES.find((t) => t.value === type)!;
/** `after` and `before` are edited as a local date and time, and sent as ISO 8601. */
export const isMoment = (type: ConditionType) => type === 'after' || type === 'before';

/** Variants are named by letter in order: A, B, C... */
export const variantName = (index: number) => String.fromCharCode(65 + index);

export const newCondition = (type: ConditionType = 'device'): ConditionDraft => ({
  key: nextKey(),
  type,
  value: conditionType(type).choices?.[0].value ?? '',
  name: '',
});

export const newRule = (): RuleDraft => ({ key: nextKey(), id: undefined, conditions: [newCondition()], url: '' });

export const newVariant = (weight = ''): VariantDraft => ({ key: nextKey(), id: undefined, url: '', weight });

/** Two variants sharing the visitors equally: where a new split starts. */
export const newSplit = (): SplitDraft => ({
  variants: [newVariant('50'), newVariant('50')],
  endsAt: '',
  metric: 'clicks',
});

function conditionDraft(c: RoutingCondition): ConditionDraft {
  const value = c.value ?? '';
  return { key: nextKey(), type: c.type, value: isMoment(c.type) ? isoToLocalInput(value) : value, name: c.name ?? '' };
}

export function formFromRouting(r: Routing): RoutingForm {
  return {
    rules: r.rules.map((rule) => ({
      key: nextKey(),
      id: rule.id,
      conditions: rule.conditions.map(conditionDraft),
      url: rule.url,
    })),
    split: r.split
      ? {
          variants: r.split.variants.map((v) => ({ key: nextKey(), id: v.id, url: v.url, weight: String(v.weight) })),
          endsAt: isoToLocalInput(r.split.endsAt),
          metric: r.split.metric,
        }
      : null,
    forwardQuery: r.forwardQuery,
    indexable: r.indexable,
    clickIdParam: r.clickIdParam ?? '',
  };
}

function conditionBody(c: ConditionDraft): RoutingCondition {
  if (c.type === 'query')
    return c.value ? { type: c.type, name: c.name, value: c.value } : { type: c.type, name: c.name };
  // A moment the browser cannot read is sent as typed, for the service to refuse by its field.
  const value = isMoment(c.type) ? (localInputToIso(c.value) ?? c.value) : c.value;
  return { type: c.type, value };
}

/** The whole routing, as the PUT replaces it; the service checks every value and names a bad one. */
export function routingBody(form: RoutingForm): RoutingUpdate {
  return {
    rules: form.rules.map((r) => ({
      ...(r.id ? { id: r.id } : {}),
      conditions: r.conditions.map(conditionBody),
      url: r.url.trim(),
    })),
    split: form.split
      ? {
          variants: form.split.variants.map((v) => ({
            ...(v.id ? { id: v.id } : {}),
            url: v.url.trim(),
            // Not a whole number: sent as 0, which the service refuses naming this weight.
            weight: /^\d+$/.test(v.weight.trim()) ? Number(v.weight.trim()) : 0,
          })),
          endsAt: form.split.endsAt ? (localInputToIso(form.split.endsAt) ?? null) : null,
          metric: form.split.metric,
        }
      : null,
    forwardQuery: form.forwardQuery,
    indexable: form.indexable,
    clickIdParam: form.clickIdParam.trim() || null,
  };
}

/** The API's field names for every input of the form, to the input's name; anything else goes to the top. */
export function routingFieldNames(form: RoutingForm): Record<string, string> {
  const names = ['rules', 'split', 'split.variants', 'split.endsAt', 'split.metric', 'clickIdParam'];
  for (const [i, r] of form.rules.entries()) {
    names.push(`rules[${i}]`, `rules[${i}].url`, `rules[${i}].conditions`);
    for (const j of r.conditions.keys()) {
      const c = `rules[${i}].conditions[${j}]`;
      names.push(c, `${c}.type`, `${c}.value`, `${c}.name`);
    }
  }
  for (const i of (form.split?.variants ?? []).keys()) {
    names.push(`split.variants[${i}]`, `split.variants[${i}].url`, `split.variants[${i}].weight`);
  }
  // The service writes positions with dots (`rules.1.url`), the contract's prose with brackets.
  return Object.fromEntries(
    names.flatMap((n) => [
      [n, n],
      [n.replace(/\[(\d+)\]/g, '.$1'), n],
    ]),
  );
}
