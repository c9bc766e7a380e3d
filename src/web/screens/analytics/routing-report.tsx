// A link's clicks and conversions by the rule or variant that served them, and for a split each
// variant's conversion rate, how sure the difference is (the service's two-proportion z-test) and
// the winner once settled.
import { useRoutingReport } from '../../api/routing.ts';
import type { RoutingReport as Report } from '../../api/types.ts';
import { DataTable } from '../../components/data-table.tsx';
import { LoadError, Loading } from '../../components/feedback.tsx';
import { ShareBar } from '../../components/share-bar.tsx';
import { formatDateTime } from '../../lib/dates.ts';
import { formatCount } from '../../lib/format.ts';
import { variantName } from '../links/routing-form.ts';

type Split = NonNullable<Report['split']>;
type Comparison = NonNullable<Split['comparison']>;

const rate = (r: number) =>
  `${(r * 100).toLocaleString(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 })}%`;

/** A confidence as a whole per cent, never rounded up to a certainty it is not. */
function confidence(c: number): string {
  if (c >= 0.995) return 'more than 99%';
  return `${Math.floor(c * 100)}%`;
}

/** Each route's name: rules numbered in the link's order, variants lettered in the split's. */
function routeNames(report: Report): Map<string, string> {
  const names = new Map<string, string>();
  const rules = report.routes.filter((r) => r.kind === 'rule');
  for (const [i, r] of rules.entries()) names.set(`rule:${r.id}`, `Rule ${i + 1}`);
  const variants = report.split?.variants ?? report.routes.filter((r) => r.kind === 'variant');
  for (const [i, v] of variants.entries()) names.set(`variant:${v.id}`, `Variant ${variantName(i)}`);
  return names;
}

function routeName(names: Map<string, string>, route: Report['routes'][number]): string {
  if (route.kind === 'link') return "The link's own URL";
  if (route.kind === 'removed') return 'Removed rules and variants';
  return names.get(`${route.kind}:${route.id}`) ?? (route.kind === 'rule' ? 'A rule' : 'A variant');
}

/** What the comparison says, in a sentence or two. */
export function verdict(split: Split, names: Map<string, string>): string {
  const c: Comparison | null = split.comparison;
  if (!c) return 'Not enough data yet: each variant needs clicks before the two can be compared.';
  const leader = names.get(`variant:${c.leaderId}`) ?? 'One variant';
  const runnerUp = (names.get(`variant:${c.runnerUpId}`) ?? 'the other').replace(/^Variant /, '');
  if (c.samplePerVariant === null)
    return `${leader} and ${runnerUp} convert at the same rate so far: no difference to detect.`;
  const sure = c.confidence >= 0.95;
  const need = `about ${formatCount(c.samplePerVariant)} clicks per variant are needed to be sure of a difference this size (95% confidence, 80% power).`;
  return sure
    ? `${leader} converts better than ${runnerUp} with ${confidence(c.confidence)} confidence (two-proportion z-test); ${need}`
    : `${leader} converts better than ${runnerUp} so far, with only ${confidence(c.confidence)} confidence (two-proportion z-test): not yet sure; ${need}`;
}

export function RoutingReportSection({ ws, linkId }: { ws: string; linkId: string }) {
  const report = useRoutingReport(ws, linkId);
  return (
    <section aria-labelledby="routes-heading" className="section">
      <h2 id="routes-heading">By rule and variant</h2>
      <p className="muted">
        The last 90 days' clicks by what served them; conversions count when they carry the click's id.
      </p>
      {report.isPending ? (
        <Loading label="Loading clicks by rule and variant…" />
      ) : report.isError ? (
        <LoadError error={report.error} retry={() => report.refetch()} what="clicks by rule and variant" />
      ) : (
        <RoutingReportTables report={report.data} />
      )}
    </section>
  );
}

function RoutingReportTables({ report }: { report: Report }) {
  const names = routeNames(report);
  const clicks = report.routes.reduce((n, r) => n + r.clicks, 0);
  const split = report.split;
  return (
    <>
      <DataTable
        caption="Clicks and conversions by rule and variant"
        captionId="routes-caption"
        cards
        headers={[
          'Served by',
          'Destination',
          { content: 'Clicks', className: 'num' },
          'Share',
          { content: 'Conversions', className: 'num' },
        ]}
      >
        {report.routes.map((r, i) => (
          <tr key={`${r.kind}-${r.id ?? i}`}>
            <th scope="row" className="cell-name">
              {routeName(names, r)}
            </th>
            <td data-label="Destination">
              <span className="url-inline">{r.url ?? '—'}</span>
            </td>
            <td className="num" data-label="Clicks">
              {formatCount(r.clicks)}
            </td>
            <td className="col-share" data-label="Share">
              <ShareBar count={r.clicks} total={clicks} />
            </td>
            <td className="num" data-label="Conversions">
              {formatCount(r.conversions)}
            </td>
          </tr>
        ))}
      </DataTable>
      {split ? (
        <>
          <h3 id="split-heading" className="split-heading">
            The split's variants
          </h3>
          <DataTable
            caption="The split's variants: clicks, conversions and conversion rate"
            captionId="split-caption"
            cards
            headers={[
              'Variant',
              'Destination',
              { content: 'Weight', className: 'num' },
              { content: 'Clicks', className: 'num' },
              { content: 'Conversions', className: 'num' },
              { content: 'Conversion rate', className: 'num' },
            ]}
          >
            {split.variants.map((v, i) => (
              <tr key={v.id}>
                <th scope="row" className="cell-name">
                  Variant {variantName(i)}
                  {split.winnerId === v.id ? ' (winner)' : ''}
                </th>
                <td data-label="Destination">
                  <span className="url-inline">{v.url}</span>
                </td>
                <td className="num" data-label="Weight">
                  {v.weight}%
                </td>
                <td className="num" data-label="Clicks">
                  {formatCount(v.clicks)}
                </td>
                <td className="num" data-label="Conversions">
                  {formatCount(v.conversions)}
                </td>
                <td className="num" data-label="Conversion rate">
                  {rate(v.conversionRate)}
                </td>
              </tr>
            ))}
          </DataTable>
          <p className="split-verdict">{verdict(split, names)}</p>
          <p className="split-verdict">{settled(split, names)}</p>
        </>
      ) : null}
    </>
  );
}

function settled(split: Split, names: Map<string, string>): string {
  const by = split.metric === 'clicks' ? 'the most clicks' : 'the highest conversion rate';
  if (split.winnerId) {
    const winner = names.get(`variant:${split.winnerId}`) ?? 'A variant';
    return `The split ended${split.endsAt ? ` on ${formatDateTime(split.endsAt)}` : ''}: ${winner} won with ${by} and now serves everyone.`;
  }
  if (split.endsAt)
    return `The split ends on ${formatDateTime(split.endsAt)}; then the variant with ${by} serves everyone.`;
  return 'The split has no end: every variant keeps its share until it is changed.';
}
