// Reports: the workspace's saved views (made with "Share" on the Conversions screen, a goal's
// report, a link's or a bio page's analytics), each with its kind, window and visibility, a link
// to the view it was made from, and its address with a copy button while it is shared. OWNER,
// ADMIN and MEMBER change its visibility, set or remove its password, regenerate its address (the
// old one stops working) and delete it; an ANALYST reads.
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useParams } from 'wouter';
import { useDeleteReport, useRenewReportLink, useReports, useUpdateReport } from '../../api/reports.ts';
import { can, useMembership } from '../../api/session.ts';
import type { Report, ReportVisibility } from '../../api/types.ts';
import { ConfirmedActionButton, SubmitButton } from '../../components/buttons.tsx';
import { useConfirm, type Question } from '../../components/confirm.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { EmptyState, FormAlert, LoadError, Loading, StatusNotice } from '../../components/feedback.tsx';
import { Options, SelectField, TextField } from '../../components/fields.tsx';
import { PageHeader } from '../../components/page.tsx';
import { When } from '../../components/when.tsx';
import { filtersText, KIND_LABELS, sourcePath, VISIBILITIES, visibilityLabel, windowText } from './report-text.ts';

type Patch = { title?: string; visibility?: ReportVisibility; password?: string | null };

export default function Reports() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const mayEdit = can.editLinks(role);
  const [ask, dialog] = useConfirm();
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const list = useReports(ws);
  const done = (text: string) => setNotice({ ok: true, text });
  const failed = (err: Error) => setNotice({ ok: false, text: err.message });

  const change = useUpdateReport<{ report: Report; body: Patch; said: string }>(ws, {
    onSuccess: (_answer, { said }) => done(said),
    onError: failed,
  });
  const renew = useRenewReportLink(ws, {
    onSuccess: (_answer, report) => done(`${report.title} has a new address. The old one no longer works.`),
    onError: failed,
  });
  const remove = useDeleteReport(ws, {
    onSuccess: (_answer, report) => done(`${report.title} deleted. Its link no longer works.`),
    onError: failed,
  });
  const busy = change.isPending || renew.isPending || remove.isPending;

  let body: ReactNode;
  if (list.isPending) body = <Loading label="Loading reports…" />;
  else if (list.isError) body = <LoadError error={list.error} retry={() => list.refetch()} what="the reports" />;
  else if (list.data.length === 0) {
    body = (
      <EmptyState title="No reports yet">
        Use Share on the Conversions screen, on a goal's report or on a link's or a page's analytics to save what you
        see as a report, and share it with people outside the workspace if you like.
      </EmptyState>
    );
  } else {
    body = (
      <ul className="report-list" aria-label="Reports">
        {list.data.map((r) => (
          <ReportCard
            key={r.id}
            ws={ws}
            report={r}
            mayEdit={mayEdit}
            busy={busy}
            ask={ask}
            change={(body, said) => change.mutate({ report: r, body, said })}
            renew={() => renew.mutate(r)}
            remove={() => remove.mutate(r)}
          />
        ))}
      </ul>
    );
  }

  return (
    <>
      <PageHeader title="Reports">
        <p className="muted">
          Saved views of the dashboard. A private report is for members of this workspace; an unlisted or public one can
          be read by anyone with its link, signed out, with figures computed when it is read (at most a minute old).
        </p>
      </PageHeader>
      {notice ? notice.ok ? <StatusNotice>{notice.text}</StatusNotice> : <FormAlert message={notice.text} /> : null}
      {body}
      {dialog}
    </>
  );
}

const SHARED_SAYS: Record<ReportVisibility, string> = {
  PRIVATE: 'is private: only members of this workspace see it.',
  UNLISTED: 'is unlisted: anyone with its link can read it.',
  PUBLIC: 'is public: anyone with its link can read it, and search engines may list it.',
};

function ReportCard(props: {
  ws: string;
  report: Report;
  mayEdit: boolean;
  busy: boolean;
  ask: (q: Question) => Promise<boolean>;
  change: (body: Patch, said: string) => void;
  renew: () => void;
  remove: () => void;
}) {
  const { ws, report: r, mayEdit, busy } = props;
  const [settingPassword, setSettingPassword] = useState(false);
  const [password, setPassword] = useState('');
  const filters = r.kind === 'CONVERSIONS' ? filtersText(r.params) : '';
  const headingId = `report-${r.id}`;

  const savePassword = (e: FormEvent) => {
    e.preventDefault();
    if (!password) return;
    props.change({ password }, `${r.title} now asks for its password.`);
    setSettingPassword(false);
    setPassword('');
  };

  return (
    <li className="panel report-card" aria-labelledby={headingId}>
      <div className="report-card-head">
        <h2 id={headingId}>{r.title}</h2>
        <span className="report-badges">
          <span className={r.visibility === 'PRIVATE' ? 'badge badge-neutral' : 'badge badge-ok'}>
            {visibilityLabel(r.visibility)}
          </span>
          {r.hasPassword ? <span className="badge badge-neutral">Password</span> : null}
        </span>
      </div>
      <p className="muted report-meta">
        {KIND_LABELS[r.kind]} · {windowText(r.params.window)}
        {filters ? ` · ${filters}` : ''} · made <When iso={r.createdAt} /> ·{' '}
        <Link href={sourcePath(ws, r.kind, r.params)}>
          Open the view<span className="visually-hidden"> of {r.title}</span>
        </Link>
      </p>
      {r.url ? (
        <div className="copy-line report-url">
          <a href={r.url} className="short-url" target="_blank" rel="noopener">
            {r.url}
            <span className="visually-hidden"> (shared page of {r.title}, opens in a new tab)</span>
          </a>
          <CopyButton text={r.url} label={`Copy link to ${r.title}`} visible="Copy link" />
        </div>
      ) : (
        <p className="report-url muted">No link while it is private.</p>
      )}
      {mayEdit ? (
        <div className="report-actions">
          <SelectField
            label={
              <>
                Visibility<span className="visually-hidden"> of {r.title}</span>
              </>
            }
            className="field-narrow"
            value={r.visibility}
            disabled={busy}
            onChange={(e) => {
              const v = e.target.value as ReportVisibility;
              props.change({ visibility: v }, `${r.title} ${SHARED_SAYS[v]}`);
            }}
          >
            <Options choices={VISIBILITIES} />
          </SelectField>
          <div className="button-row">
            <button
              type="button"
              className="button button-small"
              aria-expanded={settingPassword}
              onClick={() => setSettingPassword((s) => !s)}
              disabled={busy}
            >
              {r.hasPassword ? 'Change password' : 'Set password'}
              <span className="visually-hidden"> of {r.title}</span>
            </button>
            {r.hasPassword ? (
              <button
                type="button"
                className="button button-small"
                onClick={() => props.change({ password: null }, `${r.title} no longer asks for a password.`)}
                disabled={busy}
              >
                Remove password<span className="visually-hidden"> of {r.title}</span>
              </button>
            ) : null}
            <ConfirmedActionButton
              label="Regenerate address"
              name={`Regenerate address of ${r.title}`}
              describedBy={`${headingId}-regenerate`}
              disabled={busy}
              ask={props.ask}
              question={{
                title: `Regenerate the address of ${r.title}?`,
                body: 'The current address stops working at once: people who have it get “not found”. Readers who gave the password give it again.',
                confirmLabel: 'Regenerate address',
              }}
              onConfirmed={props.renew}
            />
            <ConfirmedActionButton
              label="Delete"
              name={`Delete ${r.title}`}
              disabled={busy}
              ask={props.ask}
              question={{
                title: `Delete ${r.title}?`,
                body: 'The report and its link are gone for good.',
                confirmLabel: 'Delete',
              }}
              onConfirmed={props.remove}
            />
          </div>
          <p id={`${headingId}-regenerate`} className="field-hint report-actions-note">
            Regenerating the address gives the report a new one; the old address stops working at once.
          </p>
          {settingPassword ? (
            <form className="form-row report-password" onSubmit={savePassword}>
              <TextField
                label={
                  <>
                    New password<span className="visually-hidden"> for {r.title}</span>
                  </>
                }
                type="password"
                autoComplete="new-password"
                value={password}
                maxLength={256}
                onChange={(e) => setPassword(e.target.value)}
                hint={
                  r.visibility === 'PRIVATE'
                    ? 'Asked for once the report is shared.'
                    : 'Readers who gave the old one give the new one.'
                }
              />
              <div className="form-row-action">
                <SubmitButton pending={false} disabled={!password || busy}>
                  Save password<span className="visually-hidden"> for {r.title}</span>
                </SubmitButton>
              </div>
            </form>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}
