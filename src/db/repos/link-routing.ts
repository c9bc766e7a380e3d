// A link's routing (links.routing, split_winner, indexable): written with a link change so every
// process's redirect cache drops the link; the clicks and conversions per route; an ended
// split's winner, settled once for every process; the indexable slugs of a domain.
import type { Knex } from 'knex';
import type { ResolvedLink } from '../../domain/resolve.ts';
import { winnerOf } from '../../domain/split-stats.ts';
import { recordLinkChange } from './link-changes.ts';
import { SQL_RAW_EVENTS } from './raw-events.ts';

export interface RoutingRow {
  id: string;
  workspace_id: string;
  domain_key: string;
  slug: string;
  original_url: string;
  routing: string | null;
  split_winner: string | null;
}

export async function routingRow(knex: Knex, workspaceId: string, linkId: string): Promise<RoutingRow | undefined> {
  return knex('links')
    .where({ id: linkId, workspace_id: workspaceId })
    .whereNull('deleted_at')
    .first('id', 'workspace_id', 'domain_key', 'slug', 'original_url', 'routing', 'split_winner');
}

/**
 * Stores a routing (null: every default). `keepWinner` keeps a settled winner (the split did not
 * change). The link change makes every process read the link again from its next click.
 */
export async function writeRouting(
  knex: Knex,
  row: RoutingRow,
  routing: string | null,
  indexable: boolean,
  keepWinner: boolean,
): Promise<void> {
  await knex.transaction(async (trx) => {
    const patch: Record<string, unknown> = { routing, indexable };
    if (!keepWinner) patch.split_winner = null;
    await trx('links').where({ id: row.id }).update(patch);
    await recordLinkChange(trx, 'link', row.domain_key, row.slug);
  });
}

export interface RouteTally {
  route: string | null;
  clicks: number;
  conversions: number;
}

/** Clicks (the raw ones kept) and conversions with a click id, per route, of one link. */
export async function routeTallies(knex: Knex, workspaceId: string, linkId: string): Promise<RouteTally[]> {
  const [clicks, conversions] = await Promise.all([
    SQL_RAW_EVENTS.countClicks(knex, {
      workspaceId,
      linkId,
      from: 0,
      to: Number.MAX_SAFE_INTEGER,
      by: ['route'],
    }),
    knex('conversions')
      .where({ link_id: linkId, workspace_id: workspaceId })
      .whereNotNull('route')
      .groupBy('route')
      .select('route', knex.raw('count(*) as n')),
  ]);
  const out = new Map<string | null, RouteTally>();
  const at = (route: string | null) => {
    let t = out.get(route);
    if (!t) out.set(route, (t = { route, clicks: 0, conversions: 0 }));
    return t;
  };
  for (const r of clicks) at(r.key[0]).clicks += r.clicks;
  for (const r of conversions as Array<{ route: string | null; n: unknown }>) at(r.route).conversions += Number(r.n);
  return [...out.values()];
}

/**
 * Stores `winner` as the split's winner unless one is stored already or the routing changed
 * since it was read (`routing`), then answers the stored one: of two processes settling at
 * once, the first write wins and both serve it. A change tells the other processes.
 */
export async function settleWinner(
  knex: Knex,
  link: { id: string; domainKey: string; slug: string },
  routing: string,
  winner: string,
): Promise<string | null> {
  return knex.transaction(async (trx) => {
    const n = await trx('links')
      .where({ id: link.id, routing })
      .whereNull('split_winner')
      .whereNull('deleted_at')
      .update({ split_winner: winner });
    if (n > 0) await recordLinkChange(trx, 'link', link.domainKey, link.slug);
    const row = await trx('links').where({ id: link.id }).first('split_winner');
    return (row?.split_winner as string | null | undefined) ?? null;
  });
}

/** The slugs of a domain's live, indexable links, for its /robots.txt. */
export async function indexableSlugs(knex: Knex, domainKey: string, limit: number): Promise<string[]> {
  const rows = await knex('links')
    .where({ domain_key: domainKey, indexable: true })
    .whereNull('deleted_at')
    .where('status', 'ACTIVE')
    .orderBy('slug')
    .limit(limit)
    .select('slug');
  return rows.map((r: { slug: string }) => r.slug);
}

/**
 * Settles the winner of a link's ended split from its clicks and conversions per variant
 * (domain/split-stats.ts winnerOf), once for every process (settleWinner).
 */
export async function settleSplit(knex: Knex, link: ResolvedLink): Promise<string | null> {
  const split = link.routing?.split;
  if (!split) return null;
  const tallies = new Map((await routeTallies(knex, link.workspaceId, link.id)).map((t) => [t.route, t]));
  const winner = winnerOf(
    split.metric,
    link.routing!.variants.map((v) => ({
      id: v.id,
      clicks: tallies.get(v.id)?.clicks ?? 0,
      conversions: tallies.get(v.id)?.conversions ?? 0,
    })),
  );
  return winner === null ? null : settleWinner(knex, link, link.routing!.stored, winner);
}
