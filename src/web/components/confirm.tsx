// Confirmation in a native modal <dialog>: a question and two buttons, "Escape" cancels.
import { useCallback, useId, useRef, useState, type ReactNode } from 'react';
import { useModalDialog } from './modal-dialog.ts';

export interface Question {
  title: string;
  body?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  danger?: boolean;
}

/**
 * `ask(question)` opens the dialog and resolves true when the person confirms. Render `dialog`
 * once in the screen.
 */
export function useConfirm(): [(q: Question) => Promise<boolean>, ReactNode] {
  const [question, setQuestion] = useState<Question | null>(null);
  const resolver = useRef<((ok: boolean) => void) | null>(null);
  const ask = useCallback(
    (q: Question) =>
      new Promise<boolean>((resolve) => {
        resolver.current?.(false);
        resolver.current = resolve;
        setQuestion(q);
      }),
    [],
  );
  const settle = useCallback((ok: boolean) => {
    resolver.current?.(ok);
    resolver.current = null;
    setQuestion(null);
  }, []);
  // biome-ignore lint/correctness/useJsxKeyInIterable: a [function, element] pair, not a list.
  return [ask, question ? <ConfirmDialog question={question} onSettle={settle} /> : null];
}

function ConfirmDialog({ question, onSettle }: { question: Question; onSettle: (ok: boolean) => void }) {
  const dialog = useModalDialog(() => onSettle(false));
  const titleId = useId();
  const bodyId = useId();
  return (
    <dialog
      {...dialog}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={question.body ? bodyId : undefined}
    >
      <h2 id={titleId}>{question.title}</h2>
      {question.body ? (
        <div id={bodyId} className="dialog-body">
          {question.body}
        </div>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={() => onSettle(false)} autoFocus>
          {question.cancelLabel ?? 'Cancel'}
        </button>
        <button
          type="button"
          className={question.danger ? 'button button-danger' : 'button button-primary'}
          onClick={() => onSettle(true)}
        >
          {question.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
