// People sign in to the dashboard: a password per user (scrypt, never in clear), sessions held
// in the database (by the hash of the cookie's token, so a copy of the database opens none),
// one-time set-up links, and the first run's tokens. Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.string('password_hash', 200);
    t.bigInteger('password_changed_at');
  });
  await knex.schema.createTable('sessions', (t) => {
    t.string('id', 64).primary(); // sha256 of the cookie's token, hex
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('csrf_token', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_used_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['user_id'], 'sessions_user');
  });
  await knex.schema.createTable('password_setup_tokens', (t) => {
    t.string('token_hash', 64).primary();
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at');
    t.index(['user_id'], 'password_setup_tokens_user');
  });
  await knex.schema.createTable('first_run_tokens', (t) => {
    t.string('token_hash', 64).primary();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('used_at');
  });
  // One row once the first person has claimed the service: two claims racing with two tokens
  // cannot both insert it.
  await knex.schema.createTable('first_run_claim', (t) => {
    t.integer('id').primary();
    t.string('user_id', 40).notNullable();
    t.bigInteger('claimed_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('first_run_claim');
  await knex.schema.dropTableIfExists('first_run_tokens');
  await knex.schema.dropTableIfExists('password_setup_tokens');
  await knex.schema.dropTableIfExists('sessions');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('password_changed_at');
    t.dropColumn('password_hash');
  });
}
