// A link's state in the list: active or disabled, and what its schedule, expiry and password
// change for a visitor now, each a badge with the exact time on hover.
import type { DashboardLink } from '../../api/types.ts';
import { formatDateTime, formatRelative } from '../../lib/dates.ts';

const at = (iso: string | null | undefined) => (iso ? new Date(iso).getTime() : null);

export function LinkBadges({ link, now }: { link: DashboardLink; now: number }) {
  const start = at(link.startAt);
  const end = at(link.endAt);
  const expires = at(link.expiresAt);
  const badges: Array<{ text: string; tone: string; title?: string }> = [
    link.status === 'ACTIVE' ? { text: 'Active', tone: 'ok' } : { text: 'Disabled', tone: 'off' },
  ];
  if (start !== null && start > now)
    badges.push({
      text: `Starts ${formatRelative(link.startAt, now)}`,
      tone: 'plan',
      title: formatDateTime(link.startAt),
    });
  if (end !== null && end <= now) badges.push({ text: 'Ended', tone: 'off', title: formatDateTime(link.endAt) });
  else if (end !== null)
    badges.push({ text: `Ends ${formatRelative(link.endAt, now)}`, tone: 'plan', title: formatDateTime(link.endAt) });
  if (expires !== null && expires <= now)
    badges.push({ text: 'Expired', tone: 'error', title: formatDateTime(link.expiresAt) });
  else if (expires !== null)
    badges.push({
      text: `Expires ${formatRelative(link.expiresAt, now)}`,
      tone: 'neutral',
      title: formatDateTime(link.expiresAt),
    });
  if (link.hasPassword) badges.push({ text: 'Password', tone: 'neutral' });
  return (
    <span className="badges">
      {badges.map((b) => (
        <span key={b.text} className={`badge badge-${b.tone}`} title={b.title}>
          {b.text}
        </span>
      ))}
    </span>
  );
}
