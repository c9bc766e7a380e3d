import { useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { can, useMembership } from '../../api/session.ts';
import { useCampaigns, useCreateCampaign } from '../../api/settings.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { DataTable, ListState } from '../../components/data-table.tsx';
import { EmptyState, StatusNotice } from '../../components/feedback.tsx';
import { TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { RowFormPanel } from '../../components/row-form-panel.tsx';
import { formatDate } from '../../lib/dates.ts';
import { SettingsFrame } from './settings-frame.tsx';

type Field = 'name';
const FIELDS: Record<string, Field> = { name: 'name' };

export function Campaigns() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const list = useCampaigns(ws);
  const [name, setName] = useState('');
  const [made, setMade] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);
  const create = useCreateCampaign(ws, {
    onSuccess: (answer) => {
      setMade(answer.data.name);
      setName('');
      errors.clear();
    },
    onError: (err) => errors.show(err),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMade(null);
    if (errors.check({ name: name.trim() ? undefined : 'Name the campaign.' })) create.mutate(name.trim());
  };

  return (
    <SettingsFrame workspaceId={ws} title="Campaigns">
      {can.administer(role) ? (
        <RowFormPanel
          headingId="create-campaign-heading"
          heading="Create campaign"
          intro={made ? <StatusNotice>Campaign {made} created.</StatusNotice> : null}
          formRef={formRef}
          onSubmit={submit}
          formError={errors.form}
          pending={create.isPending}
          submit="Create campaign"
        >
          <TextField
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={errors.fields.name}
            maxLength={200}
            className="grow"
          />
        </RowFormPanel>
      ) : null}
      <section className="section" aria-labelledby="campaigns-heading">
        <h2 id="campaigns-heading">Campaigns of this workspace</h2>
        <p className="muted">Conversions and goals name a campaign by its id.</p>
        <ListState
          read={list}
          loading="Loading campaigns…"
          what="the campaigns"
          empty={<EmptyState title="No campaigns yet" />}
        >
          {(rows) => (
            <DataTable caption="Campaigns" captionId="campaigns-caption" headers={['Name', 'Campaign id', 'Created']}>
              {rows.map((c) => (
                <tr key={c.id}>
                  <td>{c.name}</td>
                  <td>
                    <span className="copy-line">
                      <code>{c.id}</code>
                      <CopyButton text={c.id} label={`Copy campaign id of ${c.name}`} />
                    </span>
                  </td>
                  <td className="nowrap">{formatDate(c.createdAt)}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </ListState>
      </section>
    </SettingsFrame>
  );
}
