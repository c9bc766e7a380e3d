// The app deep-link documents each short domain serves at /.well-known/ (src/domain/app-links.ts):
// one row per domain that has any, keyed as link_changes keys a domain: '' for the shared short
// domain (the operator's, set from the command line), else the custom domain's id. A custom
// domain's row goes with its domain (a lapsed claim replaced, a workspace deleted); the shared
// one has no domain row, so domain_id is null there. The documents are normalised JSON text,
// served as stored.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('app_links', (t) => {
    t.string('domain_key', 40).primary();
    t.string('domain_id', 40).references('domains.id').onDelete('CASCADE');
    t.text('apple');
    t.text('android');
    t.bigInteger('updated_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('app_links');
}
