// Goals: saved, named questions about conversions, managed from the dashboard and the operator command line.
import type { Knex } from 'knex';
import { newId } from '../../domain/ids.ts';
import { notFound } from '../../domain/errors.ts';

export type GoalStatus = 'ACTIVE' | 'PAUSED' | 'ARCHIVED';
export const GOAL_STATUSES: GoalStatus[] = ['ACTIVE', 'PAUSED', 'ARCHIVED'];

/** The definition columns (their rules: src/domain/goal-definition.ts). */
export type GoalDefinition = import('../../domain/goal-definition.ts').GoalDefinition;

export interface GoalRow extends GoalDefinition {
  id: string;
  workspace_id: string;
  status: GoalStatus;
  archived_at: number | null;
  definition_version: number;
  definition_updated_at: number;
  created_at: number;
  updated_at: number;
}

/** Fields that decide which conversions a goal matches; changing one raises definitionVersion. */
const MATCHING: Array<keyof GoalDefinition> = [
  'type',
  'custom_name',
  'link_id',
  'qr_code_id',
  'campaign_id',
  'window_start',
  'window_end',
];

export async function createGoal(knex: Knex, workspaceId: string, def: GoalDefinition): Promise<GoalRow> {
  const now = Date.now();
  const row: GoalRow = {
    id: newId('goal'),
    workspace_id: workspaceId,
    ...def,
    status: 'ACTIVE',
    archived_at: null,
    definition_version: 1,
    definition_updated_at: now,
    created_at: now,
    updated_at: now,
  };
  await knex('goals').insert(row);
  return row;
}

export async function getGoal(knex: Knex, id: string): Promise<GoalRow | undefined> {
  return knex('goals').where({ id }).first();
}

export async function updateGoal(knex: Knex, id: string, patch: Partial<GoalDefinition>): Promise<GoalRow> {
  return knex.transaction(async (trx) => {
    const current: GoalRow | undefined = await trx('goals').where({ id }).forUpdate().first();
    if (!current) throw notFound(`goal ${id} not found`);
    const now = Date.now();
    // Postgres gives bigint columns (the window) as strings: compare the values, not the types.
    const same = (a: unknown, b: unknown) =>
      (a ?? null) === (b ?? null) || (a != null && b != null && String(a) === String(b));
    const changed = MATCHING.some((k) => k in patch && !same((patch as any)[k], (current as any)[k]));
    const update: Partial<GoalRow> = { ...patch, updated_at: now };
    if (changed) {
      update.definition_version = current.definition_version + 1;
      update.definition_updated_at = now;
    }
    await trx('goals').where({ id }).update(update);
    return { ...current, ...update } as GoalRow;
  });
}

export async function setGoalStatus(knex: Knex, id: string, status: GoalStatus): Promise<GoalRow> {
  const current = await getGoal(knex, id);
  if (!current) throw notFound(`goal ${id} not found`);
  const now = Date.now();
  const update = {
    status,
    archived_at: status === 'ARCHIVED' ? (current.archived_at ?? now) : null,
    updated_at: now,
  };
  await knex('goals').where({ id }).update(update);
  return { ...current, ...update };
}

export async function listGoals(knex: Knex, workspaceId: string, status?: GoalStatus): Promise<GoalRow[]> {
  const q = knex('goals').where({ workspace_id: workspaceId });
  if (status) q.where({ status });
  return q.orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'seq', order: 'desc' },
  ]);
}

/** Whether the link, QR code or campaign the goal measures still exists (a goal without a scope: true). */
export async function scopeObjectExists(
  knex: Knex,
  goal: Pick<GoalRow, 'link_id' | 'qr_code_id' | 'campaign_id'>,
): Promise<boolean> {
  const [table, id] = goal.link_id
    ? ['links', goal.link_id]
    : goal.qr_code_id
      ? ['qr_codes', goal.qr_code_id]
      : goal.campaign_id
        ? ['campaigns', goal.campaign_id]
        : [null, null];
  if (!table) return true;
  return !!(await knex(table).where({ id }).whereNull('deleted_at').first('id'));
}

export type { ScopeKind } from '../../domain/goal-definition.ts';
import type { ScopeKind } from '../../domain/goal-definition.ts';
const SCOPE_TABLES: Record<ScopeKind, string> = { link: 'links', qr: 'qr_codes', campaign: 'campaigns' };

/** Whether the object a goal may measure is in the workspace (deleted or not: a goal may outlive it). */
export async function scopeObjectInWorkspace(
  knex: Knex,
  kind: ScopeKind,
  id: string,
  workspaceId: string,
): Promise<boolean> {
  return !!(await knex(SCOPE_TABLES[kind]).where({ id, workspace_id: workspaceId }).first('id'));
}
