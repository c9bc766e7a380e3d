// Invitations: a workspace asks a person (by email) to join with a role; the membership exists
// only once that person accepts while signed in as that email, or creates the account with the
// invitation. The token is kept as a hash. Set-up links made before this (the dashboard could
// make one for an account of any workspace) are used up: an operator prints fresh ones.
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invitations', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('email', 320).notNullable();
    t.string('role', 16).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.string('invited_by', 40).references('users.id').onDelete('SET NULL');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    // Set once: accepted, revoked or replaced by a newer invitation of the same email.
    t.bigInteger('ended_at');
    t.string('accepted_by', 40).references('users.id').onDelete('SET NULL');
    t.index(['workspace_id', 'email'], 'invitations_workspace_email');
  });
  await knex('password_setup_tokens').whereNull('used_at').update({ used_at: Date.now() });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('invitations');
}
