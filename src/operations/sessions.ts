// A person's sessions: starting one (what signed in, the browser remembered, a notice mailed when
// the browser is new for someone who has signed in before), listing their own and ending them.
// A session never says more than browser and OS families and a coarse place: no address is kept.
import type { DbTransaction } from '../db/knex.ts';
import * as accounts from '../db/repos/accounts.ts';
import { parseDevice } from '../clicks/device.ts';
import { NOTICE_MS } from '../domain/mail.ts';
import { hashSecret, isBrowserToken, newSecret } from '../domain/sessions.ts';
import { notFound } from '../domain/errors.ts';
import type { PlaceLookup } from '../domain/routing.ts';
import { mailQueued, queueMail, sealMail, sendsMail } from './mail.ts';
import type { OperationServices } from './services.ts';

export interface SigningIn {
  userId: string;
  userAgent: string | undefined;
  /** The client's address as the trusted proxy saw it: located, then forgotten. */
  client: string;
  /** The browser cookie it sent, if any. */
  browserToken: string | undefined;
  /**
   * A password sign-in: a browser new to a person who has signed in before is mailed about. A
   * link that proved the email (set-up, reset, invitation, first run) only remembers the browser.
   */
  notice: boolean;
}

export interface StartedSession {
  token: string;
  session: accounts.SessionRecord;
  /** The browser cookie's token when the browser has none yet (to be set), else undefined. */
  newBrowserToken: string | undefined;
}

let regionNames: Intl.DisplayNames | undefined;

/** "Berlin, Germany", "Germany", or null: the coarse place of a client address. */
export function coarsePlace(geo: PlaceLookup | undefined, client: string): string | null {
  const place = geo?.locate(client);
  if (!place?.country) return null;
  let country = place.country;
  try {
    country = (regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' })).of(place.country) ?? country;
  } catch {
    // A code Intl does not know stays a code.
  }
  return place.city ? `${place.city}, ${country}` : country;
}

/** Starts a session for a person whose credentials were just checked, in one transaction. */
export async function startSession(
  services: OperationServices,
  who: SigningIn,
  /** Written in the session's transaction (its audit entry). */
  also?: (trx: DbTransaction) => Promise<void>,
): Promise<StartedSession> {
  let queued = false;
  const started = await services.db.knex.transaction(async (trx) => {
    const made = await startSessionIn(trx, services, who);
    queued = made.queued;
    await also?.(trx);
    return made;
  });
  if (queued) mailQueued();
  return { token: started.token, session: started.session, newBrowserToken: started.newBrowserToken };
}

/**
 * The session's rows inside the caller's transaction (the second step ends its pending sign-in in
 * the same one); `queued` says a notice waits in the outbox: call mailQueued() after commit.
 */
export async function startSessionIn(
  trx: DbTransaction,
  services: Pick<OperationServices, 'geo' | 'config' | 'masterKey'>,
  who: SigningIn,
): Promise<StartedSession & { queued: boolean }> {
  const now = Date.now();
  const device = parseDevice(who.userAgent);
  const traits = { browser: device.browser, os: device.os, place: coarsePlace(services.geo, who.client) };
  const browserToken = isBrowserToken(who.browserToken) ? who.browserToken : newSecret().token;
  const mail = who.notice && sendsMail(services.config);
  let queued = false;
  const { token, session } = await accounts.createSession(trx, who.userId, now, traits);
  const seen = await accounts.rememberBrowser(trx, who.userId, hashSecret(browserToken), now);
  if (mail && !seen.known && seen.others) {
    const payload = {
      kind: 'sign_in_notice' as const,
      version: 1 as const,
      at: now,
      ...traits,
      sessionsUrl: `${services.config.publicUrl}/app/account`,
    };
    await queueMail(trx, session.email, payload, sealMail(services.masterKey, payload), now + NOTICE_MS, now);
    queued = true;
  }
  return {
    token,
    session,
    queued,
    newBrowserToken: browserToken === who.browserToken ? undefined : browserToken,
  };
}

/** The person's own sessions, the asking one marked. */
export async function listSessions(services: OperationServices, userId: string, currentKey: string) {
  const rows = await accounts.sessionsOf(services.db.knex, userId, Date.now());
  return rows.map(({ key, ...row }) => ({ ...row, current: key === currentKey }));
}

/** Ends one of the person's sessions by its public id; whether it was the asking one. */
export async function endSession(
  services: OperationServices,
  userId: string,
  currentKey: string,
  publicId: string,
  /** Written in the same transaction (its audit entry). */
  also?: (trx: DbTransaction) => Promise<void>,
): Promise<{ current: boolean }> {
  const { knex } = services.db;
  const found = (await accounts.sessionsOf(knex, userId, Date.now())).find((s) => s.id === publicId);
  if (!found) throw notFound('Session not found (it has ended, or is not yours)');
  await knex.transaction(async (trx) => {
    await accounts.deleteSession(trx, found.key);
    await also?.(trx);
  });
  return { current: found.key === currentKey };
}

export async function endOtherSessions(
  services: OperationServices,
  userId: string,
  currentKey: string,
  also?: (trx: DbTransaction, ended: number) => Promise<void>,
) {
  await services.db.knex.transaction(async (trx) => {
    const ended = await accounts.endOtherSessions(trx, userId, currentKey);
    await also?.(trx, ended);
  });
}
