// Shared reports in the dashboard (openapi/dashboard.yaml, Reports): saved views of the
// Conversions screen, a goal's report, a link's or a bio page's analytics, made, changed, given a
// new link and deleted by members; and their public read at /app/api/shared/{token}, with its password.
import { audited, changedBetween, createdFields, withAudit } from '../../../operations/audit.ts';
import type { components } from '../../../../generated/dashboard.ts';
import { createAttemptLimiter, refundAttempt, takeAttempt } from '../../../db/attempt-limiter.ts';
import * as pages from '../../../db/repos/bio-pages.ts';
import * as goals from '../../../db/repos/goals.ts';
import * as links from '../../../db/repos/links.ts';
import * as reports from '../../../db/repos/reports.ts';
import type { Plan } from '../../../domain/access.ts';
import {
  forbidden,
  invalid,
  isAppError,
  notFound,
  tooManyWrongPasswords,
  unauthenticated,
} from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import { hashPassword, verifyPassword } from '../../../domain/passwords.ts';
import {
  MAX_TITLE_LENGTH,
  paramsProblem,
  REPORT_PASSWORD_ATTEMPTS,
  REPORT_PASSWORD_WINDOW_S,
  UNLOCK_COOKIE,
  UNLOCK_TTL_MS,
  UnlockCookies,
  type ReportKind,
  type ReportParams,
  type Visibility,
} from '../../../domain/reports.ts';
import { newSecret } from '../../../domain/sessions.ts';
import { parseCookies } from '../../../redirect/password.ts';
import { reportChanged, reportMade } from '../../../webhooks/report-events.ts';
import { openSecret, sealSecret } from '../../../webhooks/secrets.ts';
import { requireConversions, summaryFilters } from '../../../operations/conversions.ts';
import { requireGoals } from '../../../operations/goals.ts';
import type { Services } from '../../services.ts';
import { findSharedReport, SharedFigures } from '../shared-reports.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult } from '../types.ts';
import { sameOrigin } from '../origin.ts';

type Report = components['schemas']['Report'];
type ReportOperation =
  | 'listDashboardReports'
  | 'createDashboardReport'
  | 'getDashboardReport'
  | 'updateDashboardReport'
  | 'deleteDashboardReport'
  | 'renewDashboardReportToken'
  | 'readSharedReport'
  | 'unlockSharedReport';

const iso = (ms: number) => new Date(Number(ms)).toISOString();

export function reportHandlers(services: Services): Pick<DashboardHandlers, ReportOperation> {
  const { knex } = services.db;
  const { config, masterKey } = services;
  const figures = new SharedFigures(services);
  const unlocks = new UnlockCookies(masterKey);
  // Wrong passwords per report and client, counted in the database (the link password's rule).
  const passwordThrottle = createAttemptLimiter(services.db, 'rpw', REPORT_PASSWORD_ATTEMPTS, REPORT_PASSWORD_WINDOW_S);

  const urlOf = (token: string) => `${config.publicUrl}/app/shared/${token}`;

  function present(row: reports.ReportRow): Report {
    return {
      id: row.id,
      kind: row.kind,
      title: row.title,
      params: reports.paramsOf(row) as Report['params'],
      visibility: row.visibility,
      hasPassword: !!row.password_hash,
      url: row.visibility === 'PRIVATE' ? null : urlOf(openSecret(masterKey, row.token_sealed)),
      createdBy: row.created_by,
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
    };
  }

  /** The screen's gates for the kind: what reading its figures needs (403 naming the plan, 503). */
  function requireKind(kind: ReportKind, plan: Plan) {
    if (kind === 'CONVERSIONS') requireConversions(services.config, plan);
    else if (kind === 'GOAL') requireGoals(services.config, plan);
  }

  /** The params as the kind takes them, under the rules and messages of the screen they come from. */
  async function checkedParams(kind: ReportKind, sent: ReportParams, workspaceId: string): Promise<ReportParams> {
    const params = Object.fromEntries(Object.entries(sent).filter(([, v]) => v !== undefined)) as ReportParams;
    const problem = paramsProblem(kind, params);
    if (problem) throw invalid(problem.message, problem.field);
    if (kind === 'CONVERSIONS') {
      try {
        summaryFilters(params);
      } catch (err) {
        // The API's message, with the field named as in this body.
        if (isAppError(err, 'invalid') && err.details.field) throw invalid(err.message, `params.${err.details.field}`);
        throw err;
      }
    } else if (kind === 'GOAL') {
      const goal = await goals.getGoal(knex, params.goalId!);
      if (!goal || goal.workspace_id !== workspaceId) throw notFound('Goal not found');
    } else if (kind === 'LINK') {
      if (!(await links.getLink(knex, workspaceId, params.linkId!))) throw notFound('Link not found');
    } else if (!(await pages.getPage(knex, workspaceId, params.pageId!))) {
      throw notFound('Page not found');
    }
    return params;
  }

  function checkedTitle(title: string): string {
    const trimmed = title.trim();
    if (!trimmed || trimmed.length > MAX_TITLE_LENGTH)
      throw invalid(`title must be 1 to ${MAX_TITLE_LENGTH} characters`, 'title');
    return trimmed;
  }

  async function reportOf(ctx: DashboardContext, id: string) {
    const row = await reports.getReport(knex, ctx.workspace!.id, id);
    if (!row) throw notFound('Report not found');
    return row;
  }

  /** A changed report; the row was there a moment ago, so a miss is a delete that came first. */
  async function change(ctx: DashboardContext, id: string, patch: reports.ReportPatch, action = 'report.updated') {
    const after = await reports.updateReport(
      knex,
      ctx.workspace!.id,
      id,
      patch,
      withAudit(reportChanged(ctx.requestId), ctx.audit, ctx.workspace!.id, (before, now) => {
        const changes = changedBetween(auditedReport(before), auditedReport(now));
        // The address and the password are secrets: named when they change, never shown.
        if (before.token_hash !== now.token_hash) changes.token = { secret: true };
        if (before.password_hash !== now.password_hash) changes.password = { secret: true };
        return { action, objectType: 'report', objectId: now.id, changes };
      }),
    );
    if (!after) throw notFound('Report not found');
    return after;
  }

  /** What the audit log shows of a report: no token, no password. */
  const auditedReport = (row: reports.ReportRow) => ({
    kind: row.kind,
    title: row.title,
    params: reports.paramsOf(row),
    visibility: row.visibility,
  });

  const sealedToken = () => {
    const { token, hash } = newSecret();
    return { token_hash: hash, token_sealed: sealSecret(masterKey, token) };
  };

  return {
    async listDashboardReports(_request, ctx): Promise<DashboardResult<'listDashboardReports'>> {
      return { status: 200, body: { data: (await reports.listReports(knex, ctx.workspace!.id)).map(present) } };
    },

    async createDashboardReport({ body }, ctx): Promise<DashboardResult<'createDashboardReport'>> {
      const w = ctx.workspace!;
      requireKind(body.kind, w.plan);
      const title = checkedTitle(body.title);
      const params = await checkedParams(body.kind, body.params as ReportParams, w.id);
      const now = Date.now();
      const row: reports.ReportRow = {
        id: newId('rpt'),
        workspace_id: w.id,
        kind: body.kind,
        title,
        params: JSON.stringify(params),
        visibility: body.visibility ?? 'PRIVATE',
        ...sealedToken(),
        password_hash: body.password ? await hashPassword(body.password) : null,
        created_by: ctx.session!.userId,
        created_at: now,
        updated_at: now,
      };
      await reports.createReport(
        knex,
        row,
        withAudit(reportMade(ctx.requestId), ctx.audit, w.id, (made) => ({
          action: 'report.created',
          objectType: 'report',
          objectId: made.id,
          changes: {
            ...createdFields(auditedReport(made)),
            ...(made.password_hash ? { password: { secret: true } } : {}),
          },
        })),
      );
      return { status: 201, body: { data: present(row) } };
    },

    async getDashboardReport({ params }, ctx): Promise<DashboardResult<'getDashboardReport'>> {
      return { status: 200, body: { data: present(await reportOf(ctx, params.reportId)) } };
    },

    async updateDashboardReport({ params, body }, ctx): Promise<DashboardResult<'updateDashboardReport'>> {
      const w = ctx.workspace!;
      const current = await reportOf(ctx, params.reportId);
      const patch: reports.ReportPatch = {};
      // Reading the figures again, or letting more people read them, needs what the screen needs;
      // making a report PRIVATE, renaming it or changing its password never does.
      const shares = body.visibility !== undefined && body.visibility !== 'PRIVATE';
      if (body.params !== undefined || shares) requireKind(current.kind, w.plan);
      if (body.title !== undefined) patch.title = checkedTitle(body.title);
      if (body.params !== undefined)
        patch.params = JSON.stringify(await checkedParams(current.kind, body.params as ReportParams, w.id));
      if (body.visibility !== undefined) patch.visibility = body.visibility as Visibility;
      if (body.password !== undefined)
        patch.password_hash = body.password === null ? null : await hashPassword(body.password);
      return { status: 200, body: { data: present(await change(ctx, current.id, patch)) } };
    },

    async deleteDashboardReport({ params }, ctx): Promise<DashboardResult<'deleteDashboardReport'>> {
      await audited(
        knex,
        ctx.audit,
        ctx.workspace!.id,
        async (trx) => {
          if (!(await reports.deleteReport(trx, ctx.workspace!.id, params.reportId)))
            throw notFound('Report not found');
        },
        () => ({ action: 'report.deleted', objectType: 'report', objectId: params.reportId }),
      );
      return { status: 204 };
    },

    async renewDashboardReportToken({ params }, ctx): Promise<DashboardResult<'renewDashboardReportToken'>> {
      const current = await reportOf(ctx, params.reportId);
      const renewed = await change(ctx, current.id, sealedToken(), 'report.token_renewed');
      return { status: 200, body: { data: present(renewed) } };
    },

    async readSharedReport({ params, headers }): Promise<DashboardResult<'readSharedReport'>> {
      const found = await findSharedReport(services, params.token);
      if (!found) throw notFound('There is no shared report at this address');
      const { row } = found;
      if (
        row.password_hash &&
        !unlocks.verify(unlockSubject(row), parseCookies(headers.cookie as string | undefined)[UNLOCK_COOKIE])
      ) {
        throw unauthenticated('This report is protected by a password');
      }
      const body = await figures.get(found);
      // The data is not a page: the page /app/shared/{token} is what may be indexed.
      return {
        status: 200,
        body: { title: row.title, kind: row.kind, ...body },
        headers: { 'X-Robots-Tag': 'noindex' },
      };
    },

    async unlockSharedReport({ params, body, headers }, ctx): Promise<DashboardResult<'unlockSharedReport'>> {
      // No session guards this form, so a post made by another site is refused by its origin.
      const origin = headers.origin;
      if (typeof origin === 'string' && !sameOrigin(origin, ctx.origin))
        throw forbidden(`Requests from ${origin} are not accepted`);
      const found = await findSharedReport(services, params.token);
      if (!found) throw notFound('There is no shared report at this address');
      const { row } = found;
      if (!row.password_hash) return { status: 204 };
      const key = `${row.id}:${ctx.client}`;
      const wait = await takeAttempt(passwordThrottle, key);
      if (wait > 0) throw tooManyWrongPasswords(wait, REPORT_PASSWORD_ATTEMPTS);
      if (!(await verifyPassword(body.password, row.password_hash)))
        throw unauthenticated('That password is not correct');
      await refundAttempt(passwordThrottle, key);
      // Scoped to this report's address: the cookie goes with its reads and nowhere else.
      const cookie = `${UNLOCK_COOKIE}=${unlocks.issue(unlockSubject(row))}; Path=/app/api/shared/${params.token}; HttpOnly; Secure; SameSite=Strict; Max-Age=${UNLOCK_TTL_MS / 1000}`;
      return { status: 204, headers: { 'Set-Cookie': cookie } };
    },
  };
}

const unlockSubject = (row: reports.ReportRow) => ({
  id: row.id,
  tokenHash: row.token_hash,
  passwordHash: row.password_hash!,
});
