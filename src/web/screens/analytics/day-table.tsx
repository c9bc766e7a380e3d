// The numbers behind a per-day chart, for whoever reads them rather than the lines: one row per
// UTC day, a column per count, the window's totals in the footer. Shared by a link's analytics
// and a bio page's.
import { formatDay } from '../../lib/dates.ts';
import { formatCount } from '../../lib/format.ts';

export interface DayColumn<D> {
  label: string;
  value: (day: D) => number;
  total: number;
}

export function DayTable<D extends { day: string }>({ caption, days, columns }: { caption: string; days: D[]; columns: DayColumn<D>[] }) {
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
                    {formatCount(c.value(d))}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              {columns.map((c) => (
                <td key={c.label} className="num">
                  {formatCount(c.total)}
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
      </div>
    </details>
  );
}
