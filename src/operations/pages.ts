// What can be done to bio pages, with every rule and message of the dashboard's contract
// (openapi/dashboard.yaml, Pages). The dashboard's handlers and `shortlink page ...` both call
// these. Link blocks made from a URL get their short link through the link operations (links.ts),
// so such a link obeys exactly the rules of POST /api/v1/links.
import { audited, createdFields, diffFields, withAudit, type AuditActor } from './audit.ts';
import type { Db as Knex } from '../db/knex.ts';
import type { components } from '../../generated/dashboard.ts';
import * as pages from '../db/repos/bio-pages.ts';
import { findAsset } from '../db/repos/workspace-objects.ts';
import {
  checkBio,
  checkBlocks,
  checkHandle,
  checkTheme,
  checkTitle,
  contentText,
  parseContent,
  type PageBlock,
  type PageContent,
  type PageStatus,
} from '../domain/bio-pages.ts';
import { AppError, invalid, isAppError, notFound, quoted } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { normalizeDestination, previewImageAsset } from '../domain/links.ts';
import { pagePublished } from '../webhooks/page-events.ts';
import type { Actor, LinkOperations } from './links.ts';
import type { OperationServices } from './services.ts';

type BioPage = components['schemas']['BioPage'];
type BlockInput = components['schemas']['PageBlockInput'];
export type PageCreate = components['schemas']['BioPageCreate'];
export type PageUpdate = components['schemas']['BioPageUpdate'];

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** What publishing, unpublishing and presenting a page need: also what the command line has. */
export interface PageDeps {
  knex: Knex;
  shortDomain: string;
  /** Drops the pages' addresses from this process's redirect cache (other processes: the change feed). */
  forget(handles: string[]): Promise<void>;
}

/** A page's address on the short domain. */
export const pageUrl = (shortDomain: string, handle: string) => `https://${shortDomain}/@${handle}`;

export async function presentPage(deps: Pick<PageDeps, 'knex' | 'shortDomain'>, row: pages.PageRow): Promise<BioPage> {
  const draft = parseContent(row.draft);
  const linkIds = draft.blocks.flatMap((b) => (b.type === 'link' ? [b.linkId] : []));
  const addresses = await pages.linkAddresses(deps.knex, row.workspace_id, linkIds);
  return {
    id: row.id,
    handle: row.handle,
    url: pageUrl(deps.shortDomain, row.handle),
    status: row.status,
    published: row.published !== null,
    publishedAt: iso(row.published_at),
    hasUnpublishedChanges: row.published !== row.draft,
    title: draft.title,
    bio: draft.bio,
    avatarUrl: draft.avatarUrl,
    theme: draft.theme,
    blocks: draft.blocks.map((b) => {
      if (b.type !== 'link')
        return { id: b.id, type: b.type, text: b.text, linkId: null, shortUrl: null, destination: null };
      const a = addresses.get(b.linkId);
      return {
        id: b.id,
        type: b.type,
        text: b.text,
        linkId: b.linkId,
        shortUrl: a ? `https://${a.host ?? deps.shortDomain}/${a.slug}` : null,
        destination: a?.url ?? null,
      };
    }),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

/**
 * Publishes the draft and raises page.published in the same transaction. A link block whose
 * link was deleted since it was saved is refused, naming the block.
 */
export async function publishPage(
  deps: PageDeps,
  current: pages.PageRow,
  requestId: string | null,
  actor: AuditActor,
): Promise<pages.PageRow> {
  const draft = parseContent(current.draft);
  const linked = draft.blocks.flatMap((b, i) => (b.type === 'link' ? [{ i, linkId: b.linkId }] : []));
  const live = await pages.liveLinkIds(
    deps.knex,
    current.workspace_id,
    linked.map((l) => l.linkId),
  );
  for (const l of linked) {
    if (!live.has(l.linkId))
      throw invalid(
        `blocks.${l.i} leads to a link that was deleted; change or remove the block before publishing`,
        `blocks.${l.i}.linkId`,
      );
  }
  const now = Date.now();
  const patch: pages.PagePatch = { published: current.draft, published_at: now, updated_at: now };
  const published = withAudit(
    pagePublished({ shortDomain: deps.shortDomain, requestId }),
    actor,
    current.workspace_id,
    () => ({
      action: 'page.published',
      objectType: 'page',
      objectId: current.id,
      changes: { handle: { to: current.handle } },
    }),
  );
  if (!(await pages.updatePage(deps.knex, current, patch, published))) throw notFound('Page not found');
  await deps.forget([current.handle]);
  return { ...current, ...patch } as pages.PageRow;
}

/** Takes the page down; its draft stays. Unpublishing an unpublished page changes nothing. */
export async function unpublishPage(deps: PageDeps, current: pages.PageRow, actor: AuditActor): Promise<pages.PageRow> {
  if (current.published === null) return current;
  const patch: pages.PagePatch = { published: null, published_at: null, updated_at: Date.now() };
  const unpublished = withAudit(undefined, actor, current.workspace_id, () => ({
    action: 'page.unpublished',
    objectType: 'page',
    objectId: current.id,
    changes: { handle: { from: current.handle } },
  }));
  if (!(await pages.updatePage(deps.knex, current, patch, unpublished))) throw notFound('Page not found');
  await deps.forget([current.handle]);
  return { ...current, ...patch } as pages.PageRow;
}

export type PageOperations = ReturnType<typeof pageOperations>;

/** A page's content as the audit log shows it: the blocks by their count and kinds only. */
const auditedContent = (c: PageContent) => ({
  title: c.title,
  bio: c.bio,
  avatarUrl: c.avatarUrl,
  theme: c.theme,
  blocks: c.blocks.map((b) => b.type),
});

export function pageOperations(services: OperationServices, links: LinkOperations) {
  const { config } = services;
  const knex = services.db.knex;

  const deps: PageDeps = {
    knex,
    shortDomain: config.shortDomain,
    // After a change is committed, this process shows it from the next view (others within a poll).
    forget: (handles) =>
      services.linkCache.invalidate(handles.map((h) => ({ domainKey: '', slug: `@${h}` }))).catch((err) => {
        services.log.warn({ err }, 'bio page cache invalidation failed; the change feed will catch up');
      }),
  };
  const present = (row: pages.PageRow) => presentPage(deps, row);

  async function avatar(workspaceId: string, value: string | null | undefined): Promise<string | null> {
    if (value === null || value === undefined || value === '') return null;
    const asset = previewImageAsset(value, config.assetBaseUrl);
    if ('problem' in asset) throw invalid(`avatarUrl ${asset.problem}`, 'avatarUrl');
    if (!(await findAsset(knex, workspaceId, asset.fileName)))
      throw invalid('avatarUrl names no image hosted for this workspace (upload one first)', 'avatarUrl');
    return asset.href;
  }

  async function handleFree(handle: string, exceptId?: string) {
    if (await pages.handleInUse(knex, handle, exceptId)) throw pages.handleTaken(handle);
  }

  /**
   * The blocks as stored: link blocks name live links of the workspace. Everything is checked
   * before the first short link is made for a URL block, so a refused page makes no link.
   */
  async function blocksOf(actor: Actor, input: BlockInput[]): Promise<PageBlock[]> {
    const checked = checkBlocks(input);
    const named = checked.flatMap((b, i) =>
      b.type === 'link' && 'linkId' in b && b.linkId ? [{ i, linkId: b.linkId }] : [],
    );
    const live = await pages.liveLinkIds(
      knex,
      actor.workspaceId,
      named.map((n) => n.linkId),
    );
    for (const n of named) {
      if (!live.has(n.linkId))
        throw invalid(
          `blocks.${n.i}.linkId ${quoted(n.linkId)} is not a link of this workspace`,
          `blocks.${n.i}.linkId`,
        );
    }
    checked.forEach((b, i) => {
      if (b.type !== 'link' || !('url' in b) || b.url === undefined) return;
      const d = normalizeDestination(b.url);
      if ('problem' in d) throw invalid(`blocks.${i}.url ${d.problem}`, `blocks.${i}.url`);
    });
    const out: PageBlock[] = [];
    for (let i = 0; i < checked.length; i++) {
      const b = checked[i];
      if (b.type !== 'link') out.push(b as PageBlock);
      else if ('linkId' in b && b.linkId) out.push({ id: b.id, type: 'link', text: b.text, linkId: b.linkId });
      else {
        try {
          const row = await links.create(actor, { url: (b as { url: string }).url, title: b.text });
          out.push({ id: b.id, type: 'link', text: b.text, linkId: row.id });
        } catch (err) {
          if (!isAppError(err)) throw err;
          throw new AppError(err.code, `blocks.${i}.url: ${err.message}`, { ...err.details, field: `blocks.${i}.url` });
        }
      }
    }
    return out;
  }

  async function pageOf(workspaceId: string, id: string): Promise<pages.PageRow> {
    const row = await pages.getPage(knex, workspaceId, id);
    if (!row) throw notFound('Page not found');
    return row;
  }

  return {
    present,

    async list(workspaceId: string): Promise<BioPage[]> {
      return Promise.all((await pages.listPages(knex, workspaceId)).map(present));
    },

    async get(workspaceId: string, id: string): Promise<pages.PageRow> {
      return pageOf(workspaceId, id);
    },

    async create(actor: Actor, body: PageCreate): Promise<pages.PageRow> {
      const handle = checkHandle(body.handle);
      const content: PageContent = {
        title: checkTitle(body.title),
        bio: checkBio(body.bio),
        avatarUrl: null,
        theme: body.theme === undefined ? 'classic' : checkTheme(body.theme),
        blocks: [],
      };
      content.avatarUrl = await avatar(actor.workspaceId, body.avatarUrl);
      await handleFree(handle);
      content.blocks = body.blocks ? await blocksOf(actor, body.blocks) : [];
      const now = Date.now();
      const row: pages.PageRow = {
        id: newId('pg'),
        workspace_id: actor.workspaceId,
        handle,
        status: 'ACTIVE',
        draft: contentText(content),
        published: null,
        published_at: null,
        created_by: actor.userId,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      };
      await audited(
        knex,
        actor.audit,
        actor.workspaceId,
        (trx) => pages.insertPage(trx, row),
        () => ({
          action: 'page.created',
          objectType: 'page',
          objectId: row.id,
          changes: createdFields({ handle, ...auditedContent(content) }),
        }),
      );
      return row;
    },

    async update(actor: Actor, id: string, body: PageUpdate): Promise<pages.PageRow> {
      const current = await pageOf(actor.workspaceId, id);
      const draft = parseContent(current.draft);
      const patch: pages.PagePatch = {};
      if (body.handle !== undefined) {
        const handle = checkHandle(body.handle);
        if (handle !== current.handle) {
          await handleFree(handle, current.id);
          patch.handle = handle;
        }
      }
      if (body.status !== undefined && body.status !== current.status) patch.status = body.status as PageStatus;
      const next: PageContent = { ...draft };
      if (body.title !== undefined) next.title = checkTitle(body.title);
      if (body.bio !== undefined) next.bio = checkBio(body.bio);
      if (body.theme !== undefined) next.theme = checkTheme(body.theme);
      if (body.avatarUrl !== undefined) next.avatarUrl = await avatar(actor.workspaceId, body.avatarUrl);
      if (body.blocks !== undefined) next.blocks = await blocksOf(actor, body.blocks);
      const text = contentText(next);
      if (text !== current.draft) patch.draft = text;
      if (!Object.keys(patch).length) return current;
      patch.updated_at = Date.now();
      const changes = diffFields(
        { handle: current.handle, status: current.status, ...auditedContent(draft) },
        { handle: patch.handle, status: patch.status, ...auditedContent(next) },
      );
      const changed = withAudit(undefined, actor.audit, actor.workspaceId, () => ({
        action: 'page.updated',
        objectType: 'page',
        objectId: current.id,
        changes,
      }));
      if (!(await pages.updatePage(knex, current, patch, changed))) throw notFound('Page not found');
      if (patch.handle || patch.status) await deps.forget([current.handle, ...(patch.handle ? [patch.handle] : [])]);
      return { ...current, ...patch } as pages.PageRow;
    },

    async remove(actor: AuditActor, workspaceId: string, id: string): Promise<void> {
      const current = await pageOf(workspaceId, id);
      await audited(
        knex,
        actor,
        workspaceId,
        async (trx) => {
          if (!(await pages.deletePage(trx, current, Date.now()))) throw notFound('Page not found');
        },
        () => ({
          action: 'page.deleted',
          objectType: 'page',
          objectId: current.id,
          changes: { handle: { from: current.handle } },
        }),
      );
      await deps.forget([current.handle]);
    },

    publish: (current: pages.PageRow, requestId: string | null, actor: AuditActor) =>
      publishPage(deps, current, requestId, actor),
    unpublish: (current: pages.PageRow, actor: AuditActor) => unpublishPage(deps, current, actor),
  };
}
