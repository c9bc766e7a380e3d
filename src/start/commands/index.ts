// The operator commands, one file per resource, and the running of one: its flags read, the
// database opened and migrated, the command run. `src/start/cli.ts` prints what it returns; the
// tests list the registry (`commands`) and run commands in-process through `runCommand`.
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../../config.ts';
import { migrateLatest, openDatabase, type Database } from '../../db/knex.ts';
import { usage } from '../../domain/errors.ts';
import type { Command, FileCommand, Flags } from './command.ts';
import { appLinkCommands } from './app-links.ts';
import { assetCommands } from './assets.ts';
import { auditCommands } from './audit.ts';
import { campaignCommands } from './campaigns.ts';
import { domainCommands } from './domains.ts';
import { goalCommands } from './goals.ts';
import { keyCommands } from './keys.ts';
import { linkCommands } from './links.ts';
import { migrateCommand, retentionCommand } from './maintenance.ts';
import { backupCommand, restoreCommand } from './backup.ts';
import { memberCommands } from './members.ts';
import { pageCommands } from './pages.ts';
import { qrCommands } from './qr-codes.ts';
import { tagCommands } from './tags.ts';
import { webhookCommands } from './webhooks.ts';
import { workspaceCommands } from './workspaces.ts';

// One file per resource in this folder; the order here is the order the usage message lists them.
export const commands: Record<string, Command | FileCommand> = {
  migrate: migrateCommand,
  backup: backupCommand,
  restore: restoreCommand,
  ...workspaceCommands,
  ...memberCommands,
  ...keyCommands,
  ...tagCommands,
  ...domainCommands,
  ...appLinkCommands,
  ...campaignCommands,
  ...qrCommands,
  ...assetCommands,
  ...goalCommands,
  'retention run': retentionCommand,
  ...auditCommands,
  ...webhookCommands,
  ...pageCommands,
  ...linkCommands,
};

export async function runCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<object> {
  const name2 = argv.slice(0, 2).join(' ');
  const name = commands[name2] ? name2 : argv[0];
  const command = commands[name];
  if (!command) {
    throw usage(`unknown command: ${argv.join(' ') || '(none)'}; commands: serve, ${Object.keys(commands).join(', ')}`);
  }
  const rest = argv.slice(name.split(' ').length);
  let values: Flags;
  try {
    const parsed = parseArgs({
      args: rest,
      options: Object.fromEntries([
        ...command.flags.map((f) => [f, { type: 'string' as const }]),
        ...(command.switches ?? []).map((f) => [f, { type: 'boolean' as const }]),
      ]),
      strict: true,
      allowPositionals: false,
    }).values as Record<string, string | boolean | undefined>;
    values = Object.fromEntries(
      Object.entries(parsed).map(([k, v]) => [k, typeof v === 'boolean' ? (v ? 'true' : undefined) : v]),
    );
  } catch (err) {
    throw usage(`${name}: ${(err as Error).message}`);
  }
  for (const f of command.required) {
    if (values[f] === undefined || values[f]!.trim() === '') throw usage(`${name}: --${f} is required`);
  }
  let config: Config;
  let db: Database;
  if ('runOnFiles' in command) {
    try {
      config = loadConfig(env);
    } catch (err) {
      throw usage((err as Error).message);
    }
    return command.runOnFiles({ config, flags: values });
  }
  try {
    config = loadConfig(env);
    db = openDatabase(config.databaseUrl, { poolMax: 2 });
  } catch (err) {
    throw usage((err as Error).message);
  }
  // The failure reaches the operator once, as the command's message; knex would also log it with a stack.
  const logger = (db.knex.client as { logger?: { warn?: unknown } }).logger;
  if (logger) logger.warn = () => undefined;
  try {
    await migrateLatest(db);
    return await command.run({ db, config, flags: values });
  } finally {
    await db.knex.destroy();
  }
}
