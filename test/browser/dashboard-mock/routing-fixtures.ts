// A link's routing, a visit tried against it and its report by rule and variant, as the routing
// screens' tests answer them (test/browser/dashboard-mock/routing.test.ts).
import type { components } from '../../../generated/dashboard';

type Schemas = components['schemas'];

export const ROUTING: Schemas['Routing'] = {
  rules: [
    { id: 'rul_ios', conditions: [{ type: 'os', value: 'ios' }], url: 'https://apps.apple.com/app/id123456789' },
    {
      id: 'rul_fr',
      conditions: [
        { type: 'language', value: 'fr' },
        { type: 'country', value: 'FR' },
      ],
      url: 'https://www.acme.example/fr/launch',
    },
  ],
  split: {
    variants: [
      { id: 'var_a', url: 'https://www.acme.example/launch-a', weight: 50 },
      { id: 'var_b', url: 'https://www.acme.example/launch-b', weight: 50 },
    ],
    endsAt: '2026-12-31T23:00:00Z',
    metric: 'conversions',
  },
  forwardQuery: true,
  indexable: false,
  clickIdParam: 'sl_click',
};

export const IPHONE_TRIAL: Schemas['RoutingTrialResult'] = {
  data: {
    url: 'https://apps.apple.com/app/id123456789?utm_source=news',
    served: { kind: 'rule', id: 'rul_ios' },
    reasons: ['Rule 1 matches: os is ios.', 'The query is forwarded.'],
    visitor: { device: 'mobile', os: 'ios', browser: 'safari', language: 'fr', country: 'FR', city: null },
    variants: [],
  },
};

export const REPORT: Schemas['RoutingReport'] = {
  data: {
    routes: [
      { kind: 'link', id: null, url: 'https://www.acme.example/launch', clicks: 120, conversions: 3 },
      { kind: 'rule', id: 'rul_ios', url: 'https://apps.apple.com/app/id123456789', clicks: 800, conversions: 40 },
      { kind: 'rule', id: 'rul_fr', url: 'https://www.acme.example/fr/launch', clicks: 210, conversions: 9 },
      { kind: 'variant', id: 'var_a', url: 'https://www.acme.example/launch-a', clicks: 1500, conversions: 60 },
      { kind: 'variant', id: 'var_b', url: 'https://www.acme.example/launch-b', clicks: 1480, conversions: 89 },
      { kind: 'removed', id: null, url: null, clicks: 12, conversions: 0 },
    ],
    split: {
      metric: 'conversions',
      endsAt: '2026-12-31T23:00:00Z',
      winnerId: null,
      variants: [
        {
          id: 'var_a',
          url: 'https://www.acme.example/launch-a',
          weight: 50,
          clicks: 1500,
          conversions: 60,
          conversionRate: 0.04,
        },
        {
          id: 'var_b',
          url: 'https://www.acme.example/launch-b',
          weight: 50,
          clicks: 1480,
          conversions: 89,
          conversionRate: 89 / 1480,
        },
      ],
      comparison: {
        method: 'two-proportion z-test',
        leaderId: 'var_b',
        runnerUpId: 'var_a',
        pValue: 0.0132,
        confidence: 0.9868,
        samplePerVariant: 1200,
      },
    },
  },
};
