// Change password (every session of the person ends, this one too: they sign in again) and the
// person's sessions (account-sessions.tsx).
import { useRef, useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { useChangePassword } from '../api/account.ts';
import { asApiError, tooManyAttemptsMessage } from '../api/errors.ts';
import { useSignedIn } from '../api/session.ts';
import { LinkSso } from './account-sso.tsx';
import { SubmitButton } from '../components/buttons.tsx';
import { FormAlert } from '../components/feedback.tsx';
import { TextField } from '../components/fields.tsx';
import { useFormErrors } from '../components/form-errors.ts';
import { PageHeader } from '../components/page.tsx';
import { NewPasswordFields } from '../components/password-fields.tsx';
import { textInputs } from '../components/text-inputs.ts';
import { newPasswordProblems } from '../lib/passwords.ts';
import { PasskeysPanel } from './account-passkeys.tsx';
import { SecondFactorPanel } from './account-security.tsx';
import { AccountSessions } from './account-sessions.tsx';

type Field = 'current' | 'password' | 'confirm';
const FIELDS: Record<string, Field> = { currentPassword: 'current', newPassword: 'password' };

export function Account() {
  const session = useSignedIn();
  const [, navigate] = useLocation();
  const [values, setValues] = useState({ current: '', password: '', confirm: '' });
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);
  const input = textInputs<Field>(values, (key, value) => setValues((v) => ({ ...v, [key]: value })), errors.fields);

  const change = useChangePassword({
    onSuccess: () => navigate('/login?changed=1', { replace: true }),
    onError: (err) => {
      const e = asApiError(err);
      errors.show(e.status === 429 ? new Error(tooManyAttemptsMessage(e)) : e);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const pair = newPasswordProblems(values.password, values.confirm);
    const ok = errors.check({
      current: values.current ? undefined : 'Enter your current password.',
      password:
        pair.password ??
        (values.password === values.current ? 'Choose a password different from the current one.' : undefined),
      confirm: pair.confirm,
    });
    if (ok) change.mutate({ current: values.current, password: values.password });
  };

  return (
    <>
      <PageHeader title="Account" />
      <section className="panel panel-narrow" aria-labelledby="password-heading">
        <h2 id="password-heading">Change password</h2>
        <p className="muted">
          Signed in as <strong>{session.user.email}</strong>. Changing the password signs you out everywhere, here too.
        </p>
        <form ref={formRef} onSubmit={submit} noValidate className="stack">
          <FormAlert message={errors.form} />
          <TextField label="Current password" type="password" autoComplete="current-password" {...input('current')} />
          <NewPasswordFields label="New password" input={input} marked={false} />
          <div>
            <SubmitButton pending={change.isPending}>Change password</SubmitButton>
          </div>
        </form>
      </section>
      <SecondFactorPanel />
      <PasskeysPanel />
      <LinkSso email={session.user.email} />
      <AccountSessions />
    </>
  );
}
