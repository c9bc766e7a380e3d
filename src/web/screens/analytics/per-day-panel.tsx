// The panel of a report's figures per day (a link's, a page's, the conversions'): its heading with
// the days it covers, an optional CSV export beside it, then the chart and the table it is given.
import type { ReactNode } from 'react';

export function PerDayPanel(props: {
  title: string;
  /** The days covered, and anything to say about how they count. */
  detail: ReactNode;
  exportCsv?: { label: string; run: () => void };
  children: ReactNode;
}) {
  return (
    <section className="panel" aria-labelledby="per-day-heading">
      <div className="panel-header">
        <div>
          <h2 id="per-day-heading">{props.title}</h2>
          <p className="muted">{props.detail}</p>
        </div>
        {props.exportCsv ? (
          <button type="button" className="button button-small" onClick={props.exportCsv.run}>
            {props.exportCsv.label}
          </button>
        ) : null}
      </div>
      {props.children}
    </section>
  );
}
