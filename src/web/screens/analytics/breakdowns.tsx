// The last 90 days' top countries, devices, browsers, operating systems and referrers: each a
// table with its share as a bar.
import type { CountEntry, LinkAnalytics } from '../../api/types.ts';
import { formatCount } from '../../lib/format.ts';

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

interface Breakdown {
  key: keyof Omit<LinkAnalytics['breakdowns'], 'other'>;
  caption: string;
  column: string;
  label: (value: string) => string;
}

const BREAKDOWNS: Breakdown[] = [
  { key: 'countries', caption: 'Countries', column: 'Country', label: countryName },
  { key: 'devices', caption: 'Devices', column: 'Device', label: (v) => (v ? capitalise(v) : 'Unknown') },
  { key: 'browsers', caption: 'Browsers', column: 'Browser', label: (v) => v || 'Unknown' },
  { key: 'os', caption: 'Operating systems', column: 'Operating system', label: (v) => v || 'Unknown' },
  { key: 'referrers', caption: 'Referrers', column: 'Referrer', label: (v) => v || 'Direct or unknown' },
];

export function Breakdowns({ breakdowns }: { breakdowns: LinkAnalytics['breakdowns'] }) {
  return (
    <div className="breakdowns">
      {BREAKDOWNS.map((b) => (
        <BreakdownTable key={b.key} breakdown={b} entries={breakdowns[b.key]} other={breakdowns.other[b.key]} />
      ))}
    </div>
  );
}

function BreakdownTable({ breakdown, entries, other }: { breakdown: Breakdown; entries: CountEntry[]; other: number }) {
  const rows = other > 0 ? [...entries.map((e) => ({ name: breakdown.label(e.value), clicks: e.clicks })), { name: 'Other', clicks: other }] : entries.map((e) => ({ name: breakdown.label(e.value), clicks: e.clicks }));
  const total = rows.reduce((n, r) => n + r.clicks, 0);
  return (
    <div className="panel breakdown">
      <table className="table table-compact">
        <caption>{breakdown.caption}</caption>
        <thead>
          <tr>
            <th scope="col">{breakdown.column}</th>
            <th scope="col" className="num">
              Clicks
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
                No clicks in these 90 days.
              </td>
            </tr>
          ) : (
            rows.map((r, i) => {
              const share = total ? (r.clicks / total) * 100 : 0;
              return (
                <tr key={`${r.name}-${i}`}>
                  <th scope="row" className="cell-name">
                    {r.name}
                  </th>
                  <td className="num">{formatCount(r.clicks)}</td>
                  <td className="col-share">
                    <span className="bar" aria-hidden="true">
                      <span className="bar-fill" style={{ width: `${Math.max(share, 1)}%` }} />
                    </span>
                    <span className="bar-label">{share < 1 && share > 0 ? '<1' : Math.round(share)}%</span>
                  </td>
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}
