// The list screens' table and the states around it (loading, failed, empty, the rows).
import type { ReactNode } from 'react';
import { LoadError, Loading } from './feedback.tsx';

/** A column's header: its text, or text only screen readers hear (an actions column), or a cell. */
export type Header = string | { hidden: string } | { content: ReactNode; className?: string } | null | false;

/** A column of buttons and links: named for screen readers, blank on screen. */
export const ACTIONS: Header = { hidden: 'Actions' };

/**
 * A captioned table in a region that scrolls sideways on its own and takes focus, so a keyboard
 * can scroll it; the caption names the region. `cards` lays each row out as a card on narrow
 * screens (its cells then need `data-label`). Headers that are null or false are left out, so a
 * column a role cannot use goes with its cells.
 */
export function DataTable(props: {
  caption: string;
  captionId: string;
  headers: readonly Header[];
  cards?: boolean;
  className?: string;
  wrapClassName?: string;
  busy?: boolean;
  children: ReactNode;
}) {
  const tableClass = ['table', props.cards ? 'table-cards' : '', props.className ?? ''].filter(Boolean).join(' ');
  return (
    <div
      className={props.wrapClassName ? `table-wrap ${props.wrapClassName}` : 'table-wrap'}
      role="region"
      aria-labelledby={props.captionId}
      tabIndex={0}
    >
      <table className={tableClass} aria-busy={props.busy || undefined}>
        <caption id={props.captionId} className="visually-hidden">
          {props.caption}
        </caption>
        <thead>
          <tr>
            {props.headers.map((h, i) =>
              h === null || h === false ? null : (
                <th scope="col" key={i} className={typeof h === 'object' && 'className' in h ? h.className : undefined}>
                  {typeof h === 'string' ? (
                    h
                  ) : 'hidden' in h ? (
                    <span className="visually-hidden">{h.hidden}</span>
                  ) : (
                    h.content
                  )}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

export interface Read<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  refetch: () => unknown;
}

/**
 * What a read shows: a loading label while it runs, the API's error with "Try again" if it
 * failed, `empty` (when given) if it found nothing, else `children` with the data.
 */
export function ListState<T extends readonly unknown[]>(props: {
  read: Read<T>;
  loading: string;
  what: string;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  const { read, empty } = props;
  if (read.isPending) return <Loading label={props.loading} />;
  if (read.isError || read.data === undefined) {
    return <LoadError error={read.error} retry={() => read.refetch()} what={props.what} />;
  }
  if (empty !== undefined && read.data.length === 0) return <>{empty}</>;
  return <>{props.children(read.data)}</>;
}
