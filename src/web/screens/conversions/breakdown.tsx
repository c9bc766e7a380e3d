// One breakdown of the conversions report: a table of rows (campaigns, links, QR codes, event
// types) folded to its first rows until "Show all", one card per row on a phone when wide.
import { useState, type ReactNode } from 'react';
import { formatCount } from '../../lib/format.ts';

/** Rows a breakdown shows before "Show all". */
const FOLDED_ROWS = 10;

export interface Column<Row> {
  head: string;
  num?: boolean;
  cell: (row: Row) => ReactNode;
}

export function Breakdown<Row extends { conversions: number }>(props: {
  id: string;
  title: string;
  empty: string;
  rows: Row[];
  rowKey: (row: Row) => string;
  name: (row: Row) => ReactNode;
  nameHead: string;
  columns: Column<Row>[];
  notes?: ReactNode;
  noun: string;
  /** A wide table: the whole row of the grid, and one card per row on a phone. */
  wide?: boolean;
}) {
  const [all, setAll] = useState(false);
  const rows = all ? props.rows : props.rows.slice(0, FOLDED_ROWS);
  return (
    <div className={`panel breakdown-panel${props.wide ? ' breakdown-wide' : ''}`}>
      <h3 id={`${props.id}-heading`}>{props.title}</h3>
      {props.rows.length === 0 ? (
        <p className="muted">{props.empty}</p>
      ) : (
        <>
          <div className="table-scroll" role="region" aria-labelledby={`${props.id}-heading`} tabIndex={0}>
            <table className={`table table-compact${props.wide ? ' breakdown-cards' : ''}`}>
              <thead>
                <tr>
                  <th scope="col">{props.nameHead}</th>
                  {props.columns.map((c) => (
                    <th key={c.head} scope="col" className={c.num ? 'num' : undefined}>
                      {c.head}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={props.rowKey(row)}>
                    <th scope="row" className="cell-name">
                      {props.name(row)}
                    </th>
                    {props.columns.map((c) => (
                      <td key={c.head} className={c.num ? 'num' : undefined} data-label={c.head}>
                        {c.cell(row)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {props.rows.length > FOLDED_ROWS ? (
            <button
              type="button"
              className="button button-small show-all"
              aria-expanded={all}
              onClick={() => setAll((a) => !a)}
            >
              {all ? `Show the first ${FOLDED_ROWS}` : `Show all ${formatCount(props.rows.length)} ${props.noun}`}
            </button>
          ) : null}
          {props.notes}
        </>
      )}
    </div>
  );
}
