// Shared reports (openapi/dashboard.yaml, Reports): a saved view of the dashboard (a conversion
// summary, a goal's report or a link's analytics) with a title and a visibility. Its share token
// is kept twice: as a SHA-256 hash, the only thing a public read looks it up by (unique), and
// sealed with MASTER_KEY (AES-256-GCM), so members can copy the report's URL again; the token in
// clear is never stored. The password, when set, is an scrypt hash. Deleting a report removes
// its row, so its URL answers 404 from that moment on every process.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('reports', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('kind', 16).notNullable(); // CONVERSIONS, GOAL, LINK
    t.string('title', 200).notNullable();
    t.text('params').notNullable(); // JSON: the window and what the report reads (src/domain/reports.ts)
    t.string('visibility', 16).notNullable(); // PRIVATE, UNLISTED, PUBLIC
    t.string('token_hash', 64).notNullable().unique();
    t.text('token_sealed').notNullable();
    t.text('password_hash');
    t.string('created_by', 40);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    // The Reports screen lists a workspace's reports newest first.
    t.index(['workspace_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('reports');
}
