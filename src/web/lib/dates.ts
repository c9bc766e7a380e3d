// Dates between the API (ISO 8601 instants, UTC days) and the browser's inputs and eyes.

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * A datetime-local value ("2026-11-24T10:30") read in the browser's time zone, as ISO 8601 with
 * the browser's offset at that moment ("2026-11-24T10:30:00+01:00"); null when empty or invalid.
 * A time skipped by a daylight-saving change comes out as the moment the browser moves it to.
 */
export function localInputToIso(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return null;
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return (
    `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` +
    `T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** An ISO instant as a datetime-local value in the browser's time zone ('' for none). */
export function isoToLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateOnly.format(d);
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** A moment from now in words ("3 days ago", "in 2 hours", "now"): its largest unit with a whole one, rounded. */
export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const at = new Date(iso).getTime();
  if (Number.isNaN(at)) return iso;
  const diff = at - now;
  for (const [unit, ms] of UNITS) {
    const n = diff / ms;
    if (Math.abs(n) >= 1) return relative.format(Math.round(n), unit);
  }
  return relative.format(0, 'second');
}

/** A UTC day of the API ("2026-11-24") as the browser writes dates, without shifting it. */
export function formatDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? day : utcDay.format(d);
}

/** Today as the API's UTC day. */
export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** The UTC day `days` after `day` (negative for before). */
export function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Days from `from` to `to`, both counted ("2026-01-01".."2026-01-01" is 1). */
export function daysInclusive(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

export function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
}

/** The "Last N days" choices of a window select, valued by their number of days. */
export function lastDays<const D extends readonly number[]>(days: D) {
  return days.map((d) => ({ value: `${d}` as `${D[number]}`, label: `Last ${d} days` }));
}
