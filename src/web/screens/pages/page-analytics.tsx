// A page's analytics: views and link-block clicks per day over a window of up to a year (chart
// and table), the blocks' clicks, and where the last 90 days' views came from. The window is
// kept in the address; "Share" saves the view as a PAGE report.
import { usePage, usePageAnalytics } from '../../api/pages.ts';
import { can, useMembership } from '../../api/session.ts';
import { useId, useMemo } from 'react';
import { Link, useParams, useSearchParams } from 'wouter';
import type { BioPageAnalytics } from '../../api/types.ts';
import { LoadError, Loading } from '../../components/feedback.tsx';
import { Options } from '../../components/fields.tsx';
import { PageHeader } from '../../components/page.tsx';
import { addDays, formatDay, lastDays, todayUtc } from '../../lib/dates.ts';
import { formatCount } from '../../lib/format.ts';
import { linkPath } from '../links/paths.ts';
import { BreakdownTables, type BreakdownPart } from '../analytics/breakdowns.tsx';
import { CLICKS_COLOR, DailyChart, SCANS_COLOR, type DailyLine } from '../analytics/clicks-chart.tsx';
import { DayTable } from '../analytics/day-table.tsx';
import { PerDayPanel } from '../analytics/per-day-panel.tsx';
import { ShareButton } from '../reports/share-button.tsx';
import { pagePath, pagesPath } from './page-data.ts';

const WINDOWS = lastDays([7, 30, 90, 365]);

export default function PageAnalytics() {
  const { workspaceId: ws, pageId } = useParams<{ workspaceId: string; pageId: string }>();
  const page = usePage(ws, pageId);
  const [params, setParams] = useSearchParams();
  const span = WINDOWS.find((w) => w.value === params.get('window'))?.value ?? '30';
  const to = todayUtc();
  const from = addDays(to, 1 - Number(span));
  const windowId = useId();
  const analytics = usePageAnalytics(ws, pageId, from, to);
  const handle = page.data?.handle;
  // Who may make a report: the Reports screen's rule (OWNER, ADMIN, MEMBER).
  const mayShare = can.editLinks(useMembership(ws)!.role);

  return (
    <>
      <PageHeader
        title={handle ? `Analytics for @${handle}` : 'Page analytics'}
        actions={
          mayShare && page.data ? (
            <ShareButton
              workspaceId={ws}
              report={{ kind: 'PAGE', params: { window: { lastDays: Number(span) }, pageId } }}
              defaultTitle={`@${page.data.handle} analytics, last ${span} days`}
              what={page.data.url}
            />
          ) : null
        }
        eyebrow={
          <>
            <Link href={pagesPath(ws)} className="back-link">
              All pages
            </Link>
            {handle ? (
              <>
                {' / '}
                <Link href={pagePath(ws, pageId)}>Edit @{handle}</Link>
              </>
            ) : null}
          </>
        }
      >
        {page.data ? <p className="muted short-url">{page.data.url}</p> : null}
      </PageHeader>

      <div className="toolbar toolbar-tight">
        <div className="field">
          <label htmlFor={windowId}>Window</label>
          <select
            id={windowId}
            value={span}
            onChange={(e) => setParams(e.target.value === '30' ? {} : { window: e.target.value }, { replace: true })}
          >
            <Options choices={WINDOWS} />
          </select>
        </div>
      </div>

      {analytics.isPending ? (
        <Loading label="Loading analytics…" />
      ) : analytics.isError && !analytics.data ? (
        <LoadError error={analytics.error} retry={() => analytics.refetch()} what="the analytics" />
      ) : (
        <PageAnalyticsReport
          data={analytics.data}
          busy={analytics.isFetching}
          blockLinks={{
            ws,
            shortUrls: page.data ? new Map(page.data.blocks.map((b) => [b.id, b.shortUrl])) : undefined,
          }}
        />
      )}
    </>
  );
}

/**
 * A page's analytics, read-only: its screen and a shared PAGE report draw them. `blockLinks` (the
 * screen's) adds each link block's short link, leading to it in the workspace; a shared report has
 * no workspace to lead to, so its blocks show their label and clicks only.
 */
export function PageAnalyticsReport({
  data,
  busy,
  blockLinks,
}: {
  data: BioPageAnalytics;
  busy: boolean;
  blockLinks?: { ws: string; shortUrls?: Map<string, string | null> };
}) {
  const busiest = data.series.reduce<BioPageAnalytics['series'][number] | null>(
    (best, d) => (!best || d.views > best.views ? d : best),
    null,
  );
  const span = `${formatDay(data.window.from)} – ${formatDay(data.window.to)}`;
  const summary =
    `Line chart of page views and link-block clicks per day, ${span}: ${formatCount(data.totals.views)} views and ${formatCount(data.totals.clicks)} clicks in all` +
    (busiest && busiest.views > 0
      ? `; the busiest day was ${formatDay(busiest.day)} with ${formatCount(busiest.views)} views.`
      : '.');
  const days = useMemo(() => data.series.map((d) => d.day), [data.series]);
  const lines = useMemo<[DailyLine, DailyLine]>(
    () => [
      { label: 'Views', unit: 'views', color: CLICKS_COLOR, values: data.series.map((d) => d.views) },
      { label: 'Clicks on links', unit: 'clicks', color: SCANS_COLOR, values: data.series.map((d) => d.clicks) },
    ],
    [data.series],
  );
  const b = data.breakdowns;
  const parts: BreakdownPart[] = (['countries', 'devices', 'browsers', 'referrers'] as const).map((kind) => ({
    kind,
    entries: b[kind].map((e) => ({ value: e.value, count: e.views })),
    other: b.other[kind],
  }));
  const rate = data.totals.views ? `${Math.round((data.totals.clicks / data.totals.views) * 100)}%` : '—';

  return (
    <div aria-busy={busy || undefined}>
      <dl className="stats">
        <div className="stat">
          <dt>Views</dt>
          <dd>{formatCount(data.totals.views)}</dd>
        </div>
        <div className="stat">
          <dt>Clicks on links</dt>
          <dd>{formatCount(data.totals.clicks)}</dd>
        </div>
        <div className="stat">
          <dt>Clicks per view</dt>
          <dd>{rate}</dd>
        </div>
        <div className="stat">
          <dt>Busiest day</dt>
          <dd>{busiest && busiest.views > 0 ? formatDay(busiest.day) : 'None yet'}</dd>
        </div>
      </dl>

      <PerDayPanel title="Views and clicks per day" detail={`${span} (UTC days); views by people only`}>
        <DailyChart days={days} lines={lines} summary={summary} />
        <DayTable
          caption="Views and clicks per day"
          days={data.series}
          columns={[
            { label: 'Views', value: (d) => d.views, total: data.totals.views },
            { label: 'Clicks', value: (d) => d.clicks, total: data.totals.clicks },
          ]}
        />
      </PerDayPanel>

      <section className="panel" aria-labelledby="blocks-heading">
        <h2 id="blocks-heading">Clicks by link block</h2>
        <p className="muted">
          {blockLinks
            ? "The draft's link blocks, in its order, over the window above. Each click also counts for the block's short link."
            : "The page's link blocks, in order, over the window above."}
        </p>
        {data.blocks.length === 0 ? (
          <p className="muted">This page has no link blocks.</p>
        ) : (
          <div className="table-wrap">
            <table className="table table-compact">
              <caption className="visually-hidden">Clicks by link block</caption>
              <thead>
                <tr>
                  <th scope="col">Link block</th>
                  {blockLinks ? <th scope="col">Short link</th> : null}
                  <th scope="col" className="num">
                    Clicks
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.blocks.map((block) => (
                  <tr key={block.blockId}>
                    <th scope="row" className="cell-name">
                      {block.text}
                    </th>
                    {blockLinks ? (
                      <td className="cell-name">
                        {blockLinks.shortUrls?.get(block.blockId) === null ? (
                          <span className="muted">Deleted since</span>
                        ) : (
                          <Link href={linkPath(blockLinks.ws, block.linkId)}>
                            {blockLinks.shortUrls?.get(block.blockId)?.replace(/^https?:\/\//, '') ?? block.linkId}
                          </Link>
                        )}
                      </td>
                    ) : null}
                    <td className="num">{formatCount(block.clicks)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="sources-heading" className="section">
        <h2 id="sources-heading">Where views came from, last 90 days</h2>
        <p className="muted">
          {formatDay(data.breakdownWindow.from)} – {formatDay(data.breakdownWindow.to)}: these tables always cover the
          last 90 days, whatever the window above; views by people only.
        </p>
        <BreakdownTables parts={parts} measure="Views" className="breakdowns-four" />
      </section>
    </div>
  );
}
