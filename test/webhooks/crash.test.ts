// Deliveries survive the process being killed (SIGKILL) mid-attempt. `node bin/shortlink.mjs
// serve` runs as a child process on a SQLite file this test also opens; it is killed with -9
// while three attempts are in flight, and started again:
//   - Variant A, request written, the receiver holding it open: UNKNOWN after the lease runs
//     out, and never sent again;
//   - Variant A, killed during the TLS handshake (nothing written): retried and delivered;
//   - Variant B, request written: delivered again with the same X-Service-Delivery-Id and bytes.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateLatest, openDatabase, type Database } from '../../src/db/knex';
import { verifyVariantB } from '../../src/webhooks/verify';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { deliveryOf, seedDelivery, seedSubscription, waitForSettled } from '../support/outbox';
import { startReceiver, TEST_MASTER_KEY, type Receiver } from '../support/receiver';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT_MS = 2_000; // the lease is 2 x 2 s + 5 s = 9 s
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP port that holds connections without a word (a TLS handshake that never ends) until told to pass them to `target`. */
async function startGate(targetPort: number) {
  const held = new Set<net.Socket>(); // every socket, so close() does not wait on any
  let passing = false;
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    held.add(socket);
    socket.on('close', () => held.delete(socket));
    socket.on('error', () => undefined);
    if (!passing) return;
    const upstream = net.connect(targetPort, '127.0.0.1');
    held.add(upstream);
    upstream.on('close', () => held.delete(upstream));
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return connections;
    },
    open() {
      passing = true;
    },
    async close() {
      for (const s of held) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('a delivery worker killed with SIGKILL mid-delivery', () => {
  let database: TestDatabase;
  let db: Database;
  let receiver: Receiver;
  let gate: Awaited<ReturnType<typeof startGate>>;
  let dataDir: string;
  let caFile: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    db = openDatabase(database.url);
    await migrateLatest(db);
    receiver = await startReceiver();
    gate = await startGate(receiver.port);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-crash-'));
    caFile = path.join(dataDir, 'receiver-ca.pem');
    fs.writeFileSync(caFile, receiver.ca);
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await gate?.close();
    await receiver?.close();
    await db?.knex.destroy();
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  function serve(): ChildProcess {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/shortlink.mjs'), 'serve'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        SHORTLINK_FROM_SOURCE: '1',
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        PORT: '0',
        TLS: 'off',
        LOG_LEVEL: 'warn',
        MASTER_KEY: TEST_MASTER_KEY,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
        WEBHOOK_CA_FILE: caFile,
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_RETRY_SCALE: '0.01',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    return child;
  }

  async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
    const start = Date.now();
    while (!(await check())) {
      if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
      await sleep(20);
    }
  }

  it('settles every attempt that was in flight from what was on record', async () => {
    const knex = db.knex;
    const key = Buffer.from(TEST_MASTER_KEY, 'hex');
    receiver.reply('/crash/a-sent', [{ hang: true }]);
    receiver.reply('/crash/b-sent', [{ hang: true }, { status: 200 }]);
    const aSent = await seedDelivery(
      knex,
      await seedSubscription(knex, key, { url: receiver.url('/crash/a-sent'), variant: 'A' }),
    );
    const bSub = await seedSubscription(knex, key, { url: receiver.url('/crash/b-sent'), variant: 'B' });
    const bSent = await seedDelivery(knex, bSub);
    const aUnsent = await seedDelivery(
      knex,
      await seedSubscription(knex, key, { url: `https://127.0.0.1:${gate.port}/crash/a-unsent`, variant: 'A' }),
    );

    const first = serve();
    await until('both requests reach the receiver and the third is stuck in its handshake', async () => {
      if (receiver.to('/crash/a-sent').length < 1 || receiver.to('/crash/b-sent').length < 1 || gate.connections < 1)
        return false;
      return (
        Boolean((await deliveryOf(knex, aSent)).request_sent) && Boolean((await deliveryOf(knex, bSent)).request_sent)
      );
    });
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    // What the dead process left: three leased attempts, two of them with the request written.
    for (const [id, sent] of [
      [aSent, true],
      [bSent, true],
      [aUnsent, false],
    ] as const) {
      const row = await deliveryOf(knex, id);
      expect(row.status).toBe('SENDING');
      expect(row.attempts).toBe(1);
      expect(Boolean(row.request_sent)).toBe(sent);
    }

    gate.open();
    const second = serve();
    const [a1, b1, a2] = await Promise.all([
      waitForSettled(knex, aSent, 40_000),
      waitForSettled(knex, bSent, 40_000),
      waitForSettled(knex, aUnsent, 40_000),
    ]);

    // A, request written: the endpoint may have acted, so UNKNOWN and nothing more is sent.
    expect(a1).toMatchObject({ status: 'UNKNOWN', attempts: 1 });
    expect(a1.last_error).toMatch(/stopped after writing the request/);
    expect(a1.attemptRows).toMatchObject([{ attempt: 1, outcome: 'unknown' }]);

    // A, nothing written: an ordinary retry, delivered by the new process.
    expect(a2).toMatchObject({ status: 'DELIVERED', attempts: 2 });
    expect(a2.attemptRows.map((r: any) => r.outcome)).toEqual(['retry', 'delivered']);
    expect(a2.attemptRows[0].error).toMatch(/stopped before writing the request/);
    expect(receiver.to('/crash/a-unsent')).toHaveLength(1);

    // B: delivered again, the same delivery id and the same bytes.
    expect(b1).toMatchObject({ status: 'DELIVERED', attempts: 2 });
    const bRequests = receiver.to('/crash/b-sent');
    expect(bRequests).toHaveLength(2);
    expect(bRequests.map((r) => r.headers['x-service-delivery-id'])).toEqual([bSent, bSent]);
    expect(bRequests[1].rawBody.equals(bRequests[0].rawBody)).toBe(true);
    expect(
      verifyVariantB(bRequests[1].rawBody, bRequests[1].headers['x-service-signature'] as string, bSub.secret),
    ).toBe(true);

    await sleep(1_000);
    expect(receiver.to('/crash/a-sent')).toHaveLength(1);
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
  });
});
