// Mail, "forgot password", a person's sessions and API keys' last use.
// - mail_outbox: each mail written in the transaction of the change that causes it, its payload
//   (with any link's token) sealed under MASTER_KEY, sent after commit by whichever process
//   claims it with a lease, deleted once the mail server accepted it.
// - password_setup_tokens.kind: 'setup' (the operator's link, 24 hours) or 'reset' (mailed on
//   "forgot password", 1 hour); earlier links stay set-up links.
// - sessions say what signed in (browser and OS family, a coarse place; never an address).
// - known_browsers: the hash of each browser's long-lived cookie a person signed in with, so a
//   sign-in from a new one is noticed.
// - api_keys.last_used_at, written at most once a minute per key per process.
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mail_outbox', (t) => {
    t.string('id', 40).primary();
    t.string('kind', 32).notNullable();
    t.integer('version').notNullable();
    t.string('recipient', 320).notNullable();
    t.text('payload_sealed').notNullable();
    t.bigInteger('created_at').notNullable();
    // Past this the mail is worth nothing (its link has expired) and is dropped unsent.
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('next_attempt_at').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('lease_owner', 100);
    t.bigInteger('lease_until');
    t.text('last_error');
    t.index(['next_attempt_at'], 'mail_outbox_due');
  });
  await knex.schema.alterTable('password_setup_tokens', (t) => {
    t.string('kind', 16).notNullable().defaultTo('setup');
  });
  await knex.schema.alterTable('sessions', (t) => {
    t.string('browser', 64);
    t.string('os', 64);
    t.string('place', 200);
  });
  await knex.schema.createTable('known_browsers', (t) => {
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('browser_hash', 64).notNullable();
    t.bigInteger('first_seen_at').notNullable();
    t.bigInteger('last_seen_at').notNullable();
    t.primary(['user_id', 'browser_hash']);
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.bigInteger('last_used_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('last_used_at');
  });
  await knex.schema.dropTableIfExists('known_browsers');
  await knex.schema.alterTable('sessions', (t) => {
    t.dropColumn('place');
    t.dropColumn('os');
    t.dropColumn('browser');
  });
  // A reset link is no set-up link: it goes with its kind.
  await knex('password_setup_tokens').where({ kind: 'reset' }).delete();
  await knex.schema.alterTable('password_setup_tokens', (t) => {
    t.dropColumn('kind');
  });
  await knex.schema.dropTableIfExists('mail_outbox');
}
