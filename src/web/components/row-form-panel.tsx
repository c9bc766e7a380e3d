// A panel holding one short form whose inputs share a row ending in its submit button: creating
// a tag or a campaign, adding a domain, inviting someone.
import type { FormEvent, ReactNode, RefObject } from 'react';
import { SubmitButton } from './buttons.tsx';
import { FormAlert } from './feedback.tsx';

export function RowFormPanel({
  headingId,
  heading,
  intro,
  formRef,
  onSubmit,
  formError,
  pending,
  submit,
  result,
  children,
}: {
  headingId: string;
  heading: string;
  /** Between the heading and the form: an introduction, or what the last submit made. */
  intro?: ReactNode;
  formRef: RefObject<HTMLFormElement | null>;
  onSubmit: (event: FormEvent) => void;
  /** The error that belongs to no input (the form's `role="alert"`). */
  formError: string | null;
  pending: boolean;
  /** The submit button's text. */
  submit: string;
  /** Under the form: what the last submit made. */
  result?: ReactNode;
  /** The inputs of the row. */
  children: ReactNode;
}) {
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{heading}</h2>
      {intro}
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <FormAlert message={formError} />
        <div className="form-row">
          {children}
          <div className="form-row-action">
            <SubmitButton pending={pending}>{submit}</SubmitButton>
          </div>
        </div>
      </form>
      {result}
    </section>
  );
}
