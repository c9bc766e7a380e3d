import { useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { useSignIn } from '../api/account.ts';
import { asApiError, tooManyAttemptsMessage } from '../api/errors.ts';
import { FormAlert, StatusNotice } from '../components/feedback.tsx';
import { SubmitButton } from '../components/buttons.tsx';
import { TextField } from '../components/fields.tsx';
import { useFormErrors } from '../components/form-errors.ts';
import { CurrentPasswordField } from '../components/password-fields.tsx';
import { PublicFrame } from '../components/shell.tsx';
import { useDocumentTitle } from '../lib/hooks.ts';
import { safeNext } from '../lib/navigation.ts';
import { boundText } from '../components/text-inputs.ts';

const FIELDS = { email: 'email', password: 'password' } as const;

export function SignIn() {
  useDocumentTitle('Sign in');
  const params = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'email' | 'password'>(FIELDS, formRef);

  const signIn = useSignIn({
    onSuccess: () => navigate(safeNext(params.get('next')), { replace: true }),
    onError: (err) => {
      const e = asApiError(err);
      // A wrong email or password is one answer for both: it belongs to the form, not a field.
      if (e.status === 429) errors.show(new Error(tooManyAttemptsMessage(e)));
      else if (e.status === 401) errors.show(new Error(e.message));
      else errors.show(e);
      setPassword('');
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const ok = errors.check({
      email: email.trim() ? undefined : 'Enter your email address.',
      password: password ? undefined : 'Enter your password.',
    });
    if (ok) signIn.mutate({ email: email.trim(), password });
  };

  return (
    <PublicFrame>
      <h1>Sign in</h1>
      <p className="lede">Sign in to manage your workspace's short links.</p>
      {params.get('changed') ? (
        <StatusNotice>Your password was changed and every session ended. Sign in with your new password.</StatusNotice>
      ) : null}
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <TextField
          label="Email"
          type="email"
          name="email"
          autoComplete="username"
          {...boundText(email, setEmail)}
          error={errors.fields.email}
          required
        />
        <CurrentPasswordField value={password} onChange={setPassword} error={errors.fields.password} />
        <SubmitButton pending={signIn.isPending} className="button-block">
          Sign in
        </SubmitButton>
      </form>
      <p className="fine-print">
        <Link href="/forgot-password">Forgot your password?</Link>
      </p>
    </PublicFrame>
  );
}
