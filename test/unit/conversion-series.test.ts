// The dashboard's Conversions screen without I/O: the days of a window and their entries
// (domain/conversion-series), which daily aggregate holds a filter's conversions
// (db/repos/conversion-series aggregateFor), the screen's view kept in the address and the query
// it sends (web/screens/conversions/view), amounts for the CSV, and the CSV itself.
import { describe, expect, it } from 'vitest';
import { aggregateFor } from '../../src/db/repos/conversion-series';
import { addToDay, daysOf, seriesEntries, type DailyTally } from '../../src/domain/conversion-series';
import { DAY_MS } from '../../src/domain/conversions';
import { decimalAmount } from '../../src/web/lib/conversions';
import { conversionsCsv } from '../../src/web/screens/conversions/conversions-csv';
import { paramsOf, queryOf, viewOf } from '../../src/web/screens/conversions/view';

const HOUR = 3_600_000;
const D = 20_000;
const at = (day: number, hours: number) => day * DAY_MS + hours * HOUR;

describe('the days of a window', () => {
  it('are every UTC day it touches, partial first and last days included', () => {
    expect(daysOf({ from: at(D, 7), to: at(D + 2, 13) })).toEqual([D, D + 1, D + 2]);
    expect(daysOf({ from: at(D, 0), to: at(D + 2, 0) })).toEqual([D, D + 1]);
    expect(daysOf({ from: at(D, 2), to: at(D, 20) })).toEqual([D]);
    expect(daysOf({ from: at(D, 2), to: at(D, 2) })).toEqual([]);
    expect(daysOf({ from: at(D - 399, 0), to: at(D + 1, 0) })).toHaveLength(400);
    expect(daysOf({ from: at(D - 400, 5), to: at(D, 5) })).toHaveLength(401);
  });

  it('each get an entry, days without conversions too; values per currency, never those without one', () => {
    const days: DailyTally = new Map();
    addToDay(days, D + 1, 'EUR', 2, 1_000);
    addToDay(days, D + 1, '', 3, 0);
    addToDay(days, D + 1, 'USD', 1, 250);
    addToDay(days, D + 1, 'EUR', 1, 400, -1);
    expect(seriesEntries(days, { from: at(D, 12), to: at(D + 2, 1) })).toEqual([
      { day: '2024-10-04', conversions: 0, value: [] },
      {
        day: '2024-10-05',
        conversions: 5,
        value: [
          { currency: 'EUR', valueMinor: 600, conversions: 1 },
          { currency: 'USD', valueMinor: 250, conversions: 1 },
        ],
      },
      { day: '2024-10-06', conversions: 0, value: [] },
    ]);
  });
});

describe('the daily aggregate of a filter', () => {
  it('is the per-type one with no filter or a type and custom name, the object one with one id alone, none for a combination', () => {
    expect(aggregateFor({})).toEqual({ table: 'conversion_daily_type', match: {} });
    expect(aggregateFor({ eventType: 'purchase' })).toEqual({
      table: 'conversion_daily_type',
      match: { event_type: 'purchase' },
    });
    expect(aggregateFor({ eventType: 'custom', customName: 'webinar' })).toEqual({
      table: 'conversion_daily_type',
      match: { event_type: 'custom', custom_name: 'webinar' },
    });
    expect(aggregateFor({ linkId: 'lnk_1' })).toEqual({ table: 'conversion_daily_link', match: { link_id: 'lnk_1' } });
    expect(aggregateFor({ campaignId: 'cmp_1' })).toEqual({
      table: 'conversion_daily_campaign',
      match: { campaign_id: 'cmp_1' },
    });
    expect(aggregateFor({ qrCodeId: 'qr_1' })).toEqual({ table: 'conversion_daily_qr', match: { qr_code_id: 'qr_1' } });
    expect(aggregateFor({ linkId: 'lnk_1', eventType: 'purchase' })).toBeNull();
    expect(aggregateFor({ linkId: 'lnk_1', qrCodeId: 'qr_1' })).toBeNull();
    expect(aggregateFor({ campaignId: 'cmp_1', customName: 'webinar', eventType: 'custom' })).toBeNull();
    expect(aggregateFor({ attributedOnly: true })).toBeNull();
  });
});

describe("the Conversions screen's view", () => {
  const today = '2026-11-25';

  it('is the last 30 days by default, whole UTC days ending today', () => {
    const view = viewOf(new URLSearchParams(), today);
    expect(paramsOf(view)).toEqual({});
    expect(queryOf(view)).toEqual({ from: '2026-10-27T00:00:00Z', to: '2026-11-26T00:00:00Z' });
  });

  it('keeps presets, custom days and every filter in the address, and sends them as the API takes them', () => {
    const view = viewOf(
      new URLSearchParams(
        'window=custom&from=2026-01-01&to=2026-01-31&eventType=custom&customName=webinar&linkId=lnk_1&campaignId=cmp_1&qrCodeId=qr_1',
      ),
      today,
    );
    expect(queryOf(view)).toEqual({
      from: '2026-01-01T00:00:00Z',
      to: '2026-02-01T00:00:00Z',
      eventType: 'custom',
      customName: 'webinar',
      linkId: 'lnk_1',
      campaignId: 'cmp_1',
      qrCodeId: 'qr_1',
    });
    expect(viewOf(new URLSearchParams(paramsOf(view)), today)).toEqual(view);
    expect(queryOf(viewOf(new URLSearchParams('window=400'), today))).toEqual({
      from: '2025-10-22T00:00:00Z',
      to: '2026-11-26T00:00:00Z',
    });
    // A custom name implies custom events, as in the API; with another type it is dropped.
    expect(queryOf(viewOf(new URLSearchParams('customName=webinar'), today))).toMatchObject({
      eventType: 'custom',
      customName: 'webinar',
    });
    expect(queryOf(viewOf(new URLSearchParams('eventType=lead&customName=webinar'), today))).not.toHaveProperty(
      'customName',
    );
    // Days that are not dates go as they are: the API's answer names the field.
    expect(queryOf(viewOf(new URLSearchParams('window=custom&from=soon&to=2026-01-31'), today)).from).toBe('soon');
  });
});

describe('the CSV', () => {
  it('writes amounts in major units exactly', () => {
    expect(decimalAmount(127_700, 'EUR')).toBe('1277.00');
    expect(decimalAmount(5, 'EUR')).toBe('0.05');
    expect(decimalAmount(0, 'USD')).toBe('0.00');
    expect(decimalAmount(1_200, 'JPY')).toBe('1200');
    expect(decimalAmount(9_007_199_254_740_991, 'EUR')).toBe('90071992547409.91');
  });

  it('has one row per figure, each currency a column, rates with their reason, and names no spreadsheet formula', () => {
    const rate = { supported: false, conversions: 1, clicks: 0, rate: null, reason: 'no_clicks_in_window' as const };
    const csv = conversionsCsv({
      data: {
        windowFrom: '2026-11-24T00:00:00Z',
        windowTo: '2026-11-26T00:00:00Z',
        total: 3,
        attributedConversions: 1,
        unattributedConversions: 2,
        byEventType: [
          { eventType: 'custom', label: '=cmd', conversions: 2 },
          { eventType: 'lead', label: 'Lead', conversions: 1 },
        ],
        byLink: [
          { id: 'lnk_1', conversions: 1, value: [{ currency: 'EUR', valueMinor: 1_050, conversions: 1 }], rate },
        ],
        byCampaign: [
          { id: 'cmp_1', conversions: 2, value: [] },
          { id: 'cmp_2', conversions: 1, value: [] },
        ],
        byQr: [],
        value: [
          { currency: 'EUR', valueMinor: 1_050, conversions: 1 },
          { currency: 'JPY', valueMinor: 300, conversions: 1 },
        ],
        rate: { supported: true, conversions: 1, clicks: 4, rate: 0.25 },
        unavailable: false,
      },
      series: [
        { day: '2026-11-24', conversions: 1, value: [{ currency: 'JPY', valueMinor: 300, conversions: 1 }] },
        { day: '2026-11-25', conversions: 2, value: [{ currency: 'EUR', valueMinor: 1_050, conversions: 1 }] },
      ],
      names: {
        links: [{ id: 'lnk_1', slug: 'pricing', shortUrl: 'https://sho.rt/pricing', title: null, deleted: false }],
        campaigns: [
          { id: 'cmp_1', name: 'Spring, "sale"' },
          { id: 'cmp_2', name: '@SUM(1)' },
        ],
        qrCodes: [],
      },
    });
    expect(csv.split('\n')).toEqual([
      'section,key,label,conversions,value_EUR,value_JPY,rate_conversions,clicks,rate,rate_undefined_reason',
      'total,all,All conversions,3,10.50,300,1,4,0.25,',
      'total,attributed,Attributed to a link,1,,,,,,',
      'total,unattributed,Unattributed,2,,,,,,',
      'day,2026-11-24,,1,,300,,,,',
      'day,2026-11-25,,2,10.50,,,,,',
      `event_type,custom:=cmd,"'=cmd",2,,,,,,`,
      'event_type,lead,Lead,1,,,,,,',
      'link,lnk_1,https://sho.rt/pricing,1,10.50,,1,0,,no_clicks_in_window',
      'campaign,cmp_1,"Spring, ""sale""",2,,,,,,',
      `campaign,cmp_2,"'@SUM(1)",1,,,,,,`,
      '',
    ]);
  });
});
