// A native modal <dialog> as React renders it: open (modal, focus inside, the page inert) for as
// long as the component is mounted, and Escape asks the owner to close it rather than closing
// it behind React's back, so the dialog and the state that shows it never disagree.
import { type SyntheticEvent, useEffect, useRef } from 'react';

/** Spread on the <dialog>: `<dialog {...useModalDialog(onClose)} aria-labelledby=…>`. */
export function useModalDialog(onClose: () => void) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return {
    ref,
    onCancel: (e: SyntheticEvent<HTMLDialogElement>) => {
      e.preventDefault();
      onClose();
    },
  };
}
