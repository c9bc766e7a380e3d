// Where a visitor came from: each click keeps the city its client address locates to (country
// already had a column; the rule or variant that served it is clicks.route, 20261204000000); a
// bio page's view keeps the city too, as it keeps every other detail a click keeps
// (src/db/repos/visit-columns.ts). Nullable: older rows have none. No IP address is stored, here
// or anywhere.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('clicks', (t) => {
    t.string('city', 128).nullable();
  });
  await knex.schema.alterTable('page_views', (t) => {
    t.string('city', 128).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('page_views', (t) => {
    t.dropColumn('city');
  });
  await knex.schema.alterTable('clicks', (t) => {
    t.dropColumn('city');
  });
}
