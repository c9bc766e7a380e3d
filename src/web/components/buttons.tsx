import type { ButtonHTMLAttributes, ReactNode } from 'react';

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
}: { pending: boolean; children: ReactNode; variant?: 'primary' | 'plain' | 'danger' } & ButtonHTMLAttributes<HTMLButtonElement>) {
  const classes = ['button', variant === 'plain' ? '' : `button-${variant}`, pending ? 'is-busy' : '', className].filter(Boolean).join(' ');
  return (
    <button type="submit" className={classes} disabled={pending || rest.disabled} aria-busy={pending || undefined} {...rest}>
      {children}
    </button>
  );
}
