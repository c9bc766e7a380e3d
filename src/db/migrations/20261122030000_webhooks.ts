// Webhook subscriptions of both variants, and the durable outbox of deliveries.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_subscriptions', (t) => {
    t.string('id', 40).primary();
    t.increments('seq').unique();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('variant', 1).notNullable(); // A or B: the form its deliveries take
    t.text('url').notNullable();
    t.text('events').notNullable(); // JSON array of event names
    t.text('secret_encrypted').notNullable(); // AES-256-GCM under MASTER_KEY
    t.boolean('enabled').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('deleted_at');
    t.index(['workspace_id', 'variant', 'deleted_at']);
  });
  // One row per (event, subscription), written in the transaction of the change that caused
  // the event: nothing is lost between the change and its delivery.
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.string('id', 40).primary();
    t.increments('seq').unique();
    t.string('subscription_id', 40).notNullable();
    t.string('workspace_id', 40).notNullable();
    t.string('variant', 1).notNullable();
    t.string('event_id', 40).notNullable();
    t.string('event_type', 40).notNullable();
    t.string('request_id', 64);
    t.bigInteger('occurred_at').notNullable();
    t.text('data').notNullable(); // JSON of the event's data object for this variant
    t.string('status', 16).notNullable(); // PENDING, SENDING, DELIVERED, FAILED, UNKNOWN
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('next_attempt_at').notNullable();
    t.string('lease_owner', 64);
    t.bigInteger('lease_until');
    t.boolean('request_sent').notNullable().defaultTo(false); // bytes left for the receiver in the current attempt
    t.integer('last_status_code');
    t.text('last_error');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('finished_at');
    t.index(['status', 'next_attempt_at']);
    t.index(['workspace_id', 'status']);
  });
  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id').primary();
    t.string('delivery_id', 40).notNullable();
    t.integer('attempt').notNullable();
    t.bigInteger('started_at').notNullable();
    t.bigInteger('finished_at');
    t.string('outcome', 24); // delivered, retry, failed, unknown, refused
    t.integer('status_code');
    t.text('error');
    t.index(['delivery_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_attempts');
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhook_subscriptions');
}
