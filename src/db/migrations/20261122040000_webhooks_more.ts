// State of the Variant A traffic alerts: the windowEnd of the last analytics.spike per link and
// of the last analytics.geo_anomaly per link and country, which keep them to one an hour and
// one a day. One row per key; claiming it is the atomic step that lets only one of several
// processes send an alert.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('analytics_alert_state', (t) => {
    t.string('link_id', 40).notNullable();
    t.string('kind', 16).notNullable(); // spike | geo_anomaly
    t.string('country', 2).notNullable().defaultTo(''); // '' for spike
    t.bigInteger('last_window_end').notNullable();
    t.primary(['link_id', 'kind', 'country']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('analytics_alert_state');
}
