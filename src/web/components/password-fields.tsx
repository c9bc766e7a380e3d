// The password inputs the public forms share: signing in with a current password, and choosing
// a new one with its confirmation (sign-in, invitation, set-up link, first run).
import { useState } from 'react';
import { TextField } from './fields.tsx';
import { MIN_PASSWORD, newPasswordProblems } from '../lib/passwords.ts';

interface CurrentPasswordProps {
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
}

/** "Password" for signing in (the browser's saved password). */
export function CurrentPasswordField({ value, onChange, error }: CurrentPasswordProps) {
  return (
    <TextField
      label="Password"
      type="password"
      name="password"
      autoComplete="current-password"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={error}
      required
    />
  );
}

interface NewPasswordProps {
  /** The first input's label; the second reads "Confirm" and the label in lower case. */
  label: string;
  password: string;
  confirm: string;
  onPassword: (value: string) => void;
  onConfirm: (value: string) => void;
  errors: { password?: string | undefined; confirm?: string | undefined };
  /**
   * Mark both inputs required and the first with its least length, for the browser to say
   * (default); the account screen's change of password leaves them unmarked.
   */
  marked?: boolean;
}

/** A new password and its confirmation, both filled by the browser's password generator. */
export function NewPasswordFields(props: NewPasswordProps) {
  const { label, password, confirm, onPassword, onConfirm, errors, marked = true } = props;
  return (
    <>
      <TextField
        label={label}
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => onPassword(e.target.value)}
        error={errors.password}
        hint={`At least ${MIN_PASSWORD} characters.`}
        required={marked || undefined}
        minLength={marked ? MIN_PASSWORD : undefined}
      />
      <TextField
        label={`Confirm ${label.toLowerCase()}`}
        type="password"
        autoComplete="new-password"
        value={confirm}
        onChange={(e) => onConfirm(e.target.value)}
        error={errors.confirm}
        required={marked || undefined}
      />
    </>
  );
}

/**
 * A new password and its confirmation as typed: `fields` for NewPasswordFields, and `problems`,
 * what is wrong with them before sending.
 */
export function useNewPassword() {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  return {
    password,
    fields: { password, confirm, onPassword: setPassword, onConfirm: setConfirm },
    problems: () => newPasswordProblems(password, confirm),
  };
}
