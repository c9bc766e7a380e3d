// The second step of signing in: a code of the authenticator app, or a recovery code. The
// pending sign-in lives five minutes in an HttpOnly cookie; past it (401) the password is asked
// again.
import { useRef, useState, type FormEvent } from 'react';
import { asApiError, tooManyAttemptsMessage } from '../api/errors.ts';
import { useVerifySecondFactor } from '../api/second-factors.ts';
import type { SecondFactorMethod } from '../api/types.ts';
import { SubmitButton } from '../components/buttons.tsx';
import { FormAlert } from '../components/feedback.tsx';
import { TextField } from '../components/fields.tsx';
import { useFormErrors } from '../components/form-errors.ts';
import { boundText } from '../components/text-inputs.ts';

const FIELDS = { code: 'code' } as const;

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
  const [method, setMethod] = useState<SecondFactorMethod>(methods.includes('totp') ? 'totp' : 'recovery');
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
  const totp = method === 'totp';
  const other: SecondFactorMethod | null = totp
    ? methods.includes('recovery')
      ? 'recovery'
      : null
    : methods.includes('totp')
      ? 'totp'
      : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const ok = errors.check({
      code: code.trim() ? undefined : totp ? 'Enter the six digits your app shows.' : 'Enter a recovery code.',
    });
    if (ok) verify.mutate({ method, code: code.trim() });
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
      <div className="button-row">
        {other ? (
          <button
            type="button"
            className="button button-small button-quiet"
            onClick={() => {
              setMethod(other);
              setCode('');
              errors.clear();
            }}
          >
            {other === 'recovery' ? 'Use a recovery code instead' : 'Use your authenticator app instead'}
          </button>
        ) : null}
        <button type="button" className="button button-small button-quiet" onClick={() => onStartAgain()}>
          Start again
        </button>
      </div>
    </>
  );
}

/** The methods a `?second-factor=totp,recovery` address names (a set-up link's password step leads there). */
export function methodsFromAddress(value: string | null): SecondFactorMethod[] | null {
  if (!value) return null;
  const methods = value.split(',').filter((m): m is SecondFactorMethod => m === 'totp' || m === 'recovery');
  return methods.length ? methods : null;
}
