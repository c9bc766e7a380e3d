// Custom domains: add a host, publish what it says, verify; disable; the app links each serves.
// OWNER and ADMIN change them.
import { useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { useDomains } from '../../api/queries.ts';
import { can, useMembership } from '../../api/session.ts';
import { useAddDomain, useDisableDomain, useVerifyDomain } from '../../api/settings.ts';
import type { Domain } from '../../api/types.ts';
import { useConfirm } from '../../components/confirm.tsx';
import { ConfirmedWriteButton, RowButton } from '../../components/row-buttons.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { ACTIONS, DataTable, ListState } from '../../components/data-table.tsx';
import { EmptyState } from '../../components/feedback.tsx';
import { OutcomeNotice, useOutcome } from '../../components/outcome-notice.tsx';
import { TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { RowFormPanel } from '../../components/row-form-panel.tsx';
import { When } from '../../components/when.tsx';
import { SettingsFrame } from './settings-frame.tsx';
import { DomainAppLinks } from './domain-app-links.tsx';
import { boundText } from '../../components/text-inputs.ts';

const STATUS = {
  PENDING: ['Pending', 'badge-neutral'],
  ACTIVE: ['Active', 'badge-ok'],
  DISABLED: ['Disabled', 'badge-off'],
  EXPIRED: ['Expired', 'badge-off'],
} as const;

export function Domains() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const list = useDomains(ws);
  const [ask, dialog] = useConfirm();
  const notice = useOutcome();
  const [added, setAdded] = useState<Domain | null>(null);
  const [appLinksOf, setAppLinksOf] = useState<Domain | null>(null);

  const verify = useVerifyDomain(ws, {
    onSuccess: (answer) => {
      notice.done(`${answer.data.host} is verified and serves this workspace's links.`);
      if (added?.id === answer.data.id) setAdded(null);
    },
    onError: (err, d) => notice.failed(`${d.host}: ${err.message}`),
  });
  const disable = useDisableDomain(ws, {
    onSuccess: (answer) =>
      notice.done(`${answer.data.host} is disabled: its links stop working until it is verified again.`),
    onError: (err, d) => notice.failed(`${d.host}: ${err.message}`),
  });
  const admin = can.administer(role);
  const busy = verify.isPending || disable.isPending;

  return (
    <SettingsFrame workspaceId={ws} title="Domains">
      <OutcomeNotice outcome={notice.outcome} />
      {admin ? <AddDomain workspaceId={ws} onAdded={setAdded} /> : null}
      {added ? <Instructions domain={added} heading={`Verify ${added.host}`} /> : null}

      <section className="section" aria-labelledby="domains-heading">
        <h2 id="domains-heading">Custom domains</h2>
        <p className="muted">Links can live on your own host instead of the shared short domain once it is verified.</p>
        <ListState
          read={list}
          loading="Loading domains…"
          what="the domains"
          empty={
            <EmptyState title="No custom domains yet">
              {admin ? 'Add a host above, such as go.example.com.' : 'Owners and admins add custom domains.'}
            </EmptyState>
          }
        >
          {(domains) => (
            <>
              <DataTable
                caption="Custom domains"
                captionId="domains-caption"
                headers={['Host', 'Status', 'Verified', ACTIONS]}
              >
                {domains.map((d) => (
                  <tr key={d.id}>
                    <td className="mono">{d.host}</td>
                    <td>
                      <span className={`badge ${STATUS[d.status][1]}`}>{STATUS[d.status][0]}</span>
                    </td>
                    <td className="nowrap">
                      <Verified domain={d} />
                    </td>
                    <td className="cell-actions">
                      {d.status !== 'EXPIRED' ? (
                        <RowButton
                          label="App links"
                          name={`App links for ${d.host}`}
                          onClick={() => setAppLinksOf(d)}
                        />
                      ) : null}
                      {admin && d.status !== 'ACTIVE' && d.status !== 'EXPIRED' ? (
                        <RowButton
                          label="Verify"
                          name={`Verify ${d.host}`}
                          disabled={busy}
                          onClick={() => verify.mutate(d)}
                        />
                      ) : null}
                      {admin && d.status !== 'DISABLED' && d.status !== 'EXPIRED' ? (
                        <ConfirmedWriteButton
                          label="Disable"
                          name={`Disable ${d.host}`}
                          ask={ask}
                          write={disable}
                          row={d}
                          disabled={busy}
                        >
                          Its links stop working from the next click. Verifying the domain again turns it back on.
                        </ConfirmedWriteButton>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </DataTable>
              {domains
                .filter((d) => d.status === 'PENDING' && d.id !== added?.id)
                .map((d) => (
                  <details key={d.id} className="instructions-details">
                    <summary>How to verify {d.host}</summary>
                    <Instructions domain={d} />
                  </details>
                ))}
            </>
          )}
        </ListState>
      </section>
      {appLinksOf ? (
        <DomainAppLinks
          workspaceId={ws}
          domain={appLinksOf}
          editable={admin}
          onClose={() => setAppLinksOf(null)}
          key={appLinksOf.id}
        />
      ) : null}
      {dialog}
    </SettingsFrame>
  );
}

/** When it was verified; for a claim, until when it can be, or that it lapsed (add it again). */
function Verified({ domain: d }: { domain: Domain }) {
  if (d.verifiedAt) return <When iso={d.verifiedAt} />;
  if (d.status === 'EXPIRED') return <span className="muted">Not verified in time: add the host again</span>;
  if (d.expiresAt) {
    return (
      <span className="muted">
        Not yet (verify by <When iso={d.expiresAt} />)
      </span>
    );
  }
  return <span className="muted">Not yet</span>;
}

function Instructions({ domain, heading }: { domain: Domain; heading?: string }) {
  const v = domain.verification;
  const body = (
    <ol className="steps">
      <li>
        Point <code>{domain.host}</code> at this service with a CNAME record to:
        <span className="copy-line">
          <code>{v.cname}</code>
          <CopyButton text={v.cname} label={`Copy CNAME target for ${domain.host}`} />
        </span>
      </li>
      <li>
        Publish a TXT record named
        <span className="copy-line">
          <code>{v.txtName}</code>
          <CopyButton text={v.txtName} label={`Copy TXT name for ${domain.host}`} />
        </span>
        with the value
        <span className="copy-line">
          <code>{v.txtValue}</code>
          <CopyButton text={v.txtValue} label={`Copy TXT value for ${domain.host}`} />
        </span>
      </li>
      <li>Once the records are published (DNS can take a while), press Verify in the list below.</li>
    </ol>
  );
  if (!heading) return body;
  return (
    <section className="panel panel-highlight" aria-labelledby="instructions-heading">
      <h2 id="instructions-heading">{heading}</h2>
      {body}
    </section>
  );
}

type Field = 'host';
const FIELDS: Record<string, Field> = { host: 'host' };

function AddDomain({ workspaceId, onAdded }: { workspaceId: string; onAdded: (d: Domain) => void }) {
  const [host, setHost] = useState('');
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);
  const add = useAddDomain(workspaceId, {
    onSuccess: (answer) => {
      onAdded(answer.data);
      setHost('');
      errors.clear();
    },
    onError: (err) => errors.show(err),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.check({ host: host.trim() ? undefined : 'Enter a host, such as go.example.com.' }))
      add.mutate(host.trim());
  };
  return (
    <RowFormPanel
      headingId="add-domain-heading"
      heading="Add domain"
      formRef={formRef}
      onSubmit={submit}
      formError={errors.form}
      pending={add.isPending}
      submit="Add domain"
    >
      <TextField
        label="Host"
        {...boundText(host, setHost)}
        error={errors.fields.host}
        placeholder="go.example.com"
        hint="Without https:// or a path."
        autoCapitalize="none"
        spellCheck={false}
        className="grow"
      />
    </RowFormPanel>
  );
}
