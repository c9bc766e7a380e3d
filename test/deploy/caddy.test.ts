// HTTPS for custom domains, on demand (docs/operations.md), end to end: Debian's caddy with
// deploy/caddy/Caddyfile in front of a `shortlink serve` instance (TLS=off TRUST_PROXY=1) on a
// SQLite file, getting its certificates from pebble, Let's Encrypt's ACME test server, in place
// of Let's Encrypt. The Caddyfile is the production file: the test only sets the environment
// variables of its {$SHORTLINK_...:default} placeholders (free ports, pebble's directory, the
// instance's address, no admin endpoint) and Caddy's home to the test's directory. Pebble
// validates every challenge without looking (PEBBLE_VA_ALWAYS_VALID), so the one thing between a
// name and a certificate is the service's answer to Caddy's ask (GET /tls/ask).
//
// SQLite is for one process (docs/operations.md), so one instance stands for both upstreams. Four
// names get a certificate, within the Caddyfile's on_demand_tls burst (10 a minute); refusals do
// not count against it.
//
// Without caddy or pebble the suite is skipped with a warning locally and fails in CI (CI=true),
// as test/deploy/nginx.test.ts does: `.ci/run` installs them.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateLatest, openDatabase, type Database } from '../../src/db/knex';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { generateDevCertificate } from '../../src/start/tls';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { freePort, skippedWithout, sleep, spawnServe, stopChild, type ServeProcess } from '../support/process';
import { seedWorkspace, type Seeded } from '../support/seed';
import { readResponse, requestPayload, type RequestOptions, type TestResponse } from '../support/server';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CADDYFILE = path.join(ROOT, 'deploy/caddy/Caddyfile');
const CADDY = '/usr/bin/caddy';
const PEBBLE = '/usr/bin/pebble';
const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
/** SHORT_DOMAIN, and the host of PUBLIC_URL. */
const SHORT_HOST = 'sho.test';
const APP_HOST = 'app.sho.test';
/** Verified. */
const CUSTOM_HOST = 'go.customer.test';
/** Added, never verified. */
const PENDING_HOST = 'pending.customer.test';
/** Verified, then disabled before anyone visits it. */
const DISABLED_HOST = 'off.customer.test';
/** No workspace has it. */
const UNKNOWN_HOST = 'unknown.test';

const missing = [
  !fs.existsSync(CADDY) && `caddy (${CADDY}; apt-get install caddy)`,
  !fs.existsSync(PEBBLE) && `pebble (${PEBBLE}; apt-get install pebble)`,
].filter((m): m is string => !!m);
const skipped = skippedWithout('test/deploy/caddy.test.ts', missing);

/** A child process and everything it wrote. */
interface Child {
  child: ChildProcess;
  output(): string;
}

/** What a TLS client got from Caddy for a server name: a certificate, or the handshake's failure. */
type Handshake = { subjectAltName: string; issuer: string } | { error: string };

describe.skipIf(skipped)('Caddy with on-demand TLS from pebble (deploy/caddy/Caddyfile)', () => {
  let dir: string;
  let database: TestDatabase | undefined;
  let db: Database | undefined;
  let instance: ServeProcess | undefined;
  const instanceLines: string[] = [];
  let pebble: Child | undefined;
  let caddy: Child | undefined;
  let pebbleTlsCert: string;
  /** Pebble's issuing root: the only root the test's TLS clients trust. */
  let pebbleRoot: string;
  let httpPort: number;
  let httpsPort: number;
  let owner: Seeded;
  let customDomainId: string;
  let disabledDomainId: string;
  const children = new Set<ChildProcess>();
  // A test run that dies (an interrupted vitest) must not leave caddy, pebble or the instance behind.
  const killChildren = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };

  /** Ports no one else uses in this run. */
  async function freePorts(n: number): Promise<number[]> {
    const ports = new Set<number>();
    while (ports.size < n) ports.add(await freePort());
    return [...ports];
  }

  function startChild(command: string, args: string[], env: Record<string, string>): Child {
    const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d) => (out += d));
    return { child, output: () => out };
  }

  /** The environment Caddy runs with: its placeholders set for the test, its home in the test's directory. */
  function caddyEnv(placeholders: Record<string, string>): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      XDG_DATA_HOME: path.join(dir, 'caddy-data'),
      XDG_CONFIG_HOME: path.join(dir, 'caddy-config'),
      ...placeholders,
    };
  }

  /** Polls until `probe` resolves, failing early with the child's output if it exits. */
  async function waitFor(name: string, c: Child, probe: () => Promise<boolean>, timeoutMs = 20_000) {
    const { child } = c;
    const start = Date.now();
    let last = 'no answer';
    while (Date.now() - start < timeoutMs) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}):\n${c.output()}`);
      try {
        if (await probe()) return;
      } catch (err) {
        last = (err as Error).message;
      }
      await sleep(100);
    }
    throw new Error(`${name} did not answer within ${timeoutMs} ms (${last}):\n${c.output()}`);
  }

  interface Call extends RequestOptions {
    port: number;
    path: string;
    method?: string;
    /** HTTPS with this server name and Host, trusting pebble's root only; plain HTTP without. */
    servername?: string;
    host: string;
    ca?: string;
  }

  function call(o: Call): Promise<TestResponse> {
    const headers: Record<string, string> = { host: o.host, 'user-agent': PERSON, ...o.headers };
    const payload = requestPayload(o, headers);
    const options = {
      host: '127.0.0.1',
      port: o.port,
      method: o.method ?? 'GET',
      path: o.path,
      headers,
      agent: false as const,
      ...(o.servername ? { servername: o.servername, ca: o.ca ?? pebbleRoot } : {}),
    };
    return new Promise((resolve, reject) => {
      const req = (o.servername ? https : http).request(options, (res) => readResponse(res, resolve));
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error(`no answer to ${options.method} ${o.path} within 30 s`)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
  /** Through Caddy over HTTPS, as a visitor of `host` (server name and Host header). */
  const viaCaddy = (host: string, method: string, p: string, o: RequestOptions = {}) =>
    call({ ...o, method, path: p, port: httpsPort, host, servername: host });

  /** A TLS handshake with Caddy for `servername`, accepting only a certificate chained to pebble's root. */
  function handshake(servername: string): Promise<Handshake> {
    return new Promise((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port: httpsPort, servername, ca: pebbleRoot });
      socket.setTimeout(30_000, () => socket.destroy(new Error(`no handshake for ${servername} within 30 s`)));
      socket.once('secureConnect', () => {
        const cert = socket.getPeerCertificate();
        resolve({ subjectAltName: cert.subjectaltname ?? '', issuer: String(cert.issuer.CN) });
        socket.end();
      });
      socket.once('error', (err) => resolve({ error: err.message }));
    });
  }

  /** The names Caddy holds a certificate for, in its storage. */
  function heldCertificates(): string[] {
    const base = path.join(dir, 'caddy-data', 'caddy', 'certificates');
    if (!fs.existsSync(base)) return [];
    return fs
      .readdirSync(base)
      .flatMap((issuer) => fs.readdirSync(path.join(base, issuer)))
      .sort();
  }

  /** The status the instance answered Caddy's ask for `name` with, from its request log lines. */
  function askAnswers(name: string): number[] {
    const asked = new RegExp(`GET /tls/ask\\?domain=${name.replace(/\./g, '\\.')} (\\d{3})`);
    return instanceLines.flatMap((l) => {
      const m = asked.exec(String(safeJson(l)?.msg ?? ''));
      return m ? [Number(m[1])] : [];
    });
  }
  const safeJson = (line: string) => {
    try {
      return JSON.parse(line);
    } catch {
      return undefined;
    }
  };

  /** Waits for the instance's log line of its latest answer to an ask for `name` (written as it answers). */
  const expectLastAnswer = (name: string, status: number) =>
    expect.poll(() => askAnswers(name).at(-1), { timeout: 5_000 }).toBe(status);

  async function makeLink(slug: string, url: string, domainId?: string) {
    // The API on the dashboard's host, through Caddy: its certificate comes on demand too.
    const r = await viaCaddy(APP_HOST, 'POST', '/api/v1/links', { key: owner.key, body: { url, slug, domainId } });
    expect(r.status, r.text).toBe(201);
  }

  /** Expects no certificate for `name`: the handshake fails, the service said no, pebble issued nothing. */
  async function expectRefused(name: string) {
    const got = await handshake(name);
    expect(got, name).toEqual({ error: expect.stringMatching(/alert internal error/) });
    await expectLastAnswer(name, 404);
    expect(askAnswers(name).every((s) => s === 404)).toBe(true);
    expect(heldCertificates()).not.toContain(name);
    // Pebble names an identifier when it validates a challenge for it: it was never asked.
    expect(pebble!.output()).not.toContain(`"${name}"`);
  }

  beforeAll(async () => {
    if (missing.length) throw new Error(`CI needs ${missing.join(', ')}: .ci/run installs them`);
    process.once('exit', killChildren);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-caddy-'));
    let pebblePort: number;
    let pebbleManagementPort: number;
    let instancePort: number;
    [httpPort, httpsPort, pebblePort, pebbleManagementPort, instancePort] = await freePorts(5);

    // Pebble, with a certificate of its own for its HTTPS on 127.0.0.1.
    const pebbleTls = await generateDevCertificate();
    pebbleTlsCert = path.join(dir, 'pebble-cert.pem');
    const pebbleTlsKey = path.join(dir, 'pebble-key.pem');
    fs.writeFileSync(pebbleTlsCert, pebbleTls.cert);
    fs.writeFileSync(pebbleTlsKey, pebbleTls.key, { mode: 0o600 });
    const pebbleConfig = path.join(dir, 'pebble.json');
    fs.writeFileSync(
      pebbleConfig,
      JSON.stringify({
        pebble: {
          listenAddress: `127.0.0.1:${pebblePort}`,
          managementListenAddress: `127.0.0.1:${pebbleManagementPort}`,
          certificate: pebbleTlsCert,
          privateKey: pebbleTlsKey,
          // Where pebble would validate challenges; it does not (PEBBLE_VA_ALWAYS_VALID).
          httpPort: httpPort,
          tlsPort: httpsPort,
          ocspResponderURL: '',
          externalAccountBindingRequired: false,
        },
      }),
    );
    pebble = startChild(PEBBLE, ['-config', pebbleConfig], {
      PATH: process.env.PATH ?? '',
      PEBBLE_VA_ALWAYS_VALID: '1',
      PEBBLE_VA_NOSLEEP: '1',
      PEBBLE_WFE_NONCEREJECT: '0',
      // Every order validates its names afresh, so that pebble's log names each (expectRefused).
      PEBBLE_AUTHZREUSE: '0',
    });

    database = await createTestDatabase('sqlite');
    db = openDatabase(database.url);
    // Migrated here, as `shortlink migrate` (shortlink-migrate.service) does before the instance starts.
    await migrateLatest(db);
    owner = await seedWorkspace(db.knex);
    customDomainId = await addDomain(db.knex, owner.workspaceId, CUSTOM_HOST);
    await setDomainStatus(db.knex, customDomainId, 'ACTIVE');
    await addDomain(db.knex, owner.workspaceId, PENDING_HOST);
    disabledDomainId = await addDomain(db.knex, owner.workspaceId, DISABLED_HOST);
    await setDomainStatus(db.knex, disabledDomainId, 'ACTIVE');
    await setDomainStatus(db.knex, disabledDomainId, 'DISABLED');

    instance = spawnServe({
      DATABASE_URL: database.url,
      DATA_DIR: path.join(dir, 'data'),
      HOST: '127.0.0.1',
      PORT: String(instancePort),
      PUBLIC_URL: `https://${APP_HOST}`,
      SHORT_DOMAIN: SHORT_HOST,
      TLS: 'off',
      TRUST_PROXY: '1',
      LOG_LEVEL: 'info',
    });
    children.add(instance.child);
    let partial = '';
    instance.child.stdout!.on('data', (d: string) => {
      const parts = (partial + d).split('\n');
      partial = parts.pop()!;
      instanceLines.push(...parts);
    });

    await waitFor('pebble', pebble, async () => {
      pebbleRoot = (
        await call({
          port: pebbleManagementPort,
          path: '/roots/0',
          host: '127.0.0.1',
          servername: 'localhost',
          ca: pebbleTls.cert,
        })
      ).text;
      return pebbleRoot.startsWith('-----BEGIN CERTIFICATE-----');
    });
    await waitFor(
      'the instance',
      instance,
      async () =>
        (await call({ port: instancePort, path: '/healthz', host: `127.0.0.1:${instancePort}` })).status === 200,
      45_000,
    );

    const upstream = `127.0.0.1:${instancePort}`;
    caddy = startChild(
      CADDY,
      ['run', '--adapter', 'caddyfile', '--config', CADDYFILE],
      caddyEnv({
        SHORTLINK_HTTP_PORT: String(httpPort),
        SHORTLINK_HTTPS_PORT: String(httpsPort),
        SHORTLINK_CADDY_ADMIN: 'off',
        SHORTLINK_ACME_CA: `https://127.0.0.1:${pebblePort}/dir`,
        SHORTLINK_TLS_ASK: `http://${upstream}/tls/ask`,
        SHORTLINK_UPSTREAM_A: upstream,
        SHORTLINK_UPSTREAM_B: upstream,
        // Go's roots (Caddy's, for its ACME client): pebble's own HTTPS certificate only.
        SSL_CERT_FILE: pebbleTlsCert,
      }),
    );
    await waitFor(
      'caddy',
      caddy,
      async () => (await call({ port: httpPort, path: '/', host: CUSTOM_HOST })).status === 308,
    );
  });

  afterAll(async () => {
    // Each step on its own, so that one failing leaves nothing else behind.
    const steps: Array<() => Promise<unknown>> = [
      async () => caddy && stopChild(caddy.child, 'SIGTERM', 5_000),
      async () => instance && stopChild(instance.child, 'SIGTERM', 15_000),
      async () => pebble && stopChild(pebble.child, 'SIGTERM', 5_000),
      async () => db?.knex.destroy(),
      async () => database?.drop(),
      async () => dir && fs.rmSync(dir, { recursive: true, force: true }),
    ];
    for (const step of steps) await step().catch((err) => console.error('cleanup of the caddy test:', err));
    process.removeListener('exit', killChildren);
  });

  it('means the production setup with no variable set, and is as caddy fmt writes it', () => {
    const adapt = spawnSync(CADDY, ['adapt', '--adapter', 'caddyfile', '--config', CADDYFILE], {
      encoding: 'utf8',
      env: caddyEnv({}),
    });
    expect(adapt.status, adapt.stderr).toBe(0);
    expect(adapt.stderr).not.toMatch(/"level":"warn"/);
    const fmt = spawnSync(CADDY, ['fmt', CADDYFILE], { encoding: 'utf8', env: caddyEnv({}) });
    expect(fmt.stdout).toBe(fs.readFileSync(CADDYFILE, 'utf8'));
    const config = JSON.parse(adapt.stdout);
    expect(config.admin.listen).toBe('localhost:2019');
    expect(config.apps.http).toMatchObject({ http_port: 80, https_port: 443 });
    const automation = config.apps.tls.automation;
    expect(automation.on_demand.ask).toBe('http://127.0.0.1:8081/tls/ask');
    // Let's Encrypt first and ZeroSSL after it, as Caddy's default issuers are.
    expect(automation.policies[0].issuers.map((i: { module: string; ca?: string }) => [i.module, i.ca])).toEqual([
      ['acme', 'https://acme-v02.api.letsencrypt.org/directory'],
      ['zerossl', undefined],
    ]);
    expect(JSON.stringify(config.apps.http.servers)).toContain(
      '"upstreams":[{"dial":"127.0.0.1:8081"},{"dial":"127.0.0.1:8082"}]',
    );
  });

  // The Caddyfile's http:// site; Caddy 2.6's automatic redirects answer the same without it, so
  // this fails only when plain HTTP is served (a reverse_proxy there) or not redirected at all.
  it('redirects plain HTTP to HTTPS on the same name (308), without asking the instance', async () => {
    for (const p of ['/go', '/app/login?next=%2Fapp%2F']) {
      const r = await call({ port: httpPort, path: p, host: `${CUSTOM_HOST}:${httpPort}` });
      expect(r.status, p).toBe(308);
      // The port of the visit is not carried over: production's HTTPS port is 443.
      expect(r.headers.location, p).toBe(`https://${CUSTOM_HOST}${p}`);
      expect(r.headers['x-service-request-id']).toBeUndefined();
    }
  });

  it("gets the short domain and the dashboard's host a certificate from pebble on their first visit", async () => {
    for (const name of [SHORT_HOST, APP_HOST]) {
      expect(heldCertificates()).not.toContain(name);
      const got = await handshake(name);
      expect(got, name).toEqual({ subjectAltName: `DNS:${name}`, issuer: expect.stringMatching(/^Pebble/) });
      await expectLastAnswer(name, 200);
      expect(heldCertificates()).toContain(name);
    }
    await makeLink('short', 'https://example.com/short');
    const r = await viaCaddy(SHORT_HOST, 'GET', '/short');
    expect(r.status, r.text).toBe(302);
    expect(r.headers.location).toBe('https://example.com/short');
  });

  it('gets a verified custom domain a certificate on its first visit, and redirects its links', async () => {
    await makeLink('go', 'https://example.com/custom', customDomainId);
    expect(heldCertificates()).not.toContain(CUSTOM_HOST);
    expect(await handshake(CUSTOM_HOST)).toEqual({
      subjectAltName: `DNS:${CUSTOM_HOST}`,
      issuer: expect.stringMatching(/^Pebble/),
    });
    await expectLastAnswer(CUSTOM_HOST, 200);
    expect(pebble!.output()).toContain(`"${CUSTOM_HOST}"`);
    for (let n = 0; n < 2; n++) {
      const r = await viaCaddy(CUSTOM_HOST, 'GET', '/go');
      expect(r.status, r.text).toBe(302);
      expect(r.headers.location).toBe('https://example.com/custom');
    }
    // The link is the custom domain's only: the short domain has no /go.
    expect((await viaCaddy(SHORT_HOST, 'GET', '/go')).status).toBe(404);
  });

  it('gets no certificate for an unknown name, nor for a domain added and not verified', async () => {
    await expectRefused(UNKNOWN_HOST);
    await expectRefused(PENDING_HOST);
  });

  it('gets none for a verified domain disabled in the dashboard, and one once it is enabled again', async () => {
    await expectRefused(DISABLED_HOST);
    // As the dashboard or `shortlink domain verify` does: the next question is answered yes.
    await setDomainStatus(db!.knex, disabledDomainId, 'ACTIVE');
    expect(await handshake(DISABLED_HOST)).toEqual({
      subjectAltName: `DNS:${DISABLED_HOST}`,
      issuer: expect.stringMatching(/^Pebble/),
    });
    await expectLastAnswer(DISABLED_HOST, 200);
  });
});
