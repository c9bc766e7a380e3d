// PgBouncer in transaction mode in front of the test Postgres (TEST_POSTGRES_URL), as
// docs/operations.md sets it up for several instances: Debian's pgbouncer (1.18, without named
// prepared statements), listening on a free loopback port, with its configuration, auth file and
// log in a temporary directory. It runs in the foreground as a child of the test; as root (CI),
// as the postgres user, since pgbouncer refuses to run as root.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, sleep } from './process';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** The pooled URL of `database` (a database of TEST_POSTGRES_URL's server), with its user and password. */
  url(database: string): string;
  /** What pgbouncer logged. */
  output(): string;
  close(): Promise<void>;
}

/**
 * Starts pgbouncer with pool_mode = transaction and `poolSize` server connections per database
 * and user (default_pool_size), pooling every database of the server behind `adminUrl`.
 */
export async function startPgBouncer(adminUrl: string, opts: { poolSize?: number } = {}): Promise<PgBouncer> {
  const server = new URL(adminUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-pgbouncer-'));
  const port = await freePort();
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `${quote(user)} ${quote(password)}\n`, { mode: 0o600 });
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      // Clients authenticate to pgbouncer with the password of the auth file, which pgbouncer
      // also uses to log in to Postgres (a plain-text password serves md5 and SCRAM alike).
      `auth_type = ${password ? 'md5' : 'trust'}`,
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.poolSize ?? 10}`,
      'max_client_conn = 1000',
      // What each Shortlink process's pools keep open is idle most of the time (docs/operations.md).
      'server_idle_timeout = 60',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) spawnSync('chown', ['-R', 'postgres', dir]);
  const child: ChildProcess = spawn(
    PGBOUNCER,
    [...(asRoot ? ['-u', 'postgres'] : []), path.join(dir, 'pgbouncer.ini')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  const keep = (d: string) => {
    log = (log + d).slice(-20_000);
  };
  child.stdout!.setEncoding('utf8').on('data', keep);
  child.stderr!.setEncoding('utf8').on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited before listening:\n${log}`);
    const listening = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (listening) break;
    if (Date.now() - started > 10_000) {
      await close();
      throw new Error(`pgbouncer did not listen on ${port} within 10 s:\n${log}`);
    }
    await sleep(50);
  }
  return {
    port,
    url(database) {
      const u = new URL(adminUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      u.pathname = `/${database}`;
      // What docs/operations.md tells an operator to add: no named statements through it.
      u.searchParams.set('pgbouncer', 'true');
      return u.toString();
    },
    output: () => log,
    close,
  };
}
