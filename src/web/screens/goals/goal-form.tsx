// A goal's definition, to make one or change one: name, the conversions it matches (type, custom
// name, one scope, its own window) and its targets. The service checks the rules (the command
// line's); its answers land next to the field they name.
import { useRef, useState, type FormEvent } from 'react';
import { useSaveGoal } from '../../api/goals.ts';
import { useCampaigns } from '../../api/settings.ts';
import { ComboField } from '../../components/combo-field.tsx';
import type { EventType, Goal, GoalCreate } from '../../api/types.ts';
import { SubmitButton } from '../../components/buttons.tsx';
import { FormAlert } from '../../components/feedback.tsx';
import { Options, SelectField, TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { LinkField, QrField } from '../../components/link-search.tsx';
import { textInputs } from '../../components/text-inputs.ts';
import { EVENT_TYPES, fractionDigits } from '../../lib/conversions.ts';
import { isoToLocalInput, localInputToIso } from '../../lib/dates.ts';

type Field =
  | 'name'
  | 'type'
  | 'customName'
  | 'scope'
  | 'scopeId'
  | 'targetCount'
  | 'targetValue'
  | 'targetCurrency'
  | 'windowStart'
  | 'windowEnd';
const FIELDS: Record<string, Field> = {
  name: 'name',
  type: 'type',
  customName: 'customName',
  linkId: 'scopeId',
  qrCodeId: 'scopeId',
  campaignId: 'scopeId',
  targetCount: 'targetCount',
  targetValueMinor: 'targetValue',
  targetCurrency: 'targetCurrency',
  windowStart: 'windowStart',
  windowEnd: 'windowEnd',
};
type Scope = 'none' | 'linkId' | 'qrCodeId' | 'campaignId';
type TextKey = Exclude<Field, 'type' | 'scope' | 'targetCurrency'>;

interface State {
  name: string;
  type: EventType;
  customName: string;
  scope: Scope;
  scopeId: string;
  targetCount: string;
  targetValue: string;
  targetCurrency: string;
  windowStart: string;
  windowEnd: string;
}

function initial(goal?: Goal): State {
  const scope: Scope = goal?.linkId ? 'linkId' : goal?.qrCodeId ? 'qrCodeId' : goal?.campaignId ? 'campaignId' : 'none';
  return {
    name: goal?.name ?? '',
    type: goal?.type ?? 'signup',
    customName: goal?.customName ?? '',
    scope,
    scopeId: (scope === 'none' ? '' : goal?.[scope]) ?? '',
    targetCount: goal?.targetCount == null ? '' : String(goal.targetCount),
    targetValue:
      goal?.targetValueMinor == null
        ? ''
        : (goal.targetValueMinor / 10 ** fractionDigits(goal.targetCurrency)).toFixed(
            fractionDigits(goal.targetCurrency),
          ),
    targetCurrency: goal?.targetCurrency ?? '',
    windowStart: isoToLocalInput(goal?.windowStart),
    windowEnd: isoToLocalInput(goal?.windowEnd),
  };
}

/** The value typed ("1,250.50") in minor units of `currency`. */
function minorUnits(value: string, currency: string): number | null | 'bad' {
  const v = value.replace(/[,\s]/g, '');
  if (!v) return null;
  const digits = fractionDigits(currency);
  if (!new RegExp(digits ? `^\\d+(\\.\\d{1,${digits}})?$` : '^\\d+$').test(v)) return 'bad';
  return Math.round(Number(v) * 10 ** digits);
}

export function GoalForm({
  workspaceId,
  goal,
  onSaved,
  submitLabel,
}: {
  workspaceId: string;
  goal?: Goal;
  onSaved: (g: Goal) => void;
  submitLabel: string;
}) {
  const [state, setState] = useState<State>(() => initial(goal));
  const set = <K extends keyof State>(key: K, value: State[K]) => setState((s) => ({ ...s, [key]: value }));
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);
  const campaigns = useCampaigns(workspaceId);
  /** The inputs that keep the text as typed. */
  const input = textInputs<TextKey>(state, set, errors.fields);

  const body = (): GoalCreate | null => {
    const value = minorUnits(state.targetValue, state.targetCurrency.trim());
    const count = state.targetCount.trim();
    const problems: Partial<Record<Field, string>> = {
      name: state.name.trim() ? undefined : 'Name the goal.',
      scopeId:
        state.scope !== 'none' && !state.scopeId.trim()
          ? state.scope === 'linkId'
            ? 'Choose the link, or measure every conversion.'
            : state.scope === 'campaignId'
              ? 'Choose the campaign, or measure every conversion.'
              : 'Choose the QR code by its link, or measure every conversion.'
          : undefined,
      targetCount:
        count && !/^[1-9]\d{0,14}$/.test(count) ? 'Enter a whole number of 1 or more, or leave it empty.' : undefined,
      targetValue:
        value === 'bad'
          ? `Enter an amount such as 1250${fractionDigits(state.targetCurrency.trim()) ? ' or 1250.50' : ''}, or leave it empty.`
          : undefined,
      targetCurrency:
        value !== null && value !== 'bad' && !state.targetCurrency.trim()
          ? 'Enter the currency of the value target (EUR, USD…).'
          : undefined,
    };
    if (!errors.check(problems)) return null;
    const scopeValue = (s: Scope) => (state.scope === s ? state.scopeId.trim() : null);
    const all: GoalCreate = {
      name: state.name.trim(),
      type: state.type,
      customName: state.type === 'custom' ? state.customName.trim() || null : null,
      linkId: scopeValue('linkId'),
      qrCodeId: scopeValue('qrCodeId'),
      campaignId: scopeValue('campaignId'),
      targetCount: count ? Number(count) : null,
      targetValueMinor: value === 'bad' ? null : value,
      targetCurrency: state.targetCurrency.trim() || null,
      windowStart: localInputToIso(state.windowStart),
      windowEnd: localInputToIso(state.windowEnd),
    };
    if (!goal) return all;
    // A change sends only what changed: the service raises definitionVersion for what it gets.
    const was = (k: keyof GoalCreate): unknown => {
      const v = goal[k];
      return (k === 'windowStart' || k === 'windowEnd') && v ? new Date(v as string).getTime() : v;
    };
    const now = (k: keyof GoalCreate): unknown => {
      const v = all[k];
      return (k === 'windowStart' || k === 'windowEnd') && v ? new Date(v as string).getTime() : v;
    };
    return Object.fromEntries(
      Object.entries(all).filter(([k]) => now(k as keyof GoalCreate) !== was(k as keyof GoalCreate)),
    ) as GoalCreate;
  };

  const save = useSaveGoal(workspaceId, goal?.id, {
    onSuccess: (answer) => {
      errors.clear();
      if (!goal) setState(initial());
      onSaved(answer.data);
    },
    onError: (err) => errors.show(err),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const b = body();
    if (!b) return;
    if (goal && Object.keys(b).length === 0) onSaved(goal);
    else save.mutate(b);
  };

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="stack">
      <FormAlert message={errors.form} />
      <div className="grid-2">
        <TextField label="Name" {...input('name')} maxLength={200} required />
        <SelectField
          label="Conversions of type"
          value={state.type}
          onChange={(e) => set('type', e.target.value as EventType)}
          error={errors.fields.type}
        >
          <Options choices={EVENT_TYPES} />
        </SelectField>
      </div>
      {state.type === 'custom' ? (
        <TextField
          label="Custom event name"
          hint="Leave empty to count every custom event."
          {...input('customName')}
          maxLength={40}
        />
      ) : null}
      <div className="grid-2">
        <SelectField
          label="Measure"
          value={state.scope}
          // Another kind of scope starts unchosen: a link's id is no campaign's.
          onChange={(e) => setState((s) => ({ ...s, scope: e.target.value as Scope, scopeId: '' }))}
          hint="A goal measures one link, QR code or campaign, or every conversion of its type (unattributed ones too)."
        >
          <option value="none">Every conversion of this type</option>
          <option value="linkId">One link</option>
          <option value="qrCodeId">One QR code</option>
          <option value="campaignId">One campaign</option>
        </SelectField>
        {state.scope === 'campaignId' && campaigns.data?.length ? (
          <ComboField
            label="Campaign"
            noun="campaign"
            placeholder="Type to find a campaign"
            choices={campaigns.data.map((c) => ({ value: c.id, label: c.name }))}
            value={state.scopeId}
            onChange={(id) => set('scopeId', id)}
            error={errors.fields.scopeId}
          />
        ) : state.scope === 'campaignId' ? (
          <TextField label="Campaign id" {...input('scopeId')} spellCheck={false} />
        ) : null}
      </div>
      {state.scope === 'qrCodeId' ? (
        <QrField
          workspaceId={workspaceId}
          label="QR code of a link"
          name="the goal's QR code"
          qrCodeId={state.scopeId}
          onChange={(id) => set('scopeId', id)}
          error={errors.fields.scopeId}
        />
      ) : null}
      {state.scope === 'linkId' ? (
        <LinkField
          workspaceId={workspaceId}
          label="Link"
          name="the goal's link"
          linkId={state.scopeId}
          onChange={(id) => set('scopeId', id)}
          error={errors.fields.scopeId}
        />
      ) : null}
      <fieldset>
        <legend>Targets (optional)</legend>
        <div className="grid-3">
          <TextField label="Conversions" inputMode="numeric" {...input('targetCount')} />
          <TextField label="Value" inputMode="decimal" {...input('targetValue')} />
          <TextField
            label="Currency"
            value={state.targetCurrency}
            onChange={(e) => set('targetCurrency', e.target.value.toUpperCase())}
            error={errors.fields.targetCurrency}
            maxLength={3}
            placeholder="EUR"
          />
        </div>
      </fieldset>
      <fieldset>
        <legend>The goal's own window (optional)</legend>
        <div className="grid-2">
          <TextField label="From" type="datetime-local" {...input('windowStart')} />
          <TextField label="Until" type="datetime-local" {...input('windowEnd')} />
        </div>
      </fieldset>
      <div>
        <SubmitButton pending={save.isPending}>{submitLabel}</SubmitButton>
      </div>
    </form>
  );
}
