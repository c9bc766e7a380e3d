// A link's resolution rules (openapi/paths/slug.yaml), as one pure decision per visit.
import type { CompiledRouting } from './routing.ts';

export { locationOf } from './location.ts';

export interface ResolvedLink {
  id: string;
  workspaceId: string;
  domainKey: string;
  slug: string;
  url: string;
  /**
   * The destination as a valid Location header value (non-ASCII percent-encoded); null when it
   * is not an http(s) URL, which the API never stores but the redirect refuses anyway.
   */
  location: string | null;
  expiredLocation: string | null;
  redirectType: 'TEMPORARY' | 'PERMANENT';
  status: 'ACTIVE' | 'DISABLED';
  startAt: number | null;
  endAt: number | null;
  expiresAt: number | null;
  expiredUrl: string | null;
  clickLimit: number | null;
  served: number;
  passwordHash: string | null;
  previewTitle: string | null;
  previewDescription: string | null;
  previewImage: string | null;
  /** Where its visitors go (routing.ts); null while every default holds. */
  routing: CompiledRouting | null;
}

export type VisitPage = 'not_found' | 'not_live' | 'ended' | 'expired' | 'limit_reached' | 'password';

export type Visit =
  | { kind: 'redirect'; status: 301 | 302; location: string; countsAsClick: boolean }
  | { kind: 'page'; page: VisitPage; status: number };

/** What each visitor page answers, as a crawler or client would expect it. */
export const PAGE_STATUS: Record<VisitPage, number> = {
  not_found: 404, // unknown, DISABLED, deleted, renamed-away slug
  not_live: 404, // before startAt: nothing is here yet
  ended: 410, // after endAt: gone for good
  expired: 410, // after expiresAt without an expiredUrl
  limit_reached: 410, // clickLimit clicks served
  password: 401, // password form: the destination needs a credential
};

const page = (p: VisitPage): Visit => ({ kind: 'page', page: p, status: PAGE_STATUS[p] });

/**
 * Rules in order: a link that is not ACTIVE is not found; before startAt it is not live, after
 * endAt it has ended; after expiresAt visitors go to expiredUrl or the expired page; once
 * clickLimit clicks were served it stops resolving; a password is asked before the redirect.
 * `unlocked` is true once the visitor gave the right password.
 */
export function decideVisit(link: ResolvedLink | null, now: number, unlocked = false): Visit {
  if (link?.status !== 'ACTIVE' || link.location === null) return page('not_found');
  if (link.startAt !== null && now < link.startAt) return page('not_live');
  if (link.endAt !== null && now >= link.endAt) return page('ended');
  if (link.expiresAt !== null && now >= link.expiresAt) {
    // The fallback is a plain temporary redirect and never counts as a click on the link.
    return link.expiredLocation
      ? { kind: 'redirect', status: 302, location: link.expiredLocation, countsAsClick: false }
      : page('expired');
  }
  if (link.clickLimit !== null && link.served >= link.clickLimit) return page('limit_reached');
  if (link.passwordHash && !unlocked) return page('password');
  return {
    kind: 'redirect',
    status: link.redirectType === 'PERMANENT' ? 301 : 302,
    location: link.location,
    countsAsClick: true,
  };
}

export function hasPreview(link: ResolvedLink): boolean {
  return !!(link.previewTitle || link.previewDescription || link.previewImage);
}
