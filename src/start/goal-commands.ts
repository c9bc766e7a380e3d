// `shortlink goal create|update|set-status`: goals are managed by operators here and by people in the
// dashboard (src/http/dashboard/handlers/goals.ts), never the public API; both under the rules of
// src/domain/goal-definition.ts.
import type { Db } from '../db/knex.ts';
import { getWorkspace } from '../db/repos/workspaces.ts';
import { goalDefinition, type GoalField, type GoalInput } from '../domain/goal-definition.ts';
import * as goals from '../db/repos/goals.ts';
import { notFound, quoted, usage } from '../domain/errors.ts';


type Flags = Record<string, string | undefined>;
export const GOAL_FLAGS = [
  'name', 'type', 'custom-name', 'link', 'qr', 'campaign', 'target-count', 'target-value-minor', 'target-currency', 'window-start', 'window-end',
];

function wholeNumber(value: string | undefined, flag: string, min: number): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === '' || value === 'none') return null;
  if (!/^\d{1,15}$/.test(value) || Number(value) < min) throw usage(`${flag} must be a whole number of ${min} or more; got ${quoted(value)}`);
  return Number(value);
}

const LABELS: Record<GoalField, string> = {
  name: '--name', type: '--type', customName: '--custom-name', linkId: '--link', qrCodeId: '--qr', campaignId: '--campaign', targetCount: '--target-count',
  targetValueMinor: '--target-value-minor', targetCurrency: '--target-currency', windowStart: '--window-start', windowEnd: '--window-end',
};

/** Reads the definition flags (the rules are src/domain/goal-definition.ts); on update only the flags given change. */
export async function goalDefinitionFromFlags(
  knex: Db,
  workspaceId: string,
  flags: Flags,
  time: (v: string | undefined, flag: string) => number | null,
  current?: goals.GoalRow,
): Promise<Partial<goals.GoalDefinition>> {
  // An empty scope flag changes nothing (as before); a number or time flag of '' or 'none' clears it.
  const scope = (f: string) => (flags[f] === undefined || flags[f] === '' ? undefined : flags[f]);
  const input: GoalInput = {
    name: flags.name,
    type: flags.type,
    customName: flags['custom-name'] === undefined ? undefined : flags['custom-name'] || null,
    linkId: scope('link'),
    qrCodeId: scope('qr'),
    campaignId: scope('campaign'),
    targetCount: wholeNumber(flags['target-count'], '--target-count', 1),
    targetValueMinor: wholeNumber(flags['target-value-minor'], '--target-value-minor', 0),
    targetCurrency: flags['target-currency'] === undefined ? undefined : flags['target-currency'] || null,
    windowStart: flags['window-start'] === undefined ? undefined : flags['window-start'] === '' ? null : time(flags['window-start'], '--window-start'),
    windowEnd: flags['window-end'] === undefined ? undefined : flags['window-end'] === '' ? null : time(flags['window-end'], '--window-end'),
  };
  return goalDefinition(input, {
    workspaceId,
    label: (f) => LABELS[f],
    fail: (_f, message) => usage(message),
    scopeInWorkspace: (kind, id) => goals.scopeObjectInWorkspace(knex, kind, id, workspaceId),
  }, current);
}

export async function createGoalCommand(knex: Db, flags: Flags, time: (v: string | undefined, f: string) => number | null) {
  const workspaceId = flags.workspace!;
  const ws = await getWorkspace(knex, workspaceId);
  if (!ws) throw notFound(`workspace ${workspaceId} not found`);
  const def = await goalDefinitionFromFlags(knex, workspaceId, flags, time);
  const row = await goals.createGoal(knex, workspaceId, {
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
  return { id: row.id };
}

export async function updateGoalCommand(knex: Db, flags: Flags, time: (v: string | undefined, f: string) => number | null) {
  const current = await goals.getGoal(knex, flags.id!);
  if (!current) throw notFound(`goal ${flags.id} not found`);
  const def = await goalDefinitionFromFlags(knex, current.workspace_id, flags, time, current);
  const row = await goals.updateGoal(knex, current.id, def);
  return { id: row.id, definitionVersion: Number(row.definition_version) };
}

export async function setGoalStatusCommand(knex: Db, flags: Flags) {
  const status = flags.status!.toUpperCase();
  if (!goals.GOAL_STATUSES.includes(status as goals.GoalStatus)) {
    throw usage(`--status must be one of ${goals.GOAL_STATUSES.join(', ')}; got ${quoted(flags.status)}`);
  }
  const row = await goals.setGoalStatus(knex, flags.id!, status as goals.GoalStatus);
  return { id: row.id, definitionVersion: Number(row.definition_version) };
}
