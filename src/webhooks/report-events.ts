// report.shared (asyncapi/variant-a.yaml), for the changes of a report: made shared, or moved
// from PRIVATE to UNLISTED or PUBLIC, or from UNLISTED to PUBLIC (src/domain/reports.ts,
// sharingRaisesEvent). The repository runs these inside the change's transaction.
import type { DbTransaction } from '../db/knex.ts';
import type { ReportRow } from '../db/repos/reports.ts';
import { serviceEvent, type ServiceEvent } from '../domain/events.ts';
import { sharingRaisesEvent, type Visibility } from '../domain/reports.ts';

function shared(report: ReportRow, before: Visibility | null, requestId: string | null): ServiceEvent[] {
  if (!sharingRaisesEvent(before, report.visibility)) return [];
  return [
    serviceEvent('report.shared', {
      workspaceId: report.workspace_id,
      requestId,
      occurredAt: Number(report.updated_at),
      subject: { reportId: report.id, title: report.title, visibility: report.visibility as 'UNLISTED' | 'PUBLIC' },
    }),
  ];
}

/** For a report being made: report.shared when it is made UNLISTED or PUBLIC. */
export const reportMade =
  (requestId: string | null = null) =>
  async (_trx: DbTransaction, report: ReportRow): Promise<ServiceEvent[]> =>
    shared(report, null, requestId);

/** For a change of a report: report.shared when the change shares it further. */
export const reportChanged =
  (requestId: string | null = null) =>
  async (_trx: DbTransaction, before: ReportRow, after: ReportRow): Promise<ServiceEvent[]> =>
    shared(after, before.visibility, requestId);
