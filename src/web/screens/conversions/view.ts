// What the Conversions screen shows, kept in the address so a view can be linked: the window (a
// preset of whole UTC days ending today, or custom days) and every filter of
// GET /api/v1/conversions. `?window=90&eventType=purchase&campaignId=cmp_1`.
import type { EventType } from '../../api/types.ts';
import { EVENT_TYPES } from '../../lib/conversions.ts';
import { addDays, isDay, lastDays } from '../../lib/dates.ts';

export const PRESETS = [...lastDays([7, 30, 90, 400]), { value: 'custom', label: 'Custom days' }] as const;
export type Preset = (typeof PRESETS)[number]['value'];
export const MAX_DAYS = 400;

export interface ConversionView {
  window: Preset;
  /** First and last day (YYYY-MM-DD, UTC) of a custom window. */
  from: string;
  to: string;
  eventType: EventType | '';
  customName: string;
  linkId: string;
  campaignId: string;
  qrCodeId: string;
}

export type FilterName = 'eventType' | 'customName' | 'linkId' | 'campaignId' | 'qrCodeId';
export const FILTERS: FilterName[] = ['eventType', 'customName', 'linkId', 'campaignId', 'qrCodeId'];

/** A preset's days: it ends today, so its last day is partly in the future. */
export function presetDays(preset: Exclude<Preset, 'custom'>, today: string): { from: string; to: string } {
  return { from: addDays(today, 1 - Number(preset)), to: today };
}

export function viewOf(params: URLSearchParams, today: string): ConversionView {
  const window = (PRESETS.find((p) => p.value === params.get('window'))?.value ?? '30') as Preset;
  const type = params.get('eventType') ?? '';
  const customName = params.get('customName') ?? '';
  // A custom name narrows custom events (the API's rule): it implies the type.
  const eventType = (EVENT_TYPES.some((t) => t.value === type) ? type : customName ? 'custom' : '') as EventType | '';
  const preset = window === 'custom' ? presetDays('30', today) : presetDays(window, today);
  return {
    window,
    from: window === 'custom' ? (params.get('from') ?? preset.from) : preset.from,
    to: window === 'custom' ? (params.get('to') ?? preset.to) : preset.to,
    eventType,
    customName: eventType === 'custom' ? customName : '',
    linkId: params.get('linkId') ?? '',
    campaignId: params.get('campaignId') ?? '',
    qrCodeId: params.get('qrCodeId') ?? '',
  };
}

/** The address's query for a view (defaults left out). */
export function paramsOf(view: ConversionView): Record<string, string> {
  const out: Record<string, string> = {};
  if (view.window !== '30') out.window = view.window;
  if (view.window === 'custom') {
    out.from = view.from;
    out.to = view.to;
  }
  for (const name of FILTERS) {
    const value = view[name].trim();
    if (value && (name !== 'customName' || view.eventType === 'custom')) out[name] = value;
  }
  return out;
}

export const hasFilters = (view: ConversionView) => FILTERS.some((f) => view[f].trim() !== '');

/**
 * The API's query: the window as instants, [first day 00:00 UTC, the day after the last 00:00
 * UTC), so a view of days counts whole days. A custom day that is not a date goes as it is, and
 * the API's answer names the field.
 */
export function queryOf(view: ConversionView) {
  const start = (day: string) => (isDay(day) ? `${day}T00:00:00Z` : day);
  const query: Record<string, string> = {
    from: start(view.from),
    to: isDay(view.to) ? `${addDays(view.to, 1)}T00:00:00Z` : view.to,
  };
  for (const [name, value] of Object.entries(paramsOf(view)))
    if ((FILTERS as string[]).includes(name)) query[name] = value;
  return query as {
    from: string;
    to: string;
    eventType?: EventType;
    customName?: string;
    linkId?: string;
    campaignId?: string;
    qrCodeId?: string;
  };
}
