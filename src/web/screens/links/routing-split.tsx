// The routing editor's A/B split: its variants (a destination and a whole per cent each, summing
// to 100), when it ends and what picks the winner then.
import { Options, SelectField, TextField } from '../../components/fields.tsx';
import { boundText } from '../../components/text-inputs.ts';
import { announce } from '../../lib/announce.ts';
import { LIMITS, newSplit, newVariant, variantName, type SplitDraft, type VariantDraft } from './routing-form.ts';
import type { RoutingErrors } from './routing-rules.tsx';

const METRICS = [
  { value: 'clicks', label: 'Most clicks' },
  { value: 'conversions', label: 'Highest conversion rate' },
] as const;

export function SplitEditor({
  split,
  onChange,
  errors,
  editable,
}: {
  split: SplitDraft | null;
  onChange: (split: SplitDraft | null) => void;
  errors: RoutingErrors;
  editable: boolean;
}) {
  if (!split) {
    return (
      <>
        <p className="muted">No split: visitors no rule matched go to the link's own URL.</p>
        {editable ? (
          <div className="block-add">
            <button
              type="button"
              className="button button-small"
              onClick={() => {
                onChange(newSplit());
                announce('Split added with variants A and B at 50% each.');
              }}
            >
              <span aria-hidden="true">+</span> Add a split
            </button>
          </div>
        ) : null}
      </>
    );
  }
  const setVariant = (key: string, patch: Partial<VariantDraft>) =>
    onChange({ ...split, variants: split.variants.map((v) => (v.key === key ? { ...v, ...patch } : v)) });
  const total = split.variants.reduce((n, v) => n + (Number(v.weight) || 0), 0);
  const variantsError = errors['split.variants'] ?? errors.split;
  return (
    <>
      <p className="field-hint">
        Visitors no rule matched are shared out by weight, and keep their variant until the split ends.
      </p>
      <ol className="block-list">
        {split.variants.map((v, i) => {
          const at = `split.variants[${i}]`;
          const name = `Variant ${variantName(i)}`;
          return (
            <li key={v.key}>
              <fieldset className="block-item variant-item">
                <legend>
                  <span className="block-number">{name}</span>
                </legend>
                {editable && split.variants.length > LIMITS.minVariants ? (
                  <div className="block-actions">
                    <button
                      type="button"
                      className="button button-small button-danger-quiet"
                      aria-label={`Remove variant ${variantName(i)}`}
                      onClick={() => {
                        onChange({ ...split, variants: split.variants.filter((w) => w.key !== v.key) });
                        announce(`${name} removed; the variants after it move up a letter.`);
                      }}
                    >
                      Remove
                    </button>
                  </div>
                ) : null}
                <div className="block-body variant-body">
                  <TextField
                    label="Destination URL"
                    type="url"
                    inputMode="url"
                    name={`${at}.url`}
                    {...boundText(v.url, (url) => setVariant(v.key, { url }))}
                    error={errors[`${at}.url`]}
                    placeholder="https://example.com/variant"
                    maxLength={2048}
                    required
                  />
                  <TextField
                    label="Weight (%)"
                    className="variant-weight"
                    inputMode="numeric"
                    name={`${at}.weight`}
                    {...boundText(v.weight, (weight) => setVariant(v.key, { weight }))}
                    error={errors[`${at}.weight`] ?? errors[at]}
                    required
                  />
                </div>
              </fieldset>
            </li>
          );
        })}
      </ol>
      <div className="block-add">
        {editable ? (
          <button
            type="button"
            className="button button-small"
            disabled={split.variants.length >= LIMITS.variants}
            onClick={() => {
              onChange({ ...split, variants: [...split.variants, newVariant()] });
              announce(`Variant ${variantName(split.variants.length)} added.`);
            }}
          >
            <span aria-hidden="true">+</span> Add a variant
          </button>
        ) : null}
        <span className={total === 100 ? 'field-hint' : 'field-hint weight-off'} aria-live="polite">
          The weights add up to {total}%{total === 100 ? '.' : ', not 100%.'}
        </span>
      </div>
      {variantsError ? (
        <p className="field-error" data-problem tabIndex={-1}>
          {variantsError}
        </p>
      ) : null}
      <div className="grid-2">
        <TextField
          label="Split ends at"
          type="datetime-local"
          name="split.endsAt"
          {...boundText(split.endsAt, (endsAt) => onChange({ ...split, endsAt }))}
          error={errors['split.endsAt']}
          hint="Your local time. Then the winner serves everyone; empty for never."
        />
        <SelectField
          label="Winner chosen by"
          name="split.metric"
          value={split.metric}
          onChange={(e) => onChange({ ...split, metric: e.target.value as SplitDraft['metric'] })}
          error={errors['split.metric']}
        >
          <Options choices={METRICS} />
        </SelectField>
      </div>
      {editable ? (
        <div className="block-add">
          <button
            type="button"
            className="button button-small button-danger-quiet"
            onClick={() => {
              onChange(null);
              announce('Split removed.');
            }}
          >
            Remove the split
          </button>
        </div>
      ) : null}
    </>
  );
}
