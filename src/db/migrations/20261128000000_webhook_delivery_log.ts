// What the delivery log of Settings › Webhooks and `shortlink webhook attempts` show, and the
// endpoint health rule (asyncapi/*.yaml, "Endpoint health").
//
// Storage is bounded per attempt, and small: the request is kept as the two values that, with the
// delivery row, make its exact headers and body (src/webhooks/signing.ts, rebuildRequest): the
// signature header's value (never the signing secret, which exists only sealed on the
// subscription) and the time it was sent. A copy of every body and header would triple what each
// attempt writes, on the delivery worker's measured path (bench/webhooks.ts), for bytes the row
// already holds. The response body is kept up to its first 4 KiB. A delivery makes at most six
// attempts per round.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_attempts', (t) => {
    t.string('request_signature', 200); // the signature header sent; null when nothing was sent
    t.bigInteger('request_sent_at'); // when the request was composed (Variant A's timestamp and t)
    t.text('response_body'); // the first 4 KiB of the answer's body (UTF-8, invalid bytes replaced)
    t.boolean('response_truncated').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    // A "Send test event" sample: never retried, replayed or counted for endpoint health.
    t.boolean('is_test').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('webhook_subscriptions', (t) => {
    // The first failed attempt since the last successful one (null: the last attempt succeeded,
    // or none was made). Five days of failures from here disable the subscription.
    t.bigInteger('failing_since');
    // Set when the service disabled the subscription (endpoint health); cleared on re-enabling.
    t.bigInteger('disabled_at');
    t.text('disabled_reason');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_subscriptions', (t) => {
    t.dropColumn('disabled_reason');
    t.dropColumn('disabled_at');
    t.dropColumn('failing_since');
  });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('is_test');
  });
  await knex.schema.alterTable('webhook_attempts', (t) => {
    t.dropColumn('response_truncated');
    t.dropColumn('response_body');
    t.dropColumn('request_sent_at');
    t.dropColumn('request_signature');
  });
}
