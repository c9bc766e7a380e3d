// Goals: made, changed, paused, archived and listed, under the rules of src/domain/goal-definition.ts,
// for the dashboard (openapi/dashboard.yaml, Goals), the public API's list and `shortlink goal`.
// Each caller names the fields its own way in the messages (`--target-count`, `targetCount`).
import type { components } from '../../generated/api.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import * as goals from '../db/repos/goals.ts';
import { planHasApi, type Plan } from '../domain/access.ts';
import { forbidden, notFound, unavailable } from '../domain/errors.ts';
import { goalDefinition, type GoalInput, type GoalRulesContext } from '../domain/goal-definition.ts';

type Goal = components['schemas']['Goal'];
const iso = (ms: number | null) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

/** How a caller names the fields in its messages, and the error it answers a broken rule with. */
export type GoalWording = Pick<GoalRulesContext, 'label' | 'fail'>;

export function presentGoal(g: goals.GoalRow): Goal {
  return {
    id: g.id,
    workspaceId: g.workspace_id,
    name: g.name,
    type: g.type,
    customName: g.custom_name,
    linkId: g.link_id,
    qrCodeId: g.qr_code_id,
    campaignId: g.campaign_id,
    targetCount: g.target_count === null ? null : Number(g.target_count),
    targetValueMinor: g.target_value_minor === null ? null : Number(g.target_value_minor),
    targetCurrency: g.target_currency,
    windowStart: iso(g.window_start),
    windowEnd: iso(g.window_end),
    status: g.status,
    archivedAt: iso(g.archived_at),
    definitionVersion: Number(g.definition_version),
    definitionUpdatedAt: iso(g.definition_updated_at)!,
    createdAt: iso(g.created_at)!,
    updatedAt: iso(g.updated_at)!,
  };
}

/**
 * Goals' gate: the deployment has goals and conversions (503); with a plan, the plan includes
 * goals (403 naming it).
 */
export function requireGoals(config: Config, plan?: Plan): void {
  if (!config.featureGoals || !config.featureConversions) {
    throw unavailable('Goals are not available on this deployment', 'goals_unavailable');
  }
  if (plan !== undefined && !planHasApi(plan)) {
    throw forbidden(`The ${plan} plan does not include goals; goals need the Growth plan or above`);
  }
}

/** The workspace's goals, with one status or all; any other status value is ignored, not refused. */
export async function listGoals(knex: Db, workspaceId: string, status?: string): Promise<goals.GoalRow[]> {
  const filter = goals.GOAL_STATUSES.includes(status as goals.GoalStatus) ? (status as goals.GoalStatus) : undefined;
  return goals.listGoals(knex, workspaceId, filter);
}

/**
 * The goal, or 404. Within a workspace, another workspace's goal answers like one that does not
 * exist, in the contract's words; without one (the command line) the message names the id.
 */
export async function goalOf(knex: Db, id: string, workspaceId?: string): Promise<goals.GoalRow> {
  const goal = await goals.getGoal(knex, id);
  if (workspaceId === undefined) {
    if (!goal) throw notFound(`goal ${id} not found`);
  } else if (!goal || goal.workspace_id !== workspaceId) throw notFound('Goal not found');
  return goal!;
}

const rules = (knex: Db, workspaceId: string, wording: GoalWording): GoalRulesContext => ({
  workspaceId,
  ...wording,
  scopeInWorkspace: (kind, id) => goals.scopeObjectInWorkspace(knex, kind, id, workspaceId),
});

export async function createGoal(
  knex: Db,
  workspaceId: string,
  input: GoalInput,
  wording: GoalWording,
): Promise<goals.GoalRow> {
  const def = await goalDefinition(input, rules(knex, workspaceId, wording));
  return goals.createGoal(knex, workspaceId, {
    name: def.name!,
    type: def.type!,
    custom_name: def.custom_name ?? null,
    link_id: def.link_id ?? null,
    qr_code_id: def.qr_code_id ?? null,
    campaign_id: def.campaign_id ?? null,
    target_count: def.target_count ?? null,
    target_value_minor: def.target_value_minor ?? null,
    target_currency: def.target_currency ?? null,
    window_start: def.window_start ?? null,
    window_end: def.window_end ?? null,
  });
}

/** Changes the fields `input` gives; a change of definition raises the goal's definition version. */
export async function updateGoal(
  knex: Db,
  current: goals.GoalRow,
  input: GoalInput,
  wording: GoalWording,
): Promise<goals.GoalRow> {
  const def = await goalDefinition(input, rules(knex, current.workspace_id, wording), current);
  return goals.updateGoal(knex, current.id, def);
}

/** Pauses, archives or reactivates a goal; its definition (and version) stays. */
export const setGoalStatus = (knex: Db, id: string, status: goals.GoalStatus) => goals.setGoalStatus(knex, id, status);
