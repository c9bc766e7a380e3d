// The password form of a protected link on the redirect path: the form (GET), and its POST
// checked against the anti-forgery token and the throttle (password.ts), then followed as the
// visit it unlocks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientAddress } from '../domain/client-address.ts';
import { verifyPassword } from '../domain/passwords.ts';
import { decideVisit, PAGE_STATUS, type ResolvedLink, type Visit } from '../domain/resolve.ts';
import type { LookupTiers } from './lookup-tiers.ts';
import type { PageVia } from './page-route.ts';
import { formTooLargePage, methodNotAllowedPage, PASSWORD_PAGE_CSP, passwordPage, throttledPage } from './pages.ts';
import { CSRF_COOKIE, parseCookies, refundAttempt, takeAttempt } from './password.ts';
import { isBot, type VisitHeaders } from './visitor.ts';

const MAX_FORM_BYTES = 4096;

type Redirect = Extract<Visit, { kind: 'redirect' }>;
export type PageKind = Exclude<Visit, { kind: 'redirect' }>['page'];

/** What the password form uses of the redirect service (handler.ts), which passes itself. */
export interface PasswordFormHost extends Pick<LookupTiers, 'deps'> {
  page(
    req: IncomingMessage,
    res: ServerResponse,
    page: PageKind,
    link: ResolvedLink | null,
    error?: string,
    via?: PageVia,
  ): void;
  sendPage(res: ServerResponse, status: number, html: string, extra?: Record<string, string | number>): void;
  forward(
    req: IncomingMessage,
    res: ServerResponse,
    h: VisitHeaders,
    link: ResolvedLink,
    visit: Redirect,
    now: number,
    click: null,
  ): void;
  countAndRedirect(
    req: IncomingMessage,
    res: ServerResponse,
    h: VisitHeaders,
    link: ResolvedLink,
    visit: Redirect,
    qrCodeId: string | null,
    now: number,
    via?: PageVia,
  ): void;
}

/** The form, with a fresh anti-forgery token in its cookie; `error` says why it is shown again. */
export function showPasswordForm(
  svc: PasswordFormHost,
  req: IncomingMessage,
  res: ServerResponse,
  link: ResolvedLink,
  error?: string,
  via?: PageVia,
): void {
  const csrf = svc.deps.csrf.issue(link.id);
  const secure = isSecure(req, svc.deps.config.trustProxy);
  // Through a bio page's block the form posts back to the block's address, on the page's host.
  const action = via?.action ?? `/${link.slug}`;
  svc.sendPage(res, error ? 401 : PAGE_STATUS.password, passwordPage({ action, csrf, error }), {
    'Set-Cookie': `${CSRF_COOKIE}=${csrf}; Path=${action}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}; Max-Age=3600`,
    // A 401 names its scheme; browsers show no dialog for this one.
    'WWW-Authenticate': 'Form realm="Shortlink link password"',
    // The form posts to this page, whose answer redirects to the destination: CSP checks
    // form-action on every hop, so the password page must allow the onward redirect.
    'Content-Security-Policy': PASSWORD_PAGE_CSP,
  });
}

/** A POST to a link's address: the form's answer. */
export async function submitPassword(
  svc: PasswordFormHost,
  req: IncomingMessage,
  res: ServerResponse,
  h: VisitHeaders,
  link: ResolvedLink | null,
  qrCodeId: string | null,
  via?: PageVia,
): Promise<void> {
  const visit = decideVisit(link, Date.now());
  if (visit.kind === 'redirect' || visit.page !== 'password') {
    // Nothing to unlock: answer as a GET would, without following the POST anywhere.
    if (visit.kind === 'page') return svc.page(req, res, visit.page, link);
    return svc.sendPage(res, 405, methodNotAllowedPage('link'), { Allow: 'GET, HEAD' });
  }
  const form = await readForm(req);
  if (!form) return svc.sendPage(res, 413, formTooLargePage(MAX_FORM_BYTES), { Connection: 'close' });
  const cookies = parseCookies(req.headers.cookie);
  if (!svc.deps.csrf.verify(link!.id, form.get('csrf') ?? undefined, cookies[CSRF_COOKIE])) {
    return svc.page(req, res, 'password', link, 'Your session expired. Please enter the password again.', via);
  }
  // The address the trusted proxy saw, never one the client wrote (domain/client-address).
  const address = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], svc.deps.config.trustProxy);
  const throttleKey = `${link!.id}:${address}`;
  const wait = await takeAttempt(svc.deps.passwordThrottle, throttleKey);
  if (wait > 0) return svc.sendPage(res, 429, throttledPage(wait), { 'Retry-After': wait });
  const password = form.get('password') ?? '';
  if (!password || password.length > 256 || !(await verifyPassword(password, link!.passwordHash!))) {
    return svc.page(req, res, 'password', link, 'That password is not correct.', via);
  }
  await refundAttempt(svc.deps.passwordThrottle, throttleKey);
  const now = Date.now();
  const unlocked = decideVisit(link, now, true);
  if (unlocked.kind === 'page') return svc.page(req, res, unlocked.page, link);
  if (isBot(h.userAgent) || !unlocked.countsAsClick) return svc.forward(req, res, h, link!, unlocked, now, null);
  svc.countAndRedirect(req, res, h, link!, unlocked, qrCodeId, now, via);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isSecure(req: IncomingMessage, trustedHops: number): boolean {
  if ((req.socket as any).encrypted) return true;
  return trustedHops > 0 && header(req, 'x-forwarded-proto')?.split(',')[0].trim() === 'https';
}

function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_FORM_BYTES) {
        // Answer 413 and let the rest of the body drain (destroying the request would reset
        // the connection before the page is written).
        resolve(null);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}
