// Link events for the outbox, built inside the transaction of the change (every read goes
// through that transaction: on SQLite it holds the only connection).
import type { Knex } from 'knex';
import { loadConfig } from '../config';
import type { LinkRow } from '../db/repos/links';
import { enqueueEvent } from './outbox';
import { serviceEvent, type LinkFacts } from './payloads';

export interface EventContext {
  /** Host of the shared short domain (config.shortDomain). */
  shortDomain: string;
  requestId?: string | null;
}

/** Callers without a Config (operator commands) read the same environment the service does. */
export const defaultShortDomain = () => loadConfig(process.env).shortDomain;

/** The host a link is served under: its custom domain's, or the shared short domain. */
export async function linkHost(db: Knex, domainId: string | null, shortDomain: string): Promise<string> {
  if (!domainId) return shortDomain;
  const domain = await db('domains').where({ id: domainId }).first('host');
  return domain?.host ?? shortDomain;
}

async function facts(db: Knex, row: LinkRow, ctx: EventContext): Promise<LinkFacts> {
  return {
    id: row.id,
    slug: row.slug,
    destinationUrl: row.original_url,
    title: row.title ?? null,
    domain: await linkHost(db, row.domain_id, ctx.shortDomain),
  };
}

export async function emitLinkCreated(trx: Knex, row: LinkRow, ctx: EventContext): Promise<void> {
  const tags = await trx('link_tags as lt').join('tags as t', 't.id', 'lt.tag_id').where('lt.link_id', row.id).orderBy('t.name').pluck('t.name');
  await enqueueEvent(trx, serviceEvent('link.created', {
    workspaceId: row.workspace_id,
    requestId: ctx.requestId,
    occurredAt: Number(row.created_at),
    subject: { ...(await facts(trx, row, ctx)), tags, createdBy: row.created_by },
  }));
}

/** `link.updated` with the link as it is after the change; nothing when nothing changed. */
export async function emitLinkUpdated(trx: Knex, linkId: string, changedFields: string[], ctx: EventContext): Promise<void> {
  if (!changedFields.length) return;
  const row = (await trx('links').where({ id: linkId }).first()) as LinkRow;
  await enqueueEvent(trx, serviceEvent('link.updated', {
    workspaceId: row.workspace_id,
    requestId: ctx.requestId,
    occurredAt: Number(row.updated_at),
    subject: { ...(await facts(trx, row, ctx)), changedFields, updatedAt: Number(row.updated_at) },
  }));
}

export async function emitLinkDeleted(trx: Knex, row: LinkRow, deletedAt: number, ctx: EventContext): Promise<void> {
  const { id, slug, domain } = await facts(trx, row, ctx);
  await enqueueEvent(trx, serviceEvent('link.deleted', {
    workspaceId: row.workspace_id,
    requestId: ctx.requestId,
    occurredAt: deletedAt,
    subject: { id, slug, domain },
  }));
}
