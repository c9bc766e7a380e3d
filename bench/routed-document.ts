// The routed scenario's routing document (bench/redirect.ts, bench/redirect-path.ts --routed).

/** Every condition type once, none matching the bench's visits (a Linux Chrome from loopback). */
const FULL = {
  rules: [
    ['os', 'ios'],
    ['device', 'tablet'],
    ['browser', 'safari'],
    ['language', 'fr'],
    ['country', 'JP'],
    ['city', 'Tokyo'],
    ['ip', '203.0.113.0/24'],
    ['after', '2999-01-01T00:00:00.000Z'],
    ['before', '2000-01-01T00:00:00.000Z'],
  ]
    .map(([type, value], i) => ({
      id: `rul_bench${i}`,
      conditions: [{ type, value }],
      url: `https://example.com/r${i}`,
    }))
    .concat([
      {
        id: 'rul_bench9',
        conditions: [{ type: 'query', name: 'ref', value: 'x' }] as never,
        url: 'https://example.com/r9',
      },
    ]),
  split: {
    variants: [
      { id: 'var_bencha', url: 'https://example.com/a?v=a', weight: 50 },
      { id: 'var_benchb', url: 'https://example.com/b?v=b', weight: 50 },
    ],
    endsAt: null,
    metric: 'clicks',
  },
  forwardQuery: true,
  indexable: false,
  clickIdParam: 'sl_click',
};
/** The parts of the routed document a run can leave out (`--routed-without`), to see what each costs. */
export const ROUTED_PARTS = ['rules', 'split', 'click'] as const;
export type RoutedPart = (typeof ROUTED_PARTS)[number];

/** The routed document without `without`'s parts (every default in their place). */
export function routedDocument(without: readonly RoutedPart[] = []): string {
  return JSON.stringify({
    ...FULL,
    rules: without.includes('rules') ? [] : FULL.rules,
    split: without.includes('split') ? null : FULL.split,
    clickIdParam: without.includes('click') ? null : FULL.clickIdParam,
  });
}

export const ROUTED_DOCUMENT = routedDocument();

/** `--routed-without a,b` read: the parts named, each one of ROUTED_PARTS. */
export function routedWithout(list: string | undefined): RoutedPart[] {
  const parts = (list ?? '').split(',').filter((p) => p !== '');
  for (const p of parts)
    if (!(ROUTED_PARTS as readonly string[]).includes(p))
      throw new Error(`--routed-without takes ${ROUTED_PARTS.join(', ')} (comma-separated); got ${p}`);
  return parts as RoutedPart[];
}
