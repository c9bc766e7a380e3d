// The public API lists a workspace's QR codes newest first, paged, optionally one link's
// (GET /api/v1/qr-codes): without these indexes each page read every QR code of every workspace.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX qr_codes_by_workspace ON qr_codes (workspace_id, created_at, id)');
  await knex.raw('CREATE INDEX qr_codes_by_link ON qr_codes (link_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS qr_codes_by_link');
  await knex.raw('DROP INDEX IF EXISTS qr_codes_by_workspace');
}
