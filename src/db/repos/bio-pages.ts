// Bio pages (src/domain/bio-pages.ts) and what their visitors did. A change that alters what
// /@{handle} shows (publishing, unpublishing, a new handle, disabling, deleting) writes a 'page'
// entry to the change feed in its transaction, so every process drops its cached page (the
// redirect path, src/redirect/lookup-tiers.ts) and the next view shows the change. A handle is unique
// among live pages (index bio_pages_live_handle): two requests racing for one cannot both win.
import type { Knex } from 'knex';
import { AppError } from '../../domain/errors.ts';
import type { PageStatus } from '../../domain/bio-pages.ts';
import { isUniqueViolation } from '../knex.ts';
import { upsertColumns } from '../pg-arrays.ts';
import { copyField, copyRows } from '../pg-copy.ts';
import { insertRows, preparedOn, type Statement } from '../sqlite-statements.ts';
import { recordLinkChange } from './link-changes.ts';
import { enqueueEvents, type EmitEvents } from './outbox.ts';
import {
  placeholders,
  putVisitDetails,
  VISIT_COLUMNS,
  VISIT_WIDTH,
  visitCopyFields,
  type VisitDetails,
} from './visit-columns.ts';

export interface PageRow {
  id: string;
  workspace_id: string;
  handle: string;
  status: PageStatus;
  draft: string;
  published: string | null;
  published_at: number | null;
  created_by: string;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export type PagePatch = Partial<
  Pick<PageRow, 'handle' | 'status' | 'draft' | 'published' | 'published_at' | 'updated_at'>
>;

export const handleTaken = (handle: string) =>
  new AppError('conflict', `The handle '${handle}' is already taken by another page`, { field: 'handle' });

const live = (knex: Knex) => knex<PageRow>('bio_pages').whereNull('deleted_at');

/** Numbers as numbers (Postgres returns bigint columns as strings). */
function toRow(r: PageRow | undefined): PageRow | undefined {
  if (!r) return r;
  return {
    ...r,
    published_at: r.published_at === null ? null : Number(r.published_at),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
    deleted_at: r.deleted_at === null ? null : Number(r.deleted_at),
  };
}

/** The workspace's live pages, newest first. */
export async function listPages(knex: Knex, workspaceId: string): Promise<PageRow[]> {
  const rows = await live(knex)
    .where({ workspace_id: workspaceId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
  return rows.map((r) => toRow(r as PageRow)!);
}

/** A live page of the workspace (another workspace's answers like a missing one). */
export async function getPage(knex: Knex, workspaceId: string, id: string): Promise<PageRow | undefined> {
  return toRow((await live(knex).where({ workspace_id: workspaceId, id }).first()) as PageRow | undefined);
}

/** A live page by id alone (the operator's commands). */
export async function findPage(knex: Knex, id: string): Promise<PageRow | undefined> {
  return toRow((await live(knex).where({ id }).first()) as PageRow | undefined);
}

export async function handleInUse(knex: Knex, handle: string, exceptId?: string): Promise<boolean> {
  const q = live(knex).where({ handle });
  if (exceptId) q.whereNot({ id: exceptId });
  return !!(await q.first('id'));
}

async function guarded<T>(handle: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err) && /handle|bio_pages/i.test(String((err as Error).message))) throw handleTaken(handle);
    throw err;
  }
}

export async function insertPage(knex: Knex, row: PageRow): Promise<void> {
  await guarded(row.handle, () => knex('bio_pages').insert(row));
}

/**
 * Changes a page. When the change can alter what visitors see at its address (its handle, its
 * status, its published content), the old and the new handle are written to the change feed in
 * the same transaction; `emit` names the events the change raises (page.published), written to
 * the outbox in that transaction too. False when the page is gone.
 */
export async function updatePage(
  knex: Knex,
  current: PageRow,
  patch: PagePatch,
  emit?: EmitEvents<[PageRow]>,
): Promise<boolean> {
  const visible = patch.handle !== undefined || patch.status !== undefined || patch.published !== undefined;
  return guarded(patch.handle ?? current.handle, () =>
    knex.transaction(async (trx) => {
      const n = await trx('bio_pages').where({ id: current.id }).whereNull('deleted_at').update(patch);
      if (!n) return false;
      if (visible) {
        await recordLinkChange(trx, 'page', '', current.handle);
        if (patch.handle && patch.handle !== current.handle) await recordLinkChange(trx, 'page', '', patch.handle);
      }
      if (emit) await enqueueEvents(trx, await emit(trx, { ...current, ...patch } as PageRow));
      return true;
    }),
  );
}

/** Soft delete: the address answers 404 from the next view; its views and clicks are kept. */
export async function deletePage(knex: Knex, current: PageRow, now: number): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const n = await trx('bio_pages')
      .where({ id: current.id })
      .whereNull('deleted_at')
      .update({ deleted_at: now, updated_at: now });
    if (n) await recordLinkChange(trx, 'page', '', current.handle);
    return n > 0;
  });
}

/** Of `ids`, those that are live links of the workspace. */
export async function liveLinkIds(knex: Knex, workspaceId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await knex('links')
    .where({ workspace_id: workspaceId })
    .whereNull('deleted_at')
    .whereIn('id', [...new Set(ids)])
    .select('id');
  return new Set(rows.map((r: { id: string }) => r.id));
}

/** The short addresses of some links: the slug and the custom domain's host (null: the short domain). */
export async function linkAddresses(
  knex: Knex,
  workspaceId: string,
  ids: string[],
): Promise<Map<string, { slug: string; host: string | null; url: string }>> {
  if (!ids.length) return new Map();
  const rows = await knex('links as l')
    .leftJoin('domains as d', 'd.id', 'l.domain_id')
    .where('l.workspace_id', workspaceId)
    .whereNull('l.deleted_at')
    .whereIn('l.id', [...new Set(ids)])
    .select('l.id', 'l.slug', 'l.original_url', 'd.host');
  return new Map(
    rows.map((r: { id: string; slug: string; original_url: string; host: string | null }) => [
      r.id,
      { slug: r.slug, host: r.host, url: r.original_url },
    ]),
  );
}

// ---------------------------------------------------------------------------------------------
// What visitors did (written by the click writer, read by the page's analytics)

/** A view of a page, or a click of one of its link blocks, as the click writer stores it. */
export interface PageVisitRow extends VisitDetails {
  workspace_id: string;
  page_id: string;
  /** The link block followed; null for a view of the page. */
  block_id: string | null;
}

const DAY_MS = 86_400_000;
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const VIEW_INSERT = `INSERT INTO page_views (workspace_id, page_id, ${VISIT_COLUMNS}) VALUES `;
/** Views per INSERT statement on SQLite, as clicks are written (click-batches.ts). */
const SQLITE_ROWS = 64;
const SQLITE_SQL = {
  view: VIEW_INSERT + placeholders(2 + VISIT_WIDTH),
  views:
    VIEW_INSERT +
    Array(SQLITE_ROWS)
      .fill(placeholders(2 + VISIT_WIDTH))
      .join(', '),
  daily: `INSERT INTO page_daily_views (page_id, workspace_id, day, views) VALUES (?, ?, ?, ?)
          ON CONFLICT (page_id, day) DO UPDATE SET views = views + excluded.views`,
  blocks: `INSERT INTO page_block_daily_clicks (page_id, block_id, workspace_id, day, clicks) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (page_id, block_id, day) DO UPDATE SET clicks = clicks + excluded.clicks`,
};
const prepared = new WeakMap<object, Record<keyof typeof SQLITE_SQL, Statement>>();
const PG_CHUNK = 5_000;

/** Raw views go to Postgres by COPY, as the raw clicks do (src/db/pg-copy.ts says why). */
const PG_VIEW_COPY = `COPY page_views (workspace_id, page_id, ${VISIT_COLUMNS}) FROM STDIN`;

/**
 * Raw views, views per page and day, clicks per block and day, in the caller's transaction (the
 * click flush's). Written as the clicks are, without the query builder (a view is as frequent as
 * a click: the bio page scenario of bench/redirect.ts). Counts are upserted in key order, so
 * concurrent flushes of several processes cannot deadlock on Postgres.
 */
export async function writePageVisits(
  trx: Knex.Transaction,
  engine: 'sqlite' | 'postgres',
  rows: PageVisitRow[],
): Promise<void> {
  if (!rows.length) return;
  const views = rows.filter((r) => r.block_id === null);
  const daily = new Map<string, { page_id: string; workspace_id: string; day: number; views: number }>();
  const blocks = new Map<
    string,
    { page_id: string; block_id: string; workspace_id: string; day: number; clicks: number }
  >();
  for (const r of rows) {
    const day = Math.floor(r.occurred_at / DAY_MS);
    if (r.block_id === null) {
      const k = `${r.page_id} ${day}`;
      const d =
        daily.get(k) ?? daily.set(k, { page_id: r.page_id, workspace_id: r.workspace_id, day, views: 0 }).get(k)!;
      d.views++;
    } else {
      const k = `${r.page_id} ${r.block_id} ${day}`;
      const b =
        blocks.get(k) ??
        blocks
          .set(k, { page_id: r.page_id, block_id: r.block_id, workspace_id: r.workspace_id, day, clicks: 0 })
          .get(k)!;
      b.clicks++;
    }
  }
  const dailyRows = [...daily.values()].sort((a, b) => byKey(a.page_id, b.page_id) || a.day - b.day);
  const blockRows = [...blocks.values()].sort(
    (a, b) => byKey(a.page_id, b.page_id) || byKey(a.block_id, b.block_id) || a.day - b.day,
  );
  if (engine === 'sqlite') {
    const st = await preparedOn(trx, prepared, SQLITE_SQL);
    insertRows(views, SQLITE_ROWS, 2 + VISIT_WIDTH, st.views, st.view, (r, values, v) => {
      values[v] = r.workspace_id;
      values[v + 1] = r.page_id;
      putVisitDetails(r, values, v + 2);
    });
    for (const d of dailyRows) st.daily.run(d.page_id, d.workspace_id, d.day, d.views);
    for (const b of blockRows) st.blocks.run(b.page_id, b.block_id, b.workspace_id, b.day, b.clicks);
    return;
  }
  await copyRows(
    trx,
    PG_VIEW_COPY,
    views,
    (r) => `${copyField(r.workspace_id)}\t${copyField(r.page_id)}\t${visitCopyFields(r)}`,
    PG_CHUNK,
  );
  await upsertColumns(
    trx,
    `INSERT INTO page_daily_views (page_id, workspace_id, day, views)
       SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::bigint[])
       ON CONFLICT (page_id, day) DO UPDATE SET views = page_daily_views.views + excluded.views`,
    dailyRows,
    [(d) => d.page_id, (d) => d.workspace_id, (d) => d.day, (d) => d.views],
    PG_CHUNK,
  );
  await upsertColumns(
    trx,
    `INSERT INTO page_block_daily_clicks (page_id, block_id, workspace_id, day, clicks)
       SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::bigint[])
       ON CONFLICT (page_id, block_id, day) DO UPDATE SET clicks = page_block_daily_clicks.clicks + excluded.clicks`,
    blockRows,
    [(b) => b.page_id, (b) => b.block_id, (b) => b.workspace_id, (b) => b.day, (b) => b.clicks],
    PG_CHUNK,
  );
}

/** Views per day of [fromDay, toDay]. */
export async function pageDailyViews(
  knex: Knex,
  pageId: string,
  fromDay: number,
  toDay: number,
): Promise<Map<number, number>> {
  const rows = await knex('page_daily_views')
    .where({ page_id: pageId })
    .whereBetween('day', [fromDay, toDay])
    .select('day', 'views');
  return new Map(rows.map((r: { day: number; views: number | string }) => [Number(r.day), Number(r.views)]));
}

/** Clicks on the page's link blocks per day of [fromDay, toDay]. */
export async function pageDailyBlockClicks(
  knex: Knex,
  pageId: string,
  fromDay: number,
  toDay: number,
): Promise<Map<number, number>> {
  const rows = await knex('page_block_daily_clicks')
    .where({ page_id: pageId })
    .whereBetween('day', [fromDay, toDay])
    .groupBy('day')
    .select('day')
    .sum({ clicks: 'clicks' });
  return new Map(
    (rows as Array<{ day: number | string; clicks: number | string }>).map((r) => [Number(r.day), Number(r.clicks)]),
  );
}

/** Clicks per block over [fromDay, toDay]. */
export async function pageBlockClicks(
  knex: Knex,
  pageId: string,
  fromDay: number,
  toDay: number,
): Promise<Map<string, number>> {
  const rows = await knex('page_block_daily_clicks')
    .where({ page_id: pageId })
    .whereBetween('day', [fromDay, toDay])
    .groupBy('block_id')
    .select('block_id')
    .sum({ clicks: 'clicks' });
  return new Map(
    (rows as Array<{ block_id: string; clicks: number | string }>).map((r) => [r.block_id, Number(r.clicks)]),
  );
}

export const PAGE_BREAKDOWN_DIMENSIONS = ['country', 'device', 'browser', 'referrer_host'] as const;
export type PageBreakdownDimension = (typeof PAGE_BREAKDOWN_DIMENSIONS)[number];

/** Raw views since `since` by each dimension's value, largest first (ties by value). */
export async function pageBreakdowns(
  knex: Knex,
  pageId: string,
  since: number,
): Promise<Record<PageBreakdownDimension, Array<{ value: string; views: number }>>> {
  const out = {} as Record<PageBreakdownDimension, Array<{ value: string; views: number }>>;
  for (const dim of PAGE_BREAKDOWN_DIMENSIONS) {
    const rows = await knex('page_views')
      .where({ page_id: pageId })
      .where('occurred_at', '>=', since)
      .groupBy(dim)
      .select({ value: dim })
      .count({ views: '*' });
    out[dim] = (rows as Array<{ value: string | null; views: number | string }>)
      .map((r) => ({ value: r.value ?? '', views: Number(r.views) }))
      .sort((a, b) => b.views - a.views || byKey(a.value, b.value));
  }
  return out;
}

/** Retention: raw views before `before` (their daily counts stay), in batches that each hold the write lock briefly. */
export async function deleteOldPageViews(knex: Knex, before: number): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = await knex('page_views').where('occurred_at', '<', before).limit(5_000).pluck('id');
    if (!ids.length) return total;
    total += await knex('page_views').whereIn('id', ids).delete();
  }
}
