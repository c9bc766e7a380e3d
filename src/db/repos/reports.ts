// Shared reports (20261130000000_reports): a workspace's saved views, and the lookup of a shared
// one by the hash of its token. Every read and change of the dashboard is scoped to the
// workspace; the public read finds a report by its token alone, and its caller decides whether
// the report may be read (src/http/dashboard/shared-reports.ts).
import type { Knex } from 'knex';
import type { ReportKind, ReportParams, Visibility } from '../../domain/reports.ts';
import { enqueueEvents, type EmitEvents } from './outbox.ts';

export interface ReportRow {
  id: string;
  workspace_id: string;
  /** One of REPORT_KINDS: the column is string(16), so a kind's name must fit in 16 characters. */
  kind: ReportKind;
  title: string;
  /** JSON of ReportParams. */
  params: string;
  visibility: Visibility;
  token_hash: string;
  token_sealed: string;
  password_hash: string | null;
  created_by: string | null;
  created_at: number;
  updated_at: number;
}

export const paramsOf = (row: ReportRow): ReportParams => JSON.parse(row.params) as ReportParams;

/** Postgres gives bigint columns as strings. */
function normalize(row: ReportRow | undefined): ReportRow | undefined {
  return row && { ...row, created_at: Number(row.created_at), updated_at: Number(row.updated_at) };
}

/** Makes a report and, in the same transaction, the events its caller says it raises (report.shared when made shared). */
export async function createReport(
  knex: Knex,
  row: ReportRow,
  emit: EmitEvents<[report: ReportRow]>,
): Promise<ReportRow> {
  return knex.transaction(async (trx) => {
    await trx('reports').insert(row);
    await enqueueEvents(trx, await emit(trx, row));
    return row;
  });
}

export async function getReport(knex: Knex, workspaceId: string, id: string): Promise<ReportRow | undefined> {
  return normalize(await knex('reports').where({ id, workspace_id: workspaceId }).first());
}

/** The workspace's reports, newest first. */
export async function listReports(knex: Knex, workspaceId: string): Promise<ReportRow[]> {
  const rows: ReportRow[] = await knex('reports')
    .where({ workspace_id: workspaceId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
  return rows.map((r) => normalize(r)!);
}

/** The report whose token hashes to `tokenHash`, of any workspace, whatever its visibility. */
export async function findReportByTokenHash(knex: Knex, tokenHash: string): Promise<ReportRow | undefined> {
  return normalize(await knex('reports').where({ token_hash: tokenHash }).first());
}

export type ReportPatch = Partial<
  Pick<ReportRow, 'title' | 'params' | 'visibility' | 'password_hash' | 'token_hash' | 'token_sealed'>
>;

/**
 * Changes a report of the workspace and writes what `emit` returns for the change (it sees the
 * row before and after) in the same transaction. The row is read for update, so of two changes
 * racing from PRIVATE to shared exactly one sees PRIVATE before it, and one event is raised.
 * Undefined when the workspace has no such report.
 */
export async function updateReport(
  knex: Knex,
  workspaceId: string,
  id: string,
  patch: ReportPatch,
  emit: EmitEvents<[before: ReportRow, after: ReportRow]>,
): Promise<ReportRow | undefined> {
  return knex.transaction(async (trx) => {
    const before = normalize(await trx('reports').where({ id, workspace_id: workspaceId }).forUpdate().first());
    if (!before) return undefined;
    // Every change moves updated_at, so the figures cached for the report's previous state are
    // never served for the new one (src/http/dashboard/shared-reports.ts).
    const updated_at = Math.max(Date.now(), before.updated_at + 1);
    await trx('reports')
      .where({ id })
      .update({ ...patch, updated_at });
    const after: ReportRow = { ...before, ...patch, updated_at };
    await enqueueEvents(trx, await emit(trx, before, after));
    return after;
  });
}

/** Removes the report; false when the workspace has no such report. */
export async function deleteReport(knex: Knex, workspaceId: string, id: string): Promise<boolean> {
  return (await knex('reports').where({ id, workspace_id: workspaceId }).delete()) > 0;
}
