// /forgot-password: asks for a link to set a new password, mailed when the service sends mail.
// The answer is the same whatever was typed (the service never says whether an email has an
// account), and without mail the screen says whom to ask instead.
import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { asApiError, tooManyAttemptsMessage } from '../api/errors.ts';
import { usePasswordResetByEmail, useRequestPasswordReset } from '../api/own-sessions.ts';
import { SubmitButton } from '../components/buttons.tsx';
import { FormAlert, LoadError, Loading, StatusNotice } from '../components/feedback.tsx';
import { TextField } from '../components/fields.tsx';
import { useFormErrors } from '../components/form-errors.ts';
import { PublicFrame } from '../components/shell.tsx';
import { boundText } from '../components/text-inputs.ts';
import { useDocumentTitle } from '../lib/hooks.ts';

const FIELDS = { email: 'email' } as const;

export function ForgotPassword() {
  useDocumentTitle('Forgot password');
  const byEmail = usePasswordResetByEmail();
  return (
    <PublicFrame>
      <h1>Forgot your password?</h1>
      {byEmail.isPending ? (
        <Loading label="One moment…" />
      ) : byEmail.isError ? (
        <LoadError error={byEmail.error} retry={() => byEmail.refetch()} what="this page" />
      ) : byEmail.data.byEmail ? (
        <ResetByEmail />
      ) : (
        <p className="lede">
          This service sends no email. Ask an owner or admin of your workspace, or the person who runs Shortlink, for a
          link to set a new password.
        </p>
      )}
      <p className="fine-print">
        <Link href="/login">Back to sign in</Link>
      </p>
    </PublicFrame>
  );
}

function ResetByEmail() {
  const [email, setEmail] = useState('');
  const [answer, setAnswer] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'email'>(FIELDS, formRef);
  const request = useRequestPasswordReset({
    onSuccess: (res) => setAnswer(res.message),
    onError: (err) => {
      const e = asApiError(err);
      errors.show(e.status === 429 ? new Error(tooManyAttemptsMessage(e)) : e);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAnswer(null);
    const ok = errors.check({
      email: /^\S+@\S+$/.test(email.trim()) ? undefined : 'Enter your email address, such as someone@example.com.',
    });
    if (ok) request.mutate(email.trim());
  };

  if (answer) return <StatusNotice>{answer}</StatusNotice>;
  return (
    <>
      <p className="lede">Enter the email you sign in with. We will email it a link to choose a new password.</p>
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
        <SubmitButton pending={request.isPending} className="button-block">
          Email me a link
        </SubmitButton>
      </form>
    </>
  );
}
