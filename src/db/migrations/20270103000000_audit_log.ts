// The audit log: one entry per change a person, an API key or the operator's command line makes
// in a workspace, written in the change's own transaction (src/operations/audit.ts). Entries of a
// workspace form one hash chain: `seq` counts them, `prev_hash` is the hash of the entry before
// and `hash` covers every other stored column (src/domain/audit.ts). Nothing updates or deletes
// an entry except retention, which keeps the hash of the last entry it deleted in
// `audit_anchors`, so the chain still checks from the first entry kept.
//
// No address is stored raw: `address_network` is its /24 (IPv4) or /48 (IPv6) and
// `address_hmac` an HMAC of the whole address under a key derived from MASTER_KEY.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_entries', (t) => {
    t.string('id', 40).primary();
    // No foreign key: the log outlives what it names, the workspace included.
    t.string('workspace_id', 40).notNullable();
    t.bigInteger('seq').notNullable();
    t.bigInteger('at').notNullable();
    t.string('actor_type', 16).notNullable();
    t.string('actor_id', 40);
    t.string('actor_user_id', 40);
    t.string('action', 80).notNullable();
    t.string('object_type', 40).notNullable();
    t.string('object_id', 200);
    t.text('changes').notNullable();
    t.string('address_network', 64);
    t.string('address_hmac', 64);
    t.string('prev_hash', 64).notNullable();
    t.string('hash', 64).notNullable();
    t.unique(['workspace_id', 'seq']);
    t.index(['workspace_id', 'at']);
  });
  await knex.schema.createTable('audit_anchors', (t) => {
    t.string('workspace_id', 40).primary();
    t.bigInteger('seq').notNullable();
    t.string('hash', 64).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_anchors');
  await knex.schema.dropTable('audit_entries');
}
