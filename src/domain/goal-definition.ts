// A goal's definition and its rules, shared by `shortlink goal create|update` and the
// dashboard's goals (openapi/dashboard.yaml, Goals): one place says what a goal may be, and each
// caller names the fields its own way (`--target-count` on the command line, `targetCount` in
// JSON) in the messages.
import { EVENT_TYPES, isCurrency, MAX_CUSTOM_NAME, type EventType } from './conversions.ts';
import { notFound, quoted, type AppError } from './errors.ts';

/** A goal's stored definition (the goals table's columns, src/db/repos/goals.ts). */
export interface GoalDefinition {
  name: string;
  type: EventType;
  custom_name: string | null;
  link_id: string | null;
  qr_code_id: string | null;
  campaign_id: string | null;
  target_count: number | null;
  target_value_minor: number | null;
  target_currency: string | null;
  window_start: number | null;
  window_end: number | null;
}
type GoalRow = GoalDefinition;
export type ScopeKind = 'link' | 'qr' | 'campaign';

/** What a caller asks: a field left out (undefined) stays as it is, `null` clears it. */
export interface GoalInput {
  name?: string;
  type?: string;
  customName?: string | null;
  linkId?: string | null;
  qrCodeId?: string | null;
  campaignId?: string | null;
  targetCount?: number | null;
  targetValueMinor?: number | null;
  targetCurrency?: string | null;
  windowStart?: number | null;
  windowEnd?: number | null;
}
export type GoalField = keyof GoalInput;

export interface GoalRulesContext {
  workspaceId: string;
  /** The field's name as the caller's user knows it. */
  label(field: GoalField): string;
  /** The error for a field that breaks a rule. */
  fail(field: GoalField, message: string): AppError;
  /** Whether the link, QR code or campaign is the workspace's. */
  scopeInWorkspace(kind: ScopeKind, id: string): Promise<boolean>;
}

const SCOPES: Array<{
  field: 'linkId' | 'qrCodeId' | 'campaignId';
  column: 'link_id' | 'qr_code_id' | 'campaign_id';
  kind: ScopeKind;
  what: string;
}> = [
  { field: 'linkId', column: 'link_id', kind: 'link', what: 'link' },
  { field: 'qrCodeId', column: 'qr_code_id', kind: 'qr', what: 'QR code' },
  { field: 'campaignId', column: 'campaign_id', kind: 'campaign', what: 'campaign' },
];

/** The value after this change: the change's when given (even when cleared), else the goal's. */
function after<K extends keyof GoalDefinition>(def: Partial<GoalDefinition>, current: GoalRow | undefined, key: K) {
  return key in def ? (def[key] ?? null) : (current?.[key] ?? null);
}

/**
 * The columns `input` changes, checked against the rules of a goal as it will be (`current`
 * is the goal before an update). Setting one scope clears the others.
 */
export async function goalDefinition(
  input: GoalInput,
  ctx: GoalRulesContext,
  current?: GoalRow,
): Promise<Partial<GoalDefinition>> {
  const { label, fail } = ctx;
  const def: Partial<GoalDefinition> = {};
  if (input.name !== undefined) {
    if (!input.name.trim() || input.name.length > 200)
      throw fail('name', `${label('name')} must be 1 to 200 characters`);
    def.name = input.name.trim();
  }
  if (input.type !== undefined) {
    const type = input.type.toLowerCase();
    if (!(EVENT_TYPES as readonly string[]).includes(type))
      throw fail('type', `${label('type')} must be one of ${EVENT_TYPES.join(', ')}; got ${quoted(input.type)}`);
    def.type = type as EventType;
  }
  const type = def.type ?? current?.type;
  if (input.customName !== undefined) {
    if (input.customName !== null && input.customName.length > MAX_CUSTOM_NAME)
      throw fail('customName', `${label('customName')} must be at most ${MAX_CUSTOM_NAME} characters`);
    def.custom_name = input.customName || null;
  } else if (def.type && def.type !== 'custom') {
    def.custom_name = null;
  }
  if (after(def, current, 'custom_name') && type !== 'custom')
    throw fail('customName', `${label('customName')} goes with ${label('type')} custom`);
  const set = SCOPES.filter((s) => typeof input[s.field] === 'string' && input[s.field] !== '');
  if (set.length > 1)
    throw fail(set[1].field, `a goal measures at most one of ${SCOPES.map((s) => label(s.field)).join(', ')}`);
  for (const s of SCOPES) if (input[s.field] === null) def[s.column] = null;
  if (set.length === 1) {
    const s = set[0];
    const id = input[s.field] as string;
    if (!(await ctx.scopeInWorkspace(s.kind, id)))
      throw notFound(`${s.what} ${quoted(id)} not found in workspace ${ctx.workspaceId}`);
    for (const other of SCOPES) def[other.column] = null;
    def[s.column] = id;
  }
  if (input.targetCount !== undefined) def.target_count = input.targetCount;
  if (input.targetValueMinor !== undefined) def.target_value_minor = input.targetValueMinor;
  if (input.targetCurrency !== undefined) {
    const cur = (input.targetCurrency ?? '').toUpperCase();
    if (cur && !isCurrency(cur))
      throw fail(
        'targetCurrency',
        `${label('targetCurrency')} must be an ISO 4217 code; got ${quoted(input.targetCurrency)}`,
      );
    def.target_currency = cur || null;
  }
  const hasValue = after(def, current, 'target_value_minor') !== null;
  const hasCurrency = after(def, current, 'target_currency') !== null;
  if (hasValue !== hasCurrency)
    throw fail(
      hasValue ? 'targetCurrency' : 'targetValueMinor',
      `${label('targetValueMinor')} and ${label('targetCurrency')} go together`,
    );
  if (input.windowStart !== undefined) def.window_start = input.windowStart;
  if (input.windowEnd !== undefined) def.window_end = input.windowEnd;
  const start = after(def, current, 'window_start');
  const end = after(def, current, 'window_end');
  if (start !== null && end !== null && Number(end) <= Number(start))
    throw fail('windowEnd', `${label('windowEnd')} must be after ${label('windowStart')}`);
  return def;
}
