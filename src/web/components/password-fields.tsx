// The password inputs the public forms share: signing in with a current password, and choosing
// a new one with its confirmation (sign-in, invitation, set-up link, first run).
import { useState } from 'react';
import { TextField } from './fields.tsx';
import { type TextInput, textInputs } from './text-inputs.ts';
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

type NewPasswordKey = 'password' | 'confirm';

interface NewPasswordProps {
  /** The first input's label; the second reads "Confirm" and the label in lower case. */
  label: string;
  /** The two inputs bound to the form's values (components/text-inputs.ts). */
  input: (key: NewPasswordKey) => TextInput;
  /**
   * Mark both inputs required and the first with its least length, for the browser to say
   * (default); the account screen's change of password leaves them unmarked.
   */
  marked?: boolean;
}

/** A new password and its confirmation, both filled by the browser's password generator. */
export function NewPasswordFields({ label, input, marked = true }: NewPasswordProps) {
  return (
    <>
      <TextField
        label={label}
        type="password"
        autoComplete="new-password"
        {...input('password')}
        hint={`At least ${MIN_PASSWORD} characters.`}
        required={marked || undefined}
        minLength={marked ? MIN_PASSWORD : undefined}
      />
      <TextField
        label={`Confirm ${label.toLowerCase()}`}
        type="password"
        autoComplete="new-password"
        {...input('confirm')}
        required={marked || undefined}
      />
    </>
  );
}

/**
 * A new password and its confirmation as typed (`errors`: the form's): `input` for
 * NewPasswordFields, and `problems`, what is wrong with them before sending.
 */
export function useNewPassword(errors: { readonly [K in NewPasswordKey]?: string | undefined }) {
  const [values, setValues] = useState({ password: '', confirm: '' });
  return {
    password: values.password,
    input: textInputs<NewPasswordKey>(values, (key, value) => setValues((v) => ({ ...v, [key]: value })), errors),
    problems: () => newPasswordProblems(values.password, values.confirm),
  };
}
