// The click fold (src/db/repos/click-folds.ts): a link's breakdowns (country, device, browser,
// system, referrer) and its click total, counted from the raw clicks by a job that runs every few
// minutes apart from the click writer, so the writer and the redirect path pay nothing for them
// (bench/README.md, dashboard reads: the same counts kept by the writer cost the redirect rate
// over a million links 33% -> 26% of bare Node).
//
//  - link_day_breakdowns: one row per link and closed day, its counts per dimension and value as
//    one JSON object (one row per link-day rather than per link, day, dimension and value: most
//    link-days have a click or two, and a row per value made 2.5 rows per click);
//  - link_block_breakdowns: the same per link and block of 8 closed days (BLOCK_DAYS in
//    click-folds.ts), so the 90 days read as about 11 blocks and the days at the edges: a link
//    with thousands of referrers a day parses and sums 18 objects instead of 90;
//  - link_breakdown_pieces: the same for the open days (today, and yesterday until it closes),
//    one row per link and fold step, replaced by the day's row when the day closes;
//  - click_folds: per day, the time up to which its clicks are folded, and whether it is closed;
//    click_fold_blocks: the blocks folded;
//  - click_fold_lease: which process folds (one at a time, over several instances);
//  - link_click_totals: each link's clicks (the sum of its daily counts) as of the fold that last
//    saw it clicked, in click order for the list sorted by clicks. Filled here from the daily
//    counts; the fold keeps it.
// The breakdowns are not filled here: the fold's first run folds the 90 days of raw clicks, in
// the background; until then a link's analytics reads the raw clicks as before.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

const isPg = (knex: Knex) => knex.client.config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  const rowid = isPg(knex) ? '' : ' WITHOUT ROWID';
  await knex.raw(`CREATE TABLE link_day_breakdowns (
      workspace_id varchar(40) NOT NULL,
      link_id varchar(40) NOT NULL,
      day integer NOT NULL,
      clicks bigint NOT NULL,
      dims text NOT NULL,
      PRIMARY KEY (workspace_id, link_id, day))${rowid}`);
  await knex.raw('CREATE INDEX link_day_breakdowns_by_day ON link_day_breakdowns (day)');
  await knex.raw(`CREATE TABLE link_block_breakdowns (
      workspace_id varchar(40) NOT NULL,
      link_id varchar(40) NOT NULL,
      block integer NOT NULL,
      clicks bigint NOT NULL,
      dims text NOT NULL,
      PRIMARY KEY (workspace_id, link_id, block))${rowid}`);
  await knex.raw('CREATE INDEX link_block_breakdowns_by_block ON link_block_breakdowns (block)');
  await knex.raw('CREATE TABLE click_fold_blocks (block integer PRIMARY KEY)');
  await knex.raw(`CREATE TABLE link_breakdown_pieces (
      day integer NOT NULL,
      upto bigint NOT NULL,
      workspace_id varchar(40) NOT NULL,
      link_id varchar(40) NOT NULL,
      clicks bigint NOT NULL,
      dims text NOT NULL,
      PRIMARY KEY (day, upto, workspace_id, link_id))${rowid}`);
  await knex.raw('CREATE INDEX link_breakdown_pieces_by_link ON link_breakdown_pieces (workspace_id, link_id, day)');
  await knex.raw(`CREATE TABLE click_folds (
      day integer PRIMARY KEY,
      through bigint NOT NULL,
      closed boolean NOT NULL)`);
  await knex.raw(`CREATE TABLE click_fold_lease (
      name varchar(16) PRIMARY KEY,
      holder varchar(40) NOT NULL,
      expires_at bigint NOT NULL)`);
  await knex.raw(`CREATE TABLE link_click_totals (
      workspace_id varchar(40) NOT NULL,
      link_id varchar(40) NOT NULL,
      clicks bigint NOT NULL,
      PRIMARY KEY (workspace_id, link_id))${rowid}`);
  await knex.raw('CREATE INDEX link_click_totals_by_clicks ON link_click_totals (workspace_id, clicks, link_id)');
  await knex.raw(
    `INSERT INTO link_click_totals (workspace_id, link_id, clicks)
     SELECT workspace_id, link_id, SUM(clicks) FROM link_daily_clicks GROUP BY workspace_id, link_id`,
  );
}

export async function down(knex: Knex): Promise<void> {
  for (const t of [
    'link_click_totals',
    'click_fold_lease',
    'click_folds',
    'link_breakdown_pieces',
    'click_fold_blocks',
    'link_block_breakdowns',
    'link_day_breakdowns',
  ])
    await knex.schema.dropTableIfExists(t);
}
