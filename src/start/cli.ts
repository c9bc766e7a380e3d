// The `shortlink` command line: `serve`, and the operator commands of docs/configuration.md. Every
// operator command prints exactly one JSON object on stdout and exits 0, or prints a message
// on stderr and exits non-zero.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { isUniqueViolation, migrateLatest, openDatabase, type Database } from '../db/knex.ts';
import { AppError, ERROR_CODES, usage } from '../domain/errors.ts';
import * as accounts from '../db/repos/accounts.ts';
import { firstRunUrl } from '../domain/sessions.ts';
import type { Command, FileCommand, Flags } from './commands/command.ts';
import { appLinkCommands } from './commands/app-links.ts';
import { assetCommands } from './commands/assets.ts';
import { auditCommands } from './commands/audit.ts';
import { campaignCommands } from './commands/campaigns.ts';
import { domainCommands } from './commands/domains.ts';
import { goalCommands } from './commands/goals.ts';
import { keyCommands } from './commands/keys.ts';
import { linkCommands } from './commands/links.ts';
import { migrateCommand, retentionCommand } from './commands/maintenance.ts';
import { backupCommand, restoreCommand } from './commands/backup.ts';
import { memberCommands } from './commands/members.ts';
import { pageCommands } from './commands/pages.ts';
import { qrCommands } from './commands/qr-codes.ts';
import { tagCommands } from './commands/tags.ts';
import { webhookCommands } from './commands/webhooks.ts';
import { workspaceCommands } from './commands/workspaces.ts';

// One file per resource in commands/; the order here is the order the usage message lists them.
const commands: Record<string, Command | FileCommand> = {
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

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === 'serve') {
    if (argv.length > 1) {
      process.stderr.write('usage: shortlink serve (configured by environment variables; see docs/configuration.md)\n');
      process.exit(argv[1] === '--help' || argv[1] === '-h' ? 0 : 2);
    }
    const config = loadConfig();
    // Loaded only here: the HTTP stack would double the start-up time of every operator command.
    const { startServer } = await import('./server.ts');
    // WEBHOOK_CA_FILE (tests only): a PEM certificate webhook deliveries trust besides the
    // system's, for receivers with self-signed certificates.
    const caFile = process.env.WEBHOOK_CA_FILE;
    const server = await startServer(config, { webhookCa: caFile ? [fs.readFileSync(caFile, 'utf8')] : undefined });
    // The first run (as Jupyter does): while nobody has an account, the way in is a one-time link
    // with an unguessable token, printed here for whoever started the service and no one else.
    const { knex } = server.services.db;
    if ((await accounts.userCount(knex)) === 0) {
      const token = await accounts.createFirstRunToken(knex, Date.now());
      const every = config.firstRunReminderSeconds;
      const show = () =>
        process.stdout.write(
          `\n==> Open ${firstRunUrl(config, token)} to create your workspace\n` +
            `    (it works once; printed again every ${every} s until someone has an account)\n\n`,
        );
      show();
      // Printed again until used, so the log written meanwhile does not bury it. Any process's
      // claim ends it: the check is the database's, as the claim's (a failed check, such as
      // Postgres restarting, waits for the next).
      const reminder = setInterval(() => {
        accounts.userCount(knex).then(
          (n) => (n === 0 ? show() : clearInterval(reminder)),
          () => {},
        );
      }, every * 1000);
      reminder.unref();
    }
    const stop = async (signal: string) => {
      server.services.log.info({ signal }, 'shutting down');
      await server.close();
      process.exit(0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
    return;
  }
  try {
    const out = await runCommand(argv);
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } catch (err) {
    const e = err as Error;
    // The one place the command line answers an error: an AppError with its message and exit
    // code (src/domain/errors.ts); anything else in one line, its stack only when asked for
    // with LOG_LEVEL=debug or trace.
    const known = e instanceof AppError;
    const verbose = /^(debug|trace)$/i.test(process.env.LOG_LEVEL ?? '');
    const message = isUniqueViolation(e)
      ? 'that object already exists (a name, host or e-mail address is taken)'
      : !known && verbose
        ? (e.stack ?? e.message)
        : String(e.message || e).replace(/\s*\n\s*/g, ' ');
    process.stderr.write(`shortlink: ${message}\n`);
    process.exit(known ? ERROR_CODES[e.code].exit : 1);
  }
}

await main();
