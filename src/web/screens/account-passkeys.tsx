// Account › Passkeys: the person's passkeys (added, last used), adding one under a name (the
// browser asks the authenticator), renaming and removing one. A passkey is a second factor and
// signs in alone; removing one asks for a recent sign-in (the API's 403 says so).
import { useRef, useState, type FormEvent } from 'react';
import { keys } from '../api/keys.ts';
import { passkeysSupported, useAddPasskey, usePasskeys, useRemovePasskey, useRenamePasskey } from '../api/passkeys.ts';
import { queryClient } from '../api/query-client.ts';
import type { Passkey } from '../api/types.ts';
import { SubmitButton } from '../components/buttons.tsx';
import { useConfirm } from '../components/confirm.tsx';
import { FormAlert, LoadError, Loading } from '../components/feedback.tsx';
import { TextField } from '../components/fields.tsx';
import { useFormErrors } from '../components/form-errors.ts';
import { OutcomeNotice, useOutcome } from '../components/outcome-notice.tsx';
import { ConfirmedWriteButton } from '../components/row-buttons.tsx';
import { boundText } from '../components/text-inputs.ts';
import { When } from '../components/when.tsx';
import { formatDate } from '../lib/dates.ts';

const NAME_FIELDS = { name: 'name', credential: 'name' } as const;

/** Names a new passkey and asks the browser for it; `onAdded` once the service keeps it. */
export function AddPasskey({ onAdded }: { onAdded?: (p: Passkey) => void }) {
  const [name, setName] = useState('');
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'name'>(NAME_FIELDS, formRef);
  const add = useAddPasskey({
    onSuccess: (answer) => {
      setName('');
      // The session says whether the person has a second factor (a workspace's requirement).
      void queryClient.invalidateQueries({ queryKey: keys.session });
      onAdded?.(answer.data);
    },
    onError: (err) => errors.show(err),
  });
  if (!passkeysSupported())
    return <p className="muted">This browser cannot use passkeys. Use another one to add a passkey.</p>;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.check({ name: name.trim() ? undefined : 'Name the passkey, such as "Laptop" or "Phone".' }))
      add.mutate(name.trim());
  };
  return (
    <form ref={formRef} onSubmit={submit} noValidate className="stack">
      <FormAlert message={errors.form} />
      <TextField
        label="Passkey name"
        name="passkey-name"
        autoComplete="off"
        maxLength={64}
        {...boundText(name, setName)}
        error={errors.fields.name}
        hint="To tell it from your others: the device or the key it lives on."
        required
      />
      <div>
        <SubmitButton pending={add.isPending}>Add a passkey</SubmitButton>
      </div>
    </form>
  );
}

function RenamePasskey({ passkey, onDone }: { passkey: Passkey; onDone: (renamed?: Passkey) => void }) {
  const [name, setName] = useState(passkey.name);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'name'>(NAME_FIELDS, formRef);
  const rename = useRenamePasskey({ onSuccess: (answer) => onDone(answer.data), onError: (err) => errors.show(err) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.check({ name: name.trim() ? undefined : 'Enter a name.' }))
      rename.mutate({ passkey, name: name.trim() });
  };
  return (
    <form ref={formRef} onSubmit={submit} noValidate className="stack passkey-rename">
      <FormAlert message={errors.form} />
      <TextField
        label={`New name for ${passkey.name}`}
        name="passkey-new-name"
        autoComplete="off"
        maxLength={64}
        autoFocus
        {...boundText(name, setName)}
        error={errors.fields.name}
        required
      />
      <div className="button-row">
        <SubmitButton pending={rename.isPending} className="button-small">
          Save
        </SubmitButton>
        <button type="button" className="button button-small button-quiet" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The Account screen's section. */
export function PasskeysPanel() {
  const list = usePasskeys();
  const [renaming, setRenaming] = useState<string | null>(null);
  const [ask, dialog] = useConfirm();
  const notice = useOutcome();
  const remove = useRemovePasskey({
    onSuccess: (_v, p) => {
      notice.done(`${p.name} is removed: it signs in no more.`);
      void queryClient.invalidateQueries({ queryKey: keys.session });
    },
    onError: (err) => notice.failed(err.message),
  });
  return (
    <section className="panel panel-narrow" aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p className="muted">
        A passkey signs you in with your fingerprint, face, screen lock or security key instead of a password, and
        counts as your second step after a password.
      </p>
      <OutcomeNotice outcome={notice.outcome} />
      {list.isPending ? (
        <Loading label="Loading your passkeys…" />
      ) : list.isError ? (
        <LoadError error={list.error} retry={() => list.refetch()} what="your passkeys" />
      ) : list.data.length === 0 ? (
        <p>You have no passkey yet.</p>
      ) : (
        <ul className="passkey-list" aria-label="Your passkeys">
          {list.data.map((p) => (
            <li key={p.id} className="passkey">
              {renaming === p.id ? (
                <RenamePasskey
                  passkey={p}
                  onDone={(renamed) => {
                    setRenaming(null);
                    if (renamed) notice.done(`Renamed to ${renamed.name}.`);
                  }}
                />
              ) : (
                <>
                  <div>
                    <strong className="passkey-name">{p.name}</strong>
                    <p className="muted passkey-dates">
                      Added {formatDate(p.createdAt)}
                      {' · '}
                      {p.lastUsedAt ? (
                        <>
                          last used <When iso={p.lastUsedAt} relative />
                        </>
                      ) : (
                        'not used yet'
                      )}
                    </p>
                  </div>
                  <div className="button-row">
                    <button
                      type="button"
                      className="button button-small"
                      aria-label={`Rename ${p.name}`}
                      onClick={() => setRenaming(p.id)}
                    >
                      Rename
                    </button>
                    <ConfirmedWriteButton label="Remove" name={`Remove ${p.name}`} ask={ask} write={remove} row={p}>
                      It signs you in no more. The device keeps it until you delete it there.
                    </ConfirmedWriteButton>
                  </div>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      <h3 className="passkey-add-heading">Add a passkey</h3>
      <AddPasskey onAdded={(p) => notice.done(`${p.name} is added. You can sign in with it now.`)} />
      {dialog}
    </section>
  );
}
