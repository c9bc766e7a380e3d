// Conversions as they are written: the event with its value total and every aggregate that
// counts it (days and 32-day blocks), taken out of the blocks again when retention deletes it,
// and the idempotency keys of POST /api/v1/conversions. How a window is counted from those
// aggregates is in conversion-tallies.ts.
import type { Knex } from 'knex';
import { BLOCK_DAYS, DAY_MS, MAX_VALUE_TOTAL_MINOR, type EventType } from '../../domain/conversions.ts';
import { conflict, invalid } from '../../domain/errors.ts';
import { isUniqueViolation } from '../knex.ts';
import { enqueueEvents, type EmitEvents } from './outbox.ts';

export interface ConversionRow {
  id: string;
  workspace_id: string;
  event_type: EventType;
  custom_name: string | null;
  link_id: string | null;
  /** The rule or variant that served the conversion's click (its clickId); else null. */
  route?: string | null;
  campaign_id: string | null;
  qr_code_id: string | null;
  amount_minor: number | null;
  currency: string | null;
  metadata: string | null;
  occurred_at: number;
  created_at: number;
}

export interface ConversionFilters {
  /** Only conversions that name a link (a scoped goal never counts unattributed ones). */
  attributedOnly?: boolean;
  eventType?: EventType;
  customName?: string;
  linkId?: string;
  campaignId?: string;
  qrCodeId?: string;
}

/**
 * Adds a value to the workspace's kept total in its currency, unless that would take the total
 * above MAX_VALUE_TOTAL_MINOR (then a 400 naming value.amountMinor). One statement, so two conversions
 * racing for the last room cannot both get it: the row is locked (Postgres) or the write lock
 * held (SQLite) while the condition is checked.
 */
async function addToValueTotal(trx: Knex, workspaceId: string, currency: string, amountMinor: number): Promise<void> {
  const result = await trx.raw(
    `INSERT INTO conversion_value_totals (workspace_id, currency, value_minor) VALUES (?, ?, ?)
     ON CONFLICT (workspace_id, currency) DO UPDATE SET value_minor = conversion_value_totals.value_minor + excluded.value_minor
     WHERE conversion_value_totals.value_minor <= ${MAX_VALUE_TOTAL_MINOR} - excluded.value_minor
     RETURNING value_minor`,
    [workspaceId, currency, amountMinor],
  );
  const rows = Array.isArray(result) ? result : result.rows;
  if (!rows.length) {
    throw invalid(
      `value.amountMinor would take this workspace's ${currency} total over its kept conversions above ${MAX_VALUE_TOTAL_MINOR} minor units, the most a total can be and stay exact`,
      'value.amountMinor',
    );
  }
}

/** Inserts the event and adds it to its value total and every aggregate (days and blocks), in the caller's transaction. */
export async function insertConversion(trx: Knex, row: ConversionRow): Promise<void> {
  if (row.currency) await addToValueTotal(trx, row.workspace_id, row.currency, Number(row.amount_minor ?? 0));
  await trx('conversions').insert(row);
  const day = Math.floor(row.occurred_at / DAY_MS);
  const currency = row.currency ?? '';
  const value = row.amount_minor ?? 0;
  const upsert = (table: string, keys: Record<string, unknown>) =>
    trx(table)
      .insert({ ...keys, conversions: 1, value_minor: value })
      .onConflict(Object.keys(keys))
      .merge({
        conversions: trx.raw(`${table}.conversions + excluded.conversions`),
        value_minor: trx.raw(`${table}.value_minor + excluded.value_minor`),
      });
  const block = Math.floor(day / BLOCK_DAYS);
  const keys = {
    type: { event_type: row.event_type, custom_name: row.custom_name ?? '', currency, attributed: row.link_id ? 1 : 0 },
    link: row.link_id ? { link_id: row.link_id, currency } : null,
    campaign: row.campaign_id ? { campaign_id: row.campaign_id, currency } : null,
    qr: row.qr_code_id ? { qr_code_id: row.qr_code_id, currency } : null,
  };
  for (const [name, k] of Object.entries(keys)) {
    if (!k) continue;
    await upsert(`conversion_daily_${name}`, { workspace_id: row.workspace_id, day, ...k });
    await upsert(`conversion_block_${name}`, { workspace_id: row.workspace_id, block, ...k });
    if (name === 'type') continue;
    // The same by event type, for summaries filtered by it (blocks only), and a custom event's
    // again under every name together ('') for a summary filtered by eventType=custom alone.
    const byType = {
      workspace_id: row.workspace_id,
      event_type: row.event_type,
      custom_name: row.custom_name ?? '',
      block,
      ...k,
    };
    await upsert(`conversion_block_type_${name}`, byType);
    if (row.event_type === 'custom' && row.custom_name)
      await upsert(`conversion_block_type_${name}`, { ...byType, custom_name: '' });
  }
}

/**
 * Takes events about to be deleted (retention) out of every block that counts them, in the
 * caller's transaction, so a block keeps counting exactly the kept events of its days: a window
 * may then read a block less the raw events outside it, whatever retention deleted.
 */
export async function takeFromBlocks(trx: Knex, ids: string[]): Promise<void> {
  if (!ids.length) return;
  const marks = ids.map(() => '?').join(', ');
  const BLOCK = `(occurred_at / ${DAY_MS}) / ${BLOCK_DAYS}`;
  const events = (keys: string, where = '') =>
    `SELECT workspace_id, ${BLOCK} AS block, ${keys}, coalesce(amount_minor, 0) AS amount FROM conversions WHERE id IN (${marks})${where}`;
  const tables: Array<[string, string[], string, number]> = [
    [
      'conversion_block_type',
      ['event_type', 'custom_name', 'currency', 'attributed'],
      events(
        `event_type, coalesce(custom_name, '') AS custom_name, coalesce(currency, '') AS currency, CASE WHEN link_id IS NULL THEN 0 ELSE 1 END AS attributed`,
      ),
      1,
    ],
  ];
  for (const [name, column] of [
    ['link', 'link_id'],
    ['campaign', 'campaign_id'],
    ['qr', 'qr_code_id'],
  ]) {
    const notNull = ` AND ${column} IS NOT NULL`;
    tables.push([
      `conversion_block_${name}`,
      [column, 'currency'],
      events(`${column}, coalesce(currency, '') AS currency`, notNull),
      1,
    ]);
    // By type, with a custom event's rows under every name together ('') as insertConversion writes them.
    const byType = (customName: string, where: string) =>
      events(`event_type, ${customName} AS custom_name, ${column}, coalesce(currency, '') AS currency`, where);
    tables.push([
      `conversion_block_type_${name}`,
      ['event_type', 'custom_name', column, 'currency'],
      `${byType(`coalesce(custom_name, '')`, notNull)} UNION ALL ${byType(`''`, `${notNull} AND event_type = 'custom' AND custom_name <> ''`)}`,
      2,
    ]);
  }
  for (const [table, keys, source, uses] of tables) {
    const all = ['workspace_id', 'block', ...keys];
    await trx.raw(
      `UPDATE ${table} SET conversions = ${table}.conversions - d.c, value_minor = ${table}.value_minor - d.v
       FROM (SELECT ${all.join(', ')}, COUNT(*) AS c, SUM(amount) AS v FROM (${source}) AS e GROUP BY ${all.join(', ')}) AS d
       WHERE ${all.map((k) => `${table}.${k} = d.${k}`).join(' AND ')}`,
      Array.from({ length: uses }, () => ids).flat(),
    );
  }
}

/**
 * Records a conversion: the event, its value total and aggregates, what `emit` raises
 * (conversion.created) and, with an Idempotency-Key, the answer to replay, all in one
 * transaction, so once the 201 is sent nothing of it can be lost. Returns null, or the first
 * answer (JSON) when the key was used before with the same body within its time to live; the
 * same key with another body is a conflict.
 */
export async function recordConversion(
  knex: Knex,
  row: ConversionRow,
  opts: { idempotency?: { key: string; requestHash: string; response: string; ttlMs: number }; emit: EmitEvents },
): Promise<string | null> {
  const idem = opts.idempotency;
  try {
    await knex.transaction(async (trx) => {
      if (idem) {
        await trx('idempotency_keys')
          .where({ workspace_id: row.workspace_id, key: idem.key })
          .where('created_at', '<', row.created_at - idem.ttlMs)
          .delete();
        await trx('idempotency_keys').insert({
          workspace_id: row.workspace_id,
          key: idem.key,
          request_hash: idem.requestHash,
          status_code: 201,
          response: idem.response,
          created_at: row.created_at,
        });
      }
      await insertConversion(trx, row);
      await enqueueEvents(trx, await opts.emit(trx));
    });
    return null;
  } catch (err) {
    if (!idem || !isUniqueViolation(err)) throw err;
    const first = await findIdempotencyKey(knex, row.workspace_id, idem.key);
    if (!first || first.request_hash !== idem.requestHash)
      throw conflict('This Idempotency-Key was already used with a different request body');
    if (!first.response) throw conflict('A request with this Idempotency-Key is still being processed');
    return first.response;
  }
}

export async function findIdempotencyKey(knex: Knex, workspaceId: string, key: string) {
  return knex('idempotency_keys').where({ workspace_id: workspaceId, key }).first() as Promise<
    { request_hash: string; status_code: number | null; response: string | null; created_at: number } | undefined
  >;
}
