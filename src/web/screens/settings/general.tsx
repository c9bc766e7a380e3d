import { useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { useWorkspace } from '../../api/queries.ts';
import { can } from '../../api/session.ts';
import { useRenameWorkspace } from '../../api/settings.ts';
import type { Workspace } from '../../api/types.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { LoadError, Loading, StatusNotice } from '../../components/feedback.tsx';
import { TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { RowFormPanel } from '../../components/row-form-panel.tsx';
import { boundText } from '../../components/text-inputs.ts';
import { formatDate } from '../../lib/dates.ts';
import { planName, roleName } from '../../lib/format.ts';
import { SecondFactorRequirement } from './second-factor-requirement.tsx';
import { SettingsFrame } from './settings-frame.tsx';

const FEATURES: Array<{ key: keyof Workspace['features']; name: string; what: string }> = [
  { key: 'api', name: 'API keys', what: 'Use the public API with keys.' },
  { key: 'expiredUrl', name: 'Expired-link redirects', what: 'Send visitors of an expired link elsewhere.' },
  { key: 'webhooks', name: 'Webhooks', what: 'Signed events sent to your servers.' },
  { key: 'conversions', name: 'Conversion tracking', what: 'Record conversions server-side.' },
  { key: 'goals', name: 'Goals', what: 'Conversion goals and their reports.' },
];

/** The contract's limit (openapi/dashboard/schemas/WorkspaceUpdate.yaml). */
const NAME_MAX = 200;
const RENAME_FIELDS: Record<string, 'name'> = { name: 'name' };

/** An OWNER's or ADMIN's form for the workspace's name; the API refuses everyone else (x-roles). */
function RenameWorkspace({ workspaceId, current }: { workspaceId: string; current: string }) {
  const [name, setName] = useState(current);
  const [saved, setSaved] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'name'>(RENAME_FIELDS, formRef);
  const rename = useRenameWorkspace(workspaceId, {
    onSuccess: (answer) => {
      setSaved(answer.data.name);
      setName(answer.data.name);
      errors.clear();
    },
    onError: (err) => errors.show(err),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(null);
    if (!errors.check({ name: name.trim() ? undefined : 'Name the workspace.' })) return;
    rename.mutate(name.trim());
  };
  return (
    <RowFormPanel
      headingId="rename-heading"
      heading="Rename the workspace"
      intro={saved ? <StatusNotice>Workspace renamed to {saved}.</StatusNotice> : null}
      formRef={formRef}
      onSubmit={submit}
      formError={errors.form}
      pending={rename.isPending}
      submit="Save name"
    >
      <TextField
        label="Workspace name"
        {...boundText(name, setName)}
        error={errors.fields.name}
        maxLength={NAME_MAX}
        hint="Every member sees the new name at once."
        className="grow"
      />
    </RowFormPanel>
  );
}

export function GeneralSettings() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const workspace = useWorkspace(ws);
  return (
    <SettingsFrame workspaceId={ws} title="General">
      {workspace.isPending ? (
        <Loading label="Loading the workspace…" />
      ) : workspace.isError ? (
        <LoadError error={workspace.error} retry={() => workspace.refetch()} what="the workspace" />
      ) : (
        <>
          {can.administer(workspace.data.role) ? (
            <RenameWorkspace workspaceId={ws} current={workspace.data.name} />
          ) : null}
          <section className="panel" aria-labelledby="workspace-heading">
            <h2 id="workspace-heading">Workspace</h2>
            <dl className="facts facts-wide">
              <div>
                <dt>Name</dt>
                <dd>{workspace.data.name}</dd>
              </div>
              <div>
                <dt>Workspace id</dt>
                <dd className="with-action">
                  <code>{workspace.data.id}</code>
                  <CopyButton text={workspace.data.id} label="Copy workspace id" />
                </dd>
              </div>
              <div>
                <dt>Plan</dt>
                <dd>
                  <span className="badge badge-plan">{planName(workspace.data.plan)}</span>
                </dd>
              </div>
              <div>
                <dt>Your role</dt>
                <dd>{roleName(workspace.data.role)}</dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>{formatDate(workspace.data.createdAt)}</dd>
              </div>
            </dl>
            <p className="field-hint">The workspace id is what webhooks of Variant A call workspaceId.</p>
          </section>
          {can.administer(workspace.data.role) ? (
            <SecondFactorRequirement workspaceId={ws} role={workspace.data.role} />
          ) : null}
          <section className="panel" aria-labelledby="features-heading">
            <h2 id="features-heading">What the {planName(workspace.data.plan)} plan includes</h2>
            <ul className="feature-list">
              {FEATURES.map((f) => {
                const included = workspace.data.features[f.key];
                const paid = workspace.data.plan === 'growth' || workspace.data.plan === 'business';
                return (
                  <li key={f.key} className={included ? 'is-included' : 'is-missing'}>
                    <span className="feature-mark" aria-hidden="true">
                      {included ? '✓' : '–'}
                    </span>
                    <span>
                      <strong>{f.name}</strong>:{' '}
                      {included ? 'included' : paid ? 'switched off on this service' : 'needs the Growth plan'}
                      <span className="muted feature-what"> {f.what}</span>
                    </span>
                  </li>
                );
              })}
            </ul>
          </section>
        </>
      )}
    </SettingsFrame>
  );
}
