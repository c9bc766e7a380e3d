// An editor's "Delete" panel: what deleting does, and a danger button that asks first in the
// screen's confirmation dialog (`ask` from useConfirm) and acts only on "yes".
import type { ReactNode } from 'react';
import type { Question } from './confirm.tsx';

export function DeletePanel({
  headingId,
  className,
  children,
  label,
  question,
  ask,
  onConfirmed,
  disabled,
}: {
  /** The heading's id, unique on the screen: the panel is named by it. */
  headingId: string;
  className?: string;
  /** What deleting does, in a sentence. */
  children: ReactNode;
  /** The button's name ("Delete link"). */
  label: string;
  question: Omit<Question, 'danger' | 'confirmLabel'>;
  ask: (q: Question) => Promise<boolean>;
  onConfirmed: () => void;
  disabled: boolean;
}) {
  return (
    <section className={['panel panel-danger', className].filter(Boolean).join(' ')} aria-labelledby={headingId}>
      <h2 id={headingId}>Delete</h2>
      <p className="muted">{children}</p>
      <button
        type="button"
        className="button button-danger"
        disabled={disabled}
        onClick={async () => {
          const ok = await ask({ ...question, confirmLabel: 'Delete', danger: true });
          if (ok) onConfirmed();
        }}
      >
        {label}
      </button>
    </section>
  );
}
