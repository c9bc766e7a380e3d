// Answers the tests put in place of Prism's where a test needs to know them: who is signed in,
// with which role (Prism's session is random, but valid). Everything else comes from Prism.
import type { Page, Route } from 'playwright-core';
import type { components } from '../../../generated/dashboard';
import { scopesOfRole } from '../../../src/domain/access';
import { REPORT, ROUTING } from './routing-fixtures';
import { renderBioPage } from '../../../src/redirect/bio-page';

type Schemas = components['schemas'];
export type Role = Schemas['Role'];

export const WS = 'ws_acme';
export const CSRF = 'csrf-token-of-this-session';

export function session(role: Role = 'OWNER'): Schemas['Session'] {
  return {
    user: { id: 'usr_ada', email: 'ada@acme.example' },
    workspaces: [
      { id: WS, name: 'Acme', plan: 'growth', role },
      { id: 'ws_side', name: 'Side project', plan: 'free', role: 'ANALYST' },
    ],
    csrfToken: CSRF,
    expiresAt: new Date(Date.now() + 14 * 86_400_000).toISOString(),
    secondFactor: { enabled: false, restricted: false, requiredBy: [] },
  };
}

/** GET /session answers `body` (status 200) or the status given. */
export async function signedInAs(page: Page, role: Role | 401 = 'OWNER'): Promise<void> {
  await page.route('**/app/api/session', (route: Route) => {
    if (route.request().method() !== 'GET') return route.fallback();
    if (role === 401) return route.fulfill({ status: 401, json: { error: 'Sign in to continue.' } });
    return route.fulfill({ json: session(role) });
  });
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString();

const SCHEDULES: Record<number, Partial<Schemas['DashboardLink']>> = {
  1: { expiresAt: day(10), neverExpires: false },
  3: { startAt: day(3) },
  5: { expiresAt: day(-2), neverExpires: false },
  7: { startAt: day(-30), endAt: day(-1) },
};

export function link(i: number, over: Partial<Schemas['DashboardLink']> = {}): Schemas['DashboardLink'] {
  const slug =
    over.slug ??
    ['launch', 'spring-sale', 'docs', 'careers', 'webinar-2026', 'newsletter'][i % 6] + (i >= 6 ? `-${i}` : '');
  return {
    id: `lnk_${i}`,
    slug,
    originalUrl: `https://www.acme.example/campaigns/${slug}?utm_source=shortlink&utm_medium=social&utm_campaign=${slug}`,
    title: i % 3 === 0 ? null : `Acme ${slug.replace(/-/g, ' ')}`,
    domainId: null,
    status: i % 5 === 4 ? 'DISABLED' : 'ACTIVE',
    redirectType: 'TEMPORARY',
    expiresAt: null,
    neverExpires: true,
    expiredUrl: null,
    clickLimit: null,
    startAt: null,
    endAt: null,
    // A few links with a schedule or an expiry, for the list's badges.
    ...SCHEDULES[i],
    clicks: [1234, 87, 0, 45210, 310, 9][i % 6],
    hasPassword: i === 2,
    tags:
      i % 2 === 0
        ? [{ id: 'tag_social', name: 'social', color: '#2563eb' }]
        : [
            { id: 'tag_q4', name: 'Q4 launch', color: '#16a34a' },
            { id: 'tag_social', name: 'social', color: '#2563eb' },
          ],
    previewTitle: null,
    previewDescription: null,
    previewImage: null,
    createdAt: day(-i - 1),
    updatedAt: day(-i),
    shortUrl: `https://sho.rt/${slug}`,
    ...over,
  };
}

export function linkList(n: number, total = n, totalCapped = false): Schemas['DashboardLinkList'] {
  return { data: Array.from({ length: n }, (_, i) => link(i)), meta: { page: 1, limit: 25, total, totalCapped } };
}

export function tags(): Schemas['TagList'] {
  return {
    data: [
      { id: 'tag_q4', name: 'Q4 launch', color: '#16a34a', linkCount: 128 },
      { id: 'tag_social', name: 'social', color: '#2563eb', linkCount: 1 },
      { id: 'tag_print', name: 'print', color: '#c2410c', linkCount: 0 },
    ],
  };
}

export function workspace(
  features: Partial<Schemas['Workspace']['features']> = {},
  role: Role = 'OWNER',
): { data: Schemas['Workspace'] } {
  return {
    data: {
      id: WS,
      name: 'Acme',
      plan: 'growth',
      role,
      keyScopes: scopesOfRole(role),
      createdAt: day(-200),
      shortDomain: 'sho.rt',
      destinationFetch: false,
      features: { api: true, expiredUrl: true, webhooks: true, conversions: true, goals: true, ...features },
    },
  };
}

export function analytics(days: number): Schemas['LinkAnalytics'] {
  const today = new Date().toISOString().slice(0, 10);
  const dayOf = (offset: number) =>
    new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
  const series = Array.from({ length: days }, (_, i) => {
    const clicks = Math.round(40 + 30 * Math.sin(i / 3) + (i % 7 === 5 ? 60 : 0) + i);
    return { day: dayOf(i - days + 1), clicks, scans: Math.round(clicks / 6) };
  });
  const sum = (k: 'clicks' | 'scans') => series.reduce((n, d) => n + d[k], 0);
  return {
    linkId: 'lnk_0',
    window: { from: series[0].day, to: series[series.length - 1].day },
    series,
    totals: { clicks: sum('clicks'), scans: sum('scans') },
    breakdownWindow: { from: dayOf(-89), to: today },
    breakdowns: {
      countries: [
        { value: 'DE', clicks: 812 },
        { value: 'US', clicks: 640 },
        { value: 'FR', clicks: 233 },
        { value: '', clicks: 41 },
      ],
      cities: [
        { value: 'Berlin', country: 'DE', clicks: 420 },
        { value: 'Springfield', country: 'US', clicks: 96 },
        { value: 'Paris', country: 'FR', clicks: 88 },
        { value: '', country: null, clicks: 602 },
      ],
      devices: [
        { value: 'mobile', clicks: 1020 },
        { value: 'desktop', clicks: 640 },
        { value: 'tablet', clicks: 66 },
      ],
      browsers: [
        { value: 'Chrome', clicks: 980 },
        { value: 'Safari', clicks: 520 },
        { value: 'Firefox', clicks: 226 },
      ],
      os: [
        { value: 'Android', clicks: 700 },
        { value: 'iOS', clicks: 380 },
        { value: 'Windows', clicks: 420 },
        { value: 'macOS', clicks: 226 },
      ],
      referrers: [
        { value: 'www.linkedin.com', clicks: 420 },
        { value: 't.co', clicks: 300 },
        // A long host, to show where its name wraps.
        { value: 'newsletter.customer-communications.acme-partners.example', clicks: 120 },
        { value: '', clicks: 900 },
      ],
      other: { countries: 120, cities: 640, devices: 0, browsers: 14, os: 0, referrers: 106 },
    },
  };
}

export function keyList(): Schemas['ApiKeyList'] {
  return {
    data: [
      {
        id: 'key_1',
        name: 'Zapier',
        hint: '3f9a',
        scopes: ['links:read', 'links:write', 'analytics:read'],
        expiresAt: null,
        revokedAt: null,
        createdAt: day(-20),
        lastUsedAt: day(-1),
        user: { id: 'usr_ada', email: 'ada@acme.example' },
      },
      {
        id: 'key_2',
        name: 'Nightly conversion import',
        hint: 'mk_b210',
        scopes: ['conversions:write'],
        expiresAt: day(60),
        revokedAt: null,
        createdAt: day(-45),
        lastUsedAt: null,
        user: { id: 'usr_bo', email: 'bo@acme.example' },
      },
      {
        id: 'key_3',
        name: null,
        hint: 'mk_77c1',
        scopes: ['links:read'],
        expiresAt: null,
        revokedAt: day(-3),
        createdAt: day(-90),
        lastUsedAt: day(-4),
        user: { id: 'usr_ada', email: 'ada@acme.example' },
      },
    ],
  };
}

export function invitationList(): Schemas['InvitationList'] {
  const ada = { id: 'usr_ada', email: 'ada@acme.example' };
  return {
    data: [
      {
        id: 'inv_fay',
        email: 'fay@acme.example',
        role: 'MEMBER',
        invitedBy: ada,
        createdAt: day(-1),
        expiresAt: day(6),
      },
      {
        id: 'inv_gus',
        email: 'gus@acme.example',
        role: 'OWNER',
        invitedBy: ada,
        createdAt: day(-3),
        expiresAt: day(4),
      },
    ],
  };
}

export function memberList(): Schemas['MemberList'] {
  return {
    data: [
      { userId: 'usr_ada', email: 'ada@acme.example', role: 'OWNER', joinedAt: day(-200) },
      { userId: 'usr_bo', email: 'bo@acme.example', role: 'ADMIN', joinedAt: day(-120) },
      { userId: 'usr_cy', email: 'cy@acme.example', role: 'MEMBER', joinedAt: day(-2) },
      { userId: 'usr_di', email: 'di.analyst@acme.example', role: 'ANALYST', joinedAt: day(-30) },
    ],
  };
}

/** A chain of entries as the audit log shows them: a person, a key, the command line, a failed sign-in. */
export function auditList(): Schemas['AuditEntryList'] {
  const ada = { type: 'user' as const, id: 'usr_ada', userId: 'usr_ada', email: 'ada@acme.example' };
  const from = { network: '203.0.113.0/24', hmac: 'b1946ac92492d2347c6235b4d2611184' };
  const none = { network: null, hmac: null };
  const entries: Array<Omit<Schemas['AuditEntry'], 'id' | 'seq' | 'prevHash' | 'hash'>> = [
    {
      at: day(0),
      actor: ada,
      action: 'link.updated',
      objectType: 'link',
      objectId: 'lnk_0',
      changes: { url: { from: 'https://www.acme.example/launch', to: 'https://www.acme.example/campaigns/launch' } },
      address: from,
    },
    {
      at: day(-1),
      actor: { type: 'api_key', id: 'key_ci', userId: 'usr_bo', email: 'bo@acme.example' },
      action: 'link.created',
      objectType: 'link',
      objectId: 'lnk_1',
      changes: { slug: { to: 'spring-sale' }, url: { to: 'https://www.acme.example/sale' } },
      address: from,
    },
    {
      at: day(-2),
      actor: ada,
      action: 'member.role_changed',
      objectType: 'member',
      objectId: 'usr_cy',
      changes: { role: { from: 'ANALYST', to: 'MEMBER' } },
      address: from,
    },
    {
      at: day(-3),
      actor: { type: 'cli', id: null, userId: null, email: null },
      action: 'api_key.created',
      objectType: 'api_key',
      objectId: 'key_ci',
      changes: { name: { to: 'CI' }, key: { secret: true } },
      address: none,
    },
    {
      at: day(-4),
      actor: { type: 'anonymous', id: null, userId: 'usr_di', email: 'di.analyst@acme.example' },
      action: 'session.sign_in_failed',
      objectType: 'user',
      objectId: 'usr_di',
      changes: {},
      address: { network: '198.51.100.0/24', hmac: '9e107d9d372bb6826bd81d3542a419d6' },
    },
  ];
  const n = entries.length;
  return {
    data: entries.map((e, i) => ({
      id: `aud_${n - i}`,
      seq: n - i,
      prevHash: (n - i - 1).toString(16).padStart(64, '0'),
      hash: (n - i).toString(16).padStart(64, '0'),
      ...e,
    })),
    next: null,
  };
}

/** The workspace's OpenID Connect provider, set up and on. */
export function ssoProvider(): Schemas['SsoProviderEnvelope'] {
  return {
    data: {
      issuer: 'https://login.acme.example',
      clientId: 'shortlink-dashboard',
      domains: ['acme.example'],
      defaultRole: 'MEMBER',
      enabled: true,
      passwordSignIn: false,
      redirectUri: 'https://sho.rt/app/api/sso/callback',
      createdAt: day(-40),
      updatedAt: day(-3),
    },
  };
}

const verification = (host: string) => ({
  cname: 'sho.rt',
  txtName: `_shortlink.${host}`,
  txtValue: 'shortlink-verify=7c1e0b5a93d24f6c',
});

export function domainList(): Schemas['DomainList'] {
  return {
    data: [
      {
        id: 'dom_go',
        host: 'go.acme.example',
        status: 'ACTIVE',
        verifiedAt: day(-50),
        expiresAt: null,
        createdAt: day(-51),
        verification: verification('go.acme.example'),
      },
      {
        id: 'dom_links',
        host: 'links.acme.example',
        status: 'PENDING',
        verifiedAt: null,
        expiresAt: day(6),
        createdAt: day(-1),
        verification: verification('links.acme.example'),
      },
      {
        id: 'dom_old',
        host: 'old.acme.example',
        status: 'DISABLED',
        verifiedAt: day(-300),
        expiresAt: null,
        createdAt: day(-310),
        verification: verification('old.acme.example'),
      },
      {
        id: 'dom_try',
        host: 'try.acme.example',
        status: 'EXPIRED',
        verifiedAt: null,
        expiresAt: day(-2),
        createdAt: day(-9),
        verification: verification('try.acme.example'),
      },
    ],
  };
}

export function campaignList(): Schemas['CampaignList'] {
  return {
    data: [
      { id: 'cmp_spring', name: 'Spring sale 2026', createdAt: day(-10) },
      { id: 'cmp_webinar', name: 'Webinar series', createdAt: day(-40) },
    ],
  };
}

function goal(id: string, over: Partial<Schemas['Goal']>): Schemas['Goal'] {
  return {
    id,
    workspaceId: WS,
    name: 'Goal',
    type: 'signup',
    customName: null,
    linkId: null,
    qrCodeId: null,
    campaignId: null,
    targetCount: null,
    targetValueMinor: null,
    targetCurrency: null,
    windowStart: null,
    windowEnd: null,
    status: 'ACTIVE',
    archivedAt: null,
    definitionVersion: 1,
    definitionUpdatedAt: day(-30),
    createdAt: day(-30),
    updatedAt: day(-2),
    ...over,
  };
}

export function goalList(): Schemas['GoalList'] {
  return {
    data: [
      goal('goal_trials', { name: 'Trial sign-ups from the spring sale', campaignId: 'cmp_spring', targetCount: 500 }),
      goal('goal_revenue', {
        name: 'Q4 revenue',
        type: 'purchase',
        targetCount: 1200,
        targetValueMinor: 25_000_000,
        targetCurrency: 'EUR',
        definitionVersion: 3,
      }),
      goal('goal_demo', {
        name: 'Demo bookings',
        type: 'custom',
        customName: 'demo-booked',
        linkId: 'lnk_0',
        status: 'PAUSED',
      }),
      goal('goal_2025', {
        name: 'Webinar seats 2025',
        type: 'booking',
        status: 'ARCHIVED',
        archivedAt: day(-60),
        windowStart: day(-400),
        windowEnd: day(-300),
      }),
    ],
  };
}

export function goalReport(): Schemas['GoalReport'] {
  return {
    goal: { id: 'goal_revenue', name: 'Q4 revenue', type: 'purchase' },
    data: {
      goalId: 'goal_revenue',
      window: { from: day(-30), to: day(0), narrowedByGoal: false, disjoint: false },
      conversions: 874,
      value: [
        { currency: 'EUR', valueMinor: 18_734_500, conversions: 801 },
        { currency: 'USD', valueMinor: 1_250_000, conversions: 41 },
      ],
      unattributedConversions: 112,
      unattributedIncluded: true,
      countProgress: { target: 1200, current: 874, ratio: 874 / 1200, reached: false },
      valueProgress: {
        currency: 'EUR',
        target: 25_000_000,
        current: 18_734_500,
        ratio: 18_734_500 / 25_000_000,
        reached: false,
      },
      rate: { supported: true, conversions: 762, clicks: 40_210, rate: 762 / 40_210 },
      definition: { version: 3, updatedAt: day(-12) },
      completeness: { windowTruncatedByRetention: false, scopeObjectMissing: false },
    },
  };
}

/** The Conversions screen's answer: the last 30 days, three currencies, every kind of rate. */
export function conversionsView(): Schemas['DashboardConversions'] {
  const today = new Date().toISOString().slice(0, 10);
  const dayOf = (offset: number) =>
    new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
  const series = Array.from({ length: 30 }, (_, i) => {
    const conversions = Math.round(18 + 9 * Math.sin(i / 2.5) + (i % 7 === 4 ? 14 : 0));
    return {
      day: dayOf(i - 29),
      conversions,
      value: [
        { currency: 'EUR', valueMinor: conversions * 4_250, conversions: Math.round(conversions * 0.6) },
        ...(i % 3 === 0 ? [{ currency: 'USD', valueMinor: 12_900, conversions: 1 }] : []),
      ],
    };
  });
  const sum = (pick: (d: (typeof series)[number]) => number) => series.reduce((n, d) => n + pick(d), 0);
  const total = sum((d) => d.conversions);
  const eur = {
    currency: 'EUR',
    valueMinor: sum((d) => d.value[0].valueMinor),
    conversions: sum((d) => d.value[0].conversions),
  };
  const usd = {
    currency: 'USD',
    valueMinor: sum((d) => d.value[1]?.valueMinor ?? 0),
    conversions: sum((d) => d.value[1]?.conversions ?? 0),
  };
  const rate = (conversions: number, clicks: number) => ({
    supported: true,
    conversions,
    clicks,
    rate: conversions / clicks,
  });
  return {
    data: {
      windowFrom: `${dayOf(-29)}T00:00:00.000Z`,
      windowTo: `${dayOf(1)}T00:00:00.000Z`,
      total,
      attributedConversions: total - 61,
      unattributedConversions: 61,
      byEventType: [
        { eventType: 'purchase', label: 'Purchase', conversions: 301 },
        { eventType: 'signup', label: 'Sign-up', conversions: 166 },
        { eventType: 'custom', label: 'demo-booked', conversions: 74 },
        { eventType: 'lead', label: 'Lead', conversions: total - 301 - 166 - 74 },
      ],
      byLink: [
        {
          id: 'lnk_0',
          conversions: 288,
          value: [
            { ...eur, valueMinor: 1_224_000, conversions: 170 },
            { ...usd, valueMinor: 38_700, conversions: 3 },
          ],
          rate: rate(288, 9_412),
        },
        {
          id: 'lnk_1',
          conversions: 140,
          value: [{ ...eur, valueMinor: 595_000, conversions: 81 }],
          rate: rate(140, 2_210),
        },
        {
          id: 'lnk_3',
          conversions: 47,
          value: [],
          rate: { supported: false, conversions: 47, clicks: 0, rate: null, reason: 'no_clicks_in_window' },
        },
        {
          id: 'lnk_gone',
          conversions: total - 61 - 288 - 140 - 47,
          value: [],
          rate: rate(total - 61 - 288 - 140 - 47, 812),
        },
      ],
      byCampaign: [
        { id: 'cmp_spring', conversions: 212, value: [{ ...eur, valueMinor: 901_000, conversions: 130 }] },
        { id: 'cmp_webinar', conversions: 74, value: [] },
      ],
      byQr: [
        {
          id: 'qr_poster',
          conversions: 39,
          value: [{ ...eur, valueMinor: 165_750, conversions: 22 }],
          rate: rate(39, 610),
        },
      ],
      value: [eur, usd],
      rate: rate(total - 61, 13_044),
      unavailable: false,
    },
    series,
    names: {
      links: [
        { id: 'lnk_0', slug: 'launch', shortUrl: 'https://sho.rt/launch', title: 'Acme launch page', deleted: false },
        {
          id: 'lnk_1',
          slug: 'spring-sale',
          shortUrl: 'https://sho.rt/spring-sale',
          title: 'Acme spring sale',
          deleted: false,
        },
        { id: 'lnk_3', slug: 'careers', shortUrl: 'https://go.acme.example/careers', title: null, deleted: false },
        {
          id: 'lnk_gone',
          slug: 'old-offer',
          shortUrl: 'https://sho.rt/old-offer',
          title: 'Summer offer 2025',
          deleted: true,
        },
      ],
      campaigns: [
        { id: 'cmp_spring', name: 'Spring sale 2026' },
        { id: 'cmp_webinar', name: 'Webinar series' },
      ],
      qrCodes: [
        { id: 'qr_poster', linkId: 'lnk_0', slug: 'launch', shortUrl: 'https://sho.rt/launch', deleted: false },
      ],
    },
  };
}

export function reportList(): Schemas['ReportList'] {
  const report = (id: string, over: Partial<Schemas['Report']>): Schemas['Report'] => ({
    id,
    kind: 'CONVERSIONS',
    title: 'Report',
    params: { window: { lastDays: 30 } },
    visibility: 'PRIVATE',
    hasPassword: false,
    url: null,
    createdBy: 'usr_ada',
    createdAt: day(-3),
    updatedAt: day(-1),
    ...over,
  });
  return {
    data: [
      report('rpt_spring', {
        title: 'Spring sale purchases, last 90 days',
        params: { window: { lastDays: 90 }, eventType: 'purchase', campaignId: 'cmp_spring' },
        visibility: 'PUBLIC',
        url: 'https://sho.rt/app/shared/Zk3qv9Xw1sT0bY7mN2cR5hL8pD4fJ6gA0eU3iO9kQwE',
      }),
      report('rpt_revenue', {
        kind: 'GOAL',
        title: 'Q4 revenue for the board',
        params: { window: { lastDays: 30 }, goalId: 'goal_revenue' },
        visibility: 'UNLISTED',
        hasPassword: true,
        url: 'https://sho.rt/app/shared/Hq8sLr2mV6tY0wB4nC7xZ1kP5dF9gJ3aE2uI6oT8yRs',
      }),
      report('rpt_launch', {
        kind: 'LINK',
        title: 'Launch page clicks, March',
        params: { window: { from: '2026-03-01', to: '2026-03-31' }, linkId: 'lnk_0' },
      }),
      report('rpt_bio', {
        kind: 'PAGE',
        title: '@acme analytics, last 90 days',
        params: { window: { lastDays: 90 }, pageId: 'pg_acme' },
        visibility: 'UNLISTED',
        url: 'https://sho.rt/app/shared/Pw4nX8cV2bM6zL0kJ9hG3fD7sA1qE5rT8yU2iO6pZxC',
      }),
    ],
  };
}

/** A round avatar drawn in SVG, as a data URL: the mock's pages may load nothing from another host. */
const AVATAR =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="192" height="192" viewBox="0 0 192 192"><rect width="192" height="192" fill="#1d4ed8"/>' +
      '<circle cx="96" cy="76" r="34" fill="#dbeafe"/><path d="M32 176c8-40 36-58 64-58s56 18 64 58z" fill="#dbeafe"/></svg>',
  );

type BioPage = Schemas['BioPage'];
type PageBlock = Schemas['PageBlock'];

const linkBlock = (id: string, text: string, i: number, slug: string): PageBlock => {
  const l = link(i, { slug, status: 'ACTIVE' });
  return { id, type: 'link', text, linkId: l.id, shortUrl: l.shortUrl, destination: l.originalUrl };
};

export function bioPage(over: Partial<BioPage> = {}): BioPage {
  const handle = over.handle ?? 'acme';
  return {
    id: 'pg_acme',
    handle,
    url: `https://sho.rt/@${handle}`,
    status: 'ACTIVE',
    published: true,
    publishedAt: day(-3),
    hasUnpublishedChanges: true,
    title: 'Acme Outdoor Co.',
    bio: 'Trail shoes and rain gear, made to be mended. Workshop in Leeds, shipping across Europe.',
    avatarUrl: AVATAR,
    theme: 'forest',
    blocks: [
      { id: 'blk_shop000001', type: 'heading', text: 'Shop', linkId: null, shortUrl: null, destination: null },
      linkBlock('blk_spring0001', 'Spring sale: 30% off rain jackets', 1, 'spring-sale'),
      linkBlock('blk_launch0001', 'New: the Ridge trail shoe', 0, 'ridge'),
      {
        id: 'blk_para000001',
        type: 'paragraph',
        text: 'New arrivals every Friday. Free repairs for life on everything we make.',
        linkId: null,
        shortUrl: null,
        destination: null,
      },
      {
        id: 'blk_listen0001',
        type: 'heading',
        text: 'Listen and read',
        linkId: null,
        shortUrl: null,
        destination: null,
      },
      linkBlock('blk_podcast001', 'The Long Way Round podcast', 4, 'podcast'),
      linkBlock('blk_news000001', 'Our newsletter', 5, 'newsletter'),
    ],
    createdAt: day(-40),
    updatedAt: day(-1),
    ...over,
  };
}

export function pageList(): Schemas['BioPageList'] {
  return {
    data: [
      bioPage({
        id: 'pg_spring',
        handle: 'acme-spring-2026',
        title: 'Spring collection 2026',
        published: false,
        publishedAt: null,
        hasUnpublishedChanges: true,
        theme: 'sunrise',
        createdAt: day(-1),
      }),
      bioPage(),
      bioPage({
        id: 'pg_careers',
        handle: 'acme-careers',
        title: 'Work at Acme: open roles in the workshop and the shop',
        hasUnpublishedChanges: false,
        theme: 'classic',
        publishedAt: day(-12),
        createdAt: day(-60),
      }),
      bioPage({
        id: 'pg_winter',
        handle: 'winter-promo',
        title: 'Winter promo 2025',
        status: 'DISABLED',
        theme: 'midnight',
        hasUnpublishedChanges: false,
        publishedAt: day(-90),
        createdAt: day(-120),
      }),
    ],
  };
}

/** A shared report of each kind, as anyone with its URL reads it. */
export function sharedReport(kind: Schemas['ReportKind']): Schemas['SharedReport'] {
  const now = Date.now();
  const tomorrow = (Math.floor(now / 86_400_000) + 1) * 86_400_000;
  const base = { generatedAt: new Date(now - 20_000).toISOString() };
  if (kind === 'GOAL') {
    return {
      ...base,
      title: 'Q4 revenue for the board',
      kind,
      window: { from: day(-30), to: day(0), lastDays: 30 },
      goal: goalReport(),
    };
  }
  if (kind === 'LINK') {
    const a = analytics(30);
    return {
      ...base,
      title: 'Launch page clicks',
      kind,
      window: {
        from: `${a.window.from}T00:00:00.000Z`,
        to: new Date(Date.parse(`${a.window.to}T00:00:00Z`) + 86_400_000).toISOString(),
        lastDays: 30,
      },
      link: { slug: 'launch', shortUrl: 'https://sho.rt/launch', title: 'Acme launch page', analytics: a },
    };
  }
  if (kind === 'PAGE') {
    const a = pageAnalytics(30);
    return {
      ...base,
      title: '@acme analytics, last 30 days',
      kind,
      window: {
        from: `${a.window.from}T00:00:00.000Z`,
        to: new Date(Date.parse(`${a.window.to}T00:00:00Z`) + 86_400_000).toISOString(),
        lastDays: 30,
      },
      page: { handle: 'acme', url: 'https://sho.rt/@acme', title: 'Acme Outdoor Co.', analytics: a },
    };
  }
  return {
    ...base,
    title: 'Spring sale purchases, last 30 days',
    kind,
    window: {
      from: new Date(tomorrow - 30 * 86_400_000).toISOString(),
      to: new Date(tomorrow).toISOString(),
      lastDays: 30,
    },
    filters: { campaignId: 'cmp_spring' },
    conversions: conversionsView(),
  };
}

/** Realistic answers for the shared page: /shared/tok_goal, tok_link, tok_page, tok_password (asks for it), tok_gone (404), else conversions. */
export async function realisticSharedReads(page: Page): Promise<void> {
  await page.route('**/app/api/shared/*', (route) => {
    if (route.request().method() !== 'GET') return route.fallback();
    const token = new URL(route.request().url()).pathname.split('/').pop();
    if (token === 'tok_password')
      return route.fulfill({ status: 401, json: { error: 'This report is protected by a password' } });
    if (token === 'tok_gone')
      return route.fulfill({ status: 404, json: { error: 'There is no shared report at this address' } });
    const kinds: Record<string, Schemas['ReportKind']> = { tok_goal: 'GOAL', tok_link: 'LINK', tok_page: 'PAGE' };
    return route.fulfill({ json: sharedReport(kinds[token ?? ''] ?? 'CONVERSIONS') });
  });
}

export function pageAnalytics(days: number): Schemas['BioPageAnalytics'] {
  const today = new Date().toISOString().slice(0, 10);
  const dayOf = (offset: number) =>
    new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
  const series = Array.from({ length: days }, (_, i) => {
    const views = Math.round(120 + 60 * Math.sin(i / 4) + (i % 7 === 5 ? 90 : 0) + 2 * i);
    return { day: dayOf(i - days + 1), views, clicks: Math.round(views * 0.38) };
  });
  const sum = (k: 'views' | 'clicks') => series.reduce((n, d) => n + d[k], 0);
  const clicks = sum('clicks');
  return {
    pageId: 'pg_acme',
    window: { from: series[0].day, to: series[series.length - 1].day },
    series,
    totals: { views: sum('views'), clicks },
    blocks: [
      {
        blockId: 'blk_spring0001',
        text: 'Spring sale: 30% off rain jackets',
        linkId: 'lnk_1',
        clicks: Math.round(clicks * 0.52),
      },
      {
        blockId: 'blk_launch0001',
        text: 'New: the Ridge trail shoe',
        linkId: 'lnk_0',
        clicks: Math.round(clicks * 0.31),
      },
      {
        blockId: 'blk_podcast001',
        text: 'The Long Way Round podcast',
        linkId: 'lnk_4',
        clicks: Math.round(clicks * 0.12),
      },
      {
        blockId: 'blk_news000001',
        text: 'Our newsletter',
        linkId: 'lnk_5',
        clicks: clicks - Math.round(clicks * 0.52) - Math.round(clicks * 0.31) - Math.round(clicks * 0.12),
      },
    ],
    breakdownWindow: { from: dayOf(-89), to: today },
    breakdowns: {
      countries: [
        { value: 'GB', views: 2210 },
        { value: 'DE', views: 1034 },
        { value: 'NL', views: 512 },
        { value: '', views: 77 },
      ],
      devices: [
        { value: 'mobile', views: 3120 },
        { value: 'desktop', views: 640 },
        { value: 'tablet', views: 73 },
      ],
      browsers: [
        { value: 'Mobile Safari', views: 1702 },
        { value: 'Chrome Mobile', views: 1290 },
        { value: 'Chrome', views: 512 },
        { value: 'Instagram', views: 329 },
      ],
      referrers: [
        { value: 'l.instagram.com', views: 1840 },
        { value: 'www.tiktok.com', views: 702 },
        { value: 'linktr.ee', views: 96 },
        { value: '', views: 1195 },
      ],
      other: { countries: 140, devices: 0, browsers: 88, referrers: 61 },
    },
  };
}

/**
 * The preview as the service makes it, from the draft the editor sent (its own renderer), after
 * Prism has checked the request.
 */
export async function renderedPreviews(page: Page): Promise<void> {
  await page.route('**/app/api/workspaces/*/page-preview', async (route) => {
    const body = JSON.parse(route.request().postData() ?? '{}') as Schemas['BioPagePreviewRequest'];
    await route.fetch().catch(() => undefined);
    const html = renderBioPage(
      {
        title: body.title || 'Untitled page',
        bio: body.bio ?? null,
        avatarUrl: body.avatarUrl ?? null,
        theme: body.theme ?? 'classic',
        blocks: (body.blocks ?? []).map((b, i) => ({ id: `preview${i}`, type: b.type, text: b.text })),
      },
      { host: 'sho.rt', handle: body.handle || 'your-handle', preview: true },
    );
    await route.fulfill({ json: { html } }).catch(() => undefined);
  });
}

/**
 * Realistic answers for every read of a workspace's screens (Prism's are valid but random),
 * for screenshots worth looking at. Writes still go to Prism.
 */
/** Two passkeys: one used this morning, one never. */
function passkeyList(): Schemas['PasskeyList'] {
  return {
    data: [
      {
        id: 'pk_laptop00000000000000',
        name: 'Work laptop',
        createdAt: day(-40),
        lastUsedAt: new Date(Date.now() - 3 * 3_600_000).toISOString(),
      },
      { id: 'pk_securitykey000000000', name: 'Security key', createdAt: day(-2), lastUsedAt: null },
    ],
  };
}

export async function realisticReads(page: Page, role: Role = 'OWNER'): Promise<void> {
  await signedInAs(page, role);
  await realisticSharedReads(page);
  const reads: Array<[RegExp, (url: URL) => unknown]> = [
    [/\/workspaces\/[^/]+$/, () => workspace({}, role)],
    [/\/workspaces\/[^/]+\/links$/, (url) => linkList(Math.min(Number(url.searchParams.get('limit')) || 25, 25), 1234)],
    [
      /\/workspaces\/[^/]+\/links\/[^/]+$/,
      () => ({
        data: link(0, {
          title: 'Acme launch page',
          hasPassword: true,
          previewTitle: 'Acme: the launch',
          tags: [{ id: 'tag_q4', name: 'Q4 launch', color: '#16a34a' }],
        }),
      }),
    ],
    [/\/workspaces\/[^/]+\/links\/[^/]+\/analytics$/, () => analytics(30)],
    [/\/workspaces\/[^/]+\/links\/[^/]+\/routing\/report$/, () => REPORT],
    [/\/workspaces\/[^/]+\/links\/[^/]+\/routing$/, () => ({ data: ROUTING })],
    [/\/workspaces\/[^/]+\/tags$/, () => tags()],
    [/\/workspaces\/[^/]+\/domains$/, () => domainList()],
    [/\/workspaces\/[^/]+\/keys$/, () => keyList()],
    [/\/workspaces\/[^/]+\/members$/, () => memberList()],
    [/\/workspaces\/[^/]+\/invitations$/, () => invitationList()],
    [/\/workspaces\/[^/]+\/campaigns$/, () => campaignList()],
    [/\/workspaces\/[^/]+\/conversions$/, () => conversionsView()],
    [/\/workspaces\/[^/]+\/goals$/, () => goalList()],
    [/\/workspaces\/[^/]+\/goals\/[^/]+\/report$/, () => goalReport()],
    [/\/workspaces\/[^/]+\/reports$/, () => reportList()],
    [/\/workspaces\/[^/]+\/pages$/, () => pageList()],
    [/\/workspaces\/[^/]+\/pages\/[^/]+$/, () => ({ data: bioPage() })],
    [/\/workspaces\/[^/]+\/pages\/[^/]+\/analytics$/, () => pageAnalytics(30)],
    [/\/workspaces\/[^/]+\/audit$/, () => auditList()],
    [/\/workspaces\/[^/]+\/sso$/, () => ssoProvider()],
  ];
  await renderedPreviews(page);
  await page.route('**/app/api/account/passkeys', (route) =>
    route.request().method() === 'GET' ? route.fulfill({ json: passkeyList() }) : route.fallback(),
  );
  await page.route('**/app/api/workspaces/**', (route) => {
    if (route.request().method() !== 'GET') return route.fallback();
    const url = new URL(route.request().url());
    const pathname = url.pathname.slice('/app/api'.length);
    const read = reads.find(([re]) => re.test(pathname));
    return read ? route.fulfill({ json: read[1](url) }) : route.fallback();
  });
}

/**
 * `method pattern` answers `json` with `status`, after the request went to Prism anyway (so the
 * contract still checks what the app sent). Returns the requests seen.
 */
export async function answer(
  page: Page,
  method: string,
  pattern: string,
  json: unknown,
  status = 200,
  headers: Record<string, string> = {},
) {
  const seen: Array<{ url: string; headers: Record<string, string>; body: string | null }> = [];
  await page.route(pattern, async (route) => {
    const request = route.request();
    if (request.method() !== method) return route.fallback();
    seen.push({ url: request.url(), headers: await request.allHeaders(), body: request.postData() });
    await route.fetch().catch(() => undefined);
    // The page may have moved on (or the test unrouted) while Prism answered.
    await route.fulfill({ status, json, headers }).catch(() => undefined);
  });
  return seen;
}
