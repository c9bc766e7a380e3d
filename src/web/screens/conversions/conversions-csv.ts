// The Conversions screen as CSV, made in the browser from the answer on screen: one row per
// figure, each saying which part of the screen it is (`section`): the totals, every day of the
// series, and every row of the breakdowns (all of them, also those a long table folds away).
// Values are in major units of their currency, one column per currency of the window; a rate
// is a ratio, empty when undefined, with the contract's reason beside it. Names typed by someone
// (a custom event's label, a campaign's name) are kept as text by the one CSV writer.
import type { DashboardConversions, Rate, ValueEntry } from '../../api/types.ts';
import { decimalAmount, typeLabel } from '../../lib/conversions.ts';
import { csvRecords, type CsvCell } from '../../lib/csv.ts';
import { campaignName, linkName, qrName } from './names.ts';

export function conversionsCsv(answer: DashboardConversions): string {
  const { data, series, names } = answer;
  const currencies = [
    ...new Set([...data.value.map((v) => v.currency), ...series.flatMap((d) => d.value.map((v) => v.currency))]),
  ].sort();
  const header = [
    'section',
    'key',
    'label',
    'conversions',
    ...currencies.map((c) => `value_${c}`),
    'rate_conversions',
    'clicks',
    'rate',
    'rate_undefined_reason',
  ];
  const rows: CsvCell[][] = [];
  const values = (value: ValueEntry[]) =>
    currencies.map((c) => {
      const v = value.find((x) => x.currency === c);
      return v ? decimalAmount(v.valueMinor, c) : '';
    });
  const rate = (r: Rate | undefined) =>
    r
      ? [r.conversions, r.clicks, r.supported && r.rate !== null ? String(r.rate) : '', r.reason ?? '']
      : ['', '', '', ''];
  const row = (section: string, key: string, label: string, conversions: number, value: ValueEntry[] = [], r?: Rate) =>
    rows.push([section, key, label, conversions, ...values(value), ...rate(r)]);

  row('total', 'all', 'All conversions', data.total, data.value, data.rate);
  row('total', 'attributed', 'Attributed to a link', data.attributedConversions);
  row('total', 'unattributed', 'Unattributed', data.unattributedConversions);
  for (const d of series) row('day', d.day, '', d.conversions, d.value);
  for (const t of data.byEventType)
    row(
      'event_type',
      t.eventType === 'custom' ? `custom:${t.label}` : t.eventType,
      t.eventType === 'custom' ? t.label : typeLabel(t.eventType),
      t.conversions,
    );
  for (const l of data.byLink) row('link', l.id, linkName(names, l.id).text, l.conversions, l.value, l.rate);
  for (const c of data.byCampaign) row('campaign', c.id, campaignName(names, c.id), c.conversions, c.value);
  for (const q of data.byQr) row('qr_code', q.id, qrName(names, q.id).text, q.conversions, q.value, q.rate);
  return csvRecords([header, ...rows]);
}
