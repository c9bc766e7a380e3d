// The API's `{ error, field? }` on a form: next to the input the field names, else at the top.
import { useCallback, useEffect, useState, type RefObject } from 'react';
import { asApiError } from '../api/errors.ts';

export interface FormErrors<K extends string> {
  fields: Partial<Record<K, string>>;
  form: string | null;
}

/**
 * `fieldOf` maps the API's field names (a body property, a query parameter) to the form's
 * input keys. `show` puts an error where it belongs and moves focus there.
 */
export function useFormErrors<K extends string>(fieldOf: Record<string, K>, formRef?: RefObject<HTMLElement | null>) {
  const [errors, setErrors] = useState<FormErrors<K>>({ fields: {}, form: null });

  // Focus moves once the errors are on the page: after React has committed them (an effect), not
  // at the next frame, which on a busy machine can come before the render that shows them.
  const [focusAsked, askFocus] = useState(0);
  const focusFirstProblem = useCallback(() => askFocus((n) => n + 1), []);
  useEffect(() => {
    if (focusAsked === 0) return;
    const root = formRef?.current;
    if (!root) return;
    // [data-problem]: a control at fault that is not an input (a choice made with a button).
    const target =
      root.querySelector<HTMLElement>('[aria-invalid="true"], [data-problem]') ??
      root.querySelector<HTMLElement>('[role="alert"]');
    if (target) {
      if (!target.hasAttribute('tabindex') && target.getAttribute('role') === 'alert')
        target.setAttribute('tabindex', '-1');
      target.focus();
    }
  }, [focusAsked, formRef]);

  const show = useCallback(
    (err: unknown, formatForm?: (message: string, status: number) => string) => {
      const e = asApiError(err);
      // "value.amountMinor" or "tagIds.2" name their top-level field first.
      const top = e.field?.split(/[.[]/)[0];
      const key = e.field ? (fieldOf[e.field] ?? (top ? fieldOf[top] : undefined)) : undefined;
      if (key) setErrors({ fields: { [key]: e.message } as Partial<Record<K, string>>, form: null });
      else setErrors({ fields: {}, form: formatForm ? formatForm(e.message, e.status) : e.message });
      focusFirstProblem();
    },
    [fieldOf, focusFirstProblem],
  );

  /** Problems found in the page before sending (empty: none). */
  const check = useCallback(
    (fields: Partial<Record<K, string>>): boolean => {
      const clean = Object.fromEntries(Object.entries(fields).filter(([, v]) => v)) as Partial<Record<K, string>>;
      setErrors({ fields: clean, form: null });
      if (Object.keys(clean).length) {
        focusFirstProblem();
        return false;
      }
      return true;
    },
    [focusFirstProblem],
  );

  const clear = useCallback(() => setErrors({ fields: {}, form: null }), []);

  return { fields: errors.fields, form: errors.form, show, check, clear };
}
