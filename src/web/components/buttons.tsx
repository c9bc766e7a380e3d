import type { ButtonHTMLAttributes, ReactNode } from 'react';
import type { Question } from './confirm.tsx';

/**
 * A form's submit button. Its name never changes while the request runs (people and tests find
 * it by name); it is disabled and shows a spinner instead.
 */
export function SubmitButton({
  pending,
  children,
  className,
  variant = 'primary',
  ...rest
}: {
  pending: boolean;
  children: ReactNode;
  variant?: 'primary' | 'plain' | 'danger';
} & ButtonHTMLAttributes<HTMLButtonElement>) {
  const classes = ['button', variant === 'plain' ? '' : `button-${variant}`, pending ? 'is-busy' : '', className]
    .filter(Boolean)
    .join(' ');
  return (
    <button
      type="submit"
      className={classes}
      disabled={pending || rest.disabled}
      aria-busy={pending || undefined}
      {...rest}
    >
      {children}
    </button>
  );
}

/**
 * A row's destructive action (revoke, remove, disable): a quiet danger button that asks first, in
 * the screen's confirmation dialog (`ask` from useConfirm), and acts only on "yes".
 */
export function ConfirmedActionButton({
  label,
  name,
  question,
  ask,
  onConfirmed,
  disabled,
  describedBy,
}: {
  /** The visible text. */
  label: string;
  /** The accessible name, saying which row ("Remove ada@acme.example"). */
  name: string;
  question: Omit<Question, 'danger'>;
  ask: (q: Question) => Promise<boolean>;
  onConfirmed: () => void;
  disabled?: boolean;
  /** The id of the text saying what the action does, when its name alone cannot. */
  describedBy?: string;
}) {
  return (
    <button
      type="button"
      className="button button-small button-danger-quiet"
      aria-label={name}
      aria-describedby={describedBy}
      disabled={disabled}
      onClick={async () => {
        if (await ask({ ...question, danger: true })) onConfirmed();
      }}
    >
      {label}
    </button>
  );
}
