// Every way the repositories count conversions against a recount of the events themselves, on
// every engine: the summary (tallyConversions) with each filter of GET /api/v1/conversions and
// every combination the API allows, and each kind of goal (tallyGoal), over windows of up to 400
// days with their ends anywhere: on UTC midnights, on the 32-day blocks' edges, at odd hours, one
// millisecond either side of a conversion, inside one day, empty, and ending in the future.
// Conversions go in through insertConversion, so every aggregate is as the service writes it.
import { describe, expect, it } from 'vitest';
import { migrateLatest } from '../../src/db/knex';
import { insertConversion, type ConversionFilters, type ConversionRow } from '../../src/db/repos/conversions';
import { tallyConversions, tallyGoal, type GoalMatch } from '../../src/db/repos/conversion-tallies';
import {
  breakdownEntries,
  typeEntries,
  valueEntries,
  type EventType,
  type TallyData,
  type Window,
} from '../../src/domain/conversions';
import { testEngines, withFreshDatabase } from '../support/databases';
import { DAY, HOUR, MINUTE, rng } from '../support/recount';

const BLOCK = 32 * DAY;
const TYPES: EventType[] = ['signup', 'lead', 'purchase', 'booking', 'download', 'custom'];
const NAMES = ['webinar', 'trial', 'x'.repeat(40)];
const LINKS = ['lnk_1', 'lnk_2', 'lnk_3', 'lnk_4'];
const QR_LINK: Record<string, string> = { qr_a: 'lnk_1', qr_b: 'lnk_2', qr_c: 'lnk_1' };
const CAMPAIGNS = ['cmp_1', 'cmp_2', 'cmp_3'];

/**
 * Conversions over the last 400 days in two workspaces: every type, custom names, with and
 * without link (a QR code's conversion on its link), campaign and value; some on the edges of
 * days and blocks, and a burst on one day.
 */
function conversions(seed: number, now: number): ConversionRow[] {
  const r = rng(seed);
  const times: number[] = [];
  for (let i = 0; i < 1200; i++) times.push(now - 1 - Math.floor(r.next() * (400 * DAY - 2 * MINUTE)));
  const oldest = now - 400 * DAY + MINUTE;
  for (let b = Math.ceil(oldest / BLOCK) * BLOCK; b < now; b += BLOCK) times.push(b - 1, b, b + 1);
  for (let i = 0; i < 60; i++) {
    const midnight = Math.floor((now - r.int(1, 399) * DAY) / DAY) * DAY;
    times.push(midnight - 1, midnight);
  }
  const burst = Math.floor((now - 45 * DAY) / DAY) * DAY + 9 * HOUR;
  for (let i = 0; i < 150; i++) times.push(burst + i * MINUTE);
  return times
    .filter((t) => t >= oldest && t < now)
    .map((at, i) => {
      const type = r.pick(TYPES);
      const qr = r.chance(0.15) ? r.pick(Object.keys(QR_LINK)) : null;
      const valued = r.chance(0.5);
      return {
        id: `cnv_${seed}_${i}`,
        workspace_id: r.chance(0.85) ? 'ws_a' : 'ws_b',
        event_type: type,
        custom_name: type === 'custom' ? r.pick(NAMES) : null,
        link_id: qr ? QR_LINK[qr] : r.chance(0.7) ? r.pick(LINKS) : null,
        campaign_id: r.chance(0.35) ? r.pick(CAMPAIGNS) : null,
        qr_code_id: qr,
        amount_minor: valued ? r.int(0, 90_000) : null,
        currency: valued ? r.pick(['EUR', 'USD', 'JPY']) : null,
        metadata: null,
        occurred_at: at,
        created_at: now,
      };
    });
}

/** The figures a tally holds, as the API presents them (entries with no conversions left out). */
function figures(t: TallyData) {
  return {
    total: t.total,
    attributed: t.attributed,
    byType: typeEntries(t),
    value: valueEntries(t.value),
    byLink: breakdownEntries(t.byLink),
    byCampaign: breakdownEntries(t.byCampaign),
    byQr: breakdownEntries(t.byQr),
  };
}

/** The same figures counted from the events in memory. */
function recount(rows: ConversionRow[]): ReturnType<typeof figures> {
  const t: TallyData = {
    total: 0,
    attributed: 0,
    byType: new Map(),
    value: new Map(),
    byLink: new Map(),
    byCampaign: new Map(),
    byQr: new Map(),
  };
  const addValue = (m: TallyData['value'], c: ConversionRow) => {
    if (!c.currency) return;
    const v = m.get(c.currency) ?? { valueMinor: 0, conversions: 0 };
    v.valueMinor += c.amount_minor!;
    v.conversions += 1;
    m.set(c.currency, v);
  };
  const addTo = (m: TallyData['byLink'], id: string | null, c: ConversionRow) => {
    if (!id) return;
    const b = m.get(id) ?? { conversions: 0, value: new Map() };
    b.conversions += 1;
    addValue(b.value, c);
    m.set(id, b);
  };
  for (const c of rows) {
    t.total += 1;
    if (c.link_id) t.attributed += 1;
    const key = `${c.event_type}/${c.custom_name ?? ''}`;
    const e = t.byType.get(key) ?? { eventType: c.event_type, customName: c.custom_name, conversions: 0 };
    e.conversions += 1;
    t.byType.set(key, e);
    addValue(t.value, c);
    addTo(t.byLink, c.link_id, c);
    addTo(t.byCampaign, c.campaign_id, c);
    addTo(t.byQr, c.qr_code_id, c);
  }
  return figures(t);
}

function matches(c: ConversionRow, ws: string, w: Window, f: ConversionFilters) {
  if (c.workspace_id !== ws || c.occurred_at < w.from || c.occurred_at >= w.to) return false;
  if (f.eventType !== undefined && c.event_type !== f.eventType) return false;
  if (f.customName !== undefined && c.custom_name !== f.customName) return false;
  if (f.linkId !== undefined && c.link_id !== f.linkId) return false;
  if (f.campaignId !== undefined && c.campaign_id !== f.campaignId) return false;
  if (f.qrCodeId !== undefined && c.qr_code_id !== f.qrCodeId) return false;
  if (f.attributedOnly && !c.link_id) return false;
  return true;
}

/** Windows of up to 400 days with their ends in every kind of place. */
function windows(now: number, rows: ConversionRow[]): Array<[string, Window]> {
  const r = rng(99);
  const today = Math.floor(now / DAY) * DAY;
  const block = Math.floor(now / BLOCK) * BLOCK;
  const some = rows[Math.floor(rows.length / 3)].occurred_at;
  const out: Array<[string, Window]> = [
    ['400 days to now', { from: now - 400 * DAY + MINUTE, to: now }],
    ['400 days to 3 hours ago', { from: now - 3 * HOUR - 400 * DAY, to: now - 3 * HOUR }],
    ['30 days to now', { from: now - 30 * DAY, to: now }],
    ['to an hour from now', { from: now - 10 * DAY, to: now + HOUR }],
    ['UTC midnights', { from: today - 333 * DAY, to: today - 2 * DAY }],
    ['whole blocks', { from: block - 9 * BLOCK, to: block - 2 * BLOCK }],
    ['63 days between blocks', { from: block - 2 * BLOCK + 14 * HOUR, to: block - 7 * HOUR }],
    ['a block less a millisecond either side', { from: block - 3 * BLOCK + 1, to: block - 2 * BLOCK - 1 }],
    ['odd hours, 399 days', { from: now - 399 * DAY - 7 * HOUR - 13 * MINUTE, to: now - 5 * HOUR - 31 * MINUTE }],
    ['inside one day', { from: today - 45 * DAY + 9 * HOUR + 30 * MINUTE, to: today - 45 * DAY + 11 * HOUR }],
    ['from a conversion on', { from: some, to: some + 70 * DAY }],
    ['to a conversion', { from: some - 200 * DAY, to: some }],
    ['empty', { from: some, to: some }],
  ];
  for (let i = 0; i < 8; i++) {
    const from = now - Math.floor(r.next() * 400 * DAY);
    out.push([`random ${i}`, { from, to: Math.min(now, from + Math.floor(r.next() * 400 * DAY)) }]);
  }
  return out;
}

/** Each filter of the summary and every combination the API allows (a type or a custom name, with any of link, campaign and QR code). */
function filterCombinations(): ConversionFilters[] {
  const types: ConversionFilters[] = [
    {},
    { eventType: 'purchase' },
    { eventType: 'custom' },
    { eventType: 'custom', customName: 'webinar' },
  ];
  const out: ConversionFilters[] = [];
  for (const t of types) {
    for (const objects of [
      {},
      { linkId: 'lnk_3' },
      { campaignId: 'cmp_2' },
      { qrCodeId: 'qr_a' },
      { linkId: 'lnk_1', campaignId: 'cmp_1' },
      { linkId: 'lnk_1', qrCodeId: 'qr_c' },
      { linkId: 'lnk_2', qrCodeId: 'qr_a' },
      { campaignId: 'cmp_3', qrCodeId: 'qr_b' },
      { linkId: 'lnk_2', campaignId: 'cmp_1', qrCodeId: 'qr_b' },
      { linkId: 'lnk_unknown' },
    ] as ConversionFilters[])
      out.push({ ...t, ...objects });
  }
  return out;
}

/** Each kind of goal: no scope (a type, a custom event with and without its name), a link, a QR code, a campaign. */
const GOALS: GoalMatch[] = [
  { eventType: 'purchase', customName: null, linkId: null, qrCodeId: null, campaignId: null },
  { eventType: 'custom', customName: null, linkId: null, qrCodeId: null, campaignId: null },
  { eventType: 'custom', customName: 'trial', linkId: null, qrCodeId: null, campaignId: null },
  { eventType: 'signup', customName: null, linkId: 'lnk_1', qrCodeId: null, campaignId: null },
  { eventType: 'custom', customName: 'webinar', linkId: 'lnk_2', qrCodeId: null, campaignId: null },
  { eventType: 'download', customName: null, linkId: null, qrCodeId: 'qr_a', campaignId: null },
  { eventType: 'purchase', customName: null, linkId: null, qrCodeId: null, campaignId: 'cmp_2' },
  { eventType: 'custom', customName: null, linkId: null, qrCodeId: null, campaignId: 'cmp_1' },
];

/** The filters tallyGoal counts a goal by: only a goal with no scope counts unattributed conversions. */
function goalFilters(g: GoalMatch): ConversionFilters {
  const f: ConversionFilters = { eventType: g.eventType };
  if (g.customName !== null) f.customName = g.customName;
  if (g.linkId) f.linkId = g.linkId;
  if (g.qrCodeId) f.qrCodeId = g.qrCodeId;
  if (g.campaignId) f.campaignId = g.campaignId;
  if (g.linkId || g.qrCodeId || g.campaignId) f.attributedOnly = true;
  return f;
}

describe.each(testEngines())('conversion tallies against a recount of the events on %s', (engine) => {
  it('every filter and combination of the summary, and every kind of goal, over windows of up to 400 days', async () => {
    const now = Date.now();
    const rows = conversions(23, now);
    await withFreshDatabase(engine, async (db) => {
      await migrateLatest(db);
      await db.knex.transaction(async (trx) => {
        for (const c of rows) await insertConversion(trx, c);
      });
      const wins = windows(now, rows);
      let nonEmpty = 0;
      for (const [label, w] of wins) {
        for (const f of filterCombinations()) {
          const want = recount(rows.filter((c) => matches(c, 'ws_a', w, f)));
          if (want.total) nonEmpty++;
          expect(
            figures(await tallyConversions(db.knex, 'ws_a', w, f, now)),
            `summary ${JSON.stringify(f)} over ${label}`,
          ).toEqual(want);
        }
        for (const g of GOALS) {
          // A report shows a goal's count, attributed count and value, no breakdowns.
          const { total, attributed, value } = recount(rows.filter((c) => matches(c, 'ws_a', w, goalFilters(g))));
          const got = figures(await tallyGoal(db.knex, 'ws_a', w, g, now));
          expect(
            { total: got.total, attributed: got.attributed, value: got.value },
            `goal ${JSON.stringify(g)} over ${label}`,
          ).toEqual({ total, attributed, value });
        }
      }
      // Enough matches to prove something: more than half the cases count some conversions (an
      // unknown link, a QR code named with another link and the empty window count none).
      expect(nonEmpty).toBeGreaterThan(wins.length * filterCombinations().length * 0.5);
    });
  }, 240_000);
});
