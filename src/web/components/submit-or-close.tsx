// The buttons under a form that opens in place of a list's row (edit, send a test, replay): submit,
// then a quiet button that closes the form without sending anything.
import type { ReactNode } from 'react';
import { SubmitButton } from './buttons.tsx';

export function SubmitOrClose({
  pending,
  children,
  close,
  closeLabel = 'Cancel',
}: {
  pending: boolean;
  /** The submit button's name. */
  children: ReactNode;
  close: () => void;
  closeLabel?: 'Cancel' | 'Close';
}) {
  return (
    <div className="button-row">
      <SubmitButton pending={pending}>{children}</SubmitButton>
      <button type="button" className="button button-quiet" onClick={close}>
        {closeLabel}
      </button>
    </div>
  );
}
