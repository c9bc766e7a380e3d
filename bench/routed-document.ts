// The routed scenario's routing document (bench/redirect.ts, bench/redirect-path.ts --routed).

/** Every condition type once, none matching the bench's visits (a Linux Chrome from loopback). */
export const ROUTED_DOCUMENT = JSON.stringify({
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
});
