// A shared report, read signed out at /app/shared/{token}: its title, the window its figures
// cover, and the figures drawn by the dashboard's own report components, read-only (nothing here
// needs a session). A password form when the report has one; "not available" when the address
// opens nothing (unknown, private, deleted, or replaced by a new link).
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useParams } from 'wouter';
import { useSharedReport, useUnlockSharedReport } from '../../api/reports.ts';
import { asApiError, tooManyAttemptsMessage } from '../../api/errors.ts';
import type { SharedReport as Shared } from '../../api/types.ts';
import { SubmitButton } from '../../components/buttons.tsx';
import { LoadError, Loading } from '../../components/feedback.tsx';
import { TextField } from '../../components/fields.tsx';
import { PageHeader } from '../../components/page.tsx';
import { PublicFrame, PublicHeader } from '../../components/shell.tsx';
import { typeLabel } from '../../lib/conversions.ts';
import { formatDateTime, formatDay } from '../../lib/dates.ts';
import { LinkAnalyticsReport } from '../analytics/link-analytics.tsx';
import { ConversionsReport } from '../conversions/conversions-report.tsx';
import { GoalReportView } from '../goals/goal-detail.tsx';
import { PageAnalyticsReport } from '../pages/page-analytics.tsx';
import { filtersText, KIND_LABELS, namedBy } from './report-text.ts';

export default function SharedReport() {
  const { token } = useParams<{ token: string }>();
  const report = useSharedReport(token);

  if (report.isPending) {
    return (
      <PublicFrame>
        <Loading label="Opening the report…" />
      </PublicFrame>
    );
  }
  if (report.isError) {
    const err = asApiError(report.error);
    if (err.status === 401) return <PasswordForm token={token} onUnlocked={() => report.refetch()} />;
    if (err.status === 404) {
      return (
        <PublicFrame>
          <PageHeader title="Report not available" />
          <p>
            There is no shared report at this address. It may have been made private or deleted, or given a new link.
          </p>
          {err.message && err.message !== 'There is no shared report at this address' ? (
            <p className="muted">{err.message}.</p>
          ) : null}
        </PublicFrame>
      );
    }
    return (
      <PublicFrame>
        <PageHeader title="Shared report" />
        <LoadError error={report.error} retry={() => report.refetch()} what="the report" />
      </PublicFrame>
    );
  }
  return <SharedFrame report={report.data} />;
}

/** The report's page: wider than the sign-in card, with the product's name and nothing to click away to. */
function SharedFrame({ report }: { report: Shared }) {
  const w = report.window;
  const lastDay = new Date(Date.parse(w.to) - 1).toISOString();
  const days = w.lastDays ? `the last ${w.lastDays === 1 ? 'day' : `${w.lastDays} days`}` : 'the days';
  const span =
    report.kind === 'GOAL' && w.lastDays
      ? `${formatDateTime(w.from)} to ${formatDateTime(w.to)}`
      : `${formatDay(w.from.slice(0, 10))} – ${formatDay(lastDay.slice(0, 10))} (UTC days)`;
  return (
    <div className="public shared">
      <PublicHeader className="shared-header">
        <span className="muted">Shared report · read-only</span>
      </PublicHeader>
      <main id="main" className="main shared-main">
        <PageHeader title={report.title} eyebrow={KIND_LABELS[report.kind]}>
          <p className="muted">
            {days === 'the days' ? 'Figures for ' : `Figures for ${days}: `}
            {span}. Computed {formatDateTime(report.generatedAt)}; they are at most a minute old when you load this
            page.
          </p>
        </PageHeader>
        <SharedFigures report={report} />
      </main>
    </div>
  );
}

function SharedFigures({ report }: { report: Shared }): ReactNode {
  if (report.kind === 'CONVERSIONS' && report.conversions) {
    const f = report.filters ?? {};
    const what = filtersText(f, namedBy(report.conversions.names));
    return (
      <>
        <p className="lede">{what ? `Only conversions of: ${what}.` : 'Every conversion is counted.'}</p>
        <ConversionsReport
          answer={report.conversions}
          busy={false}
          byScans={!!f.qrCodeId}
          filters={{
            eventType: f.eventType ?? '',
            customName: f.customName ?? '',
            linkId: f.linkId ?? '',
            campaignId: f.campaignId ?? '',
            qrCodeId: f.qrCodeId ?? '',
          }}
        />
      </>
    );
  }
  if (report.kind === 'GOAL' && report.goal) {
    return (
      <section aria-labelledby="goal-heading">
        <h2 id="goal-heading">
          Goal: {report.goal.goal.name} <span className="muted">({typeLabel(report.goal.goal.type)})</span>
        </h2>
        <GoalReportView report={report.goal} />
      </section>
    );
  }
  if (report.kind === 'LINK' && report.link) {
    const l = report.link;
    return (
      <>
        <p className="lede short-url">
          {l.shortUrl}
          {l.title ? ` · ${l.title}` : ''}
        </p>
        <LinkAnalyticsReport data={l.analytics} slug={l.slug} busy={false} />
      </>
    );
  }
  if (report.kind === 'PAGE' && report.page) {
    const p = report.page;
    return (
      <>
        <p className="lede short-url">
          {p.url} · {p.title}
        </p>
        <PageAnalyticsReport data={p.analytics} busy={false} />
      </>
    );
  }
  return <p className="notice notice-info">This report has no figures to show.</p>;
}

function PasswordForm({ token, onUnlocked }: { token: string; onUnlocked: () => void }) {
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const unlock = useUnlockSharedReport(token, {
    onSuccess: () => onUnlocked(),
    onError: (err) => {
      const e = asApiError(err);
      setProblem(
        e.status === 429 ? tooManyAttemptsMessage(e) : e.status === 401 ? 'That password is not correct.' : e.message,
      );
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLInputElement>('input')?.focus());
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!password) {
      setProblem('Enter the password.');
      return;
    }
    unlock.mutate(password);
  };
  return (
    <PublicFrame>
      <PageHeader title="This report is protected" />
      <p>Enter the password you were given to read it.</p>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          maxLength={256}
          onChange={(e) => setPassword(e.target.value)}
          error={problem ?? undefined}
        />
        <SubmitButton pending={unlock.isPending}>Open report</SubmitButton>
      </form>
    </PublicFrame>
  );
}
