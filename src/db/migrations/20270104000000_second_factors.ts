// Second factors: an authenticator app per person (TOTP, RFC 6238), their ten single-use recovery
// codes, the pending sign-ins between the password and the code, and a workspace's requirement
// that its members use one.
//
// - The app's secret is sealed with MASTER_KEY (AES-256-GCM, as webhook secrets are), never kept
//   in clear. A started enrolment keeps its secret apart (`pending_sealed`) until a code confirms
//   it, so a half-done enrolment never replaces the app in use. `last_step` is the time step of
//   the last code accepted: a code is never accepted twice.
// - Recovery codes and pending sign-ins are kept only as SHA-256 hashes (each is 50+ random bits
//   and single use, so a fast hash is enough; a copy of the database opens nothing).
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('totp_factors', (t) => {
    t.string('user_id', 40).primary().references('users.id').onDelete('CASCADE');
    t.text('secret_sealed'); // null until an enrolment is confirmed
    t.bigInteger('enabled_at');
    t.bigInteger('last_step');
    t.text('pending_sealed');
    t.bigInteger('pending_at');
  });
  await knex.schema.createTable('recovery_codes', (t) => {
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('code_hash', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('used_at');
    t.primary(['user_id', 'code_hash']);
  });
  await knex.schema.createTable('second_factor_challenges', (t) => {
    t.string('id', 64).primary(); // sha256 of the pending cookie's token, hex
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['user_id'], 'second_factor_challenges_user');
  });
  await knex.schema.alterTable('workspaces', (t) => {
    t.boolean('require_second_factor').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  // Both engines drop a column in place (SQLite since 3.35): a rebuilt workspaces table would
  // cascade its deletion to every table that references it.
  await knex.raw('ALTER TABLE workspaces DROP COLUMN require_second_factor');
  await knex.schema.dropTableIfExists('second_factor_challenges');
  await knex.schema.dropTableIfExists('recovery_codes');
  await knex.schema.dropTableIfExists('totp_factors');
}
