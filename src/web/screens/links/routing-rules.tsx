// The routing editor's rules in order: each a group named by its position with its conditions
// (a type and a value; a query parameter's name and optional value), its destination, and
// moving and removing. A role that changes nothing reads them.
import { Options, SelectField, TextField } from '../../components/fields.tsx';
import { boundText } from '../../components/text-inputs.ts';
import { ItemActions, useOrderedItems } from '../../components/ordered-items.tsx';
import {
  CONDITION_TYPES,
  conditionType,
  isMoment,
  LIMITS,
  newCondition,
  newRule,
  type ConditionDraft,
  type ConditionType,
  type RuleDraft,
} from './routing-form.ts';

/** The API's errors by its field names (`rules[1].conditions[0].value`). */
export type RoutingErrors = Partial<Record<string, string>>;

export function RuleList({
  rules,
  onChange,
  errors,
  editable,
}: {
  rules: RuleDraft[];
  onChange: (rules: RuleDraft[]) => void;
  errors: RoutingErrors;
  editable: boolean;
}) {
  const change = (key: string, patch: Partial<RuleDraft>) =>
    onChange(rules.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const list = useOrderedItems(rules, onChange, { noun: 'Rule', addId: 'add-rules' });
  const add = () => list.add(newRule(), 'select', `Rule ${rules.length + 1} added.`);
  const full = rules.length >= LIMITS.rules;
  return (
    <>
      {rules.length === 0 ? (
        <p className="muted blocks-empty">No rules: every visitor goes to the split, or to the link's own URL.</p>
      ) : (
        <ol className="block-list">
          {rules.map((r, i) => (
            <li key={r.key} data-item-key={r.key}>
              <RuleItem
                rule={r}
                index={i}
                count={rules.length}
                errors={errors}
                editable={editable}
                onChange={(patch) => change(r.key, patch)}
                onMove={(by) => list.move(i, by)}
                onRemove={() => list.remove(i)}
              />
            </li>
          ))}
        </ol>
      )}
      {errors.rules ? (
        <p className="field-error" data-problem tabIndex={-1}>
          {errors.rules}
        </p>
      ) : null}
      {editable ? (
        <div className="block-add" id="add-rules" tabIndex={-1}>
          <button type="button" className="button button-small" onClick={add} disabled={full}>
            <span aria-hidden="true">+</span> Add a rule
          </button>
          <span className="field-hint">
            {full ? `A link has at most ${LIMITS.rules} rules.` : 'The first rule whose conditions all match wins.'}
          </span>
        </div>
      ) : null}
    </>
  );
}

function RuleItem({
  rule,
  index,
  count,
  errors,
  editable,
  onChange,
  onMove,
  onRemove,
}: {
  rule: RuleDraft;
  index: number;
  count: number;
  errors: RoutingErrors;
  editable: boolean;
  onChange: (patch: Partial<RuleDraft>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const n = index + 1;
  const at = `rules[${index}]`;
  const ruleError = errors[at] ?? errors[`${at}.conditions`];
  const errorId = `rule-${rule.key}-error`;
  const setCondition = (key: string, patch: Partial<ConditionDraft>) =>
    onChange({ conditions: rule.conditions.map((c) => (c.key === key ? { ...c, ...patch } : c)) });
  return (
    <fieldset className="block-item rule-item" aria-describedby={ruleError ? errorId : undefined}>
      <legend>
        <span className="block-number">Rule {n}</span>
      </legend>
      {editable ? <ItemActions noun="Rule" position={n} count={count} onMove={onMove} onRemove={onRemove} /> : null}
      <div className="block-body">
        <p className="field-hint rule-when">When all of these match:</p>
        <ol className="condition-list">
          {rule.conditions.map((c, j) => (
            <li key={c.key}>
              <ConditionRow
                condition={c}
                rule={n}
                position={j + 1}
                at={`${at}.conditions[${j}]`}
                errors={errors}
                editable={editable}
                removable={rule.conditions.length > 1}
                onChange={(patch) => setCondition(c.key, patch)}
                onRemove={() => onChange({ conditions: rule.conditions.filter((d) => d.key !== c.key) })}
              />
            </li>
          ))}
        </ol>
        {editable ? (
          <div className="block-add">
            <button
              type="button"
              className="button button-small"
              aria-label={`Add a condition to rule ${n}`}
              disabled={rule.conditions.length >= LIMITS.conditions}
              onClick={() => onChange({ conditions: [...rule.conditions, newCondition()] })}
            >
              <span aria-hidden="true">+</span> Add a condition
            </button>
          </div>
        ) : null}
        <TextField
          label="Destination URL"
          type="url"
          inputMode="url"
          name={`${at}.url`}
          {...boundText(rule.url, (url) => onChange({ url }))}
          error={errors[`${at}.url`]}
          placeholder="https://example.com/for-these-visitors"
          maxLength={2048}
          required
        />
        {ruleError ? (
          <p id={errorId} className="field-error" data-problem tabIndex={-1}>
            {ruleError}
          </p>
        ) : null}
      </div>
    </fieldset>
  );
}

function ConditionRow({
  condition: c,
  rule,
  position,
  at,
  errors,
  editable,
  removable,
  onChange,
  onRemove,
}: {
  condition: ConditionDraft;
  rule: number;
  position: number;
  at: string;
  errors: RoutingErrors;
  editable: boolean;
  removable: boolean;
  onChange: (patch: Partial<ConditionDraft>) => void;
  onRemove: () => void;
}) {
  const kind = conditionType(c.type);
  const name = `Rule ${rule}, condition ${position}`;
  const error = errors[at];
  const changeType = (type: ConditionType) => {
    // A fixed list's first value, or what was typed when the new type takes text too.
    const choices = conditionType(type).choices;
    const keep = !choices && !kind.choices && isMoment(type) === isMoment(c.type);
    onChange({ type, value: choices ? choices[0].value : keep ? c.value : '' });
  };
  const value = { ...boundText(c.value, (v) => onChange({ value: v })), error: errors[`${at}.value`] };
  return (
    <div className="condition-row" role="group" aria-label={name}>
      <SelectField
        label="Type"
        className="condition-type"
        name={`${at}.type`}
        value={c.type}
        onChange={(e) => changeType(e.target.value as ConditionType)}
        error={errors[`${at}.type`]}
      >
        <Options choices={CONDITION_TYPES} />
      </SelectField>
      {c.type === 'query' ? (
        <>
          <TextField
            label="Parameter name"
            name={`${at}.name`}
            {...boundText(c.name, (v) => onChange({ name: v }))}
            error={errors[`${at}.name`]}
            maxLength={128}
            autoCapitalize="none"
            spellCheck={false}
          />
          <TextField
            label="Value (optional)"
            name={`${at}.value`}
            {...value}
            maxLength={256}
            autoCapitalize="none"
            spellCheck={false}
          />
        </>
      ) : kind.choices ? (
        <SelectField label="Value" name={`${at}.value`} {...value}>
          {/* A stored value the list lacks stays shown and sent, for the service to judge. */}
          <Options
            choices={
              kind.choices.some((o) => o.value === c.value)
                ? kind.choices
                : [...kind.choices, { value: c.value, label: c.value }]
            }
          />
        </SelectField>
      ) : (
        <TextField
          label="Value"
          name={`${at}.value`}
          type={isMoment(c.type) ? 'datetime-local' : 'text'}
          {...value}
          hint={kind.hint}
          maxLength={256}
          autoCapitalize="none"
          spellCheck={false}
        />
      )}
      {editable && removable ? (
        <button
          type="button"
          className="button button-small button-danger-quiet condition-remove"
          aria-label={`Remove condition ${position} of rule ${rule}`}
          onClick={onRemove}
        >
          Remove
        </button>
      ) : null}
      {error ? (
        <p className="field-error" data-problem tabIndex={-1}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
