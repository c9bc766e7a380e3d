// How the screens say conversion figures: event types, amounts of money in minor units, rates
// and why a rate is undefined (the contract's Rate reasons, in words).
import type { EventType } from '../api/types.ts';

export const EVENT_TYPES: Array<{ value: EventType; label: string }> = [
  { value: 'signup', label: 'Sign-up' },
  { value: 'lead', label: 'Lead' },
  { value: 'purchase', label: 'Purchase' },
  { value: 'booking', label: 'Booking' },
  { value: 'download', label: 'Download' },
  { value: 'custom', label: 'Custom event' },
];
export const typeLabel = (t: EventType) => EVENT_TYPES.find((e) => e.value === t)?.label ?? t;

/** Digits after the point of a currency's amounts (2 for EUR, 0 for JPY). */
export function fractionDigits(currency: string | null | undefined): number {
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency: currency || 'EUR' }).resolvedOptions()
        .maximumFractionDigits ?? 2
    );
  } catch {
    return 2;
  }
}

/** An amount in minor units of `currency` as money ("€1,250.50"). */
export function money(minor: number, currency: string): string {
  const digits = fractionDigits(currency);
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(minor / 10 ** digits);
  } catch {
    return `${(minor / 10 ** digits).toFixed(digits)} ${currency}`;
  }
}

/** An amount in minor units as a plain decimal in major units ("1250.50"), exactly (for CSV). */
export function decimalAmount(minor: number, currency: string): string {
  const digits = fractionDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const s = String(Math.abs(minor)).padStart(digits + 1, '0');
  return digits ? `${sign}${s.slice(0, -digits)}.${s.slice(-digits)}` : `${sign}${s}`;
}

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
export const formatRate = (rate: number) => percent.format(rate);

export type RateReason = 'beyond_click_retention' | 'no_clicks_in_window' | 'clicks_unavailable';

/** Why a rate is undefined, as a sentence. */
export const RATE_REASONS: Record<RateReason, string> = {
  beyond_click_retention:
    'The window starts more than 90 days ago; clicks are kept 90 days, so they cannot be counted for all of it.',
  no_clicks_in_window: 'No click was counted in the window, so there is nothing to divide by.',
  clicks_unavailable: 'Clicks cannot be read right now; try again in a moment.',
};

/** The same, short, for a table cell (the sentence goes under the table). */
export const RATE_REASONS_SHORT: Record<RateReason, string> = {
  beyond_click_retention: 'clicks not kept that far back',
  no_clicks_in_window: 'no clicks in the window',
  clicks_unavailable: 'clicks could not be read',
};
