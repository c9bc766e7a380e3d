// A new link as `create` and the CSV import check it, before its slug is picked: every field
// under the rules of link-rules.ts, in the order the API checks them (openapi/paths/api_v1_links.yaml).
import type { components } from '../../generated/api.ts';
import { newId } from '../domain/ids.ts';
import { normalizeTitle } from '../domain/links.ts';
import { hashPassword } from '../domain/passwords.ts';
import { checkSlug } from '../domain/slugs.ts';
import { conflict, invalid, quoted } from '../domain/errors.ts';
import * as links from '../db/repos/links.ts';
import type { Db } from '../db/knex.ts';
import type { Actor, LinkRules } from './link-rules.ts';

type LinkCreate = components['schemas']['LinkCreate'];
type LinkUpdate = components['schemas']['LinkUpdate'];

/** The preview fields the dashboard also sets when it makes a link (the API sets them with PATCH). */
export type LinkCreateWithPreview = LinkCreate &
  Pick<LinkUpdate, 'previewTitle' | 'previewDescription' | 'previewImage'>;
/** A link of the CSV import: its tags by name, those the workspace lacks made with the link. */
export type LinkCreateWithTagNames = LinkCreate & { tagNames?: string[] };

/** A slug someone chose, as it is stored; 409 when it is reserved, 400 when it is malformed. */
export function chosenSlug(sent: string): string {
  const check = checkSlug(sent);
  if (!check.ok && check.reason === 'reserved') throw conflict(`The slug '${sent}' is reserved`);
  if (!check.ok) throw invalid('slug must be 1 to 64 characters of a-z, 0-9, _ and -', 'slug');
  return check.slug;
}

export interface LinkDraft {
  row: links.LinkRow;
  /** The chosen slug, or null for one to generate. */
  slug: string | null;
  tagIds: string[];
  /** Tags by name (the import), each once; made with the link when the workspace lacks them. */
  tagNames: string[];
  host: string;
  /** expiredUrl as sent: its chain check needs the link's address. */
  expiredUrl: string | null;
}

/** Everything `create` checks before it picks a slug, in the order the API checks it. */
export async function draftLink(
  knex: Db,
  rules: LinkRules,
  auth: Actor,
  body: LinkCreateWithPreview & LinkCreateWithTagNames,
  opts: { preview?: boolean },
): Promise<LinkDraft> {
  const url = rules.destination(body.url, 'url');
  let slug: string | null = null;
  if (body.slug !== undefined) {
    slug = chosenSlug(body.slug);
  }
  let domainId: string | null = null;
  if (body.domainId !== undefined && body.domainId !== null) {
    const domain = await links.getDomain(knex, body.domainId);
    if (!domain || domain.workspace_id !== auth.workspaceId || domain.status !== 'ACTIVE') {
      throw invalid(`domainId ${quoted(body.domainId)} is not an active custom domain of this workspace`, 'domainId');
    }
    domainId = domain.id;
  }
  const startAt = rules.timestamp(body.startAt, 'startAt') ?? null;
  const endAt = rules.timestamp(body.endAt, 'endAt') ?? null;
  if (startAt !== null && endAt !== null && endAt <= startAt) throw invalid('endAt must be after startAt', 'endAt');
  const expiresAt = rules.timestamp(body.expiresAt, 'expiresAt') ?? null;
  const tagIds = body.tagIds ? await rules.checkTags(auth, body.tagIds) : [];
  const tagNames = rules.checkTagNames(body.tagNames ?? [], tagIds.length);
  const host = await rules.hostOf(domainId);
  const passwordHash = body.password ? await hashPassword(body.password) : null;
  const image = opts.preview && body.previewImage ? await rules.previewImage(auth, body.previewImage) : null;
  const now = Date.now();
  const row: links.LinkRow = {
    id: newId('lnk'),
    workspace_id: auth.workspaceId,
    created_by: auth.userId,
    domain_id: domainId,
    domain_key: domainId ?? '',
    slug: '',
    original_url: url,
    title: normalizeTitle(body.title),
    status: 'ACTIVE',
    policy_locked: false,
    redirect_type: body.redirectType ?? 'TEMPORARY',
    expires_at: expiresAt,
    expired_url: null,
    click_limit: body.clickLimit ?? null,
    start_at: startAt,
    end_at: endAt,
    password_hash: passwordHash,
    preview_title: (opts.preview && body.previewTitle) || null,
    preview_description: (opts.preview && body.previewDescription) || null,
    preview_image: image,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  return { row, slug, tagIds, tagNames, host, expiredUrl: body.expiredUrl ? body.expiredUrl : null };
}
