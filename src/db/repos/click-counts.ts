// The clicks (and QR scans) of a conversion rate's denominator over a window, read from the daily
// counts where they are complete and from raw clicks at the window's ends, as
// src/domain/conversions.ts planWindow chooses.
import type { Knex } from 'knex';
import { CLICK_RETENTION_DAYS, DAY_MS, planWindow, type Window } from '../../domain/conversions.ts';
import type { Sign } from '../../domain/conversion-reads.ts';

const n = (v: unknown) => Number(v ?? 0);

export interface ClickCounts {
  total: number;
  byLink: Map<string, number>;
  byQr: Map<string, number>;
}

/**
 * Clicks (and QR scans) in [from, to): daily counts for whole days and for partial days whose
 * rest holds fewer raw clicks than the part inside the window (less those raw clicks), raw
 * clicks for the other partial days; grouped per link and per QR code (no id lists). Scoped to
 * the workspace; `onlyLink`/`onlyQr` narrow to one link or QR code.
 */
export async function countClicks(
  knex: Knex,
  workspaceId: string,
  w: Window,
  scope: { onlyLink?: string; onlyQr?: string },
  now: number,
): Promise<ClickCounts> {
  const plan = planWindow(w, { rawSince: now - CLICK_RETENTION_DAYS * DAY_MS, latest: now });
  const out: ClickCounts = { total: 0, byLink: new Map(), byQr: new Map() };
  const wantLinks = !scope.onlyQr;
  const wantQrs = !scope.onlyLink;
  // Run one after another: they share the snapshot's one connection.
  const queries: Array<() => Promise<void>> = [];
  // SQLite (which runs no ANALYZE here) would group through the (workspace, day) index and a
  // temporary B-tree; the covering (workspace, id, day, count) index streams the groups.
  const sqlite = knex.client.config.client !== 'pg';
  const table = (name: string, index: string) => (sqlite ? knex.raw(`?? INDEXED BY ??`, [name, index]) : name);
  const run = (q: Knex.QueryBuilder, into: Map<string, number>, column: string, sign: Sign) =>
    queries.push(async () => {
      for (const r of (await q) as any[]) into.set(r[column], (into.get(r[column]) ?? 0) + sign * n(r.c));
    });
  const daily = ([d0, d1]: [number, number], sign: Sign) => {
    if (wantLinks) {
      // The table's own key is (workspace, link, day) with the counts in its leaves.
      const q = knex('link_daily_clicks')
        .where('workspace_id', workspaceId)
        .where('day', '>=', d0)
        .where('day', '<', d1);
      if (scope.onlyLink) q.where('link_id', scope.onlyLink);
      run(q.groupBy('link_id').select('link_id').sum({ c: 'clicks' }), out.byLink, 'link_id', sign);
    }
    if (wantQrs) {
      const q = knex(table('qr_daily_scans', 'qr_daily_scans_ws_qr_day'))
        .where('workspace_id', workspaceId)
        .where('day', '>=', d0)
        .where('day', '<', d1);
      if (scope.onlyQr) q.where('qr_code_id', scope.onlyQr);
      run(q.groupBy('qr_code_id').select('qr_code_id').sum({ c: 'scans' }), out.byQr, 'qr_code_id', sign);
    }
  };
  const raw = (e: Window, sign: Sign) => {
    const inPart = () =>
      knex('clicks')
        .where('workspace_id', workspaceId)
        .where('occurred_at', '>=', e.from)
        .where('occurred_at', '<', e.to);
    if (wantLinks) {
      const q = inPart();
      if (scope.onlyLink) q.where('link_id', scope.onlyLink);
      run(q.groupBy('link_id').select('link_id').count({ c: '*' }), out.byLink, 'link_id', sign);
    }
    if (wantQrs) {
      const q = inPart().whereNotNull('qr_code_id');
      if (scope.onlyQr) q.where('qr_code_id', scope.onlyQr);
      run(q.groupBy('qr_code_id').select('qr_code_id').count({ c: '*' }), out.byQr, 'qr_code_id', sign);
    }
  };
  if (plan.aggregateDays) daily(plan.aggregateDays, 1);
  for (const { minus } of plan.partialDays) for (const m of minus) raw(m, -1);
  for (const part of plan.raw) raw(part, 1);
  for (const query of queries) await query();
  // Every click belongs to a link, so the links' counts add up to the workspace's.
  for (const c of out.byLink.values()) out.total += c;
  return out;
}
