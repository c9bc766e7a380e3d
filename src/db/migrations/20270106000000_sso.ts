// Single sign-on with OpenID Connect (openapi/dashboard.yaml, Single sign-on): one provider per
// workspace, the email domains it answers for (each domain once across every workspace: the
// primary key makes a second claim fail), the identities (issuer + subject) linked to people
// through that workspace's provider only, and the sign-ins under way (state, nonce and the PKCE
// verifier, kept server-side, single use, bound to the browser by a cookie whose hash is kept).
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sso_providers', (t) => {
    t.string('workspace_id', 40).primary().references('workspaces.id').onDelete('CASCADE');
    t.string('issuer', 2048).notNullable();
    t.string('client_id', 512).notNullable();
    // AES-256-GCM under MASTER_KEY, as webhook secrets are.
    t.text('client_secret_sealed').notNullable();
    t.string('default_role', 16).notNullable();
    t.boolean('enabled').notNullable();
    t.boolean('password_sign_in').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  });
  await knex.schema.createTable('sso_domains', (t) => {
    t.string('domain', 253).primary();
    t.string('workspace_id', 40).notNullable().references('sso_providers.workspace_id').onDelete('CASCADE');
    t.index(['workspace_id'], 'sso_domains_workspace');
  });
  await knex.schema.createTable('sso_identities', (t) => {
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('issuer', 2048).notNullable();
    t.string('subject', 255).notNullable();
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.bigInteger('created_at').notNullable();
    t.primary(['workspace_id', 'issuer', 'subject']);
    t.index(['user_id'], 'sso_identities_user');
  });
  await knex.schema.createTable('sso_logins', (t) => {
    t.string('state_hash', 64).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('browser_hash', 64).notNullable();
    t.string('nonce', 128).notNullable();
    t.text('verifier_sealed').notNullable();
    t.string('redirect_uri', 2048).notNullable();
    // Set when a signed-in person links their account to the provider's identity.
    t.string('link_user_id', 40).references('users.id').onDelete('CASCADE');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at');
    t.index(['expires_at'], 'sso_logins_expiry');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sso_logins');
  await knex.schema.dropTableIfExists('sso_identities');
  await knex.schema.dropTableIfExists('sso_domains');
  await knex.schema.dropTableIfExists('sso_providers');
}
