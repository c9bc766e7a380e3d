// Each variant's data builders against the AsyncAPI catalogue: only catalogue events, and
// every built object valid against its closed schema, for every event this build emits.
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { changedLinkFields } from '../../src/domain/link-changes';
import { eventCatalog, refusedEventNames, type Variant } from '../../src/webhooks/catalog';
import { buildEventData, serviceEvent, type EventSubjects, type ServiceEventType } from '../../src/domain/events';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

const link = {
  id: 'lnk_1',
  slug: 'spring-sale',
  destinationUrl: 'https://shop.example.com/spring',
  title: null,
  domain: 'sho.rt',
};
const visit = {
  linkId: 'lnk_1',
  slug: 'spring-sale',
  destinationUrl: 'https://shop.example.com/spring',
  domain: 'sho.rt',
  referrer: 't.co',
  country: 'DE',
  city: null,
  device: 'mobile',
  browser: 'Mobile Safari',
  os: 'iOS',
};
const subjects: { [T in ServiceEventType]: EventSubjects[T] } = {
  'link.created': { ...link, tags: ['newsletter'], createdBy: 'usr_1' },
  'link.updated': { ...link, changedFields: ['url', 'title'], updatedAt: Date.UTC(2026, 0, 1) },
  'link.deleted': { id: 'lnk_1', slug: 'spring-sale', domain: 'sho.rt' },
  'link.clicked': visit,
  'qr.scanned': { ...visit, qrCodeId: 'qr_1' },
  'conversion.created': {
    id: 'cnv_1',
    eventType: 'purchase',
    customName: null,
    linkId: 'lnk_1',
    campaignId: null,
    qrCodeId: 'qr_1',
    value: { amountMinor: 4999, currency: 'EUR' },
    occurredAt: '2026-01-01T03:59:58.000Z',
  },
  'domain.verified': { id: 'dom_1', host: 'go.acme.example', verifiedAt: Date.UTC(2026, 0, 1) },
  'report.shared': { reportId: 'rpt_1', title: 'Q1 campaign results', visibility: 'UNLISTED' },
  'analytics.spike': {
    linkId: 'lnk_1',
    slug: 'spring-sale',
    windowStart: 0,
    windowEnd: 300_000,
    clicks: 620,
    baseline: 12.5,
    ratio: 49.6,
  },
  'analytics.geo_anomaly': {
    linkId: 'lnk_1',
    slug: 'spring-sale',
    windowStart: 0,
    windowEnd: 3_600_000,
    country: 'BR',
    clicks: 400,
    share: 0.82,
    baselineShare: 0.04,
  },
  'page.published': {
    pageId: 'pg_1',
    handle: 'acme',
    title: 'Acme on the web',
    url: 'https://sho.rt/@acme',
    publishedAt: Date.UTC(2026, 0, 1),
  },
  'page.viewed': {
    pageId: 'pg_1',
    handle: 'acme',
    referrer: 't.co',
    country: 'FR',
    device: 'desktop',
    browser: 'Firefox',
  },
};

describe.each(['A', 'B'] as Variant[])('Variant %s data builders', (variant) => {
  const catalog = eventCatalog(variant);
  for (const type of Object.keys(subjects) as ServiceEventType[]) {
    it(`${type}: ${catalog.has(type) ? 'builds the closed contract object' : 'is not part of the variant, builds nothing'}`, () => {
      const event = serviceEvent(type, {
        workspaceId: 'ws_1',
        occurredAt: Date.now(),
        subject: subjects[type] as never,
      });
      const data = buildEventData(variant, event);
      if (!catalog.has(type)) return expect(data).toBeNull();
      const schema = catalog.dataSchema(type)!;
      const validate = ajv.compile(schema);
      expect(validate(data), JSON.stringify(validate.errors)).toBe(true);
      expect(Object.keys(data!).sort()).toEqual(Object.keys(schema.properties as object).sort());
      // Extra facts in the subject never leak into the data.
      const noisy = buildEventData(variant, {
        ...event,
        subject: { ...event.subject, ip: '203.0.113.9', metadata: { a: 1 } },
      });
      expect(noisy).toEqual(data);
    });
  }

  it('refuses names outside the catalogue and tells retired ones apart', () => {
    expect(
      refusedEventNames(
        variant,
        catalog.events.map((e) => e.name),
      ),
    ).toEqual({ retired: [], unknown: [] });
    const refused = refusedEventNames(variant, ['click.recorded', 'nope']);
    expect(refused.unknown).toContain('nope');
    expect(refused.retired).toEqual(variant === 'A' ? ['click.recorded'] : []);
  });
});

describe('changedLinkFields', () => {
  const before = {
    original_url: 'https://a.example',
    title: 'T',
    slug: 's',
    redirect_type: 'TEMPORARY',
    expires_at: null,
    expired_url: null,
    click_limit: 5,
    start_at: null,
    end_at: null,
    status: 'ACTIVE',
    preview_title: null,
    preview_description: null,
    preview_image: null,
  };
  const none = { password: false, tagIds: false };

  it('names nothing when values are equal, however the engine returns them', () => {
    expect(changedLinkFields(before, { ...before, click_limit: '5' as unknown as number }, none)).toEqual([]);
  });

  it('names changed fields with their PATCH names, in contract order', () => {
    expect(
      changedLinkFields(
        before,
        { ...before, status: 'DISABLED', original_url: 'https://b.example' },
        { password: true, tagIds: true },
      ),
    ).toEqual(['url', 'status', 'password', 'tagIds']);
    expect(changedLinkFields(before, { ...before, expires_at: 1 }, none)).toEqual(['expiresAt', 'neverExpires']);
    expect(changedLinkFields({ ...before, expires_at: 1 }, { ...before, expires_at: 2 }, none)).toEqual(['expiresAt']);
  });
});
