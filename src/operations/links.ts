// What can be done to links, with every rule and message the contract gives the links
// operations (openapi/paths/api_v1_links*.yaml). The public API's handlers and the dashboard's
// both call these, so a link made or changed in either obeys exactly the same rules.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { components } from '../../generated/api.ts';
import { canDeleteLinks, canUpdateLinks } from '../domain/access.ts';
import { normalizeTitle } from '../domain/links.ts';
import { hashPassword } from '../domain/passwords.ts';
import { changedLinkFields, sameTagSet } from '../domain/link-changes.ts';
import { generateSlug } from '../domain/slugs.ts';
import * as links from '../db/repos/links.ts';
import type { CacheKey } from '../redirect/cache.ts';
import {
  linkCreated,
  linksCreated,
  linkDeleted,
  linkUpdated,
  policyDisabled,
  type EventContext,
} from '../webhooks/link-events.ts';
import { isDeadlock, type Db } from '../db/knex.ts';
import { conflict, invalid, isAppError, notFound, slugTaken, type AppError } from '../domain/errors.ts';
import {
  chosenSlug,
  draftLink,
  type LinkCreateWithPreview,
  type LinkCreateWithTagNames,
  type LinkDraft,
} from './link-drafts.ts';
import { type Link, presentLink } from './link-presenter.ts';
import { linkRules, type Actor } from './link-rules.ts';
import type { OperationServices } from './services.ts';
import { audit, diffFields, withAudit, type AuditActor, type AuditEvent } from './audit.ts';
import type { AuditChanges } from '../domain/audit.ts';

type LinkUpdate = components['schemas']['LinkUpdate'];
export type ChangeResult = components['schemas']['ChangeResult'];

export type { Actor } from './link-rules.ts';

const GENERATED_SLUG_ATTEMPTS = 8;
/** Links per transaction of createMany. */
const CREATE_MANY_CHUNK = 250;
/** Links createMany checks between two turns of the event loop. */
const CREATE_MANY_TURN = 100;

export type LinkOperations = ReturnType<typeof linkOperations>;

/** A link's fields as the audit log names them (the API's names; the password by name only). */
function auditedFields(row: Partial<links.LinkRow>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    url: row.original_url,
    title: row.title,
    slug: row.slug,
    domainId: row.domain_id,
    redirectType: row.redirect_type,
    status: row.status,
    expiresAt: row.expires_at,
    expiredUrl: row.expired_url,
    clickLimit: row.click_limit,
    startAt: row.start_at,
    endAt: row.end_at,
    previewTitle: row.preview_title,
    previewDescription: row.preview_description,
    previewImage: row.preview_image,
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
}

const linkCreatedEntry = (row: links.LinkRow, tagIds: string[]): AuditEvent => {
  const changes: AuditChanges = diffFields(null, auditedFields(row));
  if (row.password_hash) changes.password = { secret: true };
  if (tagIds.length) changes.tagIds = { to: tagIds };
  return { action: 'link.created', objectType: 'link', objectId: row.id, changes };
};

export function linkOperations(services: OperationServices) {
  const { db, config } = services;
  const knex = db.knex;

  /** Webhook events carry the id of the API request that caused them (X-Service-Request-Id). */
  const eventContext = (requestId: string | null): EventContext => ({ shortDomain: config.shortDomain, requestId });

  const rules = linkRules(services);

  async function present(row: links.LinkRow): Promise<Link> {
    const [tags, clicks] = await Promise.all([
      links.tagsOf(knex, [row.id]),
      links.clickTotals(knex, row.workspace_id, [row.id]),
    ]);
    return presentLink(row, tags.get(row.id) ?? [], clicks.get(row.id) ?? 0);
  }

  /** After a change is committed, the redirect cache must forget the link's old addresses. */
  async function followUp(keys: CacheKey[]): Promise<ChangeResult> {
    const steps: ChangeResult['steps'] = [{ key: 'link', label: 'Link saved', status: 'ok' }];
    try {
      await services.linkCache.invalidate(keys);
      steps.push({ key: 'redirect_cache', label: 'Redirect cache invalidated', status: 'ok' });
    } catch (err) {
      services.log.warn({ err }, 'redirect cache invalidation failed');
      steps.push({ key: 'redirect_cache', label: 'Redirect cache invalidation did not finish', status: 'failed' });
    }
    return { outcome: steps.every((s) => s.status === 'ok') ? 'success' : 'partial', steps };
  }

  const operations = {
    present,

    /** The link of the workspace, or 404. */
    async get(auth: Actor, id: string): Promise<links.LinkRow> {
      const row = await links.getLink(knex, auth.workspaceId, id);
      if (!row) throw notFound('Link not found');
      return row;
    },

    /**
     * Makes a link (POST /api/v1/links). With `preview`, the preview fields are set too, under
     * PATCH's rules (the dashboard's editor has them on creation).
     */
    async create(auth: Actor, body: LinkCreateWithPreview, opts: { preview?: boolean } = {}): Promise<links.LinkRow> {
      const draft = await draftLink(knex, rules, auth, body, opts);
      for (let attempt = 1; ; attempt++) {
        const row = { ...draft.row, slug: draft.slug ?? generateSlug() };
        if (draft.expiredUrl)
          row.expired_url = await rules.checkExpiredUrl(auth, draft.expiredUrl, null, {
            host: draft.host,
            slug: row.slug,
          });
        try {
          // The link and its link.created deliveries commit together, or neither does.
          await links.insertLink(
            knex,
            row,
            draft.tagIds,
            withAudit(linkCreated(row, eventContext(auth.requestId)), auth.audit, auth.workspaceId, () =>
              linkCreatedEntry(row, draft.tagIds),
            ),
          );
        } catch (err) {
          // A generated slug that is taken is drawn again; a chosen one is the caller's 409.
          if (!isAppError(err, 'slug_taken') || draft.slug !== null || attempt >= GENERATED_SLUG_ATTEMPTS) throw err;
          continue;
        }
        await services.linkCache.invalidate([{ domainKey: row.domain_key, slug: row.slug }]).catch(() => undefined);
        return row;
      }
    },

    /**
     * Makes many links (the dashboard's CSV import) under exactly `create`'s rules and messages,
     * each succeeding or failing on its own, written a few hundred per transaction (one per link
     * is too slow on Postgres). The tags a body names (`tagNames`) are made in the transaction of
     * its link, so a refused row makes none.
     */
    async createMany(
      auth: Actor,
      bodies: LinkCreateWithTagNames[],
    ): Promise<Array<{ row: links.LinkRow } | { error: AppError }>> {
      const out: Array<{ row: links.LinkRow } | { error: AppError }> = new Array(bodies.length);
      const drafts: Array<{ index: number; draft: LinkDraft }> = [];
      for (let i = 0; i < bodies.length; i++) {
        // SQLite's queries resolve without a turn of the event loop: without these, a large file
        // would hold every redirect until it was written.
        if (i % CREATE_MANY_TURN === CREATE_MANY_TURN - 1) await nextTurn();
        try {
          drafts.push({ index: i, draft: await draftLink(knex, rules, auth, bodies[i], {}) });
        } catch (err) {
          if (!isAppError(err)) throw err;
          out[i] = { error: err };
        }
      }
      for (let c = 0; c < drafts.length; c += CREATE_MANY_CHUNK) {
        await nextTurn();
        const chunk = drafts.slice(c, c + CREATE_MANY_CHUNK);
        // Slugs: a chosen one taken (by a live link, or earlier in the file) is refused as on
        // create; a generated one is drawn until free.
        const taken = await links.takenSlugs(
          knex,
          chunk
            .map(({ draft }) => ({ domainKey: draft.row.domain_key, slug: draft.slug }))
            .filter((a): a is { domainKey: string; slug: string } => a.slug !== null),
        );
        const rows: Array<{ index: number; row: links.LinkRow; tagIds: string[]; tagNames: string[] }> = [];
        for (const { index, draft } of chunk) {
          let slug = draft.slug;
          const key = (s: string) => `${draft.row.domain_key}\u0000${s}`;
          if (slug !== null && taken.has(key(slug))) {
            out[index] = { error: slugTaken(slug) };
            continue;
          }
          while (slug === null || taken.has(key(slug))) slug = generateSlug();
          taken.add(key(slug));
          const row = { ...draft.row, slug };
          try {
            if (draft.expiredUrl)
              row.expired_url = await rules.checkExpiredUrl(auth, draft.expiredUrl, null, { host: draft.host, slug });
          } catch (err) {
            if (!isAppError(err)) throw err;
            out[index] = { error: err };
            continue;
          }
          rows.push({ index, row, tagIds: draft.tagIds, tagNames: draft.tagNames });
        }
        try {
          // One audit entry per link made, like one link.created each.
          const tagsOf = new Map(rows.map((r) => [r.row.id, r.tagIds]));
          await links.insertLinks(knex, rows, (made) =>
            withAudit(linksCreated(made, eventContext(auth.requestId)), auth.audit, auth.workspaceId, () =>
              made.map((r) => linkCreatedEntry(r, tagsOf.get(r.id) ?? [])),
            ),
          );
          for (const { index, row } of rows) out[index] = { row };
        } catch (err) {
          // Another request took a slug meanwhile, or was writing the same slugs in another order
          // (Postgres then cancels one of the two): this chunk one link at a time, as create does.
          if (!isAppError(err, 'slug_taken') && !isDeadlock(err)) throw err;
          for (const { index, row, tagIds, tagNames } of rows) {
            try {
              await links.insertLink(
                knex,
                row,
                tagIds,
                withAudit(linkCreated(row, eventContext(auth.requestId)), auth.audit, auth.workspaceId, () =>
                  linkCreatedEntry(row, tagIds),
                ),
                tagNames,
              );
              out[index] = { row };
            } catch (e) {
              if (!isAppError(e)) throw e;
              out[index] = { error: e };
            }
          }
        }
        await services.linkCache
          .invalidate(rows.map(({ row }) => ({ domainKey: row.domain_key, slug: row.slug })))
          .catch(() => undefined);
      }
      return out;
    },

    /** Changes the fields sent (PATCH /api/v1/links/{id}); the result says whether the follow-up finished. */
    async update(auth: Actor, id: string, body: LinkUpdate): Promise<{ row: links.LinkRow; result: ChangeResult }> {
      await rules.requireRole(auth, canUpdateLinks, 'update');
      const current = await links.getLink(knex, auth.workspaceId, id);
      if (!current) throw notFound('Link not found');

      const patch: Partial<links.LinkRow> = {};
      if (body.url !== undefined) {
        patch.original_url = rules.destination(body.url, 'url');
      }
      if (body.title !== undefined) patch.title = normalizeTitle(body.title);
      if (body.slug !== undefined) {
        const slug = chosenSlug(body.slug);
        if (slug !== current.slug) patch.slug = slug;
      }
      if (body.redirectType !== undefined) patch.redirect_type = body.redirectType;
      if (body.status !== undefined) {
        if (body.status === 'ACTIVE' && current.policy_locked && current.status === 'DISABLED') {
          throw conflict(
            'This link was disabled by the service for a policy review and cannot be re-enabled through the API',
          );
        }
        patch.status = body.status;
      }
      if (body.neverExpires === true) {
        if (body.expiresAt !== undefined && body.expiresAt !== null) {
          throw invalid('neverExpires true cannot be combined with an expiresAt date', 'neverExpires');
        }
        patch.expires_at = null;
      } else if (body.expiresAt !== undefined) {
        patch.expires_at = rules.timestamp(body.expiresAt, 'expiresAt') ?? null;
      }
      // neverExpires false on its own changes nothing (an expiry needs an expiresAt date).
      if (body.clickLimit !== undefined) patch.click_limit = body.clickLimit;
      if (body.startAt !== undefined) patch.start_at = rules.timestamp(body.startAt, 'startAt') ?? null;
      if (body.endAt !== undefined) patch.end_at = rules.timestamp(body.endAt, 'endAt') ?? null;
      const startAt = patch.start_at !== undefined ? patch.start_at : current.start_at;
      const endAt = patch.end_at !== undefined ? patch.end_at : current.end_at;
      if (startAt !== null && endAt !== null && endAt <= startAt) throw invalid('endAt must be after startAt', 'endAt');
      if (body.previewTitle !== undefined) patch.preview_title = body.previewTitle;
      if (body.previewDescription !== undefined) patch.preview_description = body.previewDescription;
      if (body.previewImage !== undefined)
        patch.preview_image = body.previewImage === null ? null : await rules.previewImage(auth, body.previewImage);
      const tagIds = body.tagIds !== undefined ? await rules.checkTags(auth, body.tagIds) : undefined;
      // Removing the fallback is never gated; setting one is checked like on create.
      if (body.expiredUrl !== undefined) {
        if (body.expiredUrl === null || body.expiredUrl === '') patch.expired_url = null;
        else patch.expired_url = body.expiredUrl;
      }
      const expiredUrl = patch.expired_url !== undefined ? patch.expired_url : current.expired_url;
      if (expiredUrl && (patch.expired_url || patch.slug)) {
        const href = await rules.checkExpiredUrl(auth, expiredUrl, current.id, {
          host: await rules.hostOf(current.domain_id),
          slug: patch.slug ?? current.slug,
        });
        if (patch.expired_url) patch.expired_url = href;
      }
      if (body.password !== undefined)
        patch.password_hash = body.password === null ? null : await hashPassword(body.password);

      if (Object.keys(patch).length || tagIds) {
        const changedFields = changedLinkFields(
          current,
          { ...current, ...patch },
          {
            password: await rules.passwordChanges(current.password_hash, body.password),
            tagIds:
              tagIds !== undefined &&
              !sameTagSet(
                tagIds,
                ((await links.tagsOf(knex, [current.id])).get(current.id) ?? []).map((t) => t.id),
              ),
          },
        );
        patch.updated_at = Math.max(Date.now(), Number(current.updated_at) + 1);
        // link.updated names only the fields whose value changed, and is written with the change.
        const changes = diffFields(auditedFields(current), auditedFields(patch));
        if (changedFields.includes('password')) changes.password = { secret: true };
        if (changedFields.includes('tagIds')) changes.tagIds = { to: tagIds };
        await links.updateLink(
          knex,
          current,
          patch,
          tagIds,
          withAudit(
            (trx) => linkUpdated(changedFields, eventContext(auth.requestId))(trx, current.id),
            auth.audit,
            auth.workspaceId,
            () => ({ action: 'link.updated', objectType: 'link', objectId: current.id, changes }),
          ),
        );
      }
      const updated = (await links.getLink(knex, auth.workspaceId, current.id))!;
      const result = await followUp([
        { domainKey: current.domain_key, slug: current.slug },
        { domainKey: updated.domain_key, slug: updated.slug },
      ]);
      return { row: updated, result };
    },

    /** Deletes a link (DELETE /api/v1/links/{id}); its click history stays. */
    async remove(auth: Actor, id: string): Promise<{ row: links.LinkRow; result: ChangeResult }> {
      await rules.requireRole(auth, canDeleteLinks, 'delete');
      const row = await links.softDeleteLink(
        knex,
        auth.workspaceId,
        id,
        withAudit(linkDeleted(eventContext(auth.requestId)), auth.audit, auth.workspaceId, (deleted) => ({
          action: 'link.deleted',
          objectType: 'link',
          objectId: deleted.id,
          changes: { slug: { from: deleted.slug }, url: { from: deleted.original_url } },
        })),
      );
      if (!row) throw notFound('Link not found');
      const result = await followUp([{ domainKey: row.domain_key, slug: row.slug }]);
      return { row, result };
    },

    /**
     * One action on many links (the dashboard's bulk bar), each under the rules of the single
     * action and succeeding or failing on its own; a link named twice is acted on once.
     */
    async bulk(
      auth: Actor,
      body: { action: 'delete' | 'disable' | 'add_tag'; linkIds: string[]; tagId?: string },
    ): Promise<Array<{ id: string; ok: boolean; error?: string }>> {
      if (body.action === 'add_tag' && !body.tagId) throw invalid('tagId is required to add a tag', 'tagId');
      const data: Array<{ id: string; ok: boolean; error?: string }> = [];
      for (const id of [...new Set(body.linkIds)]) {
        try {
          if (body.action === 'delete') await operations.remove(auth, id);
          else if (body.action === 'disable') await operations.update(auth, id, { status: 'DISABLED' });
          else {
            const current = await operations.get(auth, id);
            const tags = (await present(current)).tags.map((t) => t.id);
            if (!tags.includes(body.tagId!)) await operations.update(auth, id, { tagIds: [...tags, body.tagId!] });
          }
          data.push({ id, ok: true });
        } catch (err) {
          if (!isAppError(err)) throw err;
          data.push({ id, ok: false, error: err.message });
        }
      }
      return data;
    },
  };
  return operations;
}

/**
 * Disables a link for a policy review (`shortlink link policy-disable`): neither API can enable
 * it again. Raises link.updated with the change, and records it as link.updated in the link's
 * workspace (status and the lock), in the same transaction; a link already disabled and locked
 * changes nothing and records nothing.
 */
export async function policyDisable(knex: Db, shortDomain: string, id: string, actor: AuditActor): Promise<void> {
  await knex.transaction(async (trx) => {
    const before = await links.getLinkById(trx, id);
    const row = before && (await links.setPolicyDisabled(trx, id, policyDisabled({ shortDomain })));
    if (!before || !row) throw notFound(`link ${id} not found`);
    const changes = diffFields(
      { status: before.status, policyLocked: Boolean(before.policy_locked) },
      { status: row.status, policyLocked: Boolean(row.policy_locked) },
    );
    if (Object.keys(changes).length)
      await audit(trx, actor, row.workspace_id, { action: 'link.updated', objectType: 'link', objectId: id, changes });
  });
}
