// `shortlink migrate` (every command migrates first, so it has nothing left to do) and
// `shortlink retention run`: the database's upkeep.
import { runRetention } from '../../db/repos/retention.ts';
import type { Command } from './command.ts';

export const migrateCommand: Command = { flags: [], required: [], run: async () => ({ migrated: true }) };

export const retentionCommand: Command = {
  flags: [],
  required: [],
  run: async ({ db }) => runRetention(db.knex),
};
