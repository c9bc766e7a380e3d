// Settings › Single sign-on: the workspace's OpenID Connect provider, which only an OWNER reads
// and sets (the contract's x-roles). The client secret is never shown: typed once, kept sealed.
import { useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { useMembership } from '../../api/session.ts';
import { useRemoveSso, useSaveSso, useSsoProvider } from '../../api/sso.ts';
import type { SsoProvider, SsoRole } from '../../api/types.ts';
import { ConfirmedActionButton, SubmitButton } from '../../components/buttons.tsx';
import { useConfirm } from '../../components/confirm.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { FormAlert, LoadError, Loading, StatusNotice } from '../../components/feedback.tsx';
import { CheckboxField, Options, SelectField, TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { boundText } from '../../components/text-inputs.ts';
import { SettingsFrame } from './settings-frame.tsx';

type Field = 'issuer' | 'clientId' | 'clientSecret' | 'domains' | 'defaultRole';
const FIELDS: Record<string, Field> = {
  issuer: 'issuer',
  clientId: 'clientId',
  clientSecret: 'clientSecret',
  domains: 'domains',
  defaultRole: 'defaultRole',
};
const ROLES: Array<{ value: SsoRole; label: string }> = [
  { value: 'MEMBER', label: 'Member' },
  { value: 'ANALYST', label: 'Analyst' },
  { value: 'ADMIN', label: 'Admin' },
];

export function SsoSettings() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const owner = useMembership(ws)!.role === 'OWNER';
  return (
    <SettingsFrame workspaceId={ws} title="Single sign-on">
      {owner ? (
        <OwnersSso workspaceId={ws} />
      ) : (
        <section className="panel" aria-labelledby="sso-heading">
          <h2 id="sso-heading">Single sign-on</h2>
          <p className="muted">Only an owner of the workspace sets up single sign-on.</p>
        </section>
      )}
    </SettingsFrame>
  );
}

function OwnersSso({ workspaceId }: { workspaceId: string }) {
  const read = useSsoProvider(workspaceId);
  // Kept here: the form starts afresh from what each save stored.
  const [notice, setNotice] = useState<string | null>(null);
  if (read.isPending) return <Loading label="Loading single sign-on…" />;
  if (read.isError) return <LoadError error={read.error} retry={() => read.refetch()} what="single sign-on" />;
  return (
    <>
      {notice ? <StatusNotice>{notice}</StatusNotice> : null}
      <SsoForm
        workspaceId={workspaceId}
        stored={read.data}
        setNotice={setNotice}
        key={read.data?.updatedAt ?? 'none'}
      />
    </>
  );
}

function SsoForm({
  workspaceId,
  stored,
  setNotice,
}: {
  workspaceId: string;
  stored: SsoProvider | null;
  setNotice: (notice: string | null) => void;
}) {
  const [issuer, setIssuer] = useState(stored?.issuer ?? '');
  const [clientId, setClientId] = useState(stored?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [domains, setDomains] = useState(stored?.domains.join(', ') ?? '');
  const [defaultRole, setDefaultRole] = useState<SsoRole>(stored?.defaultRole ?? 'MEMBER');
  const [enabled, setEnabled] = useState(stored?.enabled ?? true);
  const [passwordSignIn, setPasswordSignIn] = useState(stored?.passwordSignIn ?? true);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);
  const [ask, dialog] = useConfirm();
  const save = useSaveSso(workspaceId, {
    onSuccess: (answer) =>
      setNotice(
        answer.data?.enabled
          ? 'Single sign-on is saved and on: people of these domains can sign in with SSO.'
          : 'Single sign-on is saved and off: nobody signs in through the provider.',
      ),
    onError: (err) => errors.show(err),
  });
  const remove = useRemoveSso(workspaceId, {
    onSuccess: () => setNotice('Single sign-on is removed; its domains are free.'),
    onError: (err) => errors.show(err),
  });
  const redirectUri = stored?.redirectUri ?? `${window.location.origin}/app/api/sso/callback`;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    const list = domains
      .split(/[\s,;]+/)
      .map((d) => d.trim())
      .filter(Boolean);
    const ok = errors.check({
      issuer: issuer.trim() ? undefined : "Enter the provider's issuer URL.",
      clientId: clientId.trim() ? undefined : 'Enter the client id.',
      clientSecret: stored || clientSecret ? undefined : 'Enter the client secret.',
      domains: list.length ? undefined : 'Name at least one email domain.',
    });
    if (!ok) return;
    save.mutate({
      issuer: issuer.trim(),
      clientId: clientId.trim(),
      ...(clientSecret ? { clientSecret } : {}),
      domains: list,
      defaultRole,
      enabled,
      passwordSignIn,
    });
  };

  return (
    <>
      <section className="panel" aria-labelledby="sso-heading">
        <h2 id="sso-heading">OpenID Connect provider</h2>
        <p className="muted">
          People whose email is of these domains sign in at your identity provider. A first sign-in makes their
          membership with the role below. Your provider is trusted for this workspace only: someone who already belongs
          to another workspace links single sign-on from their Account page first.
        </p>
        <div className="field">
          <p className="field-label">Redirect URI to register at the provider</p>
          <span className="copy-line">
            <code>{redirectUri}</code>
            <CopyButton text={redirectUri} label="Copy redirect URI" />
          </span>
        </div>
        <form ref={formRef} onSubmit={submit} noValidate className="stack">
          <FormAlert message={errors.form} />
          <TextField
            label="Issuer URL"
            type="url"
            placeholder="https://login.example.com"
            {...boundText(issuer, setIssuer)}
            error={errors.fields.issuer}
            hint="Read by the service over https; its /.well-known/openid-configuration must answer."
          />
          <TextField label="Client ID" {...boundText(clientId, setClientId)} error={errors.fields.clientId} />
          <TextField
            label="Client secret"
            type="password"
            autoComplete="off"
            {...boundText(clientSecret, setClientSecret)}
            error={errors.fields.clientSecret}
            hint={stored ? 'Stored and never shown. Leave empty to keep it.' : 'Stored sealed and never shown again.'}
          />
          <TextField
            label="Email domains"
            placeholder="example.com, example.org"
            {...boundText(domains, setDomains)}
            error={errors.fields.domains}
            hint="Separated by commas. A domain belongs to one workspace's single sign-on."
          />
          <SelectField
            label="Role of new members"
            value={defaultRole}
            onChange={(e) => setDefaultRole(e.target.value as SsoRole)}
            error={errors.fields.defaultRole}
          >
            <Options choices={ROLES} />
          </SelectField>
          <CheckboxField
            label="Sign people in through this provider"
            checked={enabled}
            onChange={(e) => setEnabled(e.target.checked)}
          />
          <CheckboxField
            label="Allow password sign-in for these domains"
            checked={passwordSignIn}
            onChange={(e) => setPasswordSignIn(e.target.checked)}
            hint="Turned off, people of these domains sign in with SSO only, unless they also belong to a workspace that still allows passwords."
          />
          <div className="form-actions">
            <SubmitButton pending={save.isPending}>Save single sign-on</SubmitButton>
            {stored ? (
              <ConfirmedActionButton
                label="Remove single sign-on"
                name="Remove single sign-on"
                ask={ask}
                disabled={remove.isPending}
                question={{
                  title: 'Remove single sign-on?',
                  body: 'Its domains are freed and linked identities forgotten. Members keep their membership; those without a password need a set-up link to sign in.',
                  confirmLabel: 'Remove',
                }}
                onConfirmed={() => remove.mutate()}
              />
            ) : null}
          </div>
        </form>
      </section>
      {dialog}
    </>
  );
}
