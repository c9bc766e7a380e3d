// A custom domain's host belongs to the workspace that verified it, not to the first that typed
// it in (openapi/dashboard.yaml, Domains). Until now `domains.host` was unique across all rows,
// so a workspace adding someone else's host and never verifying it blocked the real owner.
//
// A row whose verified_at is set (ACTIVE, or DISABLED after verification) holds its host: a
// partial unique index allows one such row per host, which also makes one of two workspaces
// verifying the same host at once win and the other's update fail. Unverified claims do not
// block one another; a workspace has one row per host. The redirect path finds an ACTIVE domain
// by host through a plain index.
//
// Down keeps one row per host (the verified one, else the oldest claim) before the old unique
// constraint comes back: only verified rows can have links, so no link loses its domain.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropUnique(['host']);
    t.unique(['workspace_id', 'host'], { indexName: 'domains_workspace_host' });
    t.index(['host'], 'domains_host');
  });
  await knex.raw('CREATE UNIQUE INDEX domains_verified_host ON domains (host) WHERE verified_at IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  const rows: Array<{ id: string; host: string; verified_at: unknown; created_at: unknown }> = await knex('domains')
    .orderBy([{ column: 'host' }, { column: 'created_at' }, { column: 'id' }])
    .select('id', 'host', 'verified_at', 'created_at');
  const keep = new Map<string, string>();
  for (const r of rows) if (r.verified_at !== null && !keep.has(r.host)) keep.set(r.host, r.id);
  for (const r of rows) if (!keep.has(r.host)) keep.set(r.host, r.id);
  const kept = new Set(keep.values());
  const dropped = rows.filter((r) => !kept.has(r.id)).map((r) => r.id);
  for (let i = 0; i < dropped.length; i += 500)
    await knex('domains')
      .whereIn('id', dropped.slice(i, i + 500))
      .delete();
  await knex.raw('DROP INDEX IF EXISTS domains_verified_host');
  await knex.schema.alterTable('domains', (t) => {
    t.dropIndex(['host'], 'domains_host');
    t.dropUnique(['workspace_id', 'host'], 'domains_workspace_host');
    t.unique(['host']);
  });
}
