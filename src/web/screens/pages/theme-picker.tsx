// The page editor's "Theme": one of the service's themes, each a radio with a swatch and what it
// looks like.
import type { PageTheme } from '../../api/types.ts';
import { THEMES } from './page-form.ts';

export function ThemeSection({
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
    <fieldset className="form-section" disabled={!editable} aria-describedby={error ? 'theme-error' : undefined}>
      <legend>Theme</legend>
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
    </fieldset>
  );
}
