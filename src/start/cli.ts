// The `shortlink` command line: `serve`, and the operator commands of DECISIONS.md. Every
// operator command prints exactly one JSON object on stdout and exits 0, or prints a message
// on stderr and exits non-zero.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config';
import { PLANS, ROLES, SCOPES, type Plan, type Role, type Scope } from '../domain/access';
import { isUniqueViolation, migrateLatest, openDatabase, type Database } from '../db/knex';
import * as ws from '../db/repos/workspaces';
import { setPolicyDisabled } from '../db/repos/links';
import { startServer } from './server';

export class UsageError extends Error {}

type Flags = Record<string, string | undefined>;
type Command = {
  flags: string[];
  required: string[];
  run(ctx: { db: Database; config: Config; flags: Flags }): Promise<object>;
};

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp',
};

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  const v = (flag === '--role' || flag === '--status' || flag === '--outcome' ? value.toUpperCase() : value.toLowerCase()) as T;
  if (!allowed.includes(v)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')}; got ${value}`);
  return v;
}

function isoTime(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new UsageError(`${flag} must be an ISO 8601 timestamp; got ${value}`);
  return ms;
}

const commands: Record<string, Command> = {
  migrate: { flags: [], required: [], run: async () => ({ migrated: true }) },
  'workspace create': {
    flags: ['name', 'plan'],
    required: ['name'],
    run: async ({ db, flags }) => ({
      id: await ws.createWorkspace(db.knex, flags.name!, oneOf(flags.plan ?? 'growth', PLANS, '--plan') as Plan),
    }),
  },
  'workspace set-plan': {
    flags: ['workspace', 'plan'],
    required: ['workspace', 'plan'],
    run: async ({ db, flags }) => {
      const plan = oneOf(flags.plan!, PLANS, '--plan');
      await ws.setPlan(db.knex, flags.workspace!, plan);
      return { id: flags.workspace, plan };
    },
  },
  'member add': {
    flags: ['workspace', 'email', 'role'],
    required: ['workspace', 'email', 'role'],
    run: async ({ db, flags }) => {
      if (!/^[^@\s]+@[^@\s]+$/.test(flags.email!)) throw new UsageError(`--email must be an e-mail address; got ${flags.email}`);
      return { id: await ws.addMember(db.knex, flags.workspace!, flags.email!, oneOf(flags.role!, ROLES, '--role') as Role) };
    },
  },
  'member set-role': {
    flags: ['workspace', 'user', 'role'],
    required: ['workspace', 'user', 'role'],
    run: async ({ db, flags }) => {
      await ws.setRole(db.knex, flags.workspace!, flags.user!, oneOf(flags.role!, ROLES, '--role') as Role);
      return { id: flags.user };
    },
  },
  'member remove': {
    flags: ['workspace', 'user'],
    required: ['workspace', 'user'],
    run: async ({ db, flags }) => {
      await ws.removeMember(db.knex, flags.workspace!, flags.user!);
      return { id: flags.user };
    },
  },
  'key create': {
    flags: ['workspace', 'user', 'scopes', 'expires-at'],
    required: ['workspace', 'user', 'scopes'],
    run: async ({ db, flags }) => {
      const scopes = flags.scopes!.split(',').map((s) => s.trim()).filter(Boolean);
      const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown.length) throw new UsageError(`unknown scopes: ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
      return ws.createKey(db.knex, flags.workspace!, flags.user!, scopes as Scope[], isoTime(flags['expires-at'], '--expires-at'));
    },
  },
  'key revoke': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      await ws.revokeKey(db.knex, flags.id!);
      return { id: flags.id, revoked: true };
    },
  },
  'tag create': {
    flags: ['workspace', 'name', 'color'],
    required: ['workspace', 'name'],
    run: async ({ db, flags }) => ({ id: await ws.createTag(db.knex, flags.workspace!, flags.name!, flags.color ?? '#6b7280') }),
  },
  'domain add': {
    flags: ['workspace', 'host'],
    required: ['workspace', 'host'],
    run: async ({ db, flags }) => {
      if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+(:\d{1,5})?$/i.test(flags.host!)) {
        throw new UsageError(`--host must be a host name such as go.example.com; got ${flags.host}`);
      }
      return { id: await ws.addDomain(db.knex, flags.workspace!, flags.host!) };
    },
  },
  'domain verify': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      await ws.setDomainStatus(db.knex, flags.id!, 'ACTIVE');
      return { id: flags.id };
    },
  },
  'domain disable': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      await ws.setDomainStatus(db.knex, flags.id!, 'DISABLED');
      return { id: flags.id };
    },
  },
  'campaign create': {
    flags: ['workspace', 'name'],
    required: ['workspace', 'name'],
    run: async ({ db, flags }) => ({ id: await ws.createCampaign(db.knex, flags.workspace!, flags.name!) }),
  },
  'qr create': {
    flags: ['workspace', 'link'],
    required: ['workspace', 'link'],
    run: async ({ db, config, flags }) => {
      const { id, code } = await ws.createQrCode(db.knex, flags.workspace!, flags.link!);
      return { id, url: `https://${config.shortDomain}/qr/${code}` };
    },
  },
  'asset add': {
    flags: ['workspace', 'file'],
    required: ['workspace', 'file'],
    run: async ({ db, config, flags }) => {
      const source = path.resolve(flags.file!);
      const ext = path.extname(source).toLowerCase();
      if (!IMAGE_TYPES[ext]) throw new UsageError(`--file must be a .png, .jpg, .jpeg, .gif or .webp image; got ${flags.file}`);
      if (!fs.existsSync(source) || !fs.statSync(source).isFile()) throw new UsageError(`--file ${flags.file} does not exist`);
      const assetId = await ws.addAsset(db.knex, flags.workspace!, `pending${ext}`, IMAGE_TYPES[ext]);
      const fileName = `${assetId}${ext}`;
      const dir = path.join(config.dataDir, 'assets');
      fs.mkdirSync(dir, { recursive: true });
      fs.copyFileSync(source, path.join(dir, fileName));
      await db.knex('assets').where({ id: assetId }).update({ file_name: fileName });
      return { url: `${config.assetBaseUrl}${fileName}` };
    },
  },
  'link policy-disable': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, flags }) => {
      const row = await setPolicyDisabled(db.knex, flags.id!);
      if (!row) throw new ws.NotFoundError(`link ${flags.id} not found`);
      return { id: flags.id };
    },
  },
};

const LATER = ['goal create', 'goal update', 'goal set-status', 'webhook deliveries', 'webhook replay', 'webhook resolve', 'retention run'];

export async function runCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<object> {
  const name2 = argv.slice(0, 2).join(' ');
  const name = commands[name2] ? name2 : argv[0];
  const command = commands[name];
  if (!command) {
    if (LATER.includes(name2)) throw new UsageError(`${name2} is not available in this build yet`);
    throw new UsageError(`unknown command: ${argv.join(' ') || '(none)'}; commands: serve, ${Object.keys(commands).join(', ')}`);
  }
  const rest = argv.slice(name.split(' ').length);
  let values: Flags;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: Object.fromEntries(command.flags.map((f) => [f, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }) as { values: Flags });
  } catch (err) {
    throw new UsageError(`${name}: ${(err as Error).message}`);
  }
  for (const f of command.required) {
    if (values[f] === undefined || values[f] === '') throw new UsageError(`${name}: --${f} is required`);
  }
  const config = loadConfig(env);
  const db = openDatabase(config.databaseUrl, { poolMax: 2 });
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
      process.stderr.write('usage: shortlink serve (configured by environment variables; see README.md)\n');
      process.exit(argv[1] === '--help' || argv[1] === '-h' ? 0 : 2);
    }
    const config = loadConfig();
    const server = await startServer(config);
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
    const known = e instanceof UsageError || e instanceof ws.NotFoundError || e instanceof ws.ConflictError;
    const message = isUniqueViolation(e) ? 'that object already exists (a name, host or e-mail address is taken)' : known ? e.message : e.stack ?? e.message;
    process.stderr.write(`shortlink: ${message}\n`);
    process.exit(e instanceof UsageError ? 2 : 1);
  }
}

await main();
