// One goal: its report over a window (progress bars for the count and value targets, the window
// actually measured, what the completeness flags mean), its definition and what a change does,
// pausing, archiving and reactivating.
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { useGoalReport, useGoals, useGoalStatus } from '../../api/goals.ts';
import { can, useMembership } from '../../api/session.ts';
import type { Goal, GoalReport } from '../../api/types.ts';
import { FormAlert, LoadError, Loading, StatusNotice } from '../../components/feedback.tsx';
import { Options, SelectField } from '../../components/fields.tsx';
import { PageHeader } from '../../components/page.tsx';
import { money, RATE_REASONS, typeLabel } from '../../lib/conversions.ts';
import { formatDateTime, lastDays } from '../../lib/dates.ts';
import { formatCount } from '../../lib/format.ts';
import { wsPath } from '../links/paths.ts';
import { ShareButton } from '../reports/share-button.tsx';
import { GoalForm } from './goal-form.tsx';
import { GoalScope, statusBadge } from './goals.tsx';

const WINDOWS = lastDays([7, 30, 90, 400]);

/** The status changes offered from `status`, in button order: reactivate or pause, then archive. */
function statusMoves(status: Goal['status']): Array<[Goal['status'], string]> {
  const moves: Array<[Goal['status'], string]> = [status !== 'ACTIVE' ? ['ACTIVE', 'Reactivate'] : ['PAUSED', 'Pause']];
  if (status !== 'ARCHIVED') moves.push(['ARCHIVED', 'Archive']);
  return moves;
}

function Progress({
  label,
  current,
  target,
  ratio,
  reached,
}: {
  label: string;
  current: string;
  target: string;
  ratio: number;
  reached: boolean;
}) {
  const percent = Math.round(Math.min(ratio, 1) * 100);
  return (
    <div className={`progress-item${reached ? ' is-met' : ''}`}>
      <div className="progress-head">
        <span>{label}</span>
        <span className="muted">
          {current} of {target} ({Math.round(ratio * 100)}%){reached ? ' · reached' : ''}
        </span>
      </div>
      <progress max={100} value={percent} aria-label={`${label}: ${current} of ${target}`} />
    </div>
  );
}

/** A goal's report, read-only: the goal's screen and a shared GOAL report draw it. */
export function GoalReportView({ report }: { report: GoalReport }) {
  const d = report.data;
  const rate = d.rate;
  return (
    <>
      <dl className="stats stats-money">
        <div className="stat">
          <dt>Conversions</dt>
          <dd>{formatCount(d.conversions)}</dd>
        </div>
        {d.value.map((v) => (
          <div className="stat" key={v.currency}>
            <dt>Value ({v.currency})</dt>
            <dd>{money(v.valueMinor, v.currency)}</dd>
          </div>
        ))}
        <div className="stat">
          <dt>Conversion rate</dt>
          <dd>{rate.supported && rate.rate !== null ? `${(rate.rate * 100).toFixed(1)}%` : 'Not available'}</dd>
        </div>
      </dl>
      {d.countProgress || d.valueProgress ? (
        <div className="progress-list">
          {d.countProgress ? (
            <Progress
              label="Conversions target"
              current={formatCount(d.countProgress.current)}
              target={formatCount(d.countProgress.target)}
              ratio={d.countProgress.ratio}
              reached={d.countProgress.reached}
            />
          ) : null}
          {d.valueProgress ? (
            <Progress
              label="Value target"
              current={money(d.valueProgress.current, d.valueProgress.currency)}
              target={money(d.valueProgress.target, d.valueProgress.currency)}
              ratio={d.valueProgress.ratio}
              reached={d.valueProgress.reached}
            />
          ) : null}
        </div>
      ) : (
        <p className="muted">This goal has no target; it counts.</p>
      )}
      <section className="panel" aria-labelledby="report-notes-heading">
        <h2 id="report-notes-heading">About these figures</h2>
        <dl className="facts facts-wide">
          <div>
            <dt>Window measured</dt>
            <dd>
              {formatDateTime(d.window.from)} to {formatDateTime(d.window.to)}
            </dd>
          </div>
          <div>
            <dt>Definition</dt>
            <dd>
              Version {d.definition.version}, since {formatDateTime(d.definition.updatedAt)}
            </dd>
          </div>
        </dl>
        <ul className="flag-list">
          {d.window.disjoint ? (
            <li>The goal's own window and the window asked for do not overlap, so every count is 0.</li>
          ) : null}
          {d.window.narrowedByGoal && !d.window.disjoint ? (
            <li>The goal's own window cut the window asked for: the figures count only the window measured above.</li>
          ) : null}
          {d.completeness.windowTruncatedByRetention ? (
            <li>The window reaches back past 400 days, beyond which conversions are not kept: the count is a floor.</li>
          ) : null}
          {d.completeness.scopeObjectMissing ? (
            <li>
              The link, QR code or campaign this goal measures no longer exists; conversions recorded before still
              count.
            </li>
          ) : null}
          {d.unattributedIncluded ? (
            <li>
              This goal measures every conversion of its type, {formatCount(d.unattributedConversions)} of them without
              a link, campaign or QR code.
            </li>
          ) : null}
          {!rate.supported && rate.reason ? <li>Conversion rate: {RATE_REASONS[rate.reason]}</li> : null}
          <li>
            Reports are comparable only when their definition version agrees: a change of what the goal counts (type,
            custom name, what it measures, its window) counts past conversions again and raises the version.
          </li>
        </ul>
      </section>
    </>
  );
}

export default function GoalDetail() {
  const { workspaceId: ws, goalId } = useParams<{ workspaceId: string; goalId: string }>();
  const role = useMembership(ws)!.role;
  const [span, setSpan] = useState<(typeof WINDOWS)[number]['value']>('30');
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const [editing, setEditing] = useState(false);
  const goals = useGoals(ws);
  const goal = goals.data?.find((g) => g.id === goalId);
  // The window's end rounded to the minute, so a refetch reads the same window.
  const to = new Date(Math.ceil(Date.now() / 60_000) * 60_000);
  const from = new Date(to.getTime() - Number(span) * 86_400_000);
  const report = useGoalReport(ws, goal, goalId, span, from, to);
  const setStatus = useGoalStatus(ws, goalId, {
    onSuccess: (answer) => {
      const s = answer.data.status;
      setNotice({
        ok: true,
        text: s === 'ACTIVE' ? 'Goal reactivated.' : s === 'PAUSED' ? 'Goal paused.' : 'Goal archived.',
      });
    },
    onError: (err) => setNotice({ ok: false, text: err.message }),
  });

  const back = (
    <Link href={wsPath(ws, '/goals')} className="back-link">
      Goals
    </Link>
  );
  if (goals.isPending) return <Loading label="Loading the goal…" />;
  if (goals.isError) return <LoadError error={goals.error} retry={() => goals.refetch()} what="the goal" />;
  if (!goal) {
    return (
      <>
        <PageHeader title="Goal not found" eyebrow={back} />
        <div className="state">
          <p>This workspace has no such goal.</p>
        </div>
      </>
    );
  }
  const mayEdit = can.editLinks(role);
  return (
    <>
      <PageHeader
        title={goal.name}
        eyebrow={back}
        actions={
          mayEdit ? (
            <div className="button-row">
              {statusMoves(goal.status).map(([status, label]) => (
                <button
                  key={status}
                  type="button"
                  className="button button-small"
                  onClick={() => setStatus.mutate(status)}
                  disabled={setStatus.isPending}
                >
                  {label}
                </button>
              ))}
            </div>
          ) : null
        }
      >
        <p className="muted">
          {statusBadge(goal.status)} {typeLabel(goal.type)}
          {goal.customName ? ` “${goal.customName}”` : ''} · <GoalScope ws={ws} goal={goal} />
        </p>
      </PageHeader>
      {notice ? notice.ok ? <StatusNotice>{notice.text}</StatusNotice> : <FormAlert message={notice.text} /> : null}
      <section className="section" aria-labelledby="report-heading">
        <div className="panel-header">
          <h2 id="report-heading">Report</h2>
          <div className="panel-tools">
            <SelectField
              label="Window"
              value={span}
              onChange={(e) => setSpan(e.target.value as typeof span)}
              className="field-narrow"
            >
              <Options choices={WINDOWS} />
            </SelectField>
            {mayEdit ? (
              <ShareButton
                workspaceId={ws}
                report={{ kind: 'GOAL', params: { window: { lastDays: Number(span) }, goalId: goal.id } }}
                defaultTitle={`${goal.name}, last ${span} days`}
                what={goal.name}
              />
            ) : null}
          </div>
        </div>
        {report.isPending ? (
          <Loading label="Loading the report…" />
        ) : report.isError ? (
          <LoadError error={report.error} retry={() => report.refetch()} what="the report" />
        ) : (
          <GoalReportView report={report.data} />
        )}
      </section>
      {mayEdit ? (
        <section className="panel" aria-labelledby="edit-goal-heading">
          <div className="panel-header">
            <h2 id="edit-goal-heading">Definition</h2>
            <button
              type="button"
              className="button button-small"
              aria-expanded={editing}
              onClick={() => setEditing((e) => !e)}
            >
              {editing ? 'Close' : 'Change goal'}
            </button>
          </div>
          <p className="muted">
            A change of type, custom name, what the goal measures or its window counts past conversions again and raises
            the definition version (now {goal.definitionVersion}); a change of name or targets does not.
          </p>
          {editing ? (
            <GoalForm
              key={`${goal.id}-${goal.updatedAt}`}
              workspaceId={ws}
              goal={goal}
              submitLabel="Save goal"
              onSaved={(g) => {
                setEditing(false);
                setNotice({
                  ok: true,
                  text:
                    g.definitionVersion > goal.definitionVersion
                      ? `Goal saved. Definition version ${g.definitionVersion}: past conversions were counted again.`
                      : 'Goal saved.',
                });
              }}
            />
          ) : null}
        </section>
      ) : null}
    </>
  );
}
