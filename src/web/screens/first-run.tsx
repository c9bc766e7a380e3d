// /setup?token=: the first person names the workspace and becomes its owner (the token
// `shortlink serve` printed works once, while no user exists).
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { useClaimFirstRun, useFirstRun } from '../api/account.ts';
import { SubmitButton } from '../components/buttons.tsx';
import { FormAlert, LoadError, Loading } from '../components/feedback.tsx';
import { TextField } from '../components/fields.tsx';
import { useFormErrors } from '../components/form-errors.ts';
import { NewPasswordFields } from '../components/password-fields.tsx';
import { PublicFrame } from '../components/shell.tsx';
import { textInputs } from '../components/text-inputs.ts';
import { useDocumentTitle } from '../lib/hooks.ts';
import { newPasswordProblems } from '../lib/passwords.ts';

type Field = 'workspaceName' | 'email' | 'password' | 'confirm';
const FIELDS: Record<string, Field> = { workspaceName: 'workspaceName', email: 'email', password: 'password' };

export function FirstRun() {
  useDocumentTitle('Set up Shortlink');
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const [, navigate] = useLocation();
  const [values, setValues] = useState({ workspaceName: '', email: '', password: '', confirm: '' });
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);
  const input = textInputs<keyof typeof values>(
    values,
    (key, value) => setValues((v) => ({ ...v, [key]: value })),
    errors.fields,
  );

  const check = useFirstRun(token);

  const claim = useClaimFirstRun(token, {
    onSuccess: (session) => {
      const first = session.workspaces[0];
      navigate(first ? `/w/${encodeURIComponent(first.id)}/links` : '/', { replace: true });
    },
    onError: (err) => errors.show(err),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const pair = newPasswordProblems(values.password, values.confirm);
    const ok = errors.check({
      workspaceName: values.workspaceName.trim() ? undefined : 'Name the workspace.',
      email: /^\S+@\S+$/.test(values.email.trim()) ? undefined : 'Enter an email address, such as you@example.com.',
      password: pair.password,
      confirm: pair.confirm,
    });
    if (ok)
      claim.mutate({
        workspaceName: values.workspaceName.trim(),
        email: values.email.trim(),
        password: values.password,
      });
  };

  let body: ReactNode;
  if (!token) {
    body = (
      <div role="alert" className="notice notice-error">
        This address has no set-up token. Open the whole first-run link that <code>shortlink serve</code> printed.
      </div>
    );
  } else if (check.isPending) {
    body = <Loading label="Checking the set-up link…" />;
  } else if (check.isError) {
    body = <LoadError error={check.error} retry={() => check.refetch()} what="the set-up link" />;
  } else if (!check.data.available) {
    body = (
      <>
        <div role="alert" className="notice notice-error">
          This set-up link has been used, or Shortlink already has a workspace. Sign in instead.
        </div>
        <p>
          <Link href="/login">Go to sign in</Link>
        </p>
      </>
    );
  } else {
    body = (
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <TextField
          label="Workspace name"
          {...input('workspaceName')}
          autoComplete="organization"
          required
          maxLength={200}
        />
        <TextField label="Email" type="email" {...input('email')} autoComplete="username" required />
        <NewPasswordFields label="Password" input={input} />
        <SubmitButton pending={claim.isPending} className="button-block">
          Create workspace
        </SubmitButton>
      </form>
    );
  }

  return (
    <PublicFrame>
      <h1>Set up Shortlink</h1>
      <p className="lede">Name your workspace and choose how you will sign in. You will be its owner.</p>
      {body}
    </PublicFrame>
  );
}
