// Goals in the dashboard (openapi/dashboard.yaml, Goals): made, changed, paused, archived and
// reactivated by the goal operations (src/operations/goals.ts), as `shortlink goal` does, their
// reports exactly as `GET /api/v1/goals/{id}/report` gives them.
import { audited, changedBetween, createdFields, diffFields } from '../../../operations/audit.ts';
import { invalid } from '../../../domain/errors.ts';
import type { GoalField, GoalInput } from '../../../domain/goal-definition.ts';
import { goalReport } from '../../../operations/conversions.ts';
import {
  createGoal,
  goalOf,
  listGoals,
  presentGoal,
  requireGoals,
  setGoalStatus,
  updateGoal,
  type GoalWording,
} from '../../../operations/goals.ts';
import type { Services } from '../../services.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult } from '../types.ts';
import { gatedWorkspace } from './gated-workspace.ts';

type GoalBody = Omit<GoalInput, 'windowStart' | 'windowEnd'> & {
  windowStart?: string | null;
  windowEnd?: string | null;
};

/** The body as the rules take it: times as milliseconds. */
function input(body: GoalBody): GoalInput {
  const time = (v: string | null | undefined, field: GoalField) => {
    if (v === undefined || v === null) return v;
    const ms = Date.parse(v);
    if (!Number.isFinite(ms)) throw invalid(`${field} must be an ISO 8601 date-time`, field);
    return ms;
  };
  return { ...body, windowStart: time(body.windowStart, 'windowStart'), windowEnd: time(body.windowEnd, 'windowEnd') };
}

/** The messages name the JSON fields. */
const wording: GoalWording = { label: (f) => f, fail: (f, message) => invalid(message, f) };

export function goalHandlers(
  services: Services,
): Pick<
  DashboardHandlers,
  | 'listDashboardGoals'
  | 'createDashboardGoal'
  | 'updateDashboardGoal'
  | 'setDashboardGoalStatus'
  | 'getDashboardGoalReport'
> {
  const { knex } = services.db;

  /** The workspace, when its plan and this deployment have goals. */
  const goalsOf = (ctx: DashboardContext) => gatedWorkspace(ctx, (plan) => requireGoals(services.config, plan));

  return {
    async listDashboardGoals({ query }, ctx): Promise<DashboardResult<'listDashboardGoals'>> {
      const rows = await listGoals(knex, goalsOf(ctx).id, query.status);
      return { status: 200, body: { data: rows.map(presentGoal) } };
    },

    async createDashboardGoal({ body }, ctx): Promise<DashboardResult<'createDashboardGoal'>> {
      const w = goalsOf(ctx);
      const row = await audited(
        knex,
        ctx.audit,
        w.id,
        (trx) => createGoal(trx, w.id, input(body), wording),
        (g) => ({ action: 'goal.created', objectType: 'goal', objectId: g.id, changes: createdFields(presentGoal(g)) }),
      );
      return { status: 201, body: { data: presentGoal(row) } };
    },

    async updateDashboardGoal({ params, body }, ctx): Promise<DashboardResult<'updateDashboardGoal'>> {
      const current = await goalOf(knex, params.goalId, goalsOf(ctx).id);
      const row = await audited(
        knex,
        ctx.audit,
        current.workspace_id,
        (trx) => updateGoal(trx, current, input(body), wording),
        (g) => ({
          action: 'goal.updated',
          objectType: 'goal',
          objectId: g.id,
          changes: changedBetween(presentGoal(current), presentGoal(g)),
        }),
      );
      return { status: 200, body: { data: presentGoal(row) } };
    },

    async setDashboardGoalStatus({ params, body }, ctx): Promise<DashboardResult<'setDashboardGoalStatus'>> {
      const current = await goalOf(knex, params.goalId, goalsOf(ctx).id);
      const row = await audited(
        knex,
        ctx.audit,
        current.workspace_id,
        (trx) => setGoalStatus(trx, current.id, body.status),
        (g) => ({
          action: 'goal.status_changed',
          objectType: 'goal',
          objectId: g.id,
          changes: diffFields({ status: current.status }, { status: g.status }),
        }),
      );
      return { status: 200, body: { data: presentGoal(row) } };
    },

    async getDashboardGoalReport({ params, query }, ctx): Promise<DashboardResult<'getDashboardGoalReport'>> {
      const w = goalsOf(ctx);
      return { status: 200, body: await goalReport(services, w.id, params.goalId, query) };
    },
  };
}
