// Messages, loading, empty and error states.
import type { ReactNode } from 'react';
import { asApiError } from '../api/errors.ts';

/** A form's or screen's problem, read out when it appears. */
export function FormAlert({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <div role="alert" className="notice notice-error">
      {message}
    </div>
  );
}

/** The outcome of an action, read out politely. */
export function StatusNotice({ children, tone = 'success' }: { children: ReactNode; tone?: 'success' | 'info' }) {
  return (
    <div role="status" className={`notice notice-${tone}`}>
      {children}
    </div>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <div className="loading" aria-busy="true">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

/** A read that failed: what the API said, and a way to try again. */
export function LoadError({ error, retry, what }: { error: unknown; retry?: () => void; what: string }) {
  const err = asApiError(error);
  return (
    <div className="state state-error" role="alert">
      <h2>Could not load {what}</h2>
      <p>{err.message}</p>
      {retry ? (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="state state-empty">
      <h2>{title}</h2>
      {children ? <p>{children}</p> : null}
      {action}
    </div>
  );
}
