// The raw clicks lose their (occurred_at) index: retention, its only reader, now walks the
// clicks in id order instead (src/db/repos/retention.ts). Every click written paid one more
// B-tree insert for it, on the click writer's thread, which shares the machine's cores with the
// redirect path (bench/README.md). Clicks get their ids as they are written, a few seconds
// at most after they happen (later only when a database outage held them in the buffer), so id
// order is time order to within that; retention's comment says what that means for a click
// written late.
// (workspace_id, occurred_at) stays: the conversion rates read a workspace's clicks by time.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS clicks_occurred_at_index');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS clicks_occurred_at_index ON clicks (occurred_at)');
}
