// The total value of a workspace's kept conversions (400 days) per currency. Recording a
// conversion adds to it, retention takes from it, and a conversion that would take it above
// 2^53 - 1 is refused: then every total the API reports (a window's value, a goal's progress) is
// at most that, so it is exact in a JSON number and in every client's double, and no aggregate
// row can overflow. Frozen: it imports nothing that may change.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('conversion_value_totals', (t) => {
    t.string('workspace_id', 40).notNullable();
    t.string('currency', 3).notNullable();
    t.bigInteger('value_minor').notNullable();
    t.primary(['workspace_id', 'currency']);
  });
  await knex.raw(
    `INSERT INTO conversion_value_totals (workspace_id, currency, value_minor)
     SELECT workspace_id, currency, SUM(amount_minor) FROM conversions WHERE currency IS NOT NULL GROUP BY workspace_id, currency`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('conversion_value_totals');
}
