// Passkeys (WebAuthn credentials) and the challenges of their ceremonies.
//
// - A passkey belongs to a person (not a workspace): its credential id (base64url, unique: an
//   authenticator makes each once), the COSE public key (base64url), the signature counter the
//   library checks, the transports the browser reported (JSON), a name, when added and last used.
//   A public key is no secret, so nothing here is sealed.
// - A challenge is kept only as the SHA-256 of its value, with what it was made for (`purpose`:
//   adding a passkey, signing in, a second step) and, except for a sign-in by passkey alone, the
//   person it was made for; it is deleted when used (single use) and refused after `expires_at`.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('passkeys', (t) => {
    t.string('id', 40).primary();
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('credential_id', 1024).notNullable().unique('passkeys_credential_id');
    t.text('public_key').notNullable();
    t.bigInteger('counter').notNullable().defaultTo(0);
    t.text('transports');
    t.string('name', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_used_at');
    t.index(['user_id'], 'passkeys_user');
  });
  await knex.schema.createTable('passkey_challenges', (t) => {
    t.string('id', 64).primary(); // sha256 of the challenge, hex
    t.string('purpose', 20).notNullable();
    t.string('user_id', 40).references('users.id').onDelete('CASCADE');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at'], 'passkey_challenges_expiry');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('passkey_challenges');
  await knex.schema.dropTableIfExists('passkeys');
}
