// The figures of one conversion summary: totals, value per currency and the rate (its reason in
// words when it is undefined), what `unavailable` means when it is set, conversions per day
// (chart, table, CSV) and the breakdowns by event type, link, campaign and QR code.
import type { DashboardConversions, Rate, ValueEntry } from '../../api/types.ts';
import { ShareBar } from '../../components/share-bar.tsx';
import {
  formatRate,
  money,
  RATE_REASONS,
  RATE_REASONS_SHORT,
  typeLabel,
  type RateReason,
} from '../../lib/conversions.ts';
import { formatDay } from '../../lib/dates.ts';
import { downloadText } from '../../lib/download.ts';
import { formatCount, plural } from '../../lib/format.ts';
import { DayTable } from '../analytics/day-table.tsx';
import { PerDayPanel } from '../analytics/per-day-panel.tsx';
import { ConversionsChart } from './conversions-chart.tsx';
import { conversionsCsv } from './conversions-csv.ts';
import { campaignName, linkName, qrName, type Named } from './names.ts';
import { Breakdown, type Column } from './breakdown.tsx';
import type { FilterName } from './view.ts';

function Amounts({ value }: { value: ValueEntry[] }) {
  if (value.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="amounts">
      {value.map((v) => (
        <li key={v.currency}>{money(v.valueMinor, v.currency)}</li>
      ))}
    </ul>
  );
}

function RateCell({ rate }: { rate: Rate }) {
  if (rate.supported && rate.rate !== null) return <>{formatRate(rate.rate)}</>;
  return (
    <span className="rate-missing">
      Not available{rate.reason ? <span className="rate-why"> {RATE_REASONS_SHORT[rate.reason]}</span> : null}
    </span>
  );
}

/** The reasons of the undefined rates in a table, each as a sentence, under it. */
function RateNotes({ rates, what }: { rates: Rate[]; what: string }) {
  const reasons = [...new Set(rates.filter((r) => !r.supported && r.reason).map((r) => r.reason as RateReason))];
  if (reasons.length === 0) return null;
  return (
    <div className="rate-notes">
      <p>Why some {what} rates are not available:</p>
      <ul className="flag-list">
        {reasons.map((r) => (
          <li key={r}>
            <strong>{RATE_REASONS_SHORT[r][0].toUpperCase() + RATE_REASONS_SHORT[r].slice(1)}.</strong>{' '}
            {RATE_REASONS[r]}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** `only`: narrows the view to this row's object (`noun` names it for a screen reader: "Only this link: …"). */
function NameCell({ named, only, noun }: { named: Named; only?: () => void; noun?: string }) {
  return (
    <div className="name-cell">
      <span className={named.known ? 'link-name' : 'link-name mono'}>{named.shown}</span>
      {named.deleted ? <span className="badge badge-off">Deleted</span> : null}
      {named.title ? <span className="muted name-title">{named.title}</span> : null}
      {only ? (
        <button type="button" className="button button-small button-quiet only-button" onClick={only}>
          Only this
          <span className="visually-hidden">
            {' '}
            {noun}: {named.shown}
          </span>
        </button>
      ) : null}
    </div>
  );
}

type Counted = { conversions: number; value: ValueEntry[] };
/** A row of a breakdown by link or QR code. */
type RatedRow = Counted & { id: string; rate: Rate };

/** The conversions and their value: the first columns of a breakdown by campaign, link or QR code. */
function countColumns<Row extends Counted>(): Column<Row>[] {
  return [
    { head: 'Conversions', num: true, cell: (r) => formatCount(r.conversions) },
    { head: 'Value', num: true, cell: (r) => <Amounts value={r.value} /> },
  ];
}

/** The counts, then the clicks (a QR code's: "Scans") and the conversion rate over them. */
function rateColumns<Row extends Counted & { rate: Rate }>(clicksHead: string): Column<Row>[] {
  return [
    ...countColumns<Row>(),
    { head: clicksHead, num: true, cell: (r) => formatCount(r.rate.clicks) },
    { head: 'Rate', num: true, cell: (r) => <RateCell rate={r.rate} /> },
  ];
}

/**
 * `only` narrows the view to one link, campaign or QR code of a breakdown; `byScans`: the view is
 * narrowed to one QR code, so the overall rate counts its scans.
 */
export function ConversionsReport(props: {
  answer: DashboardConversions;
  busy: boolean;
  byScans: boolean;
  /** The view's filters, so a row already filtered to offers no "Only this". */
  filters: Record<FilterName, string>;
  /** Left out where the view cannot change (a shared report, read-only): no "Only this". */
  only?: (filter: FilterName, id: string) => void;
}) {
  const { answer, busy, byScans, filters } = props;
  const narrow = props.only;
  const only = (filter: FilterName, id: string) =>
    !narrow || filters[filter] === id ? undefined : () => narrow(filter, id);
  const { data, series, names } = answer;
  // The breakdowns by what was clicked or scanned: conversions against the clicks (or scans).
  const rated = [
    {
      id: 'by-link',
      thing: 'link',
      things: 'links',
      head: 'Link',
      rows: data.byLink,
      clicksHead: 'Clicks',
      named: linkName,
      filter: 'linkId',
    },
    {
      id: 'by-qr',
      thing: 'QR code',
      things: 'QR codes',
      head: 'QR code',
      rows: data.byQr,
      clicksHead: 'Scans',
      named: qrName,
      filter: 'qrCodeId',
    },
  ] as const;
  const first = series[0]?.day;
  const last = series[series.length - 1]?.day;
  const span =
    first && last
      ? first === last
        ? formatDay(first)
        : `${formatDay(first)} – ${formatDay(last)}`
      : 'an empty window';
  const busiest = series.reduce<(typeof series)[number] | null>(
    (best, d) => (!best || d.conversions > best.conversions ? d : best),
    null,
  );
  // Worded without "from", "to" or "total": the window's From and To inputs are found by label.
  const summary =
    `Chart of conversions per day, ${span}: ${plural(data.total, 'conversion')} in all` +
    (busiest && busiest.conversions > 0
      ? `; the busiest day was ${formatDay(busiest.day)} with ${plural(busiest.conversions, 'conversion')}.`
      : '.');
  const currencies = [...new Set(series.flatMap((d) => d.value.map((v) => v.currency)))].sort();
  const rate = data.rate;

  const exportCsv = () =>
    downloadText(`conversions-${first ?? 'empty'}-to-${last ?? 'empty'}.csv`, conversionsCsv(answer));
  const typeTotal = data.byEventType.reduce((n, t) => n + t.conversions, 0);

  return (
    <div aria-busy={busy || undefined} className="conversions-report">
      {data.unavailable ? (
        <p className="notice notice-warning">
          <strong>These counts are a floor.</strong> The window reaches back more than 400 days, past the time
          conversions are kept: older conversions have been deleted, so there were at least as many as shown.
        </p>
      ) : null}

      <dl className="stats stats-money">
        <div className="stat">
          <dt>Conversions</dt>
          <dd>{formatCount(data.total)}</dd>
        </div>
        <div className="stat">
          <dt>Attributed to a link</dt>
          <dd>{formatCount(data.attributedConversions)}</dd>
        </div>
        <div className="stat">
          <dt>Unattributed</dt>
          <dd>{formatCount(data.unattributedConversions)}</dd>
          <dd className="stat-note">Named no link: in the count, in no rate.</dd>
        </div>
        {data.value.map((v) => (
          <div className="stat" key={v.currency}>
            <dt>Value ({v.currency})</dt>
            <dd>{money(v.valueMinor, v.currency)}</dd>
            <dd className="stat-note">
              {plural(v.conversions, 'conversion')} with a value in {v.currency}
            </dd>
          </div>
        ))}
        <div className="stat stat-rate">
          <dt>Conversion rate</dt>
          <dd>{rate.supported && rate.rate !== null ? formatRate(rate.rate) : 'Not available'}</dd>
          <dd className="stat-note">
            {rate.supported
              ? `${plural(rate.conversions, 'attributed conversion')} per ${plural(rate.clicks, byScans ? 'scan' : 'click')}`
              : rate.reason
                ? RATE_REASONS[rate.reason]
                : null}
          </dd>
        </div>
      </dl>
      {data.value.length > 1 ? (
        <p className="fine-print stats-after">Values are per currency and never added across currencies.</p>
      ) : null}

      <PerDayPanel
        title="Conversions per day"
        detail={`${span} (UTC days)`}
        exportCsv={{ label: 'Export CSV', run: exportCsv }}
      >
        {series.length ? (
          <ConversionsChart series={series} summary={summary} />
        ) : (
          <p className="muted">The window is empty: it starts where it ends.</p>
        )}
        <DayTable
          caption="Conversions per day"
          days={series}
          totalLabel="All days"
          columns={[
            { label: 'Conversions', value: (d) => d.conversions, total: data.total },
            ...currencies.map((c) => ({
              label: `Value (${c})`,
              value: (d: (typeof series)[number]) => d.value.find((x) => x.currency === c)?.valueMinor ?? null,
              total: data.value.find((x) => x.currency === c)?.valueMinor ?? null,
              format: (minor: number) => money(minor, c),
            })),
          ]}
        />
        <p className="fine-print">
          The first and last day count only their part inside the window. A rate divides the conversions attributed to
          links by the clicks over the same window: two counts of one period, not people followed from a click to a
          conversion, so it can pass 100%.
        </p>
      </PerDayPanel>

      <section className="section" aria-labelledby="breakdowns-heading">
        <h2 id="breakdowns-heading">Breakdowns</h2>
        <div className="conversion-breakdowns">
          <Breakdown
            id="by-type"
            title="By event type"
            noun="event types"
            empty="No conversions in this window."
            rows={data.byEventType}
            rowKey={(t) => `${t.eventType}:${t.label}`}
            nameHead="Event"
            name={(t) =>
              t.eventType === 'custom' ? (
                <>
                  {t.label} <span className="muted">(custom)</span>
                </>
              ) : (
                typeLabel(t.eventType)
              )
            }
            columns={[
              { head: 'Conversions', num: true, cell: (t) => formatCount(t.conversions) },
              {
                head: 'Share',
                cell: (t) => (
                  <span className="nowrap">
                    <ShareBar count={t.conversions} total={typeTotal} />
                  </span>
                ),
              },
            ]}
          />
          <Breakdown
            id="by-campaign"
            title="By campaign"
            noun="campaigns"
            empty="No conversion in this window named a campaign."
            rows={data.byCampaign}
            rowKey={(c) => c.id}
            nameHead="Campaign"
            name={(c) => {
              const name = campaignName(names, c.id);
              return (
                <NameCell
                  named={{ text: name, shown: name, title: null, deleted: false, known: name !== c.id }}
                  noun="campaign"
                  only={only('campaignId', c.id)}
                />
              );
            }}
            columns={countColumns()}
          />
          {rated.map((b) => (
            <Breakdown<RatedRow>
              key={b.id}
              id={b.id}
              wide
              title={`By ${b.thing}`}
              noun={b.things}
              empty={`No conversion in this window named a ${b.thing}.`}
              rows={b.rows}
              rowKey={(r) => r.id}
              nameHead={b.head}
              name={(r) => <NameCell named={b.named(names, r.id)} noun={b.thing} only={only(b.filter, r.id)} />}
              columns={rateColumns(b.clicksHead)}
              notes={<RateNotes rates={b.rows.map((r) => r.rate)} what={b.thing} />}
            />
          ))}
        </div>
      </section>
    </div>
  );
}
