import { formatDate, formatDateTime, formatRelative } from '../lib/dates.ts';

/**
 * A moment as a short date, or from now in words (`relative`: "3 days ago"), with the full date
 * and time on hover and for machines.
 */
export function When({ iso, relative = false }: { iso: string; relative?: boolean }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {relative ? formatRelative(iso) : formatDate(iso)}
    </time>
  );
}
