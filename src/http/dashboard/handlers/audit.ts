// The audit log in the dashboard (openapi/dashboard.yaml, Audit): a page of entries with filters,
// and the same filters as a CSV download, for OWNER and ADMIN (the contract's x-roles).
import { csvRecords } from '../../../domain/csv.ts';
import { invalid } from '../../../domain/errors.ts';
import { eachAudit, listAudit, type AuditEntryView, type AuditFilter } from '../../../operations/audit-log.ts';
import type { Services } from '../../services.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult } from '../types.ts';

const CSV_COLUMNS = [
  'seq',
  'at',
  'actor_type',
  'actor_id',
  'actor_user_id',
  'actor_email',
  'action',
  'object_type',
  'object_id',
  'changes',
  'address_network',
  'address_hmac',
  'prev_hash',
  'hash',
];

type Filters = {
  userId?: string;
  action?: string;
  objectType?: string;
  objectId?: string;
  from?: string;
  to?: string;
};

function filterOf(ctx: DashboardContext, q: Filters): AuditFilter {
  const time = (v: string | undefined, field: string) => {
    if (v === undefined) return undefined;
    const ms = Date.parse(v);
    if (!Number.isFinite(ms)) throw invalid(`${field} must be an ISO 8601 date-time`, field);
    return ms;
  };
  const since = time(q.from, 'from');
  const until = time(q.to, 'to');
  if (since !== undefined && until !== undefined && until <= since) throw invalid('to must be after from', 'to');
  return {
    workspaceId: ctx.workspace!.id,
    userId: q.userId,
    action: q.action,
    objectType: q.objectType,
    objectId: q.objectId,
    since,
    until,
  };
}

const row = (e: AuditEntryView) => [
  e.seq,
  e.at,
  e.actor.type,
  e.actor.id,
  e.actor.userId,
  e.actor.email,
  e.action,
  e.objectType,
  e.objectId,
  JSON.stringify(e.changes),
  e.address.network,
  e.address.hmac,
  e.prevHash,
  e.hash,
];

export function auditHandlers(services: Services): Pick<DashboardHandlers, 'listAuditEntries' | 'exportAuditEntries'> {
  const { knex } = services.db;
  return {
    async listAuditEntries({ query }, ctx): Promise<DashboardResult<'listAuditEntries'>> {
      const page = await listAudit(knex, filterOf(ctx, query), { limit: query.limit ?? 50, before: query.before });
      return { status: 200, body: page };
    },

    async exportAuditEntries({ query }, ctx): Promise<DashboardResult<'exportAuditEntries'>> {
      const filter = filterOf(ctx, query);
      async function* csv() {
        yield csvRecords([CSV_COLUMNS]);
        for await (const batch of eachAudit(knex, filter)) yield csvRecords(batch.map(row));
      }
      return {
        status: 200,
        body: csv() as never,
        headers: {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': `attachment; filename="audit-${filter.workspaceId}.csv"`,
        },
      };
    },
  };
}
