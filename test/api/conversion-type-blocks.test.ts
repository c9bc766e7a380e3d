// Summaries filtered by event type read 32-day blocks by type and link, campaign or QR code for
// their whole blocks and the events for the rest (src/db/repos/conversions.ts tallyByType,
// migration 20261127010000). On every engine: what the migration fills from the events equals
// what insertConversion writes; and over windows of up to 400 days with ends anywhere, the
// filtered tallies equal a count of the events themselves.
import { describe, expect, it } from 'vitest';
import { migrateLatest, openDatabase, type Database } from '../../src/db/knex';
import { migrationSource } from '../../src/db/migrations';
import { insertConversion, tallyConversions, type ConversionRow } from '../../src/db/repos/conversions';
import { DAY_MS, type EventType } from '../../src/domain/conversions';
import { createTestDatabase, testEngines } from '../support/databases';
import { rng } from '../support/recount';

const MIGRATION = '20261127010000_conversion_type_blocks';
const TYPES: EventType[] = ['signup', 'purchase', 'custom'];
const NAMES = ['webinar', 'trial'];

/** Conversions over the last 400 days in two workspaces, with and without link, campaign, QR code and value. */
function conversions(seed: number, count: number, now: number): ConversionRow[] {
  const r = rng(seed);
  const out: ConversionRow[] = [];
  for (let i = 0; i < count; i++) {
    const type = r.pick(TYPES);
    const qr = r.chance(0.15) ? r.pick(['qr_a', 'qr_b']) : null;
    const at = now - Math.floor(r.next() * 400 * DAY_MS);
    const valued = r.chance(0.5);
    out.push({
      id: `cnv_t${i}`, workspace_id: r.chance(0.85) ? 'ws_a' : 'ws_b', event_type: type, custom_name: type === 'custom' ? r.pick(NAMES) : null,
      link_id: qr ? (qr === 'qr_a' ? 'lnk_1' : 'lnk_2') : r.chance(0.7) ? r.pick(['lnk_1', 'lnk_2', 'lnk_3']) : null, campaign_id: r.chance(0.3) ? r.pick(['cmp_1', 'cmp_2']) : null,
      qr_code_id: qr, amount_minor: valued ? r.int(1, 5000) : null, currency: valued ? r.pick(['EUR', 'USD']) : null, metadata: null, occurred_at: at, created_at: now,
    });
  }
  return out;
}

/** The filtered tally counted from the events in memory, in the shape tallyConversions gives. */
function recount(rows: ConversionRow[], ws: string, w: { from: number; to: number }, eventType: EventType, customName?: string) {
  const kept = rows.filter((c) => c.workspace_id === ws && c.occurred_at >= w.from && c.occurred_at < w.to && c.event_type === eventType && (customName === undefined || c.custom_name === customName));
  const by = (key: (c: ConversionRow) => string | null) => {
    const m = new Map<string, number>();
    for (const c of kept) if (key(c)) m.set(key(c)!, (m.get(key(c)!) ?? 0) + 1);
    return Object.fromEntries([...m].sort());
  };
  const value = new Map<string, number>();
  for (const c of kept) if (c.currency) value.set(c.currency, (value.get(c.currency) ?? 0) + c.amount_minor!);
  return {
    total: kept.length, attributed: kept.filter((c) => c.link_id).length, byLink: by((c) => c.link_id), byCampaign: by((c) => c.campaign_id), byQr: by((c) => c.qr_code_id),
    value: Object.fromEntries([...value].sort()),
  };
}

const counts = (m: Map<string, { conversions: number }>) => Object.fromEntries([...m].filter(([, b]) => b.conversions).map(([k, b]) => [k, b.conversions]).sort());

async function withDatabase(engine: 'sqlite' | 'postgres', fn: (db: Database) => Promise<void>) {
  const database = await createTestDatabase(engine);
  const db = openDatabase(database.url);
  try {
    await fn(db);
  } finally {
    await db.knex.destroy();
    await database.drop();
  }
}

const blockRows = async (db: Database, name: string) =>
  ((await db.knex(`conversion_block_type_${name}`).select('*')) as Array<Record<string, unknown>>).map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, String(r[k])]))).sort();

describe.each(testEngines())('conversion blocks by type on %s', (engine) => {
  it('the migration fills from the events exactly what insertConversion writes', async () => {
    const now = Date.now();
    const rows = conversions(7, 600, now);
    await withDatabase(engine, async (written) => {
      await migrateLatest(written);
      await written.knex.transaction(async (trx) => {
        for (const c of rows) await insertConversion(trx, c);
      });
      await withDatabase(engine, async (filled) => {
        await migrateLatest(filled);
        await filled.knex.migrate.down({ migrationSource, name: MIGRATION });
        for (let i = 0; i < rows.length; i += 100) await filled.knex('conversions').insert(rows.slice(i, i + 100));
        await filled.knex.migrate.up({ migrationSource, name: MIGRATION });
        for (const name of ['link', 'campaign', 'qr']) {
          const want = await blockRows(written, name);
          expect(want.length, name).toBeGreaterThan(20);
          expect(await blockRows(filled, name), name).toEqual(want);
        }
      });
    });
  });

  it('a summary filtered by type (and custom name) equals the events over windows of up to 400 days', async () => {
    const now = Date.now();
    const rows = conversions(11, 1500, now);
    await withDatabase(engine, async (db) => {
      await migrateLatest(db);
      await db.knex.transaction(async (trx) => {
        for (const c of rows) await insertConversion(trx, c);
      });
      const r = rng(5);
      const windows = [
        { from: now - 400 * DAY_MS, to: now },
        { from: Math.floor(now / DAY_MS / 32) * 32 * DAY_MS - 64 * DAY_MS, to: Math.floor(now / DAY_MS / 32) * 32 * DAY_MS },
        ...Array.from({ length: 14 }, () => {
          const from = now - Math.floor(r.next() * 400 * DAY_MS);
          return { from, to: Math.min(now, from + Math.floor(r.next() * 400 * DAY_MS)) };
        }),
      ];
      for (const w of windows) {
        for (const [eventType, customName] of [['purchase'], ['custom'], ['custom', 'webinar'], ['signup']] as Array<[EventType, string?]>) {
          const t = await tallyConversions(db.knex, 'ws_a', w, { eventType, customName }, now);
          const label = `${eventType}/${customName} over ${new Date(w.from).toISOString()}..${new Date(w.to).toISOString()}`;
          expect(
            { total: t.total, attributed: t.attributed, byLink: counts(t.byLink), byCampaign: counts(t.byCampaign), byQr: counts(t.byQr), value: Object.fromEntries([...t.value].map(([k, v]) => [k, v.valueMinor]).sort()) },
            label,
          ).toEqual(recount(rows, 'ws_a', w, eventType, customName));
        }
      }
    });
  });
});
