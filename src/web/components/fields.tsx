// Labelled form controls. A field's hint and its error are tied to the control with
// aria-describedby; an error also sets aria-invalid. Errors sit right under their control.
import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';

interface FieldFrame {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
  /** Classes for the wrapper (layout on the screen's grid). */
  className?: string;
}

function useFieldIds(hint: ReactNode, error: string | undefined, id?: string) {
  const auto = useId();
  const controlId = id ?? auto;
  const hintId = hint ? `${controlId}-hint` : undefined;
  const errorId = error ? `${controlId}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return { controlId, hintId, errorId, describedBy };
}

/** What ties a control to its label, hint and error. */
interface ControlTies {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/** The label, hint and error around the control `control` draws with the ties it is given. */
function Field({
  frame: { label, hint, error, className, id },
  control,
}: {
  frame: FieldFrame & { id: string | undefined };
  control: (ties: ControlTies) => ReactNode;
}) {
  const ids = useFieldIds(hint, error, id);
  return (
    <div className={['field', className].filter(Boolean).join(' ')}>
      <label htmlFor={ids.controlId}>{label}</label>
      {control({ id: ids.controlId, 'aria-invalid': error ? true : undefined, 'aria-describedby': ids.describedBy })}
      {hint ? (
        <p id={ids.hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={ids.errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function TextField({
  label,
  hint,
  error,
  className,
  id,
  ...input
}: FieldFrame & InputHTMLAttributes<HTMLInputElement>) {
  return <Field frame={{ label, hint, error, className, id }} control={(ties) => <input {...ties} {...input} />} />;
}

export function TextAreaField({
  label,
  hint,
  error,
  className,
  id,
  ...area
}: FieldFrame & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <Field frame={{ label, hint, error, className, id }} control={(ties) => <textarea {...ties} {...area} />} />;
}

export function SelectField({
  label,
  hint,
  error,
  className,
  id,
  children,
  ...select
}: FieldFrame & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Field
      frame={{ label, hint, error, className, id }}
      control={(ties) => (
        <select {...ties} {...select}>
          {children}
        </select>
      )}
    />
  );
}

export function CheckboxField({
  label,
  hint,
  className,
  id,
  ...input
}: Omit<FieldFrame, 'error'> & InputHTMLAttributes<HTMLInputElement>) {
  const ids = useFieldIds(hint, undefined, id);
  return (
    <div className={['check', className].filter(Boolean).join(' ')}>
      <input type="checkbox" id={ids.controlId} aria-describedby={ids.describedBy} {...input} />
      <label htmlFor={ids.controlId}>{label}</label>
      {hint ? (
        <p id={ids.hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
