// The second step of signing in: a passkey, a code of the authenticator app, or a recovery
// code. The pending sign-in lives five minutes in an HttpOnly cookie; past it (401) the password
// is asked again.
import { useRef, useState, type FormEvent } from 'react';
import { asApiError, tooManyAttemptsMessage } from '../api/errors.ts';
import { usePasskeySecondStep } from '../api/passkeys.ts';
import { useVerifySecondFactor } from '../api/second-factors.ts';
import type { CodeMethod, SecondFactorMethod } from '../api/types.ts';
import { SubmitButton } from '../components/buttons.tsx';
import { FormAlert } from '../components/feedback.tsx';
import { TextField } from '../components/fields.tsx';
import { useFormErrors } from '../components/form-errors.ts';
import { boundText } from '../components/text-inputs.ts';

const FIELDS = { code: 'code' } as const;
const SWITCH_LABELS: Record<SecondFactorMethod, string> = {
  passkey: 'Use a passkey instead',
  totp: 'Use your authenticator app instead',
  recovery: 'Use a recovery code instead',
};

export function SecondFactorStep({
  methods,
  onSignedIn,
  onStartAgain,
}: {
  /** What the password step said the second step takes. */
  methods: readonly SecondFactorMethod[];
  onSignedIn: () => void;
  /** Back to the password (the pending sign-in ended or the person chose to). */
  onStartAgain: (why?: string) => void;
}) {
  // The strongest first, as the service lists them.
  const [method, setMethod] = useState<SecondFactorMethod>(methods[0] ?? 'totp');
  const [code, setCode] = useState('');
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'code'>(FIELDS, formRef);
  const verify = useVerifySecondFactor({
    onSuccess: onSignedIn,
    onError: (err) => {
      const e = asApiError(err);
      if (e.status === 401) onStartAgain(e.message);
      else if (e.status === 429) errors.show(new Error(tooManyAttemptsMessage(e)));
      else errors.show(e);
      setCode('');
    },
  });
  const passkey = usePasskeySecondStep({
    onSuccess: onSignedIn,
    onError: (err) => {
      const e = asApiError(err);
      if (e.status === 401) onStartAgain(e.message);
      else if (e.status === 429) errors.show(new Error(tooManyAttemptsMessage(e)));
      else errors.show(new Error(e.message));
    },
  });
  const totp = method === 'totp';
  const others = methods.filter((m) => m !== method);
  const switchTo = (m: SecondFactorMethod) => {
    setMethod(m);
    setCode('');
    errors.clear();
  };
  const choices = (
    <div className="button-row">
      {others.map((m) => (
        <button key={m} type="button" className="button button-small button-quiet" onClick={() => switchTo(m)}>
          {SWITCH_LABELS[m]}
        </button>
      ))}
      <button type="button" className="button button-small button-quiet" onClick={() => onStartAgain()}>
        Start again
      </button>
    </div>
  );

  if (method === 'passkey') {
    return (
      <>
        <h1>Use your passkey</h1>
        <p className="lede">
          Your browser asks for one of the passkeys you added to Shortlink: confirm with your fingerprint, face, screen
          lock or security key.
        </p>
        <form
          ref={formRef}
          onSubmit={(event) => {
            event.preventDefault();
            errors.clear();
            passkey.mutate();
          }}
          noValidate
          className="stack"
        >
          <FormAlert message={errors.form} />
          <SubmitButton pending={passkey.isPending} className="button-block">
            Use your passkey
          </SubmitButton>
        </form>
        {choices}
      </>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const ok = errors.check({
      code: code.trim() ? undefined : totp ? 'Enter the six digits your app shows.' : 'Enter a recovery code.',
    });
    if (ok) verify.mutate({ method: method as CodeMethod, code: code.trim() });
  };

  return (
    <>
      <h1>{totp ? 'Enter your authentication code' : 'Enter a recovery code'}</h1>
      <p className="lede">
        {totp
          ? 'Open your authenticator app and type the six-digit code it shows for Shortlink.'
          : 'Type one of the recovery codes you saved when you set up your authenticator app. Each works once.'}
      </p>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <TextField
          key={method}
          label={totp ? 'Authentication code' : 'Recovery code'}
          name="code"
          autoComplete={totp ? 'one-time-code' : 'off'}
          inputMode={totp ? 'numeric' : 'text'}
          spellCheck={false}
          autoFocus
          {...boundText(code, setCode)}
          error={errors.fields.code}
          required
        />
        <SubmitButton pending={verify.isPending} className="button-block">
          Verify
        </SubmitButton>
      </form>
      {choices}
    </>
  );
}

/** The methods a `?second-factor=passkey,totp,recovery` address names (a set-up link's password step leads there). */
export function methodsFromAddress(value: string | null): SecondFactorMethod[] | null {
  if (!value) return null;
  const known: readonly string[] = ['passkey', 'totp', 'recovery'];
  const methods = value.split(',').filter((m): m is SecondFactorMethod => known.includes(m));
  return methods.length ? methods : null;
}
