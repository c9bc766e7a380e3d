// The reference verifiers beyond JavaScript (verifiers/python/shortlink_webhooks.py and
// verifiers/go/shortlinkwebhooks/verify.go) in their own languages: each one's test suite over the
// shared vectors (verifiers/vectors.json), then deliveries a running Shortlink server really sent
// to a receiver (both variants, a link created through the API), which each must verify, and a
// tampered copy of each, which each must reject.
//
// python3 and go must be on PATH. Without one, its tests are skipped loudly on a workstation; in
// CI (CI set) they run and fail, so the suite cannot silently shrink (.ci/run installs both).
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyVariantA, verifyVariantB } from 'shortlink/webhooks';
import { startDeliveries, stopDeliveries, type DeliveringServer, type Receiver } from '../support/receiver';
import { subscribedToLinkCreated } from '../support/subscriptions';
import type { WebhookVector } from '../support/webhook-vectors';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PYTHON_TESTS = path.join(ROOT, 'verifiers/python/test_shortlink_webhooks.py');
const GO_PACKAGE = path.join(ROOT, 'verifiers/go/shortlinkwebhooks');

interface Tool {
  command: string;
  run: boolean;
  /** Set when the tool is missing in CI: the tests run and fail with it. */
  missing?: string;
}

/** Whether `command` runs; when it does not, a loud skip locally, a failing test in CI. */
function toolAvailability(command: string, versionArgs: string[], install: string): Tool {
  const probe = spawnSync(command, versionArgs, { encoding: 'utf8' });
  if (probe.status === 0) return { command, run: true };
  if (!process.env.CI) {
    console.warn(`\n!!! ${command} not found on PATH: its verifier tests are SKIPPED. Install it (${install}).\n`);
    return { command, run: false };
  }
  return {
    command,
    run: true,
    missing: `CI needs ${command} on PATH for the verifier tests (${install}; .ci/run installs it)`,
  };
}

function requireTool(tool: Tool) {
  if (tool.missing) throw new Error(tool.missing);
}

const python = toolAvailability('python3', ['--version'], 'apt-get install python3');
const go = toolAvailability('go', ['version'], 'apt-get install golang-go');

let scratch: string;

/**
 * The environment of the children: no variable of this run leaks in (a stray
 * SHORTLINK_WEBHOOK_DELIVERIES would turn the vectors' run into a deliveries' run). Go writes its
 * build cache under HOME; where HOME is not writable it goes in a temporary directory instead.
 */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', LANG: 'C.UTF-8' };
  if (writable(process.env.HOME)) {
    env.HOME = process.env.HOME;
    for (const name of ['GOCACHE', 'GOPATH', 'GOROOT', 'XDG_CACHE_HOME'])
      if (process.env[name]) env[name] = process.env[name];
  } else {
    Object.assign(env, { HOME: scratch, GOCACHE: path.join(scratch, 'go-build'), GOPATH: path.join(scratch, 'go') });
  }
  // The module has no dependencies: nothing to download, no workspace, the installed toolchain.
  Object.assign(
    env,
    { GOFLAGS: '', GOPROXY: 'off', GOWORK: 'off', GOTOOLCHAIN: 'local', PYTHONDONTWRITEBYTECODE: '1' },
    extra,
  );
  return env;
}

function writable(dir: string | undefined): boolean {
  if (!dir) return false;
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

interface Run {
  code: number;
  output: string;
}

/** Runs a command to its end; never rejects, so a test can show the whole output when it fails. */
function run(command: string, args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: opts.cwd ?? ROOT, env: childEnv(opts.env), maxBuffer: 16 * 1024 * 1024, timeout: 240_000 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as NodeJS.ErrnoException).code === 'number'
            ? Number((err as NodeJS.ErrnoException).code)
            : -1
          : 0;
        resolve({
          code,
          output: `$ ${command} ${args.join(' ')}\n${stdout}${stderr}${err && code === -1 ? String(err) : ''}`,
        });
      },
    );
  });
}

function expectSuccess(r: Run, command: string) {
  if (r.code !== 0) throw new Error(`${command} failed (exit ${r.code}); on PATH=${process.env.PATH}:\n${r.output}`);
}

/** The "delivery <name>: true|false" lines a runner prints, as name → answer. */
function answers(output: string): Map<string, boolean> {
  const seen = new Map<string, boolean>();
  for (const m of output.matchAll(/^delivery (.+): (true|false)$/gm)) seen.set(m[1], m[2] === 'true');
  return seen;
}

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-verifiers-'));
});
afterAll(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe('the Python verifier', () => {
  it.skipIf(!python.run)('passes its tests over the shared vectors (unittest)', async () => {
    requireTool(python);
    const r = await run('python3', [PYTHON_TESTS, '-v']);
    expectSuccess(r, 'python3');
    expect(r.output).toMatch(/test_every_vector \(.*\) \.\.\. ok/);
    expect(r.output).toMatch(/skipped 'SHORTLINK_WEBHOOK_DELIVERIES not set'/);
  });
});

describe('the Go verifier', () => {
  it.skipIf(!go.run)('passes its tests over the shared vectors (go vet, go test)', async () => {
    requireTool(go);
    const vet = await run('go', ['vet', '.'], { cwd: GO_PACKAGE });
    expectSuccess(vet, 'go vet');
    const r = await run('go', ['test', '-count=1', '-v', '.'], { cwd: GO_PACKAGE });
    expectSuccess(r, 'go test');
    expect(r.output).toContain('--- PASS: TestVectors');
    expect(r.output).toContain('--- PASS: ExampleVerifyVariantB');
  });
});

// The signing does not depend on the database engine (end-to-end.test.ts runs both engines), so
// one engine is enough here.
describe.skipIf(!python.run && !go.run)('deliveries a running Shortlink server signed', () => {
  let receiver: Receiver;
  let server: DeliveringServer;
  let file: string;
  let cases: WebhookVector[];

  beforeAll(async () => {
    ({ receiver, server } = await startDeliveries('sqlite', { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' } }));
    // A caller-chosen secret beyond ASCII: it is signed as its UTF-8 bytes.
    const secretB = 'sécret-ключ-秘密-0123456789';
    const { api, seeded: s, secretA } = await subscribedToLinkCreated(server, receiver, '/langs', secretB);
    // Two links, the second titled beyond ASCII, so a body carries multi-byte UTF-8.
    for (const [slug, title] of [
      ['langs-1', 'Plain title'],
      ['langs-2', 'Café ☕ — 春 🎉'],
    ]) {
      const made = await api('POST', '/api/v1/links', s.key, { url: `https://example.com/${slug}`, slug, title });
      expect(made.status).toBe(201);
    }
    const received = [
      ...(await receiver.waitFor('/langs/a', 2)).map((r) => ({
        r,
        variant: 'A' as const,
        header: r.headers['x-webhook-signature'],
        secret: secretA,
      })),
      ...(await receiver.waitFor('/langs/b', 2)).map((r) => ({
        r,
        variant: 'B' as const,
        header: r.headers['x-service-signature'],
        secret: secretB,
      })),
    ];
    expect(received.some(({ r }) => r.rawBody.toString('utf8').includes('Café ☕ — 春 🎉'))).toBe(true);

    cases = [];
    for (const { r, variant, header, secret } of received) {
      expect(typeof header).toBe('string');
      const name = `${variant} ${r.body.event ?? r.body.type} #${r.nth}`;
      // Variant A: the receiver's clock when the delivery arrived.
      const clock = variant === 'A' ? { now: r.receivedAt / 1000 } : {};
      const base = { variant, header: header as string, secret, ...clock };
      cases.push({ ...base, name: `${name} as received`, bodyBase64: r.rawBody.toString('base64'), expected: true });
      const tampered = Buffer.from(r.rawBody);
      tampered[tampered.length - 2] ^= 0x01; // one byte, inside the JSON
      cases.push({
        ...base,
        name: `${name} with one byte changed`,
        bodyBase64: tampered.toString('base64'),
        expected: false,
      });
      if (variant === 'A') {
        const t = Number(/t=(\d+)/.exec(header as string)![1]);
        cases.push({
          ...base,
          name: `${name} received 301 s after its t`,
          now: t + 301,
          bodyBase64: r.rawBody.toString('base64'),
          expected: false,
        });
      }
    }
    file = path.join(scratch, 'deliveries.json');
    fs.writeFileSync(file, JSON.stringify({ cases }, null, 2));
  });
  afterAll(() => stopDeliveries({ receiver, server }));

  it('are what the JavaScript verifier says they are (so the file is right)', () => {
    for (const c of cases) {
      const body = Buffer.from(c.bodyBase64, 'base64');
      const answer =
        c.variant === 'A'
          ? verifyVariantA(body, c.header, c.secret, { now: c.now! * 1000 })
          : verifyVariantB(body, c.header, c.secret);
      expect([c.name, answer]).toEqual([c.name, c.expected]);
    }
  });

  it.skipIf(!python.run)('verify in Python, and a tampered copy does not', async () => {
    requireTool(python);
    const r = await run('python3', [PYTHON_TESTS, '-v', 'Deliveries'], { env: { SHORTLINK_WEBHOOK_DELIVERIES: file } });
    expectSuccess(r, 'python3');
    expect(Object.fromEntries(answers(r.output))).toEqual(Object.fromEntries(cases.map((c) => [c.name, c.expected])));
  });

  it.skipIf(!go.run)('verify in Go, and a tampered copy does not', async () => {
    requireTool(go);
    const r = await run('go', ['test', '-count=1', '-v', '-run', '^TestDeliveriesOfARunningServer$', '.'], {
      cwd: GO_PACKAGE,
      env: { SHORTLINK_WEBHOOK_DELIVERIES: file },
    });
    expectSuccess(r, 'go test');
    expect(r.output).toContain('--- PASS: TestDeliveriesOfARunningServer');
    expect(Object.fromEntries(answers(r.output))).toEqual(Object.fromEntries(cases.map((c) => [c.name, c.expected])));
  });
});
