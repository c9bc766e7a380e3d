// The `shortlink` command line: `serve`, and the operator commands of docs/configuration.md. Every
// operator command prints exactly one JSON object on stdout and exits 0, or prints a message
// on stderr and exits non-zero.
import fs from 'node:fs';
import { loadConfig } from '../config.ts';
import { isUniqueViolation } from '../db/knex.ts';
import { AppError, ERROR_CODES } from '../domain/errors.ts';
import * as accounts from '../db/repos/accounts.ts';
import { firstRunUrl } from '../domain/sessions.ts';
import { runCommand } from './commands/index.ts';

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
