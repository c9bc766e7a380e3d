// How reports are named and described on the screens: their kind, visibility and window, and the
// screen each one was made from.
import type { ConversionNames, ReportKind, ReportParams, ReportVisibility, ReportWindow } from '../../api/types.ts';
import { typeLabel } from '../../lib/conversions.ts';
import { formatDay } from '../../lib/dates.ts';
import { campaignName, linkName, qrName } from '../conversions/names.ts';
import { linkPath, wsPath } from '../links/paths.ts';
import { pagePath } from '../pages/page-data.ts';

export const KIND_LABELS: Record<ReportKind, string> = {
  CONVERSIONS: 'Conversions',
  GOAL: 'Goal report',
  LINK: 'Link analytics',
  PAGE: 'Page analytics',
};

export const VISIBILITIES: ReadonlyArray<{ value: ReportVisibility; label: string; detail: string }> = [
  { value: 'PRIVATE', label: 'Private', detail: 'Members of this workspace only, here in the dashboard.' },
  { value: 'UNLISTED', label: 'Unlisted', detail: 'Anyone with the link can read it; search engines never index it.' },
  {
    value: 'PUBLIC',
    label: 'Public',
    detail: 'Anyone with the link can read it; search engines may index it (unless it has a password).',
  },
];

export const visibilityLabel = (v: ReportVisibility) => VISIBILITIES.find((x) => x.value === v)!.label;

/** "Last 30 days" or "1 Mar 2026 – 31 Mar 2026". */
export function windowText(window: ReportWindow): string {
  if ('lastDays' in window) return window.lastDays === 1 ? 'Last day' : `Last ${window.lastDays} days`;
  return window.from === window.to ? formatDay(window.from) : `${formatDay(window.from)} – ${formatDay(window.to)}`;
}

/** The window inside a sentence: "last 30 days", "Mar 1, 2026 – Mar 31, 2026". */
export const windowPhrase = (window: ReportWindow) =>
  'lastDays' in window ? windowText(window).toLowerCase() : windowText(window);

/** Names of a summary's ids for filtersText: a link's short URL, a campaign's name, a QR code's link. */
export function namedBy(names: ConversionNames | undefined) {
  return (kind: 'link' | 'campaign' | 'qr', id: string) => {
    if (!names) return id;
    if (kind === 'link') return linkName(names, id).shown;
    if (kind === 'campaign') return campaignName(names, id);
    const qr = qrName(names, id);
    return qr.known ? qr.shown.replace(/^QR code /, '') : id;
  };
}

/** The conversion filters of a report, in words ("Purchase, campaign cmp_1"); '' for none. */
export function filtersText(
  params: Partial<ReportParams>,
  name: (kind: 'link' | 'campaign' | 'qr', id: string) => string = (_k, id) => id,
): string {
  const parts: string[] = [];
  if (params.customName) parts.push(`custom event “${params.customName}”`);
  else if (params.eventType) parts.push(typeLabel(params.eventType));
  if (params.linkId) parts.push(`link ${name('link', params.linkId)}`);
  if (params.campaignId) parts.push(`campaign ${name('campaign', params.campaignId)}`);
  if (params.qrCodeId) parts.push(`QR code ${name('qr', params.qrCodeId)}`);
  return parts.join(', ');
}

/** The dashboard screen the report was made from, showing the same view. */
export function sourcePath(ws: string, kind: ReportKind, params: ReportParams): string {
  const w = params.window;
  if (kind === 'GOAL') return wsPath(ws, `/goals/${encodeURIComponent(params.goalId ?? '')}`);
  const windowQuery: Record<string, string> =
    'lastDays' in w ? { window: String(w.lastDays) } : { window: 'custom', from: w.from, to: w.to };
  if (kind === 'LINK') return `${linkPath(ws, params.linkId ?? '', '/analytics')}?${new URLSearchParams(windowQuery)}`;
  // A page's analytics offer the last N days only: fixed days open its default window.
  if (kind === 'PAGE')
    return `${pagePath(ws, params.pageId ?? '', '/analytics')}${'lastDays' in w ? `?window=${w.lastDays}` : ''}`;
  const query = new URLSearchParams(windowQuery);
  for (const f of ['eventType', 'customName', 'linkId', 'campaignId', 'qrCodeId'] as const)
    if (params[f]) query.set(f, params[f]!);
  return `${wsPath(ws, '/conversions')}?${query}`;
}
