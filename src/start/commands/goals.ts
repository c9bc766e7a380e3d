// `shortlink goal create|update|set-status`: goals are managed by operators here and by people in the
// dashboard, never the public API; both through the goal operations (src/operations/goals.ts), and
// recorded in the audit log with the dashboard's entries (goal.created, goal.updated,
// goal.status_changed), in the change's transaction.
import { GOAL_STATUSES, type GoalStatus } from '../../db/repos/goals.ts';
import type { GoalField, GoalInput } from '../../domain/goal-definition.ts';
import { quoted, usage } from '../../domain/errors.ts';
import { audited, changedBetween, CLI_ACTOR, createdFields, diffFields } from '../../operations/audit.ts';
import {
  createGoal,
  goalOf,
  presentGoal,
  setGoalStatus,
  updateGoal,
  type GoalWording,
} from '../../operations/goals.ts';
import { workspaceOf } from '../../operations/workspaces.ts';
import { isoTime, type Command, type Flags } from './command.ts';

const GOAL_FLAGS = [
  'name',
  'type',
  'custom-name',
  'link',
  'qr',
  'campaign',
  'target-count',
  'target-value-minor',
  'target-currency',
  'window-start',
  'window-end',
];

function wholeNumber(value: string | undefined, flag: string, min: number): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === '' || value === 'none') return null;
  if (!/^\d{1,15}$/.test(value) || Number(value) < min)
    throw usage(`${flag} must be a whole number of ${min} or more; got ${quoted(value)}`);
  return Number(value);
}

const LABELS: Record<GoalField, string> = {
  name: '--name',
  type: '--type',
  customName: '--custom-name',
  linkId: '--link',
  qrCodeId: '--qr',
  campaignId: '--campaign',
  targetCount: '--target-count',
  targetValueMinor: '--target-value-minor',
  targetCurrency: '--target-currency',
  windowStart: '--window-start',
  windowEnd: '--window-end',
};

/** The definition flags as the goal rules take them; on update only the flags given change. */
/** A window's bound: unchanged when the flag is absent, removed when it is empty, else an ISO time. */
function windowTime(flags: Flags, flag: 'window-start' | 'window-end'): number | null | undefined {
  const value = flags[flag];
  return value === undefined ? undefined : value === '' ? null : isoTime(value, `--${flag}`);
}

function goalInput(flags: Flags): GoalInput {
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
    windowStart: windowTime(flags, 'window-start'),
    windowEnd: windowTime(flags, 'window-end'),
  };
  return input;
}

/** The messages name the flags; a broken rule is a usage error. */
const wording: GoalWording = { label: (f) => LABELS[f], fail: (_f, message) => usage(message) };

export const goalCommands: Record<string, Command> = {
  'goal create': {
    flags: ['workspace', ...GOAL_FLAGS],
    required: ['workspace', 'name', 'type'],
    run: async ({ db, flags }) => {
      const workspace = await workspaceOf(db.knex, flags.workspace!);
      const row = await audited(
        db.knex,
        CLI_ACTOR,
        workspace.id,
        (trx) => createGoal(trx, workspace.id, goalInput(flags), wording),
        (g) => ({ action: 'goal.created', objectType: 'goal', objectId: g.id, changes: createdFields(presentGoal(g)) }),
      );
      return { id: row.id };
    },
  },
  'goal update': {
    flags: ['id', ...GOAL_FLAGS],
    required: ['id'],
    run: async ({ db, flags }) => {
      const current = await goalOf(db.knex, flags.id!);
      const row = await audited(
        db.knex,
        CLI_ACTOR,
        current.workspace_id,
        (trx) => updateGoal(trx, current, goalInput(flags), wording),
        (g) => ({
          action: 'goal.updated',
          objectType: 'goal',
          objectId: g.id,
          changes: changedBetween(presentGoal(current), presentGoal(g)),
        }),
      );
      return { id: row.id, definitionVersion: Number(row.definition_version) };
    },
  },
  'goal set-status': {
    flags: ['id', 'status'],
    required: ['id', 'status'],
    run: async ({ db, flags }) => {
      const status = flags.status!.toUpperCase();
      if (!GOAL_STATUSES.includes(status as GoalStatus)) {
        throw usage(`--status must be one of ${GOAL_STATUSES.join(', ')}; got ${quoted(flags.status)}`);
      }
      const current = await goalOf(db.knex, flags.id!);
      const row = await audited(
        db.knex,
        CLI_ACTOR,
        current.workspace_id,
        (trx) => setGoalStatus(trx, current.id, status as GoalStatus),
        (g) => ({
          action: 'goal.status_changed',
          objectType: 'goal',
          objectId: g.id,
          changes: diffFields({ status: current.status }, { status: g.status }),
        }),
      );
      return { id: row.id, definitionVersion: Number(row.definition_version) };
    },
  },
};
