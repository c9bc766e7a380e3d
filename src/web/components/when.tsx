import { formatDate, formatDateTime } from '../lib/dates.ts';

/** A moment as a short date, with the full date and time on hover and for machines. */
export function When({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatDate(iso)}
    </time>
  );
}
