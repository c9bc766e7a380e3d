// API keys: the workspace's keys (a MEMBER sees their own), making one (shown once), revoking.
import { useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { useWorkspace } from '../../api/queries.ts';
import { can, useMembership, useSignedIn } from '../../api/session.ts';
import { useApiKeys, useCreateKey, useRevokeKey } from '../../api/settings.ts';
import { SCOPES, type ApiKey, type Role, type Scope } from '../../api/types.ts';
import { SubmitButton } from '../../components/buttons.tsx';
import { useConfirm } from '../../components/confirm.tsx';
import { ConfirmedWriteButton } from '../../components/row-buttons.tsx';
import { ACTIONS } from '../../components/data-table.tsx';
import { EmptyState, FormAlert } from '../../components/feedback.tsx';
import { OutcomeNotice, useOutcome } from '../../components/outcome-notice.tsx';
import { TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { ShownOnce } from '../../components/shown-once.tsx';
import { TableSection } from '../../components/table-section.tsx';
import { When } from '../../components/when.tsx';
import { localInputToIso } from '../../lib/dates.ts';
import { SettingsFrame } from './settings-frame.tsx';
import { boundText } from '../../components/text-inputs.ts';

type Field = 'name' | 'scopes' | 'expiresAt';
const FIELDS: Record<string, Field> = { name: 'name', scopes: 'scopes', expiresAt: 'expiresAt' };
/** The contract's limit on a key's name (openapi/dashboard/schemas/ApiKeyCreate.yaml). */
const NAME_MAX = 100;

export function ApiKeys() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const me = useSignedIn().user;
  const workspace = useWorkspace(ws);
  const list = useApiKeys(ws);
  const [ask, dialog] = useConfirm();
  const notice = useOutcome();

  const revoke = useRevokeKey(ws, {
    onSuccess: (_v, key) => notice.done(`Key ${key.hint} revoked. It answers 401 from now on.`),
    onError: (err) => notice.failed(err.message),
  });

  const apiIncluded = workspace.data?.features.api ?? true;
  // A MEMBER revokes only their own keys; OWNER and ADMIN any.
  const mayRevoke = (k: ApiKey) =>
    !k.revokedAt && (can.administer(role) || (can.makeKeys(role) && k.user.id === me.id));

  return (
    <SettingsFrame workspaceId={ws} title="API keys">
      {!apiIncluded ? (
        <p className="notice notice-info">
          <strong>API keys need the Growth plan.</strong> This workspace's plan does not include the API; keys made
          before still list here.
        </p>
      ) : null}
      <OutcomeNotice outcome={notice.outcome} />

      {can.makeKeys(role) ? (
        <CreateKey
          workspaceId={ws}
          role={role}
          offered={workspace.data?.keyScopes ?? []}
          disabled={!apiIncluded || workspace.isPending}
        />
      ) : null}

      <TableSection
        id="keys"
        heading="Keys"
        noun="keys"
        read={list}
        empty={<EmptyState title="No API keys yet">Keys you make act as you, with the scopes you choose.</EmptyState>}
        caption="API keys"
        headers={['Key', 'Scopes', 'Owner', 'Created', 'Last used', 'Expires', 'Revoked', ACTIONS]}
      >
        {(k) => (
          <tr key={k.id} className={k.revokedAt ? 'is-dim' : undefined}>
            <td>
              {k.name ? <span className="key-name">{k.name}</span> : null}
              <code className="nowrap">…{k.hint}</code>
            </td>
            <td>
              <span className="scope-list">
                {[...new Set(k.scopes)].map((s) => (
                  <code key={s} className="scope">
                    {s}
                  </code>
                ))}
              </span>
            </td>
            <td>{k.user.email}</td>
            <td className="nowrap">
              <When iso={k.createdAt} />
            </td>
            <td className="nowrap">
              {k.lastUsedAt ? <When iso={k.lastUsedAt} /> : <span className="muted">Never</span>}
            </td>
            <td className="nowrap">{k.expiresAt ? <When iso={k.expiresAt} /> : 'Never'}</td>
            <td className="nowrap">{k.revokedAt ? <When iso={k.revokedAt} /> : <span className="muted">No</span>}</td>
            <td className="cell-actions">
              {mayRevoke(k) ? (
                <ConfirmedWriteButton label="Revoke" name={`Revoke key ${k.hint}`} ask={ask} write={revoke} row={k}>
                  Requests with this key are refused from now on. This cannot be undone.
                </ConfirmedWriteButton>
              ) : null}
            </td>
          </tr>
        )}
      </TableSection>
      {dialog}
    </SettingsFrame>
  );
}

/**
 * The form offers only the scopes the person's role may put on a key (the workspace's
 * keyScopes, from the one table the service applies); the service refuses any other.
 */
function CreateKey(props: { workspaceId: string; role: Role; offered: readonly Scope[]; disabled: boolean }) {
  const { workspaceId, role, offered, disabled } = props;
  const [picked, setScopes] = useState<Scope[]>(['links:read']);
  const scopes = picked.filter((s) => offered.includes(s));
  const [expiresAt, setExpiresAt] = useState('');
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ key: string; hint: string } | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);

  const create = useCreateKey(workspaceId, {
    onSuccess: (answer) => {
      setCreated({ key: answer.key, hint: answer.data.hint });
      setExpiresAt('');
      setName('');
    },
    onError: (err) => errors.show(err),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.check({ scopes: scopes.length ? undefined : 'Choose at least one scope.' }))
      create.mutate({
        scopes,
        expiresAt: localInputToIso(expiresAt),
        ...(name.trim() ? { name: name.trim() } : {}),
      });
  };

  return (
    <section className="panel" aria-labelledby="create-key-heading">
      <h2 id="create-key-heading">Create key</h2>
      {created ? (
        <ShownOnce label="New API key" value={created.key} copyLabel="Copy key" onDone={() => setCreated(null)}>
          <strong>This key is shown once.</strong> Copy it now and keep it somewhere safe: only its last four characters
          ({created.hint}) are kept.
        </ShownOnce>
      ) : null}
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <TextField
          label="Name"
          {...boundText(name, setName)}
          error={errors.fields.name}
          maxLength={NAME_MAX}
          hint="Optional: what the key is for, to tell it from your other keys."
          disabled={disabled}
        />
        <fieldset
          className="scopes"
          disabled={disabled}
          aria-describedby={errors.fields.scopes ? 'scopes-error' : undefined}
        >
          <legend>Scopes</legend>
          <div className="check-grid">
            {SCOPES.filter((s) => offered.includes(s)).map((s) => (
              <div className="check" key={s}>
                <input
                  type="checkbox"
                  id={`scope-${s}`}
                  checked={scopes.includes(s)}
                  onChange={(e) => setScopes((prev) => (e.target.checked ? [...prev, s] : prev.filter((x) => x !== s)))}
                />
                <label htmlFor={`scope-${s}`} className="mono">
                  {s}
                </label>
              </div>
            ))}
          </div>
          {offered.length > 0 && offered.length < SCOPES.length ? (
            <p className="field-hint">
              As {role} you can give a key these scopes; a key never does more than your role allows.
            </p>
          ) : null}
          {errors.fields.scopes ? (
            <p id="scopes-error" className="field-error">
              {errors.fields.scopes}
            </p>
          ) : null}
        </fieldset>
        <TextField
          label="Expires at"
          type="datetime-local"
          {...boundText(expiresAt, setExpiresAt)}
          error={errors.fields.expiresAt}
          hint="Optional: empty for a key that does not expire."
          disabled={disabled}
          className="field-narrow"
        />
        <div>
          <SubmitButton pending={create.isPending} disabled={disabled}>
            Create key
          </SubmitButton>
        </div>
      </form>
    </section>
  );
}
