import { useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { useSignIn } from '../api/account.ts';
import { passkeysSupported, usePasskeySignIn } from '../api/passkeys.ts';
import { useStartSso } from '../api/sso.ts';
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
import { secondStepOf } from '../api/second-factors.ts';
import type { SecondFactorMethod } from '../api/types.ts';
import { methodsFromAddress, SecondFactorStep } from './sign-in-second-factor.tsx';

const FIELDS = { email: 'email', password: 'password' } as const;

/**
 * Why single sign-on sent the person back without a session (`?sso_error=CODE`, the codes of
 * openapi/dashboard/paths/sso-callback.yaml). Only these words are shown: the address carries a
 * code, never text, so a crafted link cannot put its own words on this screen.
 */
const SSO_ERRORS: Record<string, string> = {
  expired: 'That single sign-on took too long, was already used or began in another browser. Start again.',
  disabled: 'Single sign-on is turned off for your workspace. Sign in with your password.',
  provider_refused: 'Your identity provider did not sign you in.',
  provider_unreachable: 'Your identity provider could not be reached. Try again in a moment.',
  token_invalid:
    "Your identity provider's answer could not be trusted, so you were not signed in. Ask your workspace's owner to check its single sign-on settings.",
  email_unverified: 'Your identity provider has not verified your email address, so you were not signed in.',
  domain_not_allowed: "Your email address is not of a domain your workspace's single sign-on accepts.",
  link_required:
    'An account with your email address already belongs to another workspace. Sign in with your password, then choose "Link single sign-on" on your Account page.',
  email_mismatch: "Your identity provider named another email address than your account's, so nothing was linked.",
  identity_taken: 'That identity is already linked to another account.',
};

export function SignIn() {
  useDocumentTitle('Sign in');
  const params = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // The SSO path has its own address, so a workspace can link people straight to it.
  const withSso = params.get('with') === 'sso';
  const ssoError = SSO_ERRORS[params.get('sso_error') ?? ''];
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'email' | 'password'>(FIELDS, formRef);
  // Set when the password was right and a second factor is asked (here, or by a set-up link).
  const [secondStep, setSecondStep] = useState<readonly SecondFactorMethod[] | null>(() =>
    methodsFromAddress(params.get('second-factor')),
  );
  const [restartReason, setRestartReason] = useState<string | null>(null);
  const signedIn = () => navigate(safeNext(params.get('next')), { replace: true });

  const signIn = useSignIn({
    onSuccess: (answer) => {
      const second = secondStepOf(answer);
      if (second) {
        setSecondStep(second.secondFactor.methods);
        setPassword('');
        setRestartReason(null);
      } else signedIn();
    },
    onError: (err) => {
      const e = asApiError(err);
      // A wrong email or password is one answer for both: it belongs to the form, not a field.
      if (e.status === 429) errors.show(new Error(tooManyAttemptsMessage(e)));
      else if (e.status === 401) errors.show(new Error(e.message));
      else errors.show(e);
      setPassword('');
    },
  });

  const startSso = useStartSso({ onError: (err) => errors.show(err) });
  // A passkey alone: no email, the browser offers the passkeys it holds for this service. Its
  // button's name keeps clear of "Sign in", the form's own button, which tests find by name.
  const withPasskey = usePasskeySignIn({
    onSuccess: signedIn,
    onError: (err) => {
      const e = asApiError(err);
      errors.show(new Error(e.status === 429 ? tooManyAttemptsMessage(e) : e.message));
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (withSso) {
      if (errors.check({ email: email.trim() ? undefined : 'Enter your email address.' }))
        startSso.mutate(email.trim());
      return;
    }
    const ok = errors.check({
      email: email.trim() ? undefined : 'Enter your email address.',
      password: password ? undefined : 'Enter your password.',
    });
    if (ok) signIn.mutate({ email: email.trim(), password });
  };

  if (secondStep) {
    return (
      <PublicFrame>
        <SecondFactorStep
          methods={secondStep}
          onSignedIn={signedIn}
          onStartAgain={(why) => {
            setSecondStep(null);
            setRestartReason(why ?? null);
          }}
        />
      </PublicFrame>
    );
  }

  return (
    <PublicFrame>
      <h1>Sign in</h1>
      <p className="lede">Sign in to manage your workspace's short links.</p>
      {params.get('changed') ? (
        <StatusNotice>Your password was changed and every session ended. Sign in with your new password.</StatusNotice>
      ) : null}
      {restartReason ? <StatusNotice tone="info">{restartReason}</StatusNotice> : null}
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form ?? (withSso ? undefined : ssoError)} />
        <TextField
          label="Email"
          type="email"
          name="email"
          autoComplete="username"
          {...boundText(email, setEmail)}
          error={errors.fields.email}
          required
        />
        {withSso ? (
          <p className="field-hint">Your email's domain finds your workspace's identity provider, where you sign in.</p>
        ) : (
          <CurrentPasswordField value={password} onChange={setPassword} error={errors.fields.password} />
        )}
        <SubmitButton pending={withSso ? startSso.isPending : signIn.isPending} className="button-block">
          {withSso ? 'Continue with SSO' : 'Sign in'}
        </SubmitButton>
      </form>
      <p className="sign-in-alternative">
        {withSso || !passkeysSupported() ? null : (
          <button
            type="button"
            className="button button-block"
            onClick={() => {
              errors.clear();
              withPasskey.mutate();
            }}
            disabled={withPasskey.isPending}
            aria-busy={withPasskey.isPending || undefined}
          >
            Use a passkey
          </button>
        )}
        <Link href={withSso ? '/login' : '/login?with=sso'} className="button button-block" onClick={errors.clear}>
          {withSso ? 'Sign in with a password' : 'Sign in with SSO'}
        </Link>
      </p>
      <p className="fine-print">
        <Link href="/forgot-password">Forgot your password?</Link>
      </p>
    </PublicFrame>
  );
}
