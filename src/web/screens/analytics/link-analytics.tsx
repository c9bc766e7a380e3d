// A link's analytics: clicks and scans per day over a window of up to 400 days (chart, table,
// CSV), where the last 90 days' clicks came from, and what served them (rules and variants). The
// window is kept in the address.
import { useEffect, useId, useState } from 'react';
import { useParams, useSearchParams } from 'wouter';
import { useLinkAnalytics } from '../../api/links.ts';
import { useLink } from '../../api/queries.ts';
import type { LinkAnalytics as Analytics } from '../../api/types.ts';
import { LoadError, Loading } from '../../components/feedback.tsx';
import { Options } from '../../components/fields.tsx';
import { PageHeader } from '../../components/page.tsx';
import { addDays, daysInclusive, formatDay, isDay, lastDays, todayUtc } from '../../lib/dates.ts';
import { csvRecords } from '../../lib/csv.ts';
import { downloadText } from '../../lib/download.ts';
import { formatCount } from '../../lib/format.ts';
import { LinkTrail } from '../links/link-trail.tsx';
import { ShareButton } from '../reports/share-button.tsx';
import { can, useMembership } from '../../api/session.ts';
import { Breakdowns } from './breakdowns.tsx';
import { ClicksChart } from './clicks-chart.tsx';
import { DayTable } from './day-table.tsx';
import { PerDayPanel } from './per-day-panel.tsx';
import { RoutingReportSection } from './routing-report.tsx';

const PRESETS = [...lastDays([7, 30, 90, 365]), { value: 'custom', label: 'Custom' }] as const;

const MAX_DAYS = 400;

type Range = { from: string; to: string } | { problems: { from?: string; to?: string } };

/** One end of the custom window, a day, with what is wrong with it under it. */
function DayInput({
  label,
  value,
  max,
  onChange,
  problem,
}: {
  label: string;
  value: string;
  max?: string;
  onChange: (day: string) => void;
  problem?: string;
}) {
  const id = useId();
  const errorId = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="date"
        value={value}
        max={max}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? errorId : undefined}
      />
      {problem ? (
        <p id={errorId} className="field-error">
          {problem}
        </p>
      ) : null}
    </div>
  );
}

function customRange(from: string, to: string): Range {
  if (!isDay(from)) return { problems: { from: 'Enter the first day.' } };
  if (!isDay(to)) return { problems: { to: 'Enter the last day.' } };
  if (from > to) return { problems: { to: 'The last day must not be before the first.' } };
  if (daysInclusive(from, to) > MAX_DAYS) return { problems: { to: `Choose at most ${MAX_DAYS} days.` } };
  return { from, to };
}

export default function LinkAnalytics() {
  const { workspaceId: ws, linkId } = useParams<{ workspaceId: string; linkId: string }>();
  const link = useLink(ws, linkId);
  const [params, setParams] = useSearchParams();
  const preset = PRESETS.some((p) => p.value === params.get('window')) ? (params.get('window') as string) : '30';
  const today = todayUtc();

  // Custom days are typed freely and applied once they make a window.
  const [fromInput, setFromInput] = useState(params.get('from') ?? addDays(today, -29));
  const [toInput, setToInput] = useState(params.get('to') ?? today);
  const range: Range =
    preset === 'custom' ? customRange(fromInput, toInput) : { from: addDays(today, 1 - Number(preset)), to: today };
  const valid = 'from' in range;
  useEffect(() => {
    if (preset === 'custom' && valid && (params.get('from') !== range.from || params.get('to') !== range.to)) {
      setParams({ window: 'custom', from: range.from, to: range.to }, { replace: true });
    }
  });

  const analytics = useLinkAnalytics(ws, linkId, valid ? { from: range.from, to: range.to } : null);

  const slug = link.data?.slug;
  const mayShare = can.editLinks(useMembership(ws)!.role) && valid && !!link.data;
  const ids = { window: useId() };
  const problems = valid ? {} : range.problems;

  return (
    <>
      <PageHeader
        title={slug ? `Analytics for ${slug}` : 'Analytics'}
        eyebrow={<LinkTrail ws={ws} linkId={linkId} slug={slug} />}
        actions={
          mayShare && valid ? (
            <ShareButton
              workspaceId={ws}
              report={{
                kind: 'LINK',
                params: {
                  window: preset === 'custom' ? { from: range.from, to: range.to } : { lastDays: Number(preset) },
                  linkId,
                },
              }}
              defaultTitle={`Clicks on ${slug}, ${preset === 'custom' ? `${formatDay(range.from)} – ${formatDay(range.to)}` : `last ${preset} days`}`}
              what={link.data?.shortUrl ?? slug ?? linkId}
            />
          ) : null
        }
      >
        {link.data ? <p className="muted short-url">{link.data.shortUrl}</p> : null}
      </PageHeader>

      <div className="toolbar toolbar-tight">
        <div className="field">
          <label htmlFor={ids.window}>Window</label>
          <select
            id={ids.window}
            value={preset}
            onChange={(e) => {
              const value = e.target.value;
              if (value === 'custom') {
                const from = valid ? range.from : addDays(today, -29);
                const to = valid ? range.to : today;
                setFromInput(from);
                setToInput(to);
                setParams({ window: 'custom', from, to }, { replace: true });
              } else setParams(value === '30' ? {} : { window: value }, { replace: true });
            }}
          >
            <Options choices={PRESETS} />
          </select>
        </div>
        {preset === 'custom' ? (
          <>
            <DayInput label="From" value={fromInput} max={today} onChange={setFromInput} problem={problems.from} />
            <DayInput label="To" value={toInput} onChange={setToInput} problem={problems.to} />
            <p className="field-hint toolbar-note">Days in UTC, up to {MAX_DAYS} days.</p>
          </>
        ) : null}
      </div>

      {analytics.isPending && valid ? (
        <Loading label="Loading analytics…" />
      ) : analytics.isError && !analytics.data ? (
        <LoadError error={analytics.error} retry={() => analytics.refetch()} what="the analytics" />
      ) : analytics.data ? (
        <LinkAnalyticsReport data={analytics.data} slug={slug ?? linkId} busy={analytics.isFetching} />
      ) : null}

      <RoutingReportSection ws={ws} linkId={linkId} />
    </>
  );
}

/** A link's analytics, read-only: its screen and a shared LINK report draw them. */
export function LinkAnalyticsReport({ data, slug, busy }: { data: Analytics; slug: string; busy: boolean }) {
  const busiest = data.series.reduce<Analytics['series'][number] | null>(
    (best, d) => (!best || d.clicks > best.clicks ? d : best),
    null,
  );
  const span = `${formatDay(data.window.from)} – ${formatDay(data.window.to)}`;
  // Worded without "from", "to" or "total": the window's From and To inputs are found by label.
  const summary =
    `Line chart of clicks and QR scans per day, ${span}: ${formatCount(data.totals.clicks)} clicks and ${formatCount(data.totals.scans)} QR scans in all` +
    (busiest && busiest.clicks > 0
      ? `; the busiest day was ${formatDay(busiest.day)} with ${formatCount(busiest.clicks)} clicks.`
      : '.');

  const exportCsv = () => {
    const records = [['day', 'clicks', 'scans'], ...data.series.map((d) => [d.day, d.clicks, d.scans])];
    downloadText(`${slug}-clicks-${data.window.from}-to-${data.window.to}.csv`, csvRecords(records));
  };

  return (
    <div aria-busy={busy || undefined}>
      <dl className="stats">
        <div className="stat">
          <dt>Clicks</dt>
          <dd>{formatCount(data.totals.clicks)}</dd>
        </div>
        <div className="stat">
          <dt>QR scans</dt>
          <dd>{formatCount(data.totals.scans)}</dd>
        </div>
        <div className="stat">
          <dt>Busiest day</dt>
          <dd>{busiest && busiest.clicks > 0 ? formatDay(busiest.day) : 'None yet'}</dd>
        </div>
        <div className="stat">
          <dt>Window</dt>
          <dd>{data.series.length === 1 ? '1 day' : `${formatCount(data.series.length)} days`}</dd>
        </div>
      </dl>

      <PerDayPanel
        title="Clicks and QR scans per day"
        detail={`${span} (UTC days)`}
        exportCsv={{ label: 'Export as CSV', run: exportCsv }}
      >
        <ClicksChart series={data.series} summary={summary} />
        <DayTable
          caption="Clicks per day"
          days={data.series}
          columns={[
            { label: 'Clicks', value: (d) => d.clicks, total: data.totals.clicks },
            { label: 'QR scans', value: (d) => d.scans, total: data.totals.scans },
          ]}
        />
      </PerDayPanel>

      <section aria-labelledby="sources-heading" className="section">
        <h2 id="sources-heading">Sources of clicks, last 90 days</h2>
        <p className="muted">
          {formatDay(data.breakdownWindow.from)} – {formatDay(data.breakdownWindow.to)}: these tables always cover the
          last 90 days, whatever the window above; visits by people only.
        </p>
        <Breakdowns breakdowns={data.breakdowns} />
      </section>
    </div>
  );
}
