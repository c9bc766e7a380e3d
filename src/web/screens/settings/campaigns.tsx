import { useParams } from 'wouter';
import { can, useMembership } from '../../api/session.ts';
import { useCampaigns, useCreateCampaign } from '../../api/settings.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { EmptyState } from '../../components/feedback.tsx';
import { TableSection } from '../../components/table-section.tsx';
import { formatDate } from '../../lib/dates.ts';
import { CreateNamedPanel } from './create-named.tsx';
import { SettingsFrame } from './settings-frame.tsx';

export function Campaigns() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const list = useCampaigns(ws);
  const create = useCreateCampaign(ws);

  return (
    <SettingsFrame workspaceId={ws} title="Campaigns">
      {can.administer(role) ? (
        <CreateNamedPanel noun="campaign" maxLength={200} create={create} vars={(name) => name} />
      ) : null}
      <TableSection
        id="campaigns"
        heading="Campaigns of this workspace"
        intro={<p className="muted">Conversions and goals name a campaign by its id.</p>}
        noun="campaigns"
        read={list}
        empty={<EmptyState title="No campaigns yet" />}
        caption="Campaigns"
        headers={['Name', 'Campaign id', 'Created']}
      >
        {(c) => (
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
        )}
      </TableSection>
    </SettingsFrame>
  );
}
