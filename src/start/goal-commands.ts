// `shortlink goal create|update|set-status`: goals are managed by operators, never the API.
import type { Db } from '../db/knex.ts';
import { getWorkspace } from '../db/repos/workspaces.ts';
import { EVENT_TYPES, isCurrency, MAX_CUSTOM_NAME, type EventType } from '../domain/conversions.ts';
import * as goals from '../db/repos/goals.ts';
import { notFound, usage } from '../domain/errors.ts';


type Flags = Record<string, string | undefined>;
export const GOAL_FLAGS = [
  'name', 'type', 'custom-name', 'link', 'qr', 'campaign', 'target-count', 'target-value-minor', 'target-currency', 'window-start', 'window-end',
];

function wholeNumber(value: string | undefined, flag: string, min: number): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === '' || value === 'none') return null;
  if (!/^\d{1,15}$/.test(value) || Number(value) < min) throw usage(`${flag} must be a whole number of ${min} or more; got ${value}`);
  return Number(value);
}

/** The value after this change: the flag's when given (even when cleared), else the goal's. */
function after<K extends keyof goals.GoalDefinition>(def: Partial<goals.GoalDefinition>, current: goals.GoalRow | undefined, key: K) {
  return key in def ? def[key] ?? null : current?.[key] ?? null;
}

async function requireIn(knex: Db, kind: goals.ScopeKind, id: string, workspaceId: string, what: string) {
  if (!(await goals.scopeObjectInWorkspace(knex, kind, id, workspaceId))) throw notFound(`${what} ${id} not found in workspace ${workspaceId}`);
}

/** Reads the definition flags; on update only the flags given change. */
export async function goalDefinition(
  knex: Db,
  workspaceId: string,
  flags: Flags,
  time: (v: string | undefined, flag: string) => number | null,
  current?: goals.GoalRow,
): Promise<Partial<goals.GoalDefinition>> {
  const def: Partial<goals.GoalDefinition> = {};
  if (flags.name !== undefined) {
    if (!flags.name.trim() || flags.name.length > 200) throw usage('--name must be 1 to 200 characters');
    def.name = flags.name.trim();
  }
  if (flags.type !== undefined) {
    const type = flags.type.toLowerCase();
    if (!(EVENT_TYPES as readonly string[]).includes(type)) throw usage(`--type must be one of ${EVENT_TYPES.join(', ')}; got ${flags.type}`);
    def.type = type as EventType;
  }
  const type = def.type ?? current?.type;
  if (flags['custom-name'] !== undefined) {
    if (flags['custom-name'].length > MAX_CUSTOM_NAME) throw usage(`--custom-name must be at most ${MAX_CUSTOM_NAME} characters`);
    def.custom_name = flags['custom-name'] || null;
  } else if (def.type && def.type !== 'custom') {
    def.custom_name = null;
  }
  if (after(def, current, 'custom_name') && type !== 'custom') throw usage('--custom-name goes with --type custom');
  const scopes = ['link', 'qr', 'campaign'].filter((f) => flags[f] !== undefined && flags[f] !== '');
  if (scopes.length > 1) throw usage('a goal measures at most one of --link, --qr, --campaign');
  if (scopes.length === 1) {
    def.link_id = null;
    def.qr_code_id = null;
    def.campaign_id = null;
    if (flags.link) await requireIn(knex, 'link', flags.link, workspaceId, 'link');
    if (flags.qr) await requireIn(knex, 'qr', flags.qr, workspaceId, 'QR code');
    if (flags.campaign) await requireIn(knex, 'campaign', flags.campaign, workspaceId, 'campaign');
    def.link_id = flags.link || null;
    def.qr_code_id = flags.qr || null;
    def.campaign_id = flags.campaign || null;
  }
  const count = wholeNumber(flags['target-count'], '--target-count', 1);
  if (count !== undefined) def.target_count = count;
  const valueMinor = wholeNumber(flags['target-value-minor'], '--target-value-minor', 0);
  if (valueMinor !== undefined) def.target_value_minor = valueMinor;
  if (flags['target-currency'] !== undefined) {
    const cur = flags['target-currency'].toUpperCase();
    if (cur && !isCurrency(cur)) throw usage(`--target-currency must be an ISO 4217 code; got ${flags['target-currency']}`);
    def.target_currency = cur || null;
  }
  const hasValue = after(def, current, 'target_value_minor') !== null;
  const hasCurrency = after(def, current, 'target_currency') !== null;
  if (hasValue !== hasCurrency) throw usage('--target-value-minor and --target-currency go together');
  if (flags['window-start'] !== undefined) def.window_start = flags['window-start'] === '' ? null : time(flags['window-start'], '--window-start');
  if (flags['window-end'] !== undefined) def.window_end = flags['window-end'] === '' ? null : time(flags['window-end'], '--window-end');
  const start = after(def, current, 'window_start');
  const end = after(def, current, 'window_end');
  if (start !== null && end !== null && Number(end) <= Number(start)) throw usage('--window-end must be after --window-start');
  return def;
}

export async function createGoalCommand(knex: Db, flags: Flags, time: (v: string | undefined, f: string) => number | null) {
  const workspaceId = flags.workspace!;
  const ws = await getWorkspace(knex, workspaceId);
  if (!ws) throw notFound(`workspace ${workspaceId} not found`);
  const def = await goalDefinition(knex, workspaceId, flags, time);
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
  const def = await goalDefinition(knex, current.workspace_id, flags, time, current);
  const row = await goals.updateGoal(knex, current.id, def);
  return { id: row.id, definitionVersion: Number(row.definition_version) };
}

export async function setGoalStatusCommand(knex: Db, flags: Flags) {
  const status = flags.status!.toUpperCase();
  if (!goals.GOAL_STATUSES.includes(status as goals.GoalStatus)) {
    throw usage(`--status must be one of ${goals.GOAL_STATUSES.join(', ')}; got ${flags.status}`);
  }
  const row = await goals.setGoalStatus(knex, flags.id!, status as goals.GoalStatus);
  return { id: row.id, definitionVersion: Number(row.definition_version) };
}
