// The container image (Dockerfile), built and run as an operator does: with podman (Debian's
// podman and runc), from the Dockerfile at the root, with its data directory on a volume. The
// image is built once (podman's layer cache makes a second build quick); each container runs on
// the host's network at a free port, with the image's defaults otherwise (HTTPS with the
// certificate it makes in /data, SQLite in /data).
//
// CI builds the base image (node:20-bookworm-slim) locally, since no registry is reachable from it
// (.ci/node-base-image.sh), and runs podman with .ci/containers.conf (CONTAINERS_CONF). Without
// podman or that base image the suite is skipped with a warning locally and fails in CI.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { openDatabase } from '../../src/db/knex';
import { migrationSource } from '../../src/db/migrations/index';
import { createWorkspace } from '../../src/db/repos/workspaces';
import { freePort, hasCommand, skippedWithout, sleep } from '../support/process';
import { httpsRequest, type RequestOptions, type TestResponse } from '../support/server';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const IMAGE = 'localhost/shortlink:test';
const BASE = 'docker.io/library/node:20-bookworm-slim';
const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
/** The image's user (the base image's `node`), who must own the data directory. */
const NODE_UID = 1000;

const hasPodman = hasCommand('podman');
const hasBase = hasPodman && spawnSync('podman', ['image', 'exists', BASE]).status === 0;
const missing = [
  !hasPodman && 'podman (apt-get install podman runc)',
  !hasCommand('docker-compose') && 'docker-compose (apt-get install --no-install-recommends docker-compose)',
  hasPodman && !hasBase && `the base image ${BASE} (.ci/node-base-image.sh builds it)`,
].filter((m): m is string => !!m);
const skipped = skippedWithout('test/deploy/container.test.ts', missing);

async function podman(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('podman', args, { maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`podman ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

/** `shortlink <args>` run in a running container: its one JSON line. */
const cliIn = async (name: string, ...args: string[]) =>
  JSON.parse(await podman('exec', name, 'node', 'bin/shortlink.mjs', ...args));
const logsOf = (name: string) => podman('logs', name).catch((e) => String(e));

/** A data directory on the host, mounted at /data, owned by the image's user as a new volume is. */
function volume(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `shortlink-container-${name}-`));
  fs.chownSync(dir, NODE_UID, NODE_UID);
  return dir;
}

function chownTree(p: string) {
  fs.chownSync(p, NODE_UID, NODE_UID);
  if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p)) chownTree(path.join(p, e));
}

interface Container {
  name: string;
  port: number;
  dataDir: string;
  /** The certificate the service made in /data, to trust. */
  ca(): string;
  request(method: string, pathname: string, opts?: RequestOptions): Promise<TestResponse>;
  /** Runs `shortlink <args>` in the running container; its one JSON line. */
  cli(...args: string[]): Promise<any>;
  logs(): Promise<string>;
}

describe.skipIf(skipped)('the container image (Dockerfile) under podman', () => {
  const started = new Set<string>();
  const dirs: string[] = [];
  let sizes: { image: number; base: number };

  async function start(name: string, dataDir: string, env: Record<string, string> = {}): Promise<Container> {
    const port = await freePort();
    const fullName = `shortlink-test-${name}-${process.pid}`;
    const envArgs = Object.entries({ PORT: String(port), PUBLIC_URL: `https://localhost:${port}`, ...env }).flatMap(
      ([k, v]) => ['-e', `${k}=${v}`],
    );
    await podman('run', '-d', '--name', fullName, '--network', 'host', ...envArgs, '-v', `${dataDir}:/data`, IMAGE);
    started.add(fullName);
    const c: Container = {
      name: fullName,
      port,
      dataDir,
      ca: () => fs.readFileSync(path.join(dataDir, 'dev-cert.pem'), 'utf8'),
      request: (method, pathname, opts) => httpsRequest(`https://localhost:${port}`, c.ca(), method, pathname, opts),
      cli: (...args) => cliIn(fullName, ...args),
      logs: () => logsOf(fullName),
    };
    await waitHealthy(fullName);
    return c;
  }

  /** Until the image's own HEALTHCHECK says healthy (podman runs it on demand: exit 0). */
  async function waitHealthy(name: string, timeoutMs = 60_000) {
    const until = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < until) {
      const r = spawnSync('podman', ['healthcheck', 'run', name], { encoding: 'utf8' });
      if (r.status === 0) return;
      last = `${r.stdout}${r.stderr}`;
      const state = spawnSync('podman', ['inspect', '-f', '{{.State.Running}}', name], { encoding: 'utf8' });
      if (state.stdout.trim() === 'false') throw new Error(`container ${name} exited:\n${await logsOf(name)}`);
      await sleep(250);
    }
    throw new Error(`container ${name} not healthy within ${timeoutMs} ms (${last}):\n${await logsOf(name)}`);
  }

  async function stop(c: Container): Promise<{ exitCode: number; logs: string }> {
    // What `docker stop` does: SIGTERM, then SIGKILL after the grace period.
    await podman('stop', '-t', '30', c.name);
    const exitCode = Number((await podman('inspect', '-f', '{{.State.ExitCode}}', c.name)).trim());
    const logs = await c.logs();
    await podman('rm', c.name);
    started.delete(c.name);
    return { exitCode, logs };
  }

  beforeAll(async () => {
    await podman('build', '--pull=never', '--network', 'host', '--format', 'docker', '-t', IMAGE, ROOT);
    const size = async (image: string) => Number((await podman('image', 'inspect', '-f', '{{.Size}}', image)).trim());
    sizes = { image: await size(IMAGE), base: await size(BASE) };
    console.log(
      `image ${IMAGE}: ${(sizes.image / 1e6).toFixed(0)} MB, of which the base ${(sizes.base / 1e6).toFixed(0)} MB`,
    );
  }, 20 * 60_000);

  afterAll(async () => {
    for (const name of started) spawnSync('podman', ['rm', '-f', '-t', '0', name]);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('runs as a user other than root, with /data as its volume, a healthcheck and the service as entry point', async () => {
    const [inspected] = JSON.parse(await podman('image', 'inspect', IMAGE));
    const config = inspected.Config;
    expect(config.User).toBe('node');
    expect(Object.keys(config.Volumes ?? {})).toEqual(['/data']);
    expect(config.Env).toEqual(expect.arrayContaining(['DATA_DIR=/data', 'PORT=8443']));
    expect(config.Entrypoint).toEqual(['node', '--min-semi-space-size=16', 'bin/shortlink.mjs']);
    expect(config.Cmd).toEqual(['serve']);
    expect(inspected.Healthcheck.Test).toEqual(['CMD', 'node', 'deploy/container/healthcheck.mjs']);
    // Only what serve reads is shipped: no sources, tests or build tools.
    const listing = await podman(
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'ls -A /app; command -v g++ || true',
    );
    expect(listing.trim().split('\n').sort()).toEqual(
      ['bin', 'deploy', 'dist', 'generated', 'node_modules', 'package.json', 'src'].sort(),
    );
    // What the layers of this image add to the base: the service and its production
    // dependencies, the IP-location data (131 MB) the biggest of them.
    expect(sizes.image - sizes.base).toBeLessThan(250e6);
  });

  it('makes a link through the API, follows it, and keeps both and the click on its volume across a SIGTERM', async () => {
    const dataDir = volume('data');
    dirs.push(dataDir);
    // Clicks written only when the process stops: SIGTERM must flush them.
    let c = await start('first', dataDir, { CLICK_FLUSH_MS: '600000' });
    expect((await podman('exec', c.name, 'id', '-u')).trim()).toBe(String(NODE_UID));

    const workspace = await c.cli('workspace', 'create', '--name', 'Container Co');
    const member = await c.cli(
      'member',
      'add',
      '--workspace',
      workspace.id,
      '--email',
      'ops@container.test',
      '--role',
      'OWNER',
    );
    const key = await c.cli(
      'key',
      'create',
      '--workspace',
      workspace.id,
      '--user',
      member.id,
      '--scopes',
      'links:read,links:write',
    );
    const made = await c.request('POST', '/api/v1/links', {
      key: key.key,
      body: { url: 'https://example.com/from-a-container', slug: 'boxed' },
    });
    expect(made.status, made.text).toBe(201);
    const visit = await c.request('GET', '/boxed', { headers: { 'user-agent': PERSON } });
    expect(visit.status).toBe(302);
    expect(visit.headers.location).toBe('https://example.com/from-a-container');

    const stopped = await stop(c);
    expect(stopped.exitCode, stopped.logs).toBe(0);
    // Everything the service wrote in /data is the image user's, on the host too.
    for (const f of fs.readdirSync(dataDir)) expect(fs.statSync(path.join(dataDir, f)).uid, f).toBe(NODE_UID);

    c = await start('again', dataDir);
    const link = await c.request('GET', `/api/v1/links/${made.body.data.id}`, { key: key.key });
    expect(link.status, link.text).toBe(200);
    expect(link.body.data).toMatchObject({
      slug: 'boxed',
      originalUrl: 'https://example.com/from-a-container',
      clicks: 1,
    });
    const again = await c.request('GET', '/boxed', { headers: { 'user-agent': PERSON } });
    expect(again.headers.location).toBe('https://example.com/from-a-container');
    await stop(c);
  }, 180_000);

  it("starts on an earlier release's volume: migrates it once while a command runs beside it, keeping its data", async () => {
    const dataDir = volume('upgrade');
    dirs.push(dataDir);
    // The volume as an earlier release left it: its migrations (all but the newest three) and a workspace.
    const file = path.join(dataDir, 'shortlink.db');
    const old = openDatabase(`sqlite:${file}`, { poolMax: 1 });
    const earlier: Knex.MigrationSource<string> = {
      ...migrationSource,
      getMigrations: async (ext) => (await migrationSource.getMigrations(ext)).slice(0, -3),
    };
    await old.knex.migrate.latest({ migrationSource: earlier });
    const workspaceId = await createWorkspace(old.knex, 'Older Co', 'growth');
    await old.knex.destroy();
    chownTree(dataDir);

    // The new image's service and one of its commands start together on that volume.
    const port = await freePort();
    const [service, listed] = await Promise.all([
      start('upgraded', dataDir, { PORT: String(port), PUBLIC_URL: `https://localhost:${port}` }),
      podman('run', '--rm', '--network', 'host', '-v', `${dataDir}:/data`, IMAGE, 'workspace', 'list'),
    ]);
    expect(JSON.parse(listed).data).toEqual([expect.objectContaining({ id: workspaceId, name: 'Older Co' })]);
    expect(await service.cli('workspace', 'list')).toEqual({
      data: [expect.objectContaining({ id: workspaceId, name: 'Older Co' })],
    });

    const db = openDatabase(`sqlite:${file}`, { poolMax: 1 });
    try {
      const rows = await db.knex('knex_migrations').select('name', 'batch');
      expect(rows.map((r) => r.name).sort()).toEqual(await migrationSource.getMigrations([]));
      // The newer three in one batch after the earlier release's: run once, by whichever started first.
      expect(new Set(rows.map((r) => r.batch))).toEqual(new Set([1, 2]));
    } finally {
      await db.knex.destroy();
    }
    await stop(service);
  }, 180_000);
  it('compose.yaml: `docker compose up` on podman starts the SQLite instance alone, on a new volume', async () => {
    // What `podman compose` does with docker-compose as its provider: docker-compose against
    // podman's Docker-compatible API, on a socket of this test's own.
    const socket = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-compose-')), 'podman.sock');
    dirs.push(path.dirname(socket));
    const service: ChildProcess = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
      stdio: 'ignore',
    });
    const project = `shortlinktest${process.pid}`;
    const port = await freePort();
    const env = {
      ...process.env,
      DOCKER_HOST: `unix://${socket}`,
      SHORTLINK_IMAGE: IMAGE,
      SHORTLINK_PORT: String(port),
      PUBLIC_URL: `https://localhost:${port}`,
    };
    const compose = async (...args: string[]) => {
      try {
        return (await run('docker-compose', ['-p', project, '-f', path.join(ROOT, 'compose.yaml'), ...args], { env }))
          .stdout;
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string; message: string };
        throw new Error(`docker-compose ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
      }
    };
    try {
      // The profiles as Compose resolves them: Caddy's settings are the Caddyfile's placeholders,
      // its ask carries the token the instances check, and both instances share one database
      // and one data volume behind it.
      const resolved = YAML.parse(await compose('--profile', 'caddy', 'config')).services;
      const caddyfile = fs.readFileSync(path.join(ROOT, 'deploy/caddy/Caddyfile'), 'utf8');
      for (const name of Object.keys(resolved.caddy.environment)) expect(caddyfile).toContain(`{$${name}:`);
      const [a, b] = [resolved['shortlink-a'], resolved['shortlink-b']];
      expect(resolved.caddy.environment.SHORTLINK_TLS_ASK).toBe(
        `http://shortlink-a:${a.environment.PORT}/tls/ask?token=${a.environment.TLS_ASK_TOKEN}`,
      );
      expect([
        resolved.caddy.environment.SHORTLINK_UPSTREAM_A,
        resolved.caddy.environment.SHORTLINK_UPSTREAM_B,
      ]).toEqual([`shortlink-a:${a.environment.PORT}`, `shortlink-b:${b.environment.PORT}`]);
      for (const instance of [a, b]) {
        expect(instance.environment).toMatchObject({ TLS: 'off', TRUST_PROXY: '1' });
        expect(instance.environment.DATABASE_URL).toMatch(/^postgres:\/\/shortlink:[^@]+@postgres:5432\/shortlink$/);
      }
      expect(a.environment.DATABASE_URL).toBe(b.environment.DATABASE_URL);
      expect(a.volumes).toEqual(b.volumes);

      for (let waited = 0; !fs.existsSync(socket); waited += 100) {
        if (waited > 20_000) throw new Error('podman system service made no socket within 20 s');
        await sleep(100);
      }
      await compose('up', '-d');
      // The profiles' services (Postgres, the two instances on it, Caddy) stay out of a plain `up`.
      const names = (
        await podman('ps', '-a', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Names}}')
      )
        .trim()
        .split('\n');
      expect(names).toEqual([`${project}_shortlink_1`]);
      await waitHealthy(names[0]);
      // Published on the port asked for, in HTTPS with the certificate it made in its volume.
      const ca = await podman('exec', names[0], 'cat', '/data/dev-cert.pem');
      const health = await httpsRequest(`https://localhost:${port}`, ca, 'GET', '/healthz');
      expect(health.status).toBe(200);
      expect(await cliIn(names[0], 'workspace', 'list')).toEqual({ data: [] });
    } finally {
      await compose('down', '-v', '-t', '30').catch((e) => console.error(String(e)));
      service.kill();
    }
  }, 180_000);
});
