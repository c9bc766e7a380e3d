// The events of a link change (asyncapi/: link.created, link.updated, link.deleted), built inside
// the change's transaction (every read goes through it: on SQLite it holds the only connection).
// The caller that makes the change passes these to the repository as its EmitEvents.
import type { Db, DbTransaction } from '../db/knex.ts';
import * as links from '../db/repos/links.ts';
import type { LinkRow } from '../db/repos/links.ts';
import { serviceEvent, type LinkFacts, type ServiceEvent } from '../domain/events.ts';

export interface EventContext {
  /** Host of the shared short domain (config.shortDomain). */
  shortDomain: string;
  /** X-Service-Request-Id of the API request (or CLI run) that made the change. */
  requestId?: string | null;
}

/** The host a link is served under: its custom domain's, or the shared short domain. */
export async function linkHost(db: Db, domainId: string | null, shortDomain: string): Promise<string> {
  if (!domainId) return shortDomain;
  return (await links.getDomain(db, domainId))?.host ?? shortDomain;
}

/** A link as its events describe it, served under `domain`. */
const factsOf = (row: LinkRow, domain: string): LinkFacts => ({
  id: row.id,
  slug: row.slug,
  destinationUrl: row.original_url,
  title: row.title ?? null,
  domain,
});

async function facts(trx: DbTransaction, row: LinkRow, ctx: EventContext): Promise<LinkFacts> {
  return factsOf(row, await linkHost(trx, row.domain_id, ctx.shortDomain));
}

/**
 * link.created for links made in one transaction, in their order: their tags and hosts are read
 * once for all (createMany writes a hundred at a time, and each read is a round trip on Postgres).
 */
export const linksCreated =
  (rows: LinkRow[], ctx: EventContext) =>
  async (trx: DbTransaction): Promise<ServiceEvent[]> => {
    const tags = new Map<string, string[]>();
    for (let i = 0; i < rows.length; i += 200) {
      const some = await links.tagsOf(
        trx,
        rows.slice(i, i + 200).map((r) => r.id),
      );
      for (const [id, t] of some)
        tags.set(
          id,
          t.map((x) => x.name),
        );
    }
    const hosts = new Map<string | null, string>();
    for (const row of rows)
      if (!hosts.has(row.domain_id)) hosts.set(row.domain_id, await linkHost(trx, row.domain_id, ctx.shortDomain));
    return rows.map((row) =>
      serviceEvent('link.created', {
        workspaceId: row.workspace_id,
        requestId: ctx.requestId,
        occurredAt: Number(row.created_at),
        subject: {
          ...factsOf(row, hosts.get(row.domain_id)!),
          tags: tags.get(row.id) ?? [],
          createdBy: row.created_by,
        },
      }),
    );
  };

export const linkCreated = (row: LinkRow, ctx: EventContext) => linksCreated([row], ctx);

/** `link.updated` with the link as it is after the change; none when no field a receiver sees changed. */
export const linkUpdated =
  (changedFields: string[], ctx: EventContext) =>
  async (trx: DbTransaction, linkId: string): Promise<ServiceEvent[]> => {
    if (!changedFields.length) return [];
    const row = (await links.getLinkById(trx, linkId))!;
    return [
      serviceEvent('link.updated', {
        workspaceId: row.workspace_id,
        requestId: ctx.requestId,
        occurredAt: Number(row.updated_at),
        subject: { ...(await facts(trx, row, ctx)), changedFields, updatedAt: Number(row.updated_at) },
      }),
    ];
  };

export const linkDeleted =
  (ctx: EventContext) =>
  async (trx: DbTransaction, row: LinkRow, deletedAt: number): Promise<ServiceEvent[]> => {
    const { id, slug, domain } = await facts(trx, row, ctx);
    return [
      serviceEvent('link.deleted', {
        workspaceId: row.workspace_id,
        requestId: ctx.requestId,
        occurredAt: deletedAt,
        subject: { id, slug, domain },
      }),
    ];
  };

/** The operator's policy disable raises link.updated naming the status (src/db/repos/links setPolicyDisabled). */
export const policyDisabled = (ctx: EventContext) => linkUpdated(['status'], ctx);
