// The deployment of docs/operations.md, end to end: Debian's nginx with deploy/nginx/shortlink.conf
// (rendered by deploy/nginx/render.sh, as the guide renders it, with free ports, a self-signed
// certificate and a temporary directory) in front of two `shortlink serve` processes on one
// Postgres database, each with TLS=off TRUST_PROXY=1, the same MASTER_KEY and the same DATA_DIR.
// Every request of a check goes through nginx, except those that show what an instance does
// without it. nginx runs unprivileged with its prefix, pid, logs and temporary files in the test's
// directory; the ports are free ones found at the start.
//
// Without nginx or envsubst (or Postgres) the suite is skipped with a warning locally and fails
// in CI (CI=true), as the database matrix does (test/support/global-setup.ts): `.ci/run` installs
// them.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateLatest, openDatabase, type Database } from '../../src/db/knex';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { generateDevCertificate } from '../../src/start/tls';
import { createTestDatabase, testEngines, type TestDatabase } from '../support/databases';
import { seedPerson, type Person } from '../support/dashboard';
import {
  freePort,
  hasCommand,
  skippedWithout,
  sleep,
  spawnServe,
  stopChild,
  type ServeProcess,
} from '../support/process';
import { seedWorkspace, type Seeded } from '../support/seed';
import { readResponse, requestPayload, type RequestOptions, type TestResponse } from '../support/server';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NGINX = '/usr/sbin/nginx';
const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const CUSTOM_HOST = 'go.customer.test';

const missing = [
  !fs.existsSync(NGINX) && `nginx (${NGINX}; apt-get install nginx)`,
  !hasCommand('envsubst') && 'envsubst (apt-get install gettext-base)',
  !testEngines().includes('postgres') && `Postgres (${process.env.TEST_POSTGRES_URL ?? 'TEST_POSTGRES_URL'})`,
].filter((m): m is string => !!m);
const skipped = skippedWithout('test/deploy/nginx.test.ts', missing);

/** A `shortlink serve` child and every line it wrote (its pino JSON logs included). */
interface Instance {
  name: string;
  port: number;
  proc: ServeProcess;
  lines: string[];
}

interface Nginx {
  child: ChildProcess;
  /** What nginx wrote, and its error log. */
  output(): string;
}

/** One request on a connection of its own, over HTTPS (through nginx) or plain HTTP. */
interface Call extends RequestOptions {
  port: number;
  tls?: boolean;
  /** Host header and TLS server name; `localhost:<port>` and `localhost` by default. */
  host?: string;
  servername?: string;
  /** The client's own address (any of 127.0.0.0/8), as nginx will see it. */
  localAddress?: string;
  /** Sends only the headers, with this Content-Length, and waits for an early answer. */
  declaredLength?: number;
}

describe.skipIf(skipped)('nginx in front of two instances on one Postgres (deploy/nginx/shortlink.conf)', () => {
  let dir: string;
  let database: TestDatabase | undefined;
  let db: Database | undefined;
  let ca: string;
  let httpPort: number;
  let httpsPort: number;
  let a: Instance | undefined;
  let b: Instance | undefined;
  let nginx: Nginx | undefined;
  let renderedSite: string;
  let configTest: string;
  let owner: Seeded;
  let person: Person;
  let throttled: Person;
  let customDomainId: string;
  let deployLink: { id: string };
  const children = new Set<ChildProcess>();
  // A test run that dies (an interrupted vitest) must not leave nginx or the instances behind.
  const killChildren = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };

  const dataDir = () => path.join(dir, 'data');
  const accessLog = () => path.join(dir, 'logs', 'access.log');
  const knex = () => db!.knex;

  /** The user nginx runs as: this one, or `nobody` when the tests run as root (CI's container). */
  function nginxUser(): { uid: number; gid: number } | undefined {
    if (process.getuid?.() !== 0) return undefined;
    const entry = fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('nobody:'));
    if (!entry) throw new Error('running as root and there is no user nobody to run nginx as');
    const [, , uid, gid] = entry.split(':');
    return { uid: Number(uid), gid: Number(gid) };
  }

  function chownTree(p: string, user: { uid: number; gid: number }) {
    fs.chownSync(p, user.uid, user.gid);
    if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p)) chownTree(path.join(p, e), user);
  }

  function startInstance(name: string, port: number, env: Record<string, string>): Instance {
    const proc = spawnServe({ ...env, PORT: String(port) });
    children.add(proc.child);
    const lines: string[] = [];
    let partial = '';
    proc.child.stdout!.on('data', (d: string) => {
      const parts = (partial + d).split('\n');
      partial = parts.pop()!;
      lines.push(...parts);
    });
    return { name, port, proc, lines };
  }

  /** Polls the instance's /healthz in plain HTTP (it answers without TLS and without a proxy). */
  async function waitHealthy(i: Instance, timeoutMs = 45_000) {
    const start = Date.now();
    let last = 'no answer';
    while (Date.now() - start < timeoutMs) {
      if (!i.proc.running)
        throw new Error(`instance ${i.name} exited (${JSON.stringify(await i.proc.exited)}):\n${i.proc.output()}`);
      try {
        const r = await call({ port: i.port, tls: false, path: '/healthz' });
        if (r.status === 200) return;
        last = `status ${r.status}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await sleep(100);
    }
    throw new Error(`instance ${i.name} did not answer /healthz within ${timeoutMs} ms (${last}):\n${i.proc.output()}`);
  }

  function call(o: Call & { method?: string; path: string }): Promise<TestResponse> {
    const tls = o.tls ?? true;
    const headers: Record<string, string> = { host: o.host ?? `localhost:${o.port}`, ...o.headers };
    const payload = requestPayload(o, headers);
    if (o.declaredLength !== undefined) headers['content-length'] = String(o.declaredLength);
    const options = {
      host: '127.0.0.1',
      port: o.port,
      method: o.method ?? 'GET',
      path: o.path,
      headers,
      agent: false as const,
      localAddress: o.localAddress,
      ...(tls ? { ca, servername: o.servername ?? 'localhost' } : {}),
    };
    return new Promise((resolve, reject) => {
      const req = (tls ? https : http).request(options, (res) => readResponse(res, resolve));
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error(`no answer to ${o.method ?? 'GET'} ${o.path} within 30 s`)));
      if (o.declaredLength !== undefined) {
        // nginx answers from the declared length alone; the body is never sent.
        req.flushHeaders();
        return;
      }
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
  /** Through nginx over HTTPS, as a client of the deployment. */
  const viaNginx = (method: string, p: string, o: Omit<Call, 'port'> = {}) =>
    call({ ...o, method, path: p, port: httpsPort });
  /** Through nginx's port 80. */
  const viaPlainHttp = (method: string, p: string, o: Omit<Call, 'port'> = {}) =>
    call({ ...o, method, path: p, port: httpPort, tls: false });
  /** Straight to an instance, in plain HTTP, without a proxy's headers. */
  const direct = (i: Instance, method: string, p: string, o: Omit<Call, 'port'> = {}) =>
    call({ ...o, method, path: p, port: i.port, tls: false });

  /** Which instance logged the request with this X-Service-Request-Id, and its log entry. */
  async function loggedBy(requestId: string): Promise<{ instance: string; entry: any }> {
    for (let waited = 0; waited < 3000; waited += 50) {
      for (const i of [a!, b!]) {
        const line = i.lines.find((l) => l.includes(requestId));
        if (line) return { instance: i.name, entry: JSON.parse(line) };
      }
      await sleep(50);
    }
    throw new Error(`no instance logged request ${requestId}`);
  }

  /** The upstream (instance port) nginx's access log names for each request line matching `match`. */
  function upstreamsOf(match: RegExp): number[] {
    return fs
      .readFileSync(accessLog(), 'utf8')
      .split('\n')
      .filter((l) => match.test(l))
      .map((l) => Number(/upstream=127\.0\.0\.1:(\d+)/.exec(l)?.[1]));
  }

  function setCookie(r: TestResponse, name: string): string {
    const all = ([] as string[]).concat(r.headers['set-cookie'] ?? []);
    const found = all.find((c) => c.startsWith(`${name}=`));
    if (!found)
      throw new Error(`no ${name} cookie in ${JSON.stringify(all)} (status ${r.status}: ${r.text.slice(0, 200)})`);
    return found;
  }
  const cookieFlags = (cookie: string) =>
    cookie
      .split(';')
      .slice(1)
      .map((s) => s.trim().toLowerCase());

  /** Renders the site file with the guide's script and wraps it in a main configuration of the test's own. */
  function writeNginxConfig(certFile: string, keyFile: string, acmeRoot: string): string {
    const render = spawnSync('sh', [path.join(ROOT, 'deploy/nginx/render.sh')], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        SHORTLINK_HTTP_PORT: String(httpPort),
        SHORTLINK_HTTPS_PORT: String(httpsPort),
        SHORTLINK_UPSTREAM_A: `127.0.0.1:${a!.port}`,
        SHORTLINK_UPSTREAM_B: `127.0.0.1:${b!.port}`,
        SHORTLINK_CERT: certFile,
        SHORTLINK_CERT_KEY: keyFile,
        SHORTLINK_ACME_ROOT: acmeRoot,
      },
    });
    if (render.status !== 0) throw new Error(`deploy/nginx/render.sh failed: ${render.stderr}`);
    let site = render.stdout;
    // Debian's nginx package does the same on a host without IPv6 (its default site's [::] line).
    if (!fs.readFileSync('/proc/net/if_inet6', 'utf8').includes('00000000000000000000000000000001')) {
      console.warn('!!! no IPv6 loopback here: the [::] listen lines of the site file are left out');
      site = site.replace(/^\s*listen \[::\].*$/gm, '');
    }
    fs.writeFileSync(path.join(dir, 'shortlink.conf'), site);
    const main = path.join(dir, 'nginx.conf');
    fs.writeFileSync(
      main,
      `# The test's main configuration: the http defaults of Debian's /etc/nginx/nginx.conf (mime
# types, gzip, its ssl_protocols, which the site file overrides), every path in the test's
# directory so that nginx runs unprivileged, and an access log naming the upstream of each request.
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 256; }
http {
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
    ssl_prefer_server_ciphers on;
    gzip on;
    log_format upstreams '$remote_addr "$request" $status upstream=$upstream_addr';
    access_log ${accessLog()} upstreams;
    client_body_temp_path ${dir}/temp/body;
    proxy_temp_path ${dir}/temp/proxy;
    fastcgi_temp_path ${dir}/temp/fastcgi;
    uwsgi_temp_path ${dir}/temp/uwsgi;
    scgi_temp_path ${dir}/temp/scgi;
    include ${dir}/shortlink.conf;
}
`,
    );
    renderedSite = site;
    return main;
  }

  function startNginx(main: string): Nginx {
    const user = nginxUser();
    if (user) chownTree(dir, user);
    const args = ['-p', `${dir}/`, '-c', main, '-e', path.join(dir, 'logs', 'error.log')];
    // -t first: a configuration error is reported as such, not as a process that did not answer.
    const check = spawnSync(NGINX, ['-t', ...args], { encoding: 'utf8', ...user });
    configTest = `${check.stdout}${check.stderr}`;
    if (check.status !== 0) throw new Error(`nginx -t refused the configuration:\n${configTest}\n${renderedSite}`);
    const child = spawn(NGINX, [...args, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'], ...user });
    children.add(child);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d) => (out += d));
    const errorLog = () => {
      try {
        return fs.readFileSync(path.join(dir, 'logs', 'error.log'), 'utf8');
      } catch {
        return '';
      }
    };
    return { child, output: () => `${out}${errorLog()}` };
  }

  beforeAll(async () => {
    if (missing.length) throw new Error(`CI needs ${missing.join(', ')}: .ci/run installs them`);
    process.once('exit', killChildren);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-nginx-'));
    for (const d of ['data', 'logs', 'temp', 'acme/.well-known/acme-challenge'])
      fs.mkdirSync(path.join(dir, d), { recursive: true });
    fs.writeFileSync(path.join(dir, 'acme/.well-known/acme-challenge/deploy-token'), 'deploy-token.proof');

    database = await createTestDatabase('postgres');
    db = openDatabase(database.url, { poolMax: 2 });
    // Migrated here, as `shortlink migrate` (shortlink-migrate.service) does before the instances start.
    await migrateLatest(db);
    owner = await seedWorkspace(knex());
    person = await seedPerson(knex(), owner.workspaceId, 'OWNER');
    throttled = await seedPerson(knex(), owner.workspaceId, 'MEMBER');
    customDomainId = await addDomain(knex(), owner.workspaceId, CUSTOM_HOST);
    // Verified, as `shortlink domain verify` does; no request has asked for the host yet.
    await setDomainStatus(knex(), customDomainId, 'ACTIVE');

    const cert = await generateDevCertificate([CUSTOM_HOST]);
    ca = cert.cert;
    const certFile = path.join(dir, 'cert.pem');
    const keyFile = path.join(dir, 'key.pem');
    fs.writeFileSync(certFile, cert.cert);
    fs.writeFileSync(keyFile, cert.key, { mode: 0o600 });

    httpPort = await freePort();
    do httpsPort = await freePort();
    while (httpsPort === httpPort);
    const portA = await freePort();
    let portB: number;
    do portB = await freePort();
    while ([httpPort, httpsPort, portA].includes(portB));

    // The environment file of docs/operations.md (deploy/systemd/shortlink.env), with the test's
    // database, directory and addresses.
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: dataDir(),
      MASTER_KEY: randomBytes(32).toString('hex'),
      PUBLIC_URL: `https://localhost:${httpsPort}`,
      TLS: 'off',
      TRUST_PROXY: '1',
      // debug: a request's line carries the client's address as the service sees it, which the
      // X-Forwarded-For test reads (at info a request is one short line without it).
      LOG_LEVEL: 'debug',
      CLICK_FLUSH_MS: '100',
    };
    a = startInstance('a', portA, env);
    b = startInstance('b', portB, env);
    await Promise.all([waitHealthy(a), waitHealthy(b)]);

    nginx = startNginx(writeNginxConfig(certFile, keyFile, path.join(dir, 'acme')));
    const start = Date.now();
    for (;;) {
      if (nginx.child.exitCode !== null) throw new Error(`nginx exited (${nginx.child.exitCode}):\n${nginx.output()}`);
      const r = await viaNginx('GET', '/healthz').catch(() => undefined);
      if (r?.status === 200) break;
      if (Date.now() - start > 15_000) throw new Error(`nginx did not answer within 15 s:\n${nginx.output()}`);
      await sleep(100);
    }
  });

  afterAll(async () => {
    // Each step on its own, so that one failing leaves nothing else behind.
    const steps: Array<() => Promise<unknown>> = [
      async () => nginx && stopChild(nginx.child, 'SIGTERM', 5_000),
      async () => a && stopChild(a.proc.child, 'SIGTERM', 15_000),
      async () => b && stopChild(b.proc.child, 'SIGTERM', 15_000),
      async () => db?.knex.destroy(),
      async () => database?.drop(),
      async () => dir && fs.rmSync(dir, { recursive: true, force: true }),
    ];
    for (const step of steps) await step().catch((err) => console.error('cleanup of the nginx test:', err));
    process.removeListener('exit', killChildren);
  });

  it('accepts the site file as docs/operations.md renders it, without a warning', () => {
    expect(renderedSite).not.toMatch(/\$\{SHORTLINK_/);
    expect(renderedSite).toContain(`listen ${httpsPort} ssl http2 default_server;`);
    expect(configTest).toMatch(/test is successful/);
    expect(configTest).not.toMatch(/\[(warn|emerg|alert|crit)\]/);
  });

  it('makes a link through the API over HTTPS with a Bearer key', async () => {
    const r = await viaNginx('POST', '/api/v1/links', {
      key: owner.key,
      body: { url: 'https://example.com/deploy', slug: 'deploy' },
    });
    expect(r.status, r.text).toBe(201);
    deployLink = r.body.data;
    expect(r.body.data).toMatchObject({ slug: 'deploy', originalUrl: 'https://example.com/deploy' });
    expect(r.headers['x-service-request-id']).toBeTruthy();
    expect(r.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('redirects the short link and counts the click, without a country the visitor wrote', async () => {
    const link = deployLink;
    const r = await viaNginx('GET', '/deploy', {
      headers: { 'user-agent': PERSON, 'cf-ipcountry': 'FR', 'x-country-code': 'FR' },
    });
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('https://example.com/deploy');
    expect(r.headers['cache-control']).toMatch(/no-store/);

    let clicks = 0;
    for (let waited = 0; waited < 5000 && clicks < 1; waited += 200) {
      await sleep(200);
      clicks = (await viaNginx('GET', `/api/v1/links/${link.id}`, { key: owner.key })).body.data.clicks;
    }
    expect(clicks).toBe(1);
    // The service takes a trusted proxy's country headers (a click straight to an instance, as
    // if from nginx, keeps DE); nginx clears the ones a visitor writes.
    const straight = await direct(a!, 'GET', '/deploy', {
      host: `localhost:${httpsPort}`,
      headers: { 'user-agent': PERSON, 'cf-ipcountry': 'DE' },
    });
    expect(straight.status).toBe(302);
    let countries: Array<string | null> = [];
    for (let waited = 0; waited < 5000 && countries.length < 2; waited += 100) {
      await sleep(100);
      countries = (await knex()('clicks').where({ link_id: link.id }).orderBy('id').select('country')).map(
        (c) => c.country,
      );
    }
    expect(countries).toEqual([null, 'DE']);
  });

  it('spreads requests over both instances, each logging the ones it answered', async () => {
    const served: string[] = [];
    for (let n = 0; n < 8; n++) {
      const r = await viaNginx('GET', '/readyz');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ status: 'ready' });
      served.push((await loggedBy(String(r.headers['x-service-request-id']))).instance);
    }
    expect(served.filter((s) => s === 'a').length).toBeGreaterThanOrEqual(2);
    expect(served.filter((s) => s === 'b').length).toBeGreaterThanOrEqual(2);
  });

  it("answers plain HTTP API requests with the service's own 400 and redirects everything else to HTTPS", async () => {
    const api = await viaPlainHttp('POST', '/api/v1/links', {
      key: owner.key,
      body: { url: 'https://example.com/plain', slug: 'plain' },
    });
    expect(api.status).toBe(400);
    expect(api.body).toEqual({ error: expect.stringMatching(/HTTPS is required/) });
    expect(api.headers['x-service-request-id']).toBeTruthy();
    expect(Number((await knex()('links').where({ slug: 'plain' }).count({ n: '*' }).first())!.n)).toBe(0);
    const signIn = await viaPlainHttp('POST', '/app/api/session', {
      body: { email: person.email, password: person.password },
    });
    expect(signIn.status).toBe(400);
    expect(signIn.headers['set-cookie']).toBeUndefined();

    // The port in PUBLIC_URL is 443 in production; the test's nginx listens elsewhere.
    for (const p of ['/deploy', '/app/login', '/docs']) {
      const r = await viaPlainHttp('GET', p, { headers: { 'user-agent': PERSON } });
      expect(r.status, p).toBe(301);
      expect(r.headers.location, p).toBe(`https://localhost${p}`);
    }
    const acme = await viaPlainHttp('GET', '/.well-known/acme-challenge/deploy-token');
    expect(acme.status).toBe(200);
    expect(acme.text).toBe('deploy-token.proof');
  });

  it('honours X-Forwarded-Proto: the same requests straight to an instance, without it, are refused', async () => {
    const api = await direct(a!, 'POST', '/api/v1/links', {
      key: owner.key,
      body: { url: 'https://example.com/direct', slug: 'direct' },
    });
    expect(api.status).toBe(400);
    expect(api.body.error).toMatch(/HTTPS is required/);
    const signIn = await direct(b!, 'POST', '/app/api/session', {
      body: { email: person.email, password: person.password },
    });
    expect(signIn.status).toBe(400);

    // The visitor pages' own check (the node:http path, not Express): the password form's cookie
    // is Secure only when the request came over HTTPS.
    const made = await viaNginx('POST', '/api/v1/links', {
      key: owner.key,
      body: { url: 'https://example.com/locked', slug: 'deploy-pw', password: 'open sesame 12' },
    });
    expect(made.status, made.text).toBe(201);
    const plainForm = await direct(a!, 'GET', '/deploy-pw', {
      host: `localhost:${httpsPort}`,
      headers: { 'user-agent': PERSON },
    });
    expect(plainForm.status).toBe(401);
    expect(cookieFlags(setCookie(plainForm, 'sl_csrf'))).not.toContain('secure');
    const proxiedForm = await viaNginx('GET', '/deploy-pw', { headers: { 'user-agent': PERSON } });
    expect(proxiedForm.status).toBe(401);
    expect(cookieFlags(setCookie(proxiedForm, 'sl_csrf'))).toContain('secure');
  });

  it('shares one MASTER_KEY: a password form served by one instance is accepted by the other', async () => {
    const before = upstreamsOf(/deploy-pw/).length;
    for (let round = 0; round < 2; round++) {
      const form = await viaNginx('GET', '/deploy-pw', { headers: { 'user-agent': PERSON } });
      const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)![1];
      const cookie = setCookie(form, 'sl_csrf').split(';')[0];
      const r = await viaNginx('POST', '/deploy-pw', {
        rawBody: new URLSearchParams({ csrf, password: 'open sesame 12' }).toString(),
        headers: { 'user-agent': PERSON, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(r.status, r.text.slice(0, 300)).toBe(302);
      expect(r.headers.location).toBe('https://example.com/locked');
    }
    // Each form and its answer went to different instances (nginx's round robin), which only
    // works when both sign and check the form's token with the same key.
    const [get1, post1, get2, post2] = upstreamsOf(/deploy-pw/).slice(before);
    expect(get1).not.toBe(post1);
    expect(get2).not.toBe(post2);
    // The key came from the environment: none was generated into the shared DATA_DIR.
    expect(fs.existsSync(path.join(dataDir(), 'master.key'))).toBe(false);
  });

  describe('the dashboard', () => {
    let sessionCookie: string;
    let cookie: string;
    let csrfToken: string;
    const origin = () => `https://localhost:${httpsPort}`;
    const change = (method: string, p: string, o: Omit<Call, 'port'> = {}) =>
      viaNginx(method, `/app/api/workspaces/${owner.workspaceId}${p}`, {
        ...o,
        headers: { cookie, 'x-csrf-token': csrfToken, origin: origin(), ...o.headers },
      });

    beforeAll(async () => {
      const r = await viaNginx('POST', '/app/api/session', {
        body: { email: person.email, password: person.password },
      });
      expect(r.status, r.text).toBe(200);
      sessionCookie = setCookie(r, 'sl_session');
      cookie = sessionCookie.split(';')[0];
      csrfToken = r.body.csrfToken;
    });

    it('serves /app/login, and signs in over HTTPS with a Secure session cookie', async () => {
      // Over plain HTTP (above) the sign-in is refused and no cookie is set.
      expect(cookieFlags(sessionCookie)).toEqual(
        expect.arrayContaining(['httponly', 'secure', 'samesite=lax', 'path=/app']),
      );
      const page = await viaNginx('GET', '/app/login');
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['content-security-policy']).toBeTruthy();
      const me = await viaNginx('GET', '/app/api/session', { headers: { cookie } });
      expect(me.status).toBe(200);
      expect(me.text).toContain(person.email);
    });

    it("takes an image upload from the page's own origin and serves it from both instances", async () => {
      // A PNG's signature, then filler: the service checks the type by the first bytes.
      const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(1536 * 1024)]);
      const up = await change('POST', '/assets', { rawBody: png, headers: { 'content-type': 'image/png' } });
      expect(up.status, up.text).toBe(201);
      const assetPath = new URL(up.body.url).pathname;
      expect(up.body.url).toBe(`${origin()}${assetPath}`);
      for (let n = 0; n < 4; n++) {
        const r = await viaNginx('GET', assetPath);
        expect(r.status).toBe(200);
        expect(r.headers['content-type']).toBe('image/png');
        expect(Number(r.headers['content-length'])).toBe(png.length);
      }
      expect(new Set(upstreamsOf(new RegExp(assetPath.replace(/\./g, '\\.'))))).toEqual(new Set([a!.port, b!.port]));
    });

    it("lets bodies up to the service's limits through, so that its own 413 answers beyond them", async () => {
      const bigImage = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(2 * 2 ** 20)]);
      const image = await change('POST', '/assets', { rawBody: bigImage, headers: { 'content-type': 'image/png' } });
      expect(image.status).toBe(413);
      expect(image.body).toEqual({ error: expect.any(String) });

      const bigCsv = `url,slug\n${'x'.repeat(10 * 2 ** 20)}\n`;
      const csv = await change('POST', '/links/import', { rawBody: bigCsv, headers: { 'content-type': 'text/csv' } });
      expect(csv.status).toBe(413);
      expect(csv.body).toEqual({ error: expect.any(String) });

      const bigJson = await viaNginx('POST', '/api/v1/links', {
        key: owner.key,
        body: { url: 'https://example.com/big', title: 'x'.repeat(100 * 1024) },
      });
      expect(bigJson.status).toBe(413);
      expect(bigJson.body).toEqual({ error: expect.any(String) });

      // Far beyond them, nginx answers itself from the declared length, before any byte of the body.
      const huge = await change('POST', '/links/import', {
        declaredLength: 12 * 2 ** 20,
        headers: { 'content-type': 'text/csv' },
      });
      expect(huge.status).toBe(413);
      expect(huge.headers['x-service-request-id']).toBeUndefined();
    });

    it('imports a CSV and streams the export back', async () => {
      const imported = await change('POST', '/links/import', {
        rawBody: 'url,slug\nhttps://example.com/one,deploy-one\nhttps://example.com/two,deploy-two\n',
        headers: { 'content-type': 'text/csv' },
      });
      expect(imported.status, imported.text).toBe(200);
      expect(imported.body.created).toBe(2);
      const exported = await viaNginx('GET', `/app/api/workspaces/${owner.workspaceId}/links/export`, {
        headers: { cookie },
      });
      expect(exported.status).toBe(200);
      expect(exported.headers['content-type']).toMatch(/^text\/csv/);
      expect(exported.headers['transfer-encoding']).toBe('chunked');
      for (const slug of ['deploy', 'deploy-pw', 'deploy-one', 'deploy-two']) {
        expect(exported.text).toContain(`https://localhost:${httpsPort}/${slug},${slug},`);
      }
    });

    it("gives the service the client's address from X-Forwarded-For, never one the client wrote", async () => {
      // Logged: the address nginx saw (127.0.0.2), not nginx's own nor the one in the header.
      const r = await viaNginx('GET', '/readyz', {
        localAddress: '127.0.0.2',
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      const { entry } = await loggedBy(String(r.headers['x-service-request-id']));
      expect(entry.req.remoteAddress).toBe('127.0.0.2');

      // The sign-in throttle counts per email and client, across instances: five wrong passwords
      // from 127.0.0.2, then 429 there, whatever it writes in X-Forwarded-For, and not for 127.0.0.3.
      const wrong = (localAddress: string, headers: Record<string, string> = {}) =>
        viaNginx('POST', '/app/api/session', {
          localAddress,
          headers,
          body: { email: throttled.email, password: 'not the password' },
        });
      for (let n = 0; n < 5; n++) expect((await wrong('127.0.0.2')).status).toBe(401);
      expect((await wrong('127.0.0.2')).status).toBe(429);
      expect((await wrong('127.0.0.2', { 'x-forwarded-for': '127.0.0.4' })).status).toBe(429);
      expect((await wrong('127.0.0.3')).status).toBe(401);
    });
  });

  it('sends a custom domain to the same instances (the catch-all server), and an unknown host to their 404', async () => {
    const made = await viaNginx('POST', '/api/v1/links', {
      key: owner.key,
      body: { url: 'https://example.com/custom', slug: 'cd', domainId: customDomainId },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data.domainId).toBe(customDomainId);
    for (let n = 0; n < 2; n++) {
      const r = await viaNginx('GET', '/cd', {
        host: CUSTOM_HOST,
        servername: CUSTOM_HOST,
        headers: { 'user-agent': PERSON },
      });
      expect(r.status).toBe(302);
      expect(r.headers.location).toBe('https://example.com/custom');
    }
    const unknown = await viaNginx('GET', '/cd', { host: 'unknown.test', headers: { 'user-agent': PERSON } });
    // The service's answer (its body and request id), not nginx's own 404 page.
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: expect.any(String) });
    expect(unknown.headers['x-service-request-id']).toBeTruthy();
  });

  it('speaks HTTP/2 to browsers', async () => {
    const session = http2.connect(`https://127.0.0.1:${httpsPort}`, { ca, servername: 'localhost' });
    try {
      await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
      expect(session.alpnProtocol).toBe('h2');
      const get = (p: string, headers: Record<string, string> = {}) =>
        new Promise<{ status: number; headers: http2.IncomingHttpHeaders }>((resolve, reject) => {
          const req = session.request({
            ':method': 'GET',
            ':path': p,
            ':authority': `localhost:${httpsPort}`,
            'user-agent': PERSON,
            ...headers,
          });
          req.once('response', (h) => {
            req.resume();
            req.once('end', () => resolve({ status: Number(h[':status']), headers: h }));
          });
          req.once('error', reject);
          req.end();
        });
      const redirect = await get('/deploy');
      expect(redirect.status).toBe(302);
      expect(redirect.headers.location).toBe('https://example.com/deploy');
      expect((await get('/api/v1/links?limit=1', { authorization: `Bearer ${owner.key}` })).status).toBe(200);
    } finally {
      session.close();
    }
  });

  it('keeps answering while one instance stops as systemd stops it (SIGTERM), which exits 0 within seconds', async () => {
    const stopping = Date.now();
    a!.proc.child.kill('SIGTERM');
    const answers: number[] = [];
    // Requests during and after the stop: nginx finds the port closed and uses the other instance.
    for (let n = 0; n < 6; n++)
      answers.push((await viaNginx('GET', '/deploy', { headers: { 'user-agent': PERSON } })).status);
    const exit = await a!.proc.exited;
    const stopMs = Date.now() - stopping;
    answers.push(
      (
        await viaNginx('POST', '/api/v1/links', {
          key: owner.key,
          body: { url: 'https://example.com/after', slug: 'after-stop' },
        })
      ).status,
    );
    for (let n = 0; n < 4; n++)
      answers.push((await viaNginx('GET', '/after-stop', { headers: { 'user-agent': PERSON } })).status);
    expect(answers).toEqual([302, 302, 302, 302, 302, 302, 201, 302, 302, 302, 302]);
    expect(exit).toEqual({ code: 0, signal: null });
    // shortlink@.service gives it 60 s (TimeoutStopSec) for the worst case it describes.
    expect(stopMs).toBeLessThan(10_000);
    console.info(`instance a stopped on SIGTERM in ${stopMs} ms`);
  });
});
