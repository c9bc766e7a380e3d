// Goals in the dashboard (openapi/dashboard.yaml, Goals): made, changed, paused, archived and
// reactivated under the rules of `shortlink goal` (src/domain/goal-definition.ts), their
// reports exactly as `GET /api/v1/goals/{id}/report` gives them.
import * as goals from '../../../db/repos/goals.ts';
import { planHasApi, type Plan } from '../../../domain/access.ts';
import { forbidden, invalid, notFound, unavailable } from '../../../domain/errors.ts';
import { goalDefinition, type GoalField, type GoalInput } from '../../../domain/goal-definition.ts';
import { goalReport, presentGoal } from '../../handlers/conversions.ts';
import type { Services } from '../../services.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult } from '../types.ts';

/** Goals' gates: the deployment has goals and conversions (503), the plan includes them (403 naming it). */
export function requireGoals(services: Services, plan: Plan): void {
  const { config } = services;
  if (!config.featureGoals || !config.featureConversions) throw unavailable('Goals are not available on this deployment', 'goals_unavailable');
  if (!planHasApi(plan)) throw forbidden(`The ${plan} plan does not include goals; goals need the Growth plan or above`);
}

type GoalBody = Omit<GoalInput, 'windowStart' | 'windowEnd'> & { windowStart?: string | null; windowEnd?: string | null };

export function goalHandlers(
  services: Services,
): Pick<DashboardHandlers, 'listDashboardGoals' | 'createDashboardGoal' | 'updateDashboardGoal' | 'setDashboardGoalStatus' | 'getDashboardGoalReport'> {
  const { knex } = services.db;

  /** The workspace, when its plan and this deployment have goals. */
  function goalsOf(ctx: DashboardContext) {
    const w = ctx.workspace!;
    requireGoals(services, w.plan);
    return w;
  }

  async function goalOf(ctx: DashboardContext, goalId: string) {
    const goal = await goals.getGoal(knex, goalId);
    if (!goal || goal.workspace_id !== goalsOf(ctx).id) throw notFound('Goal not found');
    return goal;
  }

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

  const rules = (workspaceId: string) => ({
    workspaceId,
    label: (f: GoalField) => f,
    fail: (f: GoalField, message: string) => invalid(message, f),
    scopeInWorkspace: (kind: goals.ScopeKind, id: string) => goals.scopeObjectInWorkspace(knex, kind, id, workspaceId),
  });

  return {
    async listDashboardGoals({ query }, ctx): Promise<DashboardResult<'listDashboardGoals'>> {
      const rows = await goals.listGoals(knex, goalsOf(ctx).id, query.status);
      return { status: 200, body: { data: rows.map(presentGoal) } };
    },

    async createDashboardGoal({ body }, ctx): Promise<DashboardResult<'createDashboardGoal'>> {
      const w = goalsOf(ctx);
      const def = await goalDefinition(input(body), rules(w.id));
      const row = await goals.createGoal(knex, w.id, {
        name: def.name!, type: def.type!, custom_name: def.custom_name ?? null, link_id: def.link_id ?? null, qr_code_id: def.qr_code_id ?? null,
        campaign_id: def.campaign_id ?? null, target_count: def.target_count ?? null, target_value_minor: def.target_value_minor ?? null,
        target_currency: def.target_currency ?? null, window_start: def.window_start ?? null, window_end: def.window_end ?? null,
      });
      return { status: 201, body: { data: presentGoal(row) } };
    },

    async updateDashboardGoal({ params, body }, ctx): Promise<DashboardResult<'updateDashboardGoal'>> {
      const current = await goalOf(ctx, params.goalId);
      const def = await goalDefinition(input(body), rules(current.workspace_id), current);
      return { status: 200, body: { data: presentGoal(await goals.updateGoal(knex, current.id, def)) } };
    },

    async setDashboardGoalStatus({ params, body }, ctx): Promise<DashboardResult<'setDashboardGoalStatus'>> {
      const current = await goalOf(ctx, params.goalId);
      return { status: 200, body: { data: presentGoal(await goals.setGoalStatus(knex, current.id, body.status)) } };
    },

    async getDashboardGoalReport({ params, query }, ctx): Promise<DashboardResult<'getDashboardGoalReport'>> {
      const w = goalsOf(ctx);
      return { status: 200, body: await goalReport(services, w.id, params.goalId, query) };
    },
  };
}
