// The account's second factor: setting up an authenticator app (a QR code, or the key typed by
// hand, then a code to prove it), the ten recovery codes shown once, new codes and turning it
// off (each with the password). The same enrolment leads a person whose workspace requires a
// second factor (RequiredEnrolment, in place of every other screen until they have one).
import { useRef, useState, type FormEvent } from 'react';
import { useSignOut } from '../api/account.ts';
import { asApiError, tooManyAttemptsMessage } from '../api/errors.ts';
import { keys } from '../api/keys.ts';
import { queryClient } from '../api/query-client.ts';
import {
  useConfirmTotp,
  useDisableTotp,
  useRegenerateRecoveryCodes,
  useSecondFactor,
  useStartTotp,
} from '../api/second-factors.ts';
import { useSignedIn } from '../api/session.ts';
import type { TotpEnrolment } from '../api/types.ts';
import { SubmitButton } from '../components/buttons.tsx';
import { useConfirm } from '../components/confirm.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { FormAlert, LoadError, Loading, StatusNotice } from '../components/feedback.tsx';
import { TextField } from '../components/fields.tsx';
import { useFormErrors } from '../components/form-errors.ts';
import { PublicHeader } from '../components/shell.tsx';
import { AddPasskey } from './account-passkeys.tsx';
import { boundText } from '../components/text-inputs.ts';
import { formatDate } from '../lib/dates.ts';
import { useLocation } from 'wouter';

const CODE_FIELDS = { code: 'code' } as const;
const PROOF_FIELDS = { password: 'password', code: 'password' } as const;

/** A 429's message, else the error as the form shows it. */
const shown = (err: unknown) => {
  const e = asApiError(err);
  return e.status === 429 ? new Error(tooManyAttemptsMessage(e)) : e;
};

/** The ten codes, shown once, with a copy button and "Done". */
function RecoveryCodes({ codes, onDone }: { codes: readonly string[]; onDone: () => void }) {
  return (
    <div className="recovery-codes">
      <StatusNotice>
        Save these recovery codes somewhere safe. Each signs you in once if you lose your phone. They are not shown
        again.
      </StatusNotice>
      <ul className="recovery-code-list" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div className="button-row">
        <CopyButton text={codes.join('\n')} label="Copy recovery codes" visible="Copy recovery codes" />
        <button type="button" className="button button-primary button-small" onClick={onDone}>
          I have saved them
        </button>
      </div>
    </div>
  );
}

/** Scan or type the key, then prove it with a code; `onCodes` gets the recovery codes. */
function Enrolment({ onCodes, onCancel }: { onCodes: (codes: string[]) => void; onCancel?: () => void }) {
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [code, setCode] = useState('');
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'code'>(CODE_FIELDS, formRef);
  const start = useStartTotp({ onSuccess: (answer) => setEnrolment(answer.data), onError: (err) => errors.show(err) });
  const confirm = useConfirmTotp({
    onSuccess: (answer) => onCodes(answer.data.recoveryCodes),
    onError: (err) => {
      errors.show(shown(err));
      setCode('');
    },
  });

  if (!enrolment) {
    return (
      <div className="stack">
        <p>
          An authenticator app (such as FreeOTP, Aegis, Google Authenticator or 1Password) shows a new six-digit code
          every 30 seconds. Once it is set up, signing in asks for that code after your password.
        </p>
        <FormAlert message={errors.form} />
        <div className="button-row">
          <button
            type="button"
            className="button button-primary"
            onClick={() => start.mutate()}
            disabled={start.isPending}
            aria-busy={start.isPending || undefined}
          >
            Set up an authenticator app
          </button>
          {onCancel ? (
            <button type="button" className="button button-quiet" onClick={onCancel}>
              Cancel
            </button>
          ) : null}
        </div>
      </div>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.check({ code: code.trim() ? undefined : 'Enter the six digits your app shows.' }))
      confirm.mutate(code.trim());
  };
  return (
    <div className="enrolment">
      <ol className="enrolment-steps">
        <li>
          <p>Scan this QR code with your authenticator app.</p>
          <img className="enrolment-qr" src={enrolment.qrCode} alt="QR code to scan with your authenticator app" />
          <p className="muted">Cannot scan it? Type this key into the app (account {enrolment.label}, time-based):</p>
          <p className="with-action">
            <code className="enrolment-key">{enrolment.secret.replace(/(.{4})/g, '$1 ').trim()}</code>
            <CopyButton text={enrolment.secret} label="Copy the key" />
          </p>
        </li>
        <li>
          <form ref={formRef} onSubmit={submit} noValidate className="stack">
            <FormAlert message={errors.form} />
            <TextField
              label="Code from the app"
              name="code"
              autoComplete="one-time-code"
              inputMode="numeric"
              {...boundText(code, setCode)}
              error={errors.fields.code}
              hint="The six digits the app shows now."
              required
            />
            <div className="button-row">
              <SubmitButton pending={confirm.isPending}>Turn on</SubmitButton>
              {onCancel ? (
                <button type="button" className="button button-quiet" onClick={onCancel}>
                  Cancel
                </button>
              ) : null}
            </div>
          </form>
        </li>
      </ol>
    </div>
  );
}

/** New recovery codes and turning the app off, each confirmed with the password. */
function FactorOn({
  enabledAt,
  left,
  requiredBy,
  onCodes,
}: {
  enabledAt: string | null;
  left: number;
  requiredBy: readonly { name: string }[];
  onCodes: (codes: string[]) => void;
}) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const formRef = useRef<HTMLDivElement>(null);
  const errors = useFormErrors<'password'>(PROOF_FIELDS, formRef);
  const [ask, dialog] = useConfirm();
  const regenerate = useRegenerateRecoveryCodes({
    onSuccess: (answer) => {
      setPassword('');
      onCodes(answer.data.recoveryCodes);
    },
    onError: (err) => errors.show(shown(err)),
  });
  const disable = useDisableTotp({
    onSuccess: () => {
      setPassword('');
      setDone('The authenticator app is off. Signing in asks for your password only.');
      void queryClient.invalidateQueries({ queryKey: keys.session });
    },
    onError: (err) => errors.show(shown(err)),
  });
  const withPassword = (act: () => void) => {
    setDone(null);
    if (errors.check({ password: password ? undefined : 'Enter your password to confirm.' })) act();
  };
  const required = requiredBy.length > 0;
  return (
    <div ref={formRef} className="stack">
      {done ? <StatusNotice>{done}</StatusNotice> : null}
      <dl className="facts">
        <div>
          <dt>Authenticator app</dt>
          <dd>
            <span className="badge badge-ok">On</span>
            {enabledAt ? ` since ${formatDate(enabledAt)}` : null}
          </dd>
        </div>
        <div>
          <dt>Recovery codes left</dt>
          <dd>{left} of 10</dd>
        </div>
      </dl>
      {left <= 2 ? (
        <StatusNotice tone="info">Few recovery codes are left: make new ones and save them.</StatusNotice>
      ) : null}
      <FormAlert message={errors.form} />
      <TextField
        label="Your password"
        type="password"
        autoComplete="current-password"
        {...boundText(password, setPassword)}
        error={errors.fields.password}
        hint="Making new recovery codes or turning the app off needs your password."
      />
      <div className="button-row">
        <button
          type="button"
          className="button"
          disabled={regenerate.isPending}
          onClick={() => withPassword(() => regenerate.mutate({ password }))}
        >
          Make new recovery codes
        </button>
        {required ? null : (
          <button
            type="button"
            className="button button-danger-quiet"
            disabled={disable.isPending}
            onClick={() =>
              withPassword(async () => {
                const ok = await ask({
                  title: 'Turn off the authenticator app?',
                  body: 'Signing in will ask for your password only, and your recovery codes stop working.',
                  confirmLabel: 'Turn off',
                  danger: true,
                });
                if (ok) disable.mutate({ password });
              })
            }
          >
            Turn off the authenticator app
          </button>
        )}
      </div>
      {required ? (
        <p className="field-hint">
          {requiredBy.map((w) => w.name).join(', ')} {requiredBy.length === 1 ? 'requires' : 'require'} a second factor,
          so it cannot be turned off.
        </p>
      ) : null}
      {dialog}
    </div>
  );
}

/** The Account screen's section. */
export function SecondFactorPanel() {
  const status = useSecondFactor();
  const [codes, setCodes] = useState<string[] | null>(null);
  const [replacing, setReplacing] = useState(false);
  return (
    <section className="panel panel-narrow" aria-labelledby="second-factor-heading">
      <h2 id="second-factor-heading">Two-step sign-in</h2>
      {codes ? (
        <RecoveryCodes
          codes={codes}
          onDone={() => {
            setCodes(null);
            void queryClient.invalidateQueries({ queryKey: keys.session });
          }}
        />
      ) : status.isPending ? (
        <Loading label="Loading your second factor…" />
      ) : status.isError ? (
        <LoadError error={status.error} retry={() => status.refetch()} what="your second factor" />
      ) : status.data.totp.enabled && !replacing ? (
        <>
          <FactorOn
            enabledAt={status.data.totp.enabledAt}
            left={status.data.recoveryCodesLeft}
            requiredBy={status.data.requiredBy}
            onCodes={setCodes}
          />
          <p className="field-hint">
            A new phone?{' '}
            <button type="button" className="inline-action" onClick={() => setReplacing(true)}>
              Set up the app again
            </button>{' '}
            (the old phone's codes stop working once the new one's is confirmed).
          </p>
        </>
      ) : (
        <Enrolment
          onCodes={(c) => {
            setReplacing(false);
            setCodes(c);
          }}
          onCancel={replacing ? () => setReplacing(false) : undefined}
        />
      )}
    </section>
  );
}

/**
 * In place of every screen while a workspace requires a second factor the person does not
 * have: the API answers nothing else (403 second_factor_required) until they enrol.
 */
export function RequiredEnrolment() {
  const session = useSignedIn();
  const [, navigate] = useLocation();
  const [codes, setCodes] = useState<string[] | null>(null);
  const signOut = useSignOut(() => navigate('/login', { replace: true }));
  const names = session.secondFactor.requiredBy.map((w) => w.name).join(', ');
  return (
    <div className="public">
      <PublicHeader className="enrolment-header">
        <button type="button" className="button button-small" onClick={() => signOut.mutate()}>
          Sign out
        </button>
      </PublicHeader>
      <main id="main" className="public-main">
        <div className="card public-card">
          <h1>Set up two-step sign-in</h1>
          {codes ? (
            <RecoveryCodes
              codes={codes}
              onDone={() => void queryClient.invalidateQueries({ queryKey: keys.session })}
            />
          ) : (
            <>
              <p className="lede">
                {names} {session.secondFactor.requiredBy.length === 1 ? 'requires' : 'require'} its members to use a
                second factor. Set up an authenticator app or add a passkey to continue as {session.user.email}.
              </p>
              <Enrolment onCodes={setCodes} />
              <h2 className="passkey-add-heading">Or add a passkey</h2>
              <AddPasskey />
            </>
          )}
        </div>
      </main>
    </div>
  );
}
