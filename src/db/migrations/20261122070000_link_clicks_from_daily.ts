// A Link's clicks are the sum of its daily counts (link_daily_clicks, kept forever) instead of
// a counter on the links row. A flush then writes each click's link once (its daily row) rather
// than twice: with a million links visited at random the counter update was a second random
// page write per click, and on Postgres a row lock shared with API writes.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Counts from before daily counts existed would be lost; there were none (both came in
  // together), but keep any difference as a day-0 row rather than drop it silently.
  await knex.raw(`
    INSERT INTO link_daily_clicks (link_id, workspace_id, day, clicks, scans)
    SELECT l.id, l.workspace_id, 0, l.clicks - COALESCE(d.total, 0), 0
      FROM links l LEFT JOIN (SELECT link_id, SUM(clicks) AS total FROM link_daily_clicks GROUP BY link_id) d ON d.link_id = l.id
     WHERE l.clicks > COALESCE(d.total, 0)`);
  await knex.raw('ALTER TABLE links DROP COLUMN clicks');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('links', (t) => {
    t.bigInteger('clicks').notNullable().defaultTo(0);
  });
  await knex.raw(
    'UPDATE links SET clicks = COALESCE((SELECT SUM(d.clicks) FROM link_daily_clicks d WHERE d.link_id = links.id), 0)',
  );
}
