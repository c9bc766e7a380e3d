// The buttons in a list's row: each is named for its row ("Verify go.example.com"), since every
// row has one of the same text.
import type { ReactNode } from 'react';
import { ConfirmedActionButton } from './buttons.tsx';
import type { Question } from './confirm.tsx';

/** A row's plain action: a write, or opening a panel for the row. */
export function RowButton({
  label,
  name,
  onClick,
  disabled,
}: {
  /** The visible text. */
  label: string;
  /** The accessible name, saying which row. */
  name: string;
  onClick: () => void;
  disabled?: boolean;
}) {
  return (
    <button type="button" className="button button-small" aria-label={name} disabled={disabled} onClick={onClick}>
      {label}
    </button>
  );
}

/**
 * A row's destructive write (revoke, remove, disable, delete) behind the screen's confirmation
 * dialog: the question is the button's name ("Revoke key abcd?") unless told otherwise, the
 * confirming button says what the row's button says, and it waits while the write runs.
 */
export function ConfirmedWriteButton<Row>({
  title,
  write,
  row,
  disabled = write.isPending,
  children,
  ...button
}: {
  /** The visible text, and the confirming button's. */
  label: string;
  /** The accessible name, saying which row ("Remove ada@acme.example"). */
  name: string;
  title?: string;
  ask: (q: Question) => Promise<boolean>;
  write: { isPending: boolean; mutate: (row: Row) => void };
  row: Row;
  disabled?: boolean;
  /** What confirming does, in the dialog under the question. */
  children: ReactNode;
}) {
  return (
    <ConfirmedActionButton
      {...button}
      disabled={disabled}
      question={{ title: title ?? `${button.name}?`, body: children, confirmLabel: button.label }}
      onConfirmed={() => write.mutate(row)}
    />
  );
}
