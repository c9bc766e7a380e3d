// A bio page's theme: one radio per theme with its swatch and what it is for; the service's
// refusal of the theme below them.
import type { PageTheme } from '../../api/types.ts';
import { FormSection } from '../../components/form-section.tsx';
import { THEMES } from './page-form.ts';

export function ThemePicker({
  value,
  onChange,
  error,
  editable,
}: {
  value: PageTheme;
  onChange: (theme: PageTheme) => void;
  error?: string;
  editable: boolean;
}) {
  return (
    <FormSection legend="Theme" editable={editable} describedBy={error ? 'theme-error' : undefined}>
      <div className="theme-grid">
        {THEMES.map((t) => (
          <div key={t.value} className={`theme-option${value === t.value ? ' is-checked' : ''}`}>
            <input
              type="radio"
              name="page-theme"
              id={`theme-${t.value}`}
              value={t.value}
              checked={value === t.value}
              onChange={() => onChange(t.value as PageTheme)}
              aria-describedby={`theme-${t.value}-what`}
            />
            <label htmlFor={`theme-${t.value}`}>
              <span className={`theme-swatch theme-swatch-${t.value}`} aria-hidden="true">
                <span />
              </span>
              {t.name}
            </label>
            <p id={`theme-${t.value}-what`} className="field-hint">
              {t.description}
            </p>
          </div>
        ))}
      </div>
      <p className="field-hint">Each theme's colours keep every text readable (WCAG AA contrast).</p>
      {error ? (
        <p id="theme-error" className="field-error">
          {error}
        </p>
      ) : null}
    </FormSection>
  );
}
