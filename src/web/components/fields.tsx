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

function Frame(props: FieldFrame & { controlId: string; hintId?: string; errorId?: string; children: ReactNode }) {
  return (
    <div className={['field', props.className].filter(Boolean).join(' ')}>
      <label htmlFor={props.controlId}>{props.label}</label>
      {props.children}
      {props.hint ? (
        <p id={props.hintId} className="field-hint">
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p id={props.errorId} className="field-error">
          {props.error}
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
  const ids = useFieldIds(hint, error, id);
  return (
    <Frame
      label={label}
      hint={hint}
      error={error}
      className={className}
      controlId={ids.controlId}
      hintId={ids.hintId}
      errorId={ids.errorId}
    >
      <input id={ids.controlId} aria-invalid={error ? true : undefined} aria-describedby={ids.describedBy} {...input} />
    </Frame>
  );
}

export function TextAreaField({
  label,
  hint,
  error,
  className,
  id,
  ...area
}: FieldFrame & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const ids = useFieldIds(hint, error, id);
  return (
    <Frame
      label={label}
      hint={hint}
      error={error}
      className={className}
      controlId={ids.controlId}
      hintId={ids.hintId}
      errorId={ids.errorId}
    >
      <textarea
        id={ids.controlId}
        aria-invalid={error ? true : undefined}
        aria-describedby={ids.describedBy}
        {...area}
      />
    </Frame>
  );
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
  const ids = useFieldIds(hint, error, id);
  return (
    <Frame
      label={label}
      hint={hint}
      error={error}
      className={className}
      controlId={ids.controlId}
      hintId={ids.hintId}
      errorId={ids.errorId}
    >
      <select id={ids.controlId} aria-invalid={error ? true : undefined} aria-describedby={ids.describedBy} {...select}>
        {children}
      </select>
    </Frame>
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
