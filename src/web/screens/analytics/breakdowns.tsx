// The last 90 days' top countries, cities, devices, browsers, operating systems and referrers of a link's
// clicks or a page's views: each a table with its share as a bar.
import { Fragment } from 'react';
import type { LinkAnalytics } from '../../api/types.ts';
import { formatCount } from '../../lib/format.ts';
import { ShareBar } from '../../components/share-bar.tsx';

const regionNames = (() => {
  try {
    return new Intl.DisplayNames(undefined, { type: 'region' });
  } catch {
    return null;
  }
})();

function countryName(code: string): string {
  if (!code) return 'Unknown';
  try {
    return regionNames?.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

const capitalise = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** A city with its country's name, as names repeat across countries: "Springfield, United States". */
function cityName(city: string, country?: string | null): string {
  if (!city) return 'Unknown';
  return country ? `${city}, ${countryName(country)}` : city;
}

export type BreakdownKind = 'countries' | 'cities' | 'devices' | 'browsers' | 'os' | 'referrers';

interface Breakdown {
  caption: string;
  column: string;
  label: (value: string, country?: string | null) => string;
  /** Its values are host names, which wrap between their labels (HostName). */
  hosts?: boolean;
}

const BREAKDOWNS: Record<BreakdownKind, Breakdown> = {
  countries: { caption: 'Countries', column: 'Country', label: countryName },
  cities: { caption: 'Cities', column: 'City', label: cityName },
  devices: { caption: 'Devices', column: 'Device', label: (v) => (v ? capitalise(v) : 'Unknown') },
  browsers: { caption: 'Browsers', column: 'Browser', label: (v) => v || 'Unknown' },
  os: { caption: 'Operating systems', column: 'Operating system', label: (v) => v || 'Unknown' },
  referrers: { caption: 'Referrers', column: 'Referrer', label: (v) => v || 'Direct or unknown', hosts: true },
};

/**
 * A host name that may wrap before each of its dots, so a long one breaks between its labels
 * ("newsletter" / ".acme-partners" / ".example") rather than inside one; the cell breaks inside a
 * label (analytics.css) only when that label alone is wider than the column. The text is the
 * host's, unchanged, for copying and for assistive technology.
 */
function HostName({ name }: { name: string }) {
  return (
    <>
      {name.split('.').map((label, i) =>
        i === 0 ? (
          label
        ) : (
          <Fragment key={i}>
            <wbr />.{label}
          </Fragment>
        ),
      )}
    </>
  );
}

/** One breakdown's values with their counts (clicks or views), largest first. */
export interface BreakdownPart {
  kind: BreakdownKind;
  /** A city's entry has its country. */
  entries: Array<{ value: string; country?: string | null; count: number }>;
  /** What is beyond the largest values. */
  other: number;
}

const LINK_KINDS = ['countries', 'cities', 'devices', 'browsers', 'os', 'referrers'] as const;

/** A link's clicks by each breakdown. */
export function Breakdowns({ breakdowns }: { breakdowns: LinkAnalytics['breakdowns'] }) {
  const parts = LINK_KINDS.map((kind) => ({
    kind,
    entries: breakdowns[kind].map((e) => ({
      value: e.value,
      country: 'country' in e ? e.country : undefined,
      count: e.clicks,
    })),
    other: breakdowns.other[kind],
  }));
  return <BreakdownTables parts={parts} measure="Clicks" />;
}

export function BreakdownTables({
  parts,
  measure,
  className,
}: {
  parts: BreakdownPart[];
  measure: 'Clicks' | 'Views';
  className?: string;
}) {
  return (
    <div className={['breakdowns', className].filter(Boolean).join(' ')}>
      {parts.map((p) => (
        <BreakdownTable key={p.kind} breakdown={BREAKDOWNS[p.kind]} part={p} measure={measure} />
      ))}
    </div>
  );
}

function BreakdownTable({
  breakdown,
  part,
  measure,
}: {
  breakdown: Breakdown;
  part: BreakdownPart;
  measure: 'Clicks' | 'Views';
}) {
  const named = part.entries.map((e) => ({
    name: breakdown.label(e.value, e.country),
    host: breakdown.hosts && !!e.value,
    count: e.count,
  }));
  const rows = part.other > 0 ? [...named, { name: 'Other', host: false, count: part.other }] : named;
  const total = rows.reduce((n, r) => n + r.count, 0);
  return (
    <div className="panel breakdown">
      <table className="table table-compact">
        <caption>{breakdown.caption}</caption>
        <thead>
          <tr>
            <th scope="col">{breakdown.column}</th>
            <th scope="col" className="num">
              {measure}
            </th>
            <th scope="col" className="col-share">
              Share
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={3} className="muted">
                No {measure.toLowerCase()} in these 90 days.
              </td>
            </tr>
          ) : (
            rows.map((r, i) => (
              <tr key={`${r.name}-${i}`}>
                <th scope="row" className="cell-name">
                  {r.host ? <HostName name={r.name} /> : r.name}
                </th>
                <td className="num">{formatCount(r.count)}</td>
                <td className="col-share">
                  <ShareBar count={r.count} total={total} />
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
