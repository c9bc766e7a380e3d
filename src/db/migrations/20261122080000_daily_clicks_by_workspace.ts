// Daily clicks per link keyed (workspace_id, link_id, day) in one B-tree. A click flush upserts
// one row per link and day; before, each upsert also rewrote the covering index
// (workspace_id, link_id, day, clicks) the conversion queries read and looked up the
// (link_id, day) primary key, three B-trees for one count. With 1,000,000 links visited at
// random that is three random page writes per click.
//
// SQLite: a WITHOUT ROWID table whose primary key is the old covering index, so the conversion
// queries read the same order and every count sits in its key's leaf. Postgres: the same
// primary key and no other index, so a count update touches no indexed column and is a HOT
// update (no index write at all).
import type { Knex } from 'knex';

const isPg = (knex: Knex) => knex.client.config.client === 'pg';
const COLUMNS = 'workspace_id, link_id, day, clicks, scans';

/** SQLite cannot change a primary key in place: the table is copied into the shape `create` gives. */
async function rebuildSqlite(knex: Knex, create: (name: string) => string): Promise<void> {
  await knex.raw(create('link_daily_clicks_rebuilt'));
  await knex.raw(`INSERT INTO link_daily_clicks_rebuilt (${COLUMNS}) SELECT ${COLUMNS} FROM link_daily_clicks`);
  await knex.raw('DROP TABLE link_daily_clicks');
  await knex.raw('ALTER TABLE link_daily_clicks_rebuilt RENAME TO link_daily_clicks');
}

export async function up(knex: Knex): Promise<void> {
  if (isPg(knex)) {
    await knex.raw('ALTER TABLE link_daily_clicks DROP CONSTRAINT IF EXISTS link_daily_clicks_pkey');
    await knex.raw('DROP INDEX IF EXISTS link_daily_clicks_workspace_id_day_index');
    await knex.raw('DROP INDEX IF EXISTS link_daily_clicks_ws_link_day');
    await knex.raw(
      'ALTER TABLE link_daily_clicks ADD CONSTRAINT link_daily_clicks_pkey PRIMARY KEY (workspace_id, link_id, day)',
    );
    return;
  }
  await rebuildSqlite(
    knex,
    (name) => `CREATE TABLE ${name} (
      workspace_id varchar(40) NOT NULL,
      link_id varchar(40) NOT NULL,
      day integer NOT NULL,
      clicks bigint NOT NULL,
      scans bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (workspace_id, link_id, day)
    ) WITHOUT ROWID`,
  );
}

export async function down(knex: Knex): Promise<void> {
  if (isPg(knex)) {
    await knex.raw('ALTER TABLE link_daily_clicks DROP CONSTRAINT IF EXISTS link_daily_clicks_pkey');
    await knex.raw('ALTER TABLE link_daily_clicks ADD CONSTRAINT link_daily_clicks_pkey PRIMARY KEY (link_id, day)');
    await knex.raw('CREATE INDEX link_daily_clicks_workspace_id_day_index ON link_daily_clicks (workspace_id, day)');
    await knex.raw(
      'CREATE INDEX link_daily_clicks_ws_link_day ON link_daily_clicks (workspace_id, link_id, day, clicks)',
    );
    return;
  }
  // The shape 20261122010000_clicks and 20261122060000_conversion_blocks left.
  await rebuildSqlite(
    knex,
    (name) => `CREATE TABLE ${name} (
      link_id varchar(40) NOT NULL,
      workspace_id varchar(40) NOT NULL,
      day integer NOT NULL,
      clicks bigint NOT NULL,
      scans bigint NOT NULL DEFAULT '0',
      PRIMARY KEY (link_id, day)
    )`,
  );
  await knex.raw('CREATE INDEX link_daily_clicks_workspace_id_day_index ON link_daily_clicks (workspace_id, day)');
  await knex.raw(
    'CREATE INDEX link_daily_clicks_ws_link_day ON link_daily_clicks (workspace_id, link_id, day, clicks)',
  );
}
