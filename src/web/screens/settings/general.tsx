import { useParams } from 'wouter';
import { useWorkspace } from '../../api/queries.ts';
import type { Workspace } from '../../api/types.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { LoadError, Loading } from '../../components/feedback.tsx';
import { formatDate } from '../../lib/dates.ts';
import { planName, roleName } from '../../lib/format.ts';
import { SettingsFrame } from './settings-frame.tsx';

const FEATURES: Array<{ key: keyof Workspace['features']; name: string; what: string }> = [
  { key: 'api', name: 'API keys', what: 'Use the public API with keys.' },
  { key: 'expiredUrl', name: 'Expired-link redirects', what: 'Send visitors of an expired link elsewhere.' },
  { key: 'webhooks', name: 'Webhooks', what: 'Signed events sent to your servers.' },
  { key: 'conversions', name: 'Conversion tracking', what: 'Record conversions server-side.' },
  { key: 'goals', name: 'Goals', what: 'Conversion goals and their reports.' },
];

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
