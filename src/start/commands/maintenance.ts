// `shortlink migrate` (every command migrates first, so it has nothing left to do) and
// `shortlink retention run`: the database's upkeep.
import { ensureEventPartitions } from '../../db/repos/event-partitions.ts';
import { runRetention } from '../../db/repos/retention.ts';
import type { Command } from './command.ts';

export const migrateCommand: Command = { flags: [], required: [], run: async () => ({ migrated: true }) };

export const retentionCommand: Command = {
  flags: [],
  required: [],
  // On Postgres the days ahead are made too, so a cron of this command alone keeps the partitions.
  run: async ({ db, config }) => {
    const partitions = await ensureEventPartitions(db.knex);
    return {
      ...(await runRetention(db.knex, Date.now(), config.auditRetentionDays)),
      partitionsCreated: partitions.created,
    };
  },
};
