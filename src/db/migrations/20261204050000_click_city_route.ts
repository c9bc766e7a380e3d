// Where a visitor came from and which rule sent them on: each click keeps the city its client
// address locates to (country already had a column) and the id of the routing rule or split
// variant that served it; a bio page's view keeps the city too, as it keeps every other detail a
// click keeps (src/db/repos/visit-columns.ts). All nullable: older rows have neither, and most
// clicks are served by no rule. No IP address is stored, here or anywhere.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('clicks', (t) => {
    t.string('city', 128).nullable();
    t.string('route', 40).nullable();
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
    t.dropColumn('route');
    t.dropColumn('city');
  });
}
