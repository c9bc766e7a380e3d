// Summaries read 32-day blocks, by type and link, campaign or QR code among them, for their whole
// blocks and the events for the rest (src/db/repos/conversion-tallies.ts, migrations 20261127010000 and
// 20261202000000). On every engine: what the migrations fill from the events equals what
// insertConversion writes, and retention keeps it so (every block counts exactly the kept events);
// and over windows of up to 400 days with ends anywhere, near the retention edge too, the tallies
// filtered by type equal a count of the events themselves.
import { describe, expect, it } from 'vitest';
import { migrateLatest, type Database } from '../../src/db/knex';
import { migrationSource } from '../../src/db/migrations';
import { insertConversion, type ConversionRow } from '../../src/db/repos/conversions';
import { tallyConversions } from '../../src/db/repos/conversion-tallies';
import { runRetention } from '../../src/db/repos/retention';
import { DAY_MS, type EventType } from '../../src/domain/conversions';
import { testEngines, withFreshDatabase } from '../support/databases';
import { rng } from '../support/recount';

// The blocks by type, and the one that rebuilds every block from the kept events (rolled back first).
const MIGRATIONS = ['20261202000000_conversion_block_reads', '20261127010000_conversion_type_blocks'];
const BLOCK_TABLES = ['type', 'link', 'campaign', 'qr', 'type_link', 'type_campaign', 'type_qr'].map(
  (t) => `conversion_block_${t}`,
);
const TYPES: EventType[] = ['signup', 'purchase', 'custom'];
const NAMES = ['webinar', 'trial'];

/** Conversions over the last `days` days in two workspaces, with and without link, campaign, QR code and value. */
function conversions(seed: number, count: number, now: number, days = 400): ConversionRow[] {
  const r = rng(seed);
  const out: ConversionRow[] = [];
  for (let i = 0; i < count; i++) {
    const type = r.pick(TYPES);
    const qr = r.chance(0.15) ? r.pick(['qr_a', 'qr_b']) : null;
    const at = now - Math.floor(r.next() * days * DAY_MS);
    const valued = r.chance(0.5);
    out.push({
      id: `cnv_t${i}`,
      workspace_id: r.chance(0.85) ? 'ws_a' : 'ws_b',
      event_type: type,
      custom_name: type === 'custom' ? r.pick(NAMES) : null,
      link_id: qr ? (qr === 'qr_a' ? 'lnk_1' : 'lnk_2') : r.chance(0.7) ? r.pick(['lnk_1', 'lnk_2', 'lnk_3']) : null,
      campaign_id: r.chance(0.3) ? r.pick(['cmp_1', 'cmp_2']) : null,
      qr_code_id: qr,
      amount_minor: valued ? r.int(1, 5000) : null,
      currency: valued ? r.pick(['EUR', 'USD']) : null,
      metadata: null,
      occurred_at: at,
      created_at: now,
    });
  }
  return out;
}

/** The tally (filtered by type) counted from the events in memory, in the shape tallyConversions gives. */
function recount(
  rows: ConversionRow[],
  ws: string,
  w: { from: number; to: number },
  eventType?: EventType,
  customName?: string,
) {
  const kept = rows.filter(
    (c) =>
      c.workspace_id === ws &&
      c.occurred_at >= w.from &&
      c.occurred_at < w.to &&
      (eventType === undefined || c.event_type === eventType) &&
      (customName === undefined || c.custom_name === customName),
  );
  const by = (key: (c: ConversionRow) => string | null) => {
    const m = new Map<string, number>();
    for (const c of kept) if (key(c)) m.set(key(c)!, (m.get(key(c)!) ?? 0) + 1);
    return Object.fromEntries([...m].sort());
  };
  const value = new Map<string, number>();
  for (const c of kept) if (c.currency) value.set(c.currency, (value.get(c.currency) ?? 0) + c.amount_minor!);
  return {
    total: kept.length,
    attributed: kept.filter((c) => c.link_id).length,
    byLink: by((c) => c.link_id),
    byCampaign: by((c) => c.campaign_id),
    byQr: by((c) => c.qr_code_id),
    value: Object.fromEntries([...value].sort()),
  };
}

const counts = (m: Map<string, { conversions: number }>) =>
  Object.fromEntries(
    [...m]
      .filter(([, b]) => b.conversions)
      .map(([k, b]) => [k, b.conversions])
      .sort(),
  );

/** A block table's rows that count something (retention leaves a block it emptied until the block's days are all past). */
const blockRows = async (db: Database, table: string) =>
  ((await db.knex(table).where('conversions', '<>', 0).select('*')) as Array<Record<string, unknown>>)
    .map((r) =>
      JSON.stringify(
        Object.keys(r)
          .sort()
          .map((k) => [k, String(r[k])]),
      ),
    )
    .sort();

const figures = (t: Awaited<ReturnType<typeof tallyConversions>>) => ({
  total: t.total,
  attributed: t.attributed,
  byLink: counts(t.byLink),
  byCampaign: counts(t.byCampaign),
  byQr: counts(t.byQr),
  value: Object.fromEntries(
    [...t.value]
      .filter(([, v]) => v.conversions)
      .map(([k, v]) => [k, v.valueMinor])
      .sort(),
  ),
});

describe.each(testEngines())('conversion blocks by type on %s', (engine) => {
  it('the migrations fill from the events exactly what insertConversion writes, and retention keeps it so', async () => {
    // A clock whose retention edge falls 29 days into a block: retention deletes part of a block.
    const now = (651 * 32 + 13) * DAY_MS + 5 * 3_600_000;
    // Some older than the 400 days kept: retention deletes them, and takes them out of their blocks.
    const rows = conversions(7, 900, now, 440);
    const kept = rows.filter((c) => c.occurred_at >= now - 400 * DAY_MS);
    await withFreshDatabase(engine, async (written) => {
      await migrateLatest(written);
      await written.knex.transaction(async (trx) => {
        for (const c of rows) await insertConversion(trx, c);
      });
      expect((await runRetention(written.knex, now)).conversionsDeleted).toBe(rows.length - kept.length);
      await withFreshDatabase(engine, async (filled) => {
        await migrateLatest(filled);
        for (const name of MIGRATIONS) await filled.knex.migrate.down({ migrationSource, name });
        for (let i = 0; i < kept.length; i += 100) await filled.knex('conversions').insert(kept.slice(i, i + 100));
        await migrateLatest(filled);
        for (const table of BLOCK_TABLES) {
          const want = await blockRows(written, table);
          expect(want.length, table).toBeGreaterThan(20);
          expect(await blockRows(filled, table), table).toEqual(want);
        }
        // Custom events counted again under every name together.
        expect(
          await filled.knex('conversion_block_type_link').where({ event_type: 'custom', custom_name: '' }).first(),
        ).toBeTruthy();
      });
      // Windows from the retention edge on, read from blocks less the kept events outside them.
      for (const w of [
        { from: now - 400 * DAY_MS, to: now },
        { from: now - 400 * DAY_MS + 3_600_000, to: now - 7 * DAY_MS },
        { from: now - 399 * DAY_MS - 5 * 3_600_000, to: now - 380 * DAY_MS },
      ]) {
        for (const [eventType, customName] of [[undefined], ['purchase'], ['custom'], ['custom', 'webinar']] as Array<
          [EventType?, string?]
        >) {
          const label = `${eventType}/${customName} over ${new Date(w.from).toISOString()}..${new Date(w.to).toISOString()}`;
          expect(
            figures(await tallyConversions(written.knex, 'ws_a', w, { eventType, customName }, now)),
            label,
          ).toEqual(recount(kept, 'ws_a', w, eventType, customName));
        }
      }
    });
  });

  it('a summary filtered by type (and custom name) equals the events over windows of up to 400 days', async () => {
    const now = Date.now();
    const rows = conversions(11, 1500, now);
    await withFreshDatabase(engine, async (db) => {
      await migrateLatest(db);
      await db.knex.transaction(async (trx) => {
        for (const c of rows) await insertConversion(trx, c);
      });
      const r = rng(5);
      const windows = [
        { from: now - 400 * DAY_MS, to: now },
        {
          from: Math.floor(now / DAY_MS / 32) * 32 * DAY_MS - 64 * DAY_MS,
          to: Math.floor(now / DAY_MS / 32) * 32 * DAY_MS,
        },
        ...Array.from({ length: 14 }, () => {
          const from = now - Math.floor(r.next() * 400 * DAY_MS);
          return { from, to: Math.min(now, from + Math.floor(r.next() * 400 * DAY_MS)) };
        }),
      ];
      for (const w of windows) {
        for (const [eventType, customName] of [['purchase'], ['custom'], ['custom', 'webinar'], ['signup']] as Array<
          [EventType, string?]
        >) {
          const t = await tallyConversions(db.knex, 'ws_a', w, { eventType, customName }, now);
          const label = `${eventType}/${customName} over ${new Date(w.from).toISOString()}..${new Date(w.to).toISOString()}`;
          expect(figures(t), label).toEqual(recount(rows, 'ws_a', w, eventType, customName));
        }
      }
    });
  });
});
