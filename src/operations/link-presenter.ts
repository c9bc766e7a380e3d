// A link as both APIs answer it (the contract's Link), from its row, its tags and its clicks.
import type { components } from '../../generated/api.ts';
import type * as links from '../db/repos/links.ts';

export type Link = components['schemas']['Link'];
const iso = (ms: number | null) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

/** A link row as both APIs answer it. */
export function presentLink(row: links.LinkRow, tags: links.TagRow[], clicks: number): Link {
  return {
    id: row.id,
    slug: row.slug,
    originalUrl: row.original_url,
    title: row.title ?? null,
    domainId: row.domain_id ?? null,
    status: row.status,
    redirectType: row.redirect_type,
    expiresAt: iso(row.expires_at),
    neverExpires: row.expires_at === null || row.expires_at === undefined,
    expiredUrl: row.expired_url ?? null,
    clickLimit: row.click_limit ?? null,
    startAt: iso(row.start_at),
    endAt: iso(row.end_at),
    clicks,
    hasPassword: !!row.password_hash,
    tags: tags.map((t) => ({ id: t.id, name: t.name, color: t.color })),
    previewTitle: row.preview_title ?? null,
    previewDescription: row.preview_description ?? null,
    previewImage: row.preview_image ?? null,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
