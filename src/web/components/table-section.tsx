// A list screen's section: a heading, a line on what the list is, and the rows of one read in a
// captioned table (with its loading, failed and empty states, data-table.tsx).
import type { ReactNode } from 'react';
import { DataTable, type Header, ListState, type Read } from './data-table.tsx';

export function TableSection<T>({
  id,
  heading,
  intro,
  noun,
  read,
  listed = true,
  empty,
  caption,
  cards,
  headers,
  children,
}: {
  /** Names the heading (`${id}-heading`) and the caption (`${id}-caption`): unique on the screen. */
  id: string;
  heading: string;
  intro?: ReactNode;
  /** The rows in the plural, for "Loading keys…" and "Could not load the keys". */
  noun: string;
  read: Read<readonly T[]>;
  /** False when the workspace's plan leaves the list out: the heading and intro stay, no rows. */
  listed?: boolean;
  empty?: ReactNode;
  caption: string;
  cards?: boolean;
  headers: readonly Header[];
  /** One row's `<tr>`, keyed. */
  children: (row: T) => ReactNode;
}) {
  return (
    <section className="section" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{heading}</h2>
      {intro}
      {listed ? (
        <ListState read={read} loading={`Loading ${noun}…`} what={`the ${noun}`} empty={empty}>
          {(rows) => (
            <DataTable caption={caption} captionId={`${id}-caption`} cards={cards} headers={headers}>
              {rows.map(children)}
            </DataTable>
          )}
        </ListState>
      ) : null}
    </section>
  );
}
