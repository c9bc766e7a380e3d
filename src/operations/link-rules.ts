// The field rules of a link, shared by making and changing one: each value as it is stored, or
// a 400 (or 403) naming the field, with the contract's messages (openapi/paths/api_v1_links*.yaml).
import type { AuditActor } from '../domain/audit.ts';
import { planHasApi, type Plan } from '../domain/access.ts';
import {
  expiredUrlReturnsTo,
  MAX_TAG_NAME_LENGTH,
  MAX_TAGS,
  normalizeDestination,
  parseTimestamp,
  previewImageAsset,
  type ShortAddress,
} from '../domain/links.ts';
import { verifyPassword } from '../domain/passwords.ts';
import { forbidden, invalid, quoted } from '../domain/errors.ts';
import * as links from '../db/repos/links.ts';
import { roleOf } from '../db/repos/workspaces.ts';
import { findAsset } from '../db/repos/workspace-objects.ts';
import type { OperationServices } from './services.ts';

/** Who changes links: an API key (as its creator) or a person signed in to the dashboard. */
export interface Actor {
  workspaceId: string;
  userId: string;
  plan: Plan;
  /** X-Service-Request-Id of the request: webhook events carry it. */
  requestId: string | null;
  /** How a refusal names who acts. */
  via: 'key' | 'session';
  /** Who the audit log names for the change (src/operations/audit.ts). */
  audit: AuditActor;
}

export type LinkRules = ReturnType<typeof linkRules>;

/**
 * 403 unless the actor's role in the workspace passes `allowed`, naming the role and what it may
 * not do (`action`: "delete tags"). A key acts as its creator, so it is the creator's role now.
 */
export async function requireRoleTo(
  knex: OperationServices['db']['knex'],
  auth: Pick<Actor, 'workspaceId' | 'userId' | 'via'>,
  allowed: (r: any) => boolean,
  action: string,
): Promise<void> {
  const role = await roleOf(knex, auth.workspaceId, auth.userId);
  if (allowed(role)) return;
  const who = auth.via === 'key' ? "The key's owner" : 'You';
  throw forbidden(
    role
      ? `${who} ${auth.via === 'key' ? 'has' : 'have'} the role ${role}, which may not ${action}`
      : `${who} ${auth.via === 'key' ? 'is' : 'are'} no longer a member of this workspace and may not ${action}`,
  );
}

export function linkRules(services: OperationServices) {
  const { config } = services;
  const knex = services.db.knex;

  /** requireRoleTo for links: `action` is "update" or "delete". */
  const requireRole = (auth: Actor, allowed: (r: any) => boolean, action: string) =>
    requireRoleTo(knex, auth, allowed, `${action} links`);

  function timestamp(value: string | null | undefined, field: string): number | null | undefined {
    if (value === undefined || value === null) return value;
    const ms = parseTimestamp(value);
    if (ms === null) throw invalid(`${field} must be an ISO 8601 timestamp`, field);
    return ms;
  }

  /** The destination as stored and redirected to: the URL parser's reading (domain/links). */
  function destination(value: string, field: string): string {
    const d = normalizeDestination(value);
    if ('problem' in d) throw invalid(`${field} ${d.problem}`, field);
    return d.href;
  }

  async function checkTags(auth: Actor, tagIds: string[]): Promise<string[]> {
    const unique = [...new Set(tagIds)];
    if (unique.length > MAX_TAGS) throw invalid(`tagIds may name at most ${MAX_TAGS} tags`, 'tagIds');
    const found = await links.existingTagIds(knex, auth.workspaceId, unique);
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length)
      throw invalid(
        `tagIds names tags that do not exist in this workspace: ${missing.map(quoted).join(', ')}`,
        'tagIds',
      );
    return unique;
  }

  /** Tag names each once (without regard to case), within the name length and, with `others`, MAX_TAGS. */
  function checkTagNames(names: string[], others: number): string[] {
    const unique = new Map<string, string>();
    for (const name of names) {
      if (name.length > MAX_TAG_NAME_LENGTH) {
        throw invalid(`tag ${name.slice(0, 20)}... is longer than ${MAX_TAG_NAME_LENGTH} characters`, 'tags');
      }
      if (!unique.has(name.toLowerCase())) unique.set(name.toLowerCase(), name);
    }
    if (unique.size + others > MAX_TAGS) throw invalid(`tags may name at most ${MAX_TAGS} tags`, 'tags');
    return [...unique.values()];
  }

  /** previewImage as stored: the normalised URL of an image this workspace holds (domain/links). */
  async function previewImage(auth: Actor, value: string): Promise<string> {
    const asset = previewImageAsset(value, config.assetBaseUrl);
    if ('problem' in asset) throw invalid(`previewImage ${asset.problem}`, 'previewImage');
    if (!(await findAsset(knex, auth.workspaceId, asset.fileName))) {
      throw invalid(
        `previewImage names no image hosted for this workspace (add one with shortlink asset add)`,
        'previewImage',
      );
    }
    return asset.href;
  }

  /** The host a link is served under: its custom domain's, or the shared short domain. */
  async function hostOf(domainId: string | null): Promise<string> {
    if (!domainId) return config.shortDomain;
    return (await links.getDomain(knex, domainId))?.host ?? config.shortDomain;
  }

  async function lookupByAddress(address: ShortAddress) {
    let domainKey: string | null = null;
    if (address.host === config.shortDomain) domainKey = '';
    else domainKey = (await links.activeDomainByHost(knex, address.host))?.id ?? null;
    if (domainKey === null) return null;
    const row = await links.findLiveLinkByAddress(knex, domainKey, address.slug);
    return row ? { id: row.id, originalUrl: row.original_url, expiredUrl: row.expired_url } : null;
  }

  async function checkExpiredUrl(
    auth: Actor,
    value: string,
    linkId: string | null,
    self: ShortAddress,
  ): Promise<string> {
    const href = destination(value, 'expiredUrl');
    if (!planHasApi(auth.plan))
      throw forbidden(`Setting expiredUrl needs the Growth plan; this workspace is on ${auth.plan}`);
    if (await expiredUrlReturnsTo(linkId, href, self, lookupByAddress)) {
      throw invalid(
        'expiredUrl may not point back at this link, nor at a chain of short links that returns to it',
        'expiredUrl',
      );
    }
    return href;
  }

  /** Whether a PATCH's password (undefined: not sent) replaces or removes the stored one. */
  async function passwordChanges(stored: string | null, sent: string | null | undefined): Promise<boolean> {
    if (sent === undefined) return false;
    if (sent === null) return !!stored;
    return !stored || !(await verifyPassword(sent, stored));
  }

  return {
    requireRole,
    timestamp,
    destination,
    checkTags,
    checkTagNames,
    previewImage,
    hostOf,
    checkExpiredUrl,
    passwordChanges,
  };
}
