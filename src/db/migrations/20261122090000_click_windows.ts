// Clicks per link per 5-minute window and country (link_click_windows) replace the raw clicks'
// (link_id, occurred_at) index, which only the traffic alerts read.
//
// Why: that index put each click at its link's place in a B-tree ordered by link, so a flush over
// many links dirtied a page per link, every one written to the WAL and back: it was about 40% of
// the click writer's CPU (bench/README.md). The windows take about as many row writes, but they
// are added to the current window's rows, a few pages, so less is written to the WAL. The alerts read a link's windows by key (window_start, link_id). What the raw clicks
// still answer per workspace (conversion rates) goes through their (workspace_id, occurred_at)
// index; a summary scoped to one link now counts its partial days that way too.
import type { Knex } from 'knex';

// Frozen with the migration (the rules in src/domain/analytics-alerts.ts may change later; what
// this migration did may not): 5-minute windows, 8 days carried over.
const CLICK_WINDOW_MS = 5 * 60_000;
const CLICK_WINDOW_RETENTION_MS = 8 * 24 * 60 * 60_000;

const isPg = (knex: Knex) => knex.client.config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  // SQLite: WITHOUT ROWID, so the rows live in the key's B-tree and there is no second one.
  await knex.raw(`CREATE TABLE link_click_windows (
      window_start bigint NOT NULL,
      link_id varchar(40) NOT NULL,
      country varchar(2) NOT NULL,
      workspace_id varchar(40) NOT NULL,
      clicks bigint NOT NULL,
      PRIMARY KEY (window_start, link_id, country))${isPg(knex) ? '' : ' WITHOUT ROWID'}`);
  // The alerts look back 7 days and some hours: carry that much history over.
  const since = Math.floor((Date.now() - CLICK_WINDOW_RETENTION_MS) / CLICK_WINDOW_MS) * CLICK_WINDOW_MS;
  await knex.raw(
    `INSERT INTO link_click_windows (window_start, link_id, country, workspace_id, clicks)
     SELECT (occurred_at / ${CLICK_WINDOW_MS}) * ${CLICK_WINDOW_MS}, link_id, COALESCE(country, ''), MIN(workspace_id), COUNT(*)
       FROM clicks WHERE occurred_at >= ?
      GROUP BY (occurred_at / ${CLICK_WINDOW_MS}) * ${CLICK_WINDOW_MS}, link_id, COALESCE(country, '')`,
    [since],
  );
  await knex.schema.alterTable('clicks', (t) => t.dropIndex(['link_id', 'occurred_at']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('clicks', (t) => t.index(['link_id', 'occurred_at']));
  await knex.schema.dropTableIfExists('link_click_windows');
}
