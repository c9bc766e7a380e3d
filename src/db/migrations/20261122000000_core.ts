// Workspaces, members, API keys, tags, domains, campaigns, QR codes, assets and links.
// Times are stored as epoch milliseconds (bigint) so both engines sort and compare alike.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workspaces', (t) => {
    t.string('id', 40).primary();
    t.string('name', 200).notNullable();
    t.string('plan', 16).notNullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('users', (t) => {
    t.string('id', 40).primary();
    t.string('email', 320).notNullable().unique();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('memberships', (t) => {
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('role', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['workspace_id', 'user_id']);
  });
  await knex.schema.createTable('api_keys', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable().references('users.id');
    t.string('key_hash', 64).notNullable().unique();
    t.string('key_hint', 16).notNullable();
    t.text('scopes').notNullable();
    t.bigInteger('expires_at');
    t.bigInteger('revoked_at');
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('tags', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('color', 32).notNullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['workspace_id', 'name']);
  });
  await knex.schema.createTable('domains', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('host', 253).notNullable().unique();
    t.string('status', 16).notNullable(); // PENDING, ACTIVE, DISABLED
    t.bigInteger('verified_at');
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('campaigns', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('deleted_at');
  });
  await knex.schema.createTable('assets', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('file_name', 200).notNullable().unique();
    t.string('content_type', 64).notNullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('links', (t) => {
    t.increments('seq').primary();
    t.string('id', 40).notNullable().unique();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('created_by', 40).notNullable();
    t.string('domain_id', 40).references('domains.id');
    // '' for the shared short domain, else the domain id: lets one unique index cover both.
    t.string('domain_key', 40).notNullable();
    t.string('slug', 64).notNullable();
    t.text('original_url').notNullable();
    t.string('title', 200);
    t.string('status', 16).notNullable();
    t.boolean('policy_locked').notNullable().defaultTo(false);
    t.string('redirect_type', 16).notNullable();
    t.bigInteger('expires_at');
    t.text('expired_url');
    t.integer('click_limit');
    t.bigInteger('start_at');
    t.bigInteger('end_at');
    t.bigInteger('clicks').notNullable().defaultTo(0);
    t.text('password_hash');
    t.text('preview_title');
    t.text('preview_description');
    t.text('preview_image');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('deleted_at');
    t.index(['workspace_id', 'deleted_at', 'created_at']);
  });
  // A slug is unique per domain among links that are not deleted; a deleted link frees it.
  await knex.raw('CREATE UNIQUE INDEX links_live_slug ON links (domain_key, slug) WHERE deleted_at IS NULL');
  await knex.schema.createTable('link_tags', (t) => {
    t.string('link_id', 40).notNullable().references('links.id').onDelete('CASCADE');
    t.string('tag_id', 40).notNullable().references('tags.id').onDelete('CASCADE');
    t.primary(['link_id', 'tag_id']);
  });
  await knex.schema.createTable('qr_codes', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('link_id', 40).notNullable().references('links.id');
    t.string('code', 32).notNullable().unique();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('deleted_at');
  });
  // rate-limiter-flexible's own table layout (created here so processes never race to create it).
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'rate_limits',
    'qr_codes',
    'link_tags',
    'links',
    'assets',
    'campaigns',
    'domains',
    'tags',
    'api_keys',
    'memberships',
    'users',
    'workspaces',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
