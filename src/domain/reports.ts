// Shared reports (openapi/dashboard.yaml, Reports): what a report is, the window it reads at a
// given moment, when sharing it raises report.shared, and the cookie that says a visitor gave
// its password. Plain rules, no I/O.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DAY_MS } from './conversions.ts';

export const REPORT_KINDS = ['CONVERSIONS', 'GOAL', 'LINK', 'PAGE'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
/**
 * The kinds whose figures are conversions, so reading them needs a plan with conversions; a
 * link's and a bio page's analytics are read on every plan, as their screens are.
 */
export const readsConversions = (kind: ReportKind) => kind === 'CONVERSIONS' || kind === 'GOAL';
export const VISIBILITIES = ['PRIVATE', 'UNLISTED', 'PUBLIC'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** The longest window a report may read: the screens' and the API's limit. */
export const MAX_REPORT_DAYS = 400;
export const MAX_TITLE_LENGTH = 200;
/** How long a shared report's figures are reused before they are computed again. */
export const SHARED_FIGURES_TTL_MS = 60_000;
/** Wrong passwords of a shared report allowed per client in the window (the link password's rule). */
export const REPORT_PASSWORD_ATTEMPTS = 5;
export const REPORT_PASSWORD_WINDOW_S = 15 * 60;
/** A visitor who gave the password reads the report for this long without giving it again. */
export const UNLOCK_TTL_MS = 12 * 3_600_000;
export const UNLOCK_COOKIE = 'sl_report';

/** `lastDays`: relative, moving with the date (resolveWindow); `from`/`to`: fixed UTC days, both included. */
export type ReportWindow = { lastDays: number } | { from: string; to: string };

/**
 * What a report reads besides its window: a GOAL report its goal, a LINK report its link, a PAGE
 * report its bio page, a CONVERSIONS report the filters of GET /api/v1/conversions (`linkId`
 * among them).
 */
export interface ReportParams {
  window: ReportWindow;
  goalId?: string;
  linkId?: string;
  pageId?: string;
  eventType?: string;
  customName?: string;
  campaignId?: string;
  qrCodeId?: string;
}

export const CONVERSION_FILTERS = ['eventType', 'customName', 'linkId', 'campaignId', 'qrCodeId'] as const;

/** The params a kind takes, for the message that refuses the others. */
const PARAMS_OF: Record<ReportKind, ReadonlyArray<keyof ReportParams>> = {
  CONVERSIONS: ['window', ...CONVERSION_FILTERS],
  GOAL: ['window', 'goalId'],
  LINK: ['window', 'linkId'],
  PAGE: ['window', 'pageId'],
};

export interface ParamsProblem {
  field: string;
  message: string;
}

const isDay = (v: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(v) &&
  Number.isFinite(Date.parse(`${v}T00:00:00Z`)) &&
  new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

/**
 * The kind's rules of its params, with the screens' messages (the window's as
 * GET /api/v1/conversions words them); fields are named as in the request body.
 */
export function paramsProblem(kind: ReportKind, params: ReportParams): ParamsProblem | null {
  for (const key of Object.keys(params) as Array<keyof ReportParams>) {
    if (params[key] !== undefined && !PARAMS_OF[kind].includes(key)) {
      return {
        field: `params.${key}`,
        message: `params.${key} does not go with a ${kind} report; it takes ${PARAMS_OF[kind].join(', ')}`,
      };
    }
  }
  if (kind === 'GOAL' && !params.goalId)
    return { field: 'params.goalId', message: 'params.goalId is required for a GOAL report' };
  if (kind === 'LINK' && !params.linkId)
    return { field: 'params.linkId', message: 'params.linkId is required for a LINK report' };
  if (kind === 'PAGE' && !params.pageId)
    return { field: 'params.pageId', message: 'params.pageId is required for a PAGE report' };
  const w = params.window;
  if ('lastDays' in w) {
    if (!Number.isInteger(w.lastDays) || w.lastDays < 1 || w.lastDays > MAX_REPORT_DAYS) {
      return {
        field: 'params.window.lastDays',
        message: `params.window.lastDays must be a whole number of days from 1 to ${MAX_REPORT_DAYS}`,
      };
    }
    return null;
  }
  if (!isDay(w.from)) return { field: 'params.window.from', message: 'from must be a day (YYYY-MM-DD)' };
  if (!isDay(w.to)) return { field: 'params.window.to', message: 'to must be a day (YYYY-MM-DD)' };
  if (w.from > w.to) return { field: 'params.window.from', message: 'from must not be after to' };
  const days = (Date.parse(`${w.to}T00:00:00Z`) - Date.parse(`${w.from}T00:00:00Z`)) / DAY_MS + 1;
  if (days > MAX_REPORT_DAYS)
    return { field: 'params.window.from', message: `The window may not exceed ${MAX_REPORT_DAYS} days` };
  return null;
}

/**
 * The window [from, to) a report reads at `now`, as the screen it was made from reads the same
 * choice, so a shared report shows what its screen shows that day:
 * - `lastDays` N of a CONVERSIONS, LINK or PAGE report: the N UTC days ending with today, today
 *   included (as far as it has gone): it moves forward at 00:00 UTC. ("Last 30 days" on the
 *   Conversions screen and on a link's or a bio page's analytics.)
 * - `lastDays` N of a GOAL report: the N × 24 hours ending at the moment of reading, rounded up to
 *   the minute. ("Last 30 days" on a goal's report.)
 * - `from`/`to`: those UTC days, both included, whatever the date.
 */
export function resolveWindow(kind: ReportKind, window: ReportWindow, now: number): { from: number; to: number } {
  if ('lastDays' in window) {
    if (kind === 'GOAL') {
      const to = Math.ceil(now / 60_000) * 60_000;
      return { from: to - window.lastDays * DAY_MS, to };
    }
    const tomorrow = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    return { from: tomorrow - window.lastDays * DAY_MS, to: tomorrow };
  }
  return { from: Date.parse(`${window.from}T00:00:00Z`), to: Date.parse(`${window.to}T00:00:00Z`) + DAY_MS };
}

/**
 * Whether a report moving from `before` (null: it is being made) to `after` raises
 * report.shared: when it leaves PRIVATE (or is made shared), and again when an UNLISTED report
 * becomes PUBLIC, reachable by more people than before. Nothing else raises it: PUBLIC to
 * UNLISTED, back to PRIVATE, a new title, password, params or token.
 */
export function sharingRaisesEvent(before: Visibility | null, after: Visibility): boolean {
  if (after === 'PRIVATE') return false;
  return before === null || before === 'PRIVATE' || (before === 'UNLISTED' && after === 'PUBLIC');
}

/**
 * The unlock cookie of a password-protected report: its end and a MAC over the report, its
 * current token and its current password hash, under a key drawn from MASTER_KEY. A new
 * password, or a new token, makes every earlier cookie worthless; nothing is stored.
 */
export class UnlockCookies {
  private readonly key: Buffer;
  constructor(masterKey: Buffer) {
    this.key = createHmac('sha256', masterKey).update('shortlink shared report unlock').digest();
  }
  private mac(report: UnlockSubject, expires: string): string {
    return createHmac('sha256', this.key)
      .update(`${report.id}\n${report.tokenHash}\n${report.passwordHash}\n${expires}`)
      .digest('base64url');
  }
  issue(report: UnlockSubject, now = Date.now()): string {
    const expires = (now + UNLOCK_TTL_MS).toString(36);
    return `${expires}.${this.mac(report, expires)}`;
  }
  verify(report: UnlockSubject, cookie: string | undefined, now = Date.now()): boolean {
    if (!cookie) return false;
    const [expires, mac, extra] = cookie.split('.');
    if (!expires || !mac || extra !== undefined) return false;
    const expected = this.mac(report, expires);
    if (mac.length !== expected.length || !timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) return false;
    const end = parseInt(expires, 36);
    return Number.isFinite(end) && end > now;
  }
}

export interface UnlockSubject {
  id: string;
  tokenHash: string;
  passwordHash: string;
}
