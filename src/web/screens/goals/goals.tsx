// Goals: the workspace's goals by status, and a new goal. Each opens to its report.
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'wouter';
import { useGoals } from '../../api/goals.ts';
import { useCampaigns } from '../../api/settings.ts';
import { LinkName, QrName } from '../../components/link-search.tsx';
import { useWorkspace } from '../../api/queries.ts';
import { can, useMembership } from '../../api/session.ts';
import type { Goal } from '../../api/types.ts';
import { DataTable, ListState } from '../../components/data-table.tsx';
import { EmptyState, StatusNotice } from '../../components/feedback.tsx';
import { PageHeader } from '../../components/page.tsx';
import { money, typeLabel } from '../../lib/conversions.ts';
import { formatCount, planName } from '../../lib/format.ts';
import { wsPath } from '../links/paths.ts';
import { GoalForm } from './goal-form.tsx';

const STATUSES = [
  { value: '', label: 'All' },
  { value: 'ACTIVE', label: 'Active' },
  { value: 'PAUSED', label: 'Paused' },
  { value: 'ARCHIVED', label: 'Archived' },
] as const;

export const goalPath = (ws: string, id: string) => wsPath(ws, `/goals/${encodeURIComponent(id)}`);

/** What a goal measures, as people know it: a link by its short URL, a campaign by its name. */
export function GoalScope({ ws, goal }: { ws: string; goal: Goal }) {
  const campaigns = useCampaigns(ws, Boolean(goal.campaignId));
  if (goal.linkId)
    return (
      <>
        Link <LinkName workspaceId={ws} linkId={goal.linkId} />
      </>
    );
  if (goal.qrCodeId) return <QrName workspaceId={ws} qrCodeId={goal.qrCodeId} />;
  if (goal.campaignId)
    return <>Campaign {campaigns.data?.find((c) => c.id === goal.campaignId)?.name ?? goal.campaignId}</>;
  return <>Every conversion</>;
}

export function statusBadge(status: Goal['status']) {
  const tone = status === 'ACTIVE' ? 'badge-ok' : status === 'PAUSED' ? 'badge-neutral' : 'badge-off';
  return (
    <span className={`badge ${tone}`}>
      {status === 'ACTIVE' ? 'Active' : status === 'PAUSED' ? 'Paused' : 'Archived'}
    </span>
  );
}

export default function Goals() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const workspace = useWorkspace(ws);
  const [params, setParams] = useSearchParams();
  const status = STATUSES.some((s) => s.value === params.get('status'))
    ? (params.get('status') as Goal['status'])
    : undefined;
  const [made, setMade] = useState<Goal | null>(null);
  const [making, setMaking] = useState(false);
  const included = workspace.data?.features.goals ?? true;
  const list = useGoals(ws, status, included);

  return (
    <>
      <PageHeader
        title="Goals"
        actions={
          can.editLinks(role) && included ? (
            <button
              type="button"
              className="button button-primary"
              aria-expanded={making}
              aria-controls="new-goal"
              onClick={() => setMaking((m) => !m)}
            >
              {making ? 'Close the new goal' : 'New goal'}
            </button>
          ) : null
        }
      >
        <p className="muted">
          A goal is a saved question about your conversions: how many of a type, for a link, QR code or campaign,
          against a target. It counts past conversions too.
        </p>
      </PageHeader>
      {!included && workspace.data ? (
        <p className="notice notice-info">
          <strong>Goals need the Growth plan.</strong> The {planName(workspace.data.plan)} plan of this workspace does
          not include conversions and goals.
        </p>
      ) : (
        <>
          {made ? (
            <StatusNotice>
              Goal <Link href={goalPath(ws, made.id)}>{made.name}</Link> created.
            </StatusNotice>
          ) : null}
          {can.editLinks(role) && making ? (
            <section className="panel" id="new-goal" aria-labelledby="new-goal-heading">
              <h2 id="new-goal-heading">New goal</h2>
              <GoalForm
                workspaceId={ws}
                submitLabel="Create goal"
                onSaved={(g) => {
                  setMade(g);
                  setMaking(false);
                }}
              />
            </section>
          ) : null}
          <section className="section" aria-labelledby="goals-heading">
            <div className="panel-header">
              <h2 id="goals-heading">Goals of this workspace</h2>
              <div className="segmented" role="group" aria-label="Show goals">
                {STATUSES.map((s) => (
                  <button
                    key={s.value}
                    type="button"
                    className="button button-small"
                    aria-pressed={(status ?? '') === s.value}
                    onClick={() => setParams(s.value ? { status: s.value } : {}, { replace: true })}
                  >
                    {s.label}
                  </button>
                ))}
              </div>
            </div>
            <ListState
              read={list}
              loading="Loading goals…"
              what="the goals"
              empty={<EmptyState title={status ? 'No goals with this status' : 'No goals yet'} />}
            >
              {(rows) => (
                <DataTable
                  caption="Goals"
                  captionId="goals-caption"
                  headers={['Name', 'Counts', 'Measures', 'Targets', 'Status']}
                >
                  {rows.map((g) => (
                    <tr key={g.id}>
                      <td>
                        <Link href={goalPath(ws, g.id)}>{g.name}</Link>
                      </td>
                      <td>
                        {typeLabel(g.type)}
                        {g.customName ? ` “${g.customName}”` : ''}
                      </td>
                      <td>
                        <GoalScope ws={ws} goal={g} />
                      </td>
                      <td>
                        {[
                          g.targetCount !== null ? `${formatCount(g.targetCount)} conversions` : null,
                          g.targetValueMinor !== null && g.targetCurrency
                            ? money(g.targetValueMinor, g.targetCurrency)
                            : null,
                        ]
                          .filter(Boolean)
                          .join(' · ') || '—'}
                      </td>
                      <td>{statusBadge(g.status)}</td>
                    </tr>
                  ))}
                </DataTable>
              )}
            </ListState>
          </section>
        </>
      )}
    </>
  );
}
