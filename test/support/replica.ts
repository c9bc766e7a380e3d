// A streaming replica of the test Postgres (TEST_POSTGRES_URL), as docs/operations.md has an
// operator make one: `pg_basebackup -R` into a temporary directory, then a second cluster started
// from it with pg_ctl on a free loopback port. Both run as the postgres OS user, which reaches the
// primary over its unix socket: Debian's pg_hba.conf lets the postgres user replicate there by
// peer authentication, so the machine's cluster needs no change. The copy holds the primary's
// roles, so the replica takes TEST_POSTGRES_URL's user and password.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, sleep } from './process';

export const PG_BIN = '/usr/lib/postgresql/15/bin';
/** Where Debian's cluster listens on a unix socket. */
const PRIMARY_SOCKET = '/var/run/postgresql';

const run = promisify(execFile);

export interface Replica {
  port: number;
  /** `database` on the replica, with TEST_POSTGRES_URL's user and password. */
  url(database: string): string;
  /** Runs SQL on the replica (as the postgres user of TEST_POSTGRES_URL). */
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the replica's server (fast shutdown); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** What the replica's server logged. */
  output(): string;
  /** Stops it and removes its files. */
  close(): Promise<void>;
}

/** Runs `command` as the postgres OS user (the tests run as root in CI). */
async function asPostgres(command: string, args: string[]): Promise<string> {
  const asRoot = process.getuid?.() === 0;
  const { stdout } = asRoot
    ? await run('runuser', ['-u', 'postgres', '--', command, ...args])
    : await run(command, args);
  return stdout;
}

/** The primary's settings a hot standby must match or exceed, or it refuses to start. */
const MATCHED = [
  'max_connections',
  'max_worker_processes',
  'max_wal_senders',
  'max_prepared_transactions',
  'max_locks_per_transaction',
];

/**
 * A hot standby of the cluster behind `adminUrl`, on a free port. `settings`: postgresql.conf
 * lines after the defaults here (a later line wins), e.g. an operator's standby settings.
 */
export async function startReplica(adminUrl: string, settings: string[] = []): Promise<Replica> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-replica-'));
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  if (process.getuid?.() === 0) fs.chownSync(dir, ...ownerOfPostgres());
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const matched = await admin.query<{ name: string; setting: string }>(
    'SELECT name, setting FROM pg_settings WHERE name = ANY($1)',
    [MATCHED],
  );
  await admin.end();
  // -R writes standby.signal and primary_conninfo (the same unix socket, as postgres). A copy
  // taken while other suites create and drop databases may be cut off by the primary's
  // checkpoint (it ends the copy's temporary slot's connection); it is taken again.
  for (let attempt = 1; ; attempt++) {
    try {
      await asPostgres(`${PG_BIN}/pg_basebackup`, [
        ...['-h', PRIMARY_SOCKET, '-U', 'postgres', '-D', data],
        ...['-R', '-X', 'stream', '-c', 'fast'],
      ]);
      break;
    } catch (err) {
      fs.rmSync(data, { recursive: true, force: true });
      if (attempt === 3) throw err;
    }
  }
  const port = await freePort();
  // Debian keeps a cluster's configuration in /etc, so the copy has none: the replica's own.
  const conf = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dir}'`,
    'hot_standby = on',
    'shared_buffers = 16MB',
    ...matched.rows.map((r) => `${r.name} = ${r.setting}`),
    ...settings,
  ];
  fs.writeFileSync(path.join(data, 'postgresql.conf'), `${conf.join('\n')}\n`);
  fs.writeFileSync(
    path.join(data, 'pg_hba.conf'),
    'local all postgres peer\nhost all all 127.0.0.1/32 scram-sha-256\n',
  );
  fs.writeFileSync(path.join(data, 'pg_ident.conf'), '');
  if (process.getuid?.() === 0) {
    const [uid, gid] = ownerOfPostgres();
    for (const f of ['postgresql.conf', 'pg_hba.conf', 'pg_ident.conf']) fs.chownSync(path.join(data, f), uid, gid);
  }
  const url = (database: string) => {
    const u = new URL(adminUrl);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    u.pathname = `/${database}`;
    return u.toString();
  };
  const query = async <T>(sql: string): Promise<T[]> => {
    const c = new pg.Client({ connectionString: url('postgres') });
    await c.connect();
    try {
      return (await c.query(sql)).rows as T[];
    } finally {
      await c.end();
    }
  };
  const start = async () => {
    await asPostgres(`${PG_BIN}/pg_ctl`, ['-D', data, '-l', log, '-w', '-t', '60', 'start']);
    // Ready for connections once it reached a consistent state and allows hot standby reads.
    for (const since = Date.now(); ; await sleep(100)) {
      try {
        await query('SELECT 1');
        return;
      } catch (err) {
        if (Date.now() - since > 30_000) throw new Error(`the replica does not answer: ${(err as Error).message}`);
      }
    }
  };
  const stop = async () => {
    await asPostgres(`${PG_BIN}/pg_ctl`, ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
  };
  await start();
  return {
    port,
    url,
    query,
    pauseReplay: async () => void (await query('SELECT pg_wal_replay_pause()')),
    resumeReplay: async () => void (await query('SELECT pg_wal_replay_resume()')),
    stop,
    start,
    output: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-20_000) : ''),
    async close() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function ownerOfPostgres(): [number, number] {
  const st = fs.statSync(PRIMARY_SOCKET);
  return [st.uid, st.gid];
}
