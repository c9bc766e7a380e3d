// API keys get an optional name, so that people tell their keys apart by what they are for and not
// only by their last four characters. Keys made before have none (null), and the lists show them
// by their hint as before. The service keeps a name to 100 characters (src/operations/keys.ts);
// the column is wider than that on purpose, so the rule lives in one place.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.string('name', 200);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('name');
  });
}
