// What the delivery worker and the operator commands add to the outbox of deliveries.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    // Attempts made before the current round: `shortlink webhook replay` starts a new round of
    // the first attempt and five retries, and attempt numbers keep counting across rounds.
    t.integer('round_start').notNullable().defaultTo(0);
    t.integer('replays').notNullable().defaultTo(0);
    // When a person settled an UNKNOWN delivery with `shortlink webhook resolve`.
    t.bigInteger('resolved_at');
    // When the attempt in flight (status SENDING) started; its webhook_attempts row is written
    // when it ends, by the process that made it or, after a crash, by the one that settles it.
    t.bigInteger('attempt_started_at');
  });
  await knex.schema.alterTable('webhook_attempts', (t) => {
    // Whether the request was written to the endpoint (false: nothing reached it).
    t.boolean('request_sent').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_attempts', (t) => {
    t.dropColumn('request_sent');
  });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('attempt_started_at');
    t.dropColumn('resolved_at');
    t.dropColumn('replays');
    t.dropColumn('round_start');
  });
}
