// /setup-password?token=: a member sets their password with the one-time link the operator made
// for them, and is signed in. /reset-password?token= is the same with the link "forgot password"
// mailed (1 hour); either ends every other session of the person.
import { useRef, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { useSetUpPassword } from '../api/account.ts';
import { asApiError } from '../api/errors.ts';
import { SubmitButton } from '../components/buttons.tsx';
import { FormAlert } from '../components/feedback.tsx';
import { useFormErrors } from '../components/form-errors.ts';
import { NewPasswordFields, useNewPassword } from '../components/password-fields.tsx';
import { PublicFrame } from '../components/shell.tsx';
import { useDocumentTitle } from '../lib/hooks.ts';
import { MIN_PASSWORD } from '../lib/passwords.ts';

const FIELDS = { password: 'password' } as const;

export function SetupPassword({ reset = false }: { reset?: boolean }) {
  const title = reset ? 'Choose a new password' : 'Set your password';
  const askAgain = reset
    ? 'Ask for a new link on the sign-in screen (Forgot your password?).'
    : 'Ask an owner or admin of your workspace for a new set-up link.';
  useDocumentTitle(title);
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const [, navigate] = useLocation();
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'password' | 'confirm'>(FIELDS, formRef);
  const newPassword = useNewPassword(errors.fields);

  const setup = useSetUpPassword(token, {
    // With a second factor the password is set but the session waits for the code: the sign-in
    // screen asks it (the pending sign-in is in its cookie).
    onSuccess: (answer) =>
      'user' in answer
        ? navigate('/', { replace: true })
        : navigate(`/login?second-factor=${answer.secondFactor.methods.join(',')}`, { replace: true }),
    onError: (err) => {
      const e = asApiError(err);
      errors.show(e.status === 404 ? new Error(`${e.message} ${askAgain}`) : e);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.check(newPassword.problems())) setup.mutate(newPassword.password);
  };

  if (!token) {
    return (
      <PublicFrame>
        <h1>{title}</h1>
        <div role="alert" className="notice notice-error">
          This address has no token. Open the whole link you were given. {askAgain}
        </div>
        <p>
          <Link href="/login">Go to sign in</Link>
        </p>
      </PublicFrame>
    );
  }

  return (
    <PublicFrame>
      <h1>{title}</h1>
      <p className="lede">
        Choose a password of at least {MIN_PASSWORD} characters. You will be signed in once it is set
        {reset ? ', and signed out everywhere else' : ''}.
      </p>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <NewPasswordFields label="Password" input={newPassword.input} />
        <SubmitButton pending={setup.isPending} className="button-block">
          Set password
        </SubmitButton>
      </form>
    </PublicFrame>
  );
}
