// The numbers behind a per-day chart, for whoever reads them rather than the lines: one row per
// UTC day, a column per count, the window's totals in the footer. Shared by a link's analytics,
// a bio page's and the conversions report.
import { formatDay } from '../../lib/dates.ts';
import { formatCount } from '../../lib/format.ts';

export interface DayColumn<D> {
  label: string;
  /** A day's figure; null shows as a dash (say, no value in a currency that day). */
  value: (day: D) => number | null;
  total: number | null;
  /** How a figure reads (default: a count). */
  format?: (n: number) => string;
}

const cell = <D,>(c: DayColumn<D>, n: number | null) => (n === null ? '—' : (c.format ?? formatCount)(n));

export function DayTable<D extends { day: string }>({
  caption,
  days,
  columns,
  totalLabel = 'Total',
}: {
  caption: string;
  days: D[];
  columns: DayColumn<D>[];
  /** The footer row's header. */
  totalLabel?: string;
}) {
  return (
    <details className="numbers">
      <summary>Show the numbers</summary>
      <div className="table-wrap table-wrap-tall" role="region" aria-label={`${caption}, as numbers`} tabIndex={0}>
        <table className="table table-compact">
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {columns.map((c) => (
                <th key={c.label} scope="col" className="num">
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.day}>
                <th scope="row">{formatDay(d.day)}</th>
                {columns.map((c) => (
                  <td key={c.label} className="num">
                    {cell(c, c.value(d))}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">{totalLabel}</th>
              {columns.map((c) => (
                <td key={c.label} className="num">
                  {cell(c, c.total)}
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
      </div>
    </details>
  );
}
