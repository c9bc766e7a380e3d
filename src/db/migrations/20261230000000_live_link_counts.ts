// GET /api/v1/links without filters answers the interface's `meta.total`: every live link of
// the workspace, exactly. Counted from the links at each request, that walked an index entry per
// link: 96-119 ms at p50 over 1,000,000 links on SQLite (bench/results/2026-11-29-api-list.md).
// This table holds the count per workspace, kept by triggers in the transaction of every write to
// `links`, whichever code path makes it (the API, the CSV import, an operator's command), so it
// cannot drift from the rows.
//
// What the triggers count: a row whose `deleted_at` is null. A link is soft-deleted (the row
// stays; `deleted_at` is set and never cleared again by the service, but the triggers count a
// clearing too) and never moves to another workspace (counted if it did).
//
// Postgres: the insert trigger is per statement, so a bulk create of 100 links takes the
// workspace's row lock once, not 100 times. Concurrent creates in one workspace wait for each
// other's commit on that row, as they already do for the slug's unique index.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

const isPg = (knex: Knex) => knex.client.config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('live_link_counts', (t) => {
    t.string('workspace_id', 40).primary().references('workspaces.id').onDelete('CASCADE');
    t.bigInteger('links').notNullable().defaultTo(0);
  });
  await knex.raw(`INSERT INTO live_link_counts (workspace_id, links)
    SELECT workspace_id, COUNT(*) FROM links WHERE deleted_at IS NULL GROUP BY workspace_id`);
  if (isPg(knex)) {
    await knex.raw(`CREATE FUNCTION live_link_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO live_link_counts AS c (workspace_id, links)
          SELECT workspace_id, COUNT(*) FROM new_links WHERE deleted_at IS NULL GROUP BY workspace_id
          ORDER BY workspace_id
          ON CONFLICT (workspace_id) DO UPDATE SET links = c.links + EXCLUDED.links;
        RETURN NULL;
      END $$`);
    await knex.raw(`CREATE TRIGGER live_link_counts_insert AFTER INSERT ON links
      REFERENCING NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION live_link_counts_insert()`);
    await knex.raw(`CREATE FUNCTION live_link_counts_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL THEN
          UPDATE live_link_counts SET links = links - 1 WHERE workspace_id = OLD.workspace_id;
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL THEN
          INSERT INTO live_link_counts AS c (workspace_id, links) VALUES (NEW.workspace_id, 1)
            ON CONFLICT (workspace_id) DO UPDATE SET links = c.links + 1;
        END IF;
        RETURN NULL;
      END $$`);
    // Only an update that changes what is counted fires: a click's `served` update does not.
    await knex.raw(`CREATE TRIGGER live_link_counts_update AFTER UPDATE OF deleted_at, workspace_id ON links
      FOR EACH ROW WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.workspace_id <> NEW.workspace_id)
      EXECUTE FUNCTION live_link_counts_change()`);
    await knex.raw(`CREATE TRIGGER live_link_counts_delete AFTER DELETE ON links
      FOR EACH ROW WHEN (OLD.deleted_at IS NULL) EXECUTE FUNCTION live_link_counts_change()`);
    return;
  }
  // SQLite's triggers are per row; an upsert from a SELECT needs its WHERE to parse.
  await knex.raw(`CREATE TRIGGER live_link_counts_insert AFTER INSERT ON links WHEN NEW.deleted_at IS NULL BEGIN
    INSERT INTO live_link_counts (workspace_id, links) SELECT NEW.workspace_id, 1 WHERE true
      ON CONFLICT (workspace_id) DO UPDATE SET links = links + 1;
  END`);
  await knex.raw(`CREATE TRIGGER live_link_counts_update AFTER UPDATE OF deleted_at, workspace_id ON links
    WHEN OLD.deleted_at IS NOT NEW.deleted_at OR OLD.workspace_id <> NEW.workspace_id BEGIN
    UPDATE live_link_counts SET links = links - 1 WHERE workspace_id = OLD.workspace_id AND OLD.deleted_at IS NULL;
    INSERT INTO live_link_counts (workspace_id, links) SELECT NEW.workspace_id, 1 WHERE NEW.deleted_at IS NULL
      ON CONFLICT (workspace_id) DO UPDATE SET links = links + 1;
  END`);
  await knex.raw(`CREATE TRIGGER live_link_counts_delete AFTER DELETE ON links WHEN OLD.deleted_at IS NULL BEGIN
    UPDATE live_link_counts SET links = links - 1 WHERE workspace_id = OLD.workspace_id;
  END`);
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['live_link_counts_insert', 'live_link_counts_update', 'live_link_counts_delete'])
    await knex.raw(`DROP TRIGGER IF EXISTS ${t}${isPg(knex) ? ' ON links' : ''}`);
  if (isPg(knex)) {
    await knex.raw('DROP FUNCTION IF EXISTS live_link_counts_insert()');
    await knex.raw('DROP FUNCTION IF EXISTS live_link_counts_change()');
  }
  await knex.schema.dropTableIfExists('live_link_counts');
}
