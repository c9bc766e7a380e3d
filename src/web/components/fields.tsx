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

/** What ties a control to its label, hint and error; spread before the caller's own props. */
interface ControlLinks {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

function useFieldIds(hint: ReactNode, error: string | undefined, id?: string) {
  const auto = useId();
  const controlId = id ?? auto;
  const hintId = hint ? `${controlId}-hint` : undefined;
  const errorId = error ? `${controlId}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return { controlId, hintId, errorId, describedBy };
}

interface FieldProps extends FieldFrame {
  id?: string | undefined;
  /** The control, given what links it to the label, hint and error. */
  control: (links: ControlLinks) => ReactNode;
}

/** The label above the control, then the hint and the error. */
function Field({ label, hint, error, className, id, control }: FieldProps) {
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

/** A field component's props split into the frame's and the control's own. */
function splitFrame<P extends { id?: string | undefined }>({
  label,
  hint,
  error,
  className,
  id,
  ...control
}: FieldFrame & P): { frame: Omit<FieldProps, 'control'>; control: Omit<FieldFrame & P, keyof FieldFrame | 'id'> } {
  return { frame: { label, hint, error, className, id }, control };
}

export function TextField(props: FieldFrame & InputHTMLAttributes<HTMLInputElement>) {
  const { frame, control } = splitFrame(props);
  return <Field {...frame} control={(links) => <input {...links} {...control} />} />;
}

export function TextAreaField(props: FieldFrame & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { frame, control } = splitFrame(props);
  return <Field {...frame} control={(links) => <textarea {...links} {...control} />} />;
}

export function SelectField(props: FieldFrame & SelectHTMLAttributes<HTMLSelectElement>) {
  const { frame, control } = splitFrame(props);
  return <Field {...frame} control={(links) => <select {...links} {...control} />} />;
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

/** One of the values a select offers, and what it reads. */
interface Choice {
  value: string;
  label: string;
}

/** A select's options, one a choice, in the given order. */
export function Options({ choices }: { choices: readonly Choice[] }) {
  return (
    <>
      {choices.map((c) => (
        <option key={c.value} value={c.value}>
          {c.label}
        </option>
      ))}
    </>
  );
}
