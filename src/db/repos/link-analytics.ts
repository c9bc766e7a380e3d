// A link's analytics for the dashboard (openapi/dashboard.yaml, getLinkAnalytics): clicks and QR
// scans per day from the daily counts, and breakdowns of the last 90 days (raw clicks' retention)
// by country, city, device, browser, operating system and referrer host.
//
// The breakdowns come from the click fold (src/db/repos/click-folds.ts): blocks of 8 closed days
// from link_block_breakdowns, a closed day's counts from link_day_breakdowns, an open day's from its pieces up to the day's `through` plus the raw
// clicks since. Each day is checked against the link's daily count (written by the click writer
// with the clicks themselves), and each block against the sum of its days'; a block that differs is
// read by its days, and a day that differs (a click written after its time was folded, a
// day not folded yet) is counted from its raw clicks, so the answer is always the raw clicks'.
import type { Knex } from 'knex';
import { readSnapshot } from '../knex.ts';
import { CLICK_RETENTION_DAYS, DAY_MS } from '../../domain/conversions.ts';
import { BLOCK_DAYS, FOLDED_DIMENSIONS, dimensionColumns, foldStates, type FoldedDims } from './click-folds.ts';

export const BREAKDOWN_DAYS = CLICK_RETENTION_DAYS;
export const BREAKDOWN_TOP = 10;
export const BREAKDOWN_DIMENSIONS = Object.keys(FOLDED_DIMENSIONS) as Array<keyof typeof FOLDED_DIMENSIONS>;
export type BreakdownDimension = (typeof BREAKDOWN_DIMENSIONS)[number];

export interface LinkAnalyticsData {
  /** day → clicks through the short URL and scans of its QR codes. */
  days: Map<number, { clicks: number; scans: number }>;
  breakdowns: Record<BreakdownDimension, Array<{ value: string; clicks: number }>>;
}

const emptyDims = (): FoldedDims => Object.fromEntries(BREAKDOWN_DIMENSIONS.map((d) => [d, {}])) as FoldedDims;

function addDims(into: FoldedDims, from: FoldedDims): void {
  for (const dim of BREAKDOWN_DIMENSIONS) {
    const to = into[dim];
    const add = from[dim] ?? {};
    for (const value in add) to[value] = (to[value] ?? 0) + Number(add[value]);
  }
}

/** The link's raw clicks in [from, to) counted per dimension and value, and their number. */
async function rawCounts(
  trx: Knex,
  workspaceId: string,
  linkId: string,
  from: number,
  to: number,
): Promise<{ clicks: number; dims: FoldedDims }> {
  const dims = emptyDims();
  let clicks = 0;
  const rows = await trx('clicks')
    .where({ workspace_id: workspaceId, link_id: linkId })
    .where('occurred_at', '>=', from)
    .where('occurred_at', '<', to)
    .select(trx.raw(dimensionColumns()))
    .groupBy(BREAKDOWN_DIMENSIONS.map((dim) => `d_${dim}`))
    .count({ n: '*' });
  for (const r of rows as Array<Record<string, string | null> & { n: number | string }>) {
    const n = Number(r.n);
    clicks += n;
    for (const dim of BREAKDOWN_DIMENSIONS) {
      const v = r[`d_${dim}`] ?? '';
      dims[dim][v] = (dims[dim][v] ?? 0) + n;
    }
  }
  return { clicks, dims };
}

/**
 * Days [fromDay, toDay] of the series; the breakdowns over the 90 days ending today. Counts per
 * value, largest first (all of them: the caller keeps the top ones and sums the rest).
 */
export async function readLinkAnalytics(
  knex: Knex,
  workspaceId: string,
  linkId: string,
  fromDay: number,
  toDay: number,
  today: number,
): Promise<LinkAnalyticsData> {
  return readSnapshot(knex, async (trx) => {
    const days = new Map<number, { clicks: number; scans: number }>();
    const sinceDay = today - BREAKDOWN_DAYS + 1;
    const rows = await trx('link_daily_clicks')
      .where({ workspace_id: workspaceId, link_id: linkId })
      .where('day', '>=', Math.min(fromDay, sinceDay))
      .where('day', '<=', Math.max(toDay, today))
      .select('day', 'clicks', 'scans');
    const daily = new Map<number, number>();
    for (const r of rows) {
      const day = Number(r.day);
      // A day's `clicks` count every visit, QR scans among them.
      if (day >= fromDay && day <= toDay)
        days.set(day, { clicks: Number(r.clicks) - Number(r.scans), scans: Number(r.scans) });
      if (day >= sinceDay && day <= today) daily.set(day, Number(r.clicks));
    }
    const total = emptyDims();
    // Blocks of closed days inside the 90 days, where they hold all of their days' clicks.
    const inBlocks = new Set<number>();
    const [firstBlock, lastBlock] = [Math.ceil(sinceDay / BLOCK_DAYS), Math.floor((today + 1) / BLOCK_DAYS) - 1];
    const foldedBlocks = new Set(
      (await trx('click_fold_blocks').whereBetween('block', [firstBlock, lastBlock]).select('block')).map((r) =>
        Number(r.block),
      ),
    );
    for (const r of await trx('link_block_breakdowns')
      .where({ workspace_id: workspaceId, link_id: linkId })
      .whereBetween('block', [firstBlock, lastBlock])
      .select('block', 'clicks', 'dims')) {
      const block = Number(r.block);
      if (!foldedBlocks.has(block)) continue;
      let clicks = 0;
      for (let day = block * BLOCK_DAYS; day < (block + 1) * BLOCK_DAYS; day++) clicks += daily.get(day) ?? 0;
      if (clicks !== Number(r.clicks)) continue;
      addDims(total, JSON.parse(r.dims));
      for (let day = block * BLOCK_DAYS; day < (block + 1) * BLOCK_DAYS; day++) inBlocks.add(day);
    }
    const folded = await foldedDays(trx, workspaceId, linkId, sinceDay, today, inBlocks);
    for (const [day, clicks] of daily) {
      if (inBlocks.has(day)) continue;
      const f = folded.get(day);
      const end = (day + 1) * DAY_MS;
      if (f) {
        // Folded up to f.through: the rest of the day from the raw clicks.
        const tail =
          f.through < end
            ? await rawCounts(trx, workspaceId, linkId, f.through, end)
            : { clicks: 0, dims: emptyDims() };
        if (f.clicks + tail.clicks === clicks) {
          addDims(total, f.dims);
          addDims(total, tail.dims);
          continue;
        }
      }
      addDims(total, (await rawCounts(trx, workspaceId, linkId, day * DAY_MS, end)).dims);
    }
    const breakdowns = {} as LinkAnalyticsData['breakdowns'];
    for (const dim of BREAKDOWN_DIMENSIONS) {
      breakdowns[dim] = Object.entries(total[dim])
        .map(([value, clicks]) => ({ value, clicks }))
        .sort((a, b) => b.clicks - a.clicks || (a.value < b.value ? -1 : 1));
    }
    return { days, breakdowns };
  });
}

/**
 * The link's folded counts of each day in [fromDay, toDay] that the fold has reached: a closed
 * day's row, or an open day's pieces up to its `through` (pieces beyond are a step that stopped
 * half-way). `through` is where the day's raw clicks take over.
 */
async function foldedDays(
  trx: Knex,
  workspaceId: string,
  linkId: string,
  fromDay: number,
  toDay: number,
  inBlocks: Set<number>,
): Promise<Map<number, { through: number; clicks: number; dims: FoldedDims }>> {
  const out = new Map<number, { through: number; clicks: number; dims: FoldedDims }>();
  const states = await foldStates(trx, fromDay, toDay);
  const at = (day: number, through: number) => {
    let f = out.get(day);
    if (!f) out.set(day, (f = { through, clicks: 0, dims: emptyDims() }));
    return f;
  };
  const days = trx('link_day_breakdowns')
    .where({ workspace_id: workspaceId, link_id: linkId })
    .whereBetween('day', [fromDay, toDay]);
  if (inBlocks.size) days.whereNotIn('day', [...inBlocks]);
  for (const r of await days.select('day', 'clicks', 'dims')) {
    const s = states.get(Number(r.day));
    if (!s?.closed || inBlocks.has(Number(r.day))) continue;
    const f = at(Number(r.day), s.through);
    f.clicks += Number(r.clicks);
    addDims(f.dims, JSON.parse(r.dims));
  }
  for (const r of await trx('link_breakdown_pieces')
    .where({ workspace_id: workspaceId, link_id: linkId })
    .whereBetween('day', [fromDay, toDay])
    .select('day', 'upto', 'clicks', 'dims')) {
    const s = states.get(Number(r.day));
    if (!s || s.closed || Number(r.upto) > s.through) continue;
    const f = at(Number(r.day), s.through);
    f.clicks += Number(r.clicks);
    addDims(f.dims, JSON.parse(r.dims));
  }
  // A day the fold reached where the link had no clicks folded: all of its clicks came after.
  for (const [day, s] of states) if (!out.has(day)) at(day, s.through);
  return out;
}
