// A section of an editor's form (a link's, a page's): its legend, and every control in it disabled
// while the person may only read.
import type { ReactNode } from 'react';

export function FormSection(props: {
  legend: string;
  editable: boolean;
  /** The id of the section's own error, when it has one. */
  describedBy?: string | undefined;
  children: ReactNode;
}) {
  return (
    <fieldset className="form-section" disabled={!props.editable} aria-describedby={props.describedBy}>
      <legend>{props.legend}</legend>
      {props.children}
    </fieldset>
  );
}
