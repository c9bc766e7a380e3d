// Variant A deliveries against a real HTTPS receiver on loopback: every row of the outcome table
// (asyncapi/variant-a.yaml, "Delivery outcomes and retries"), the request as the contract gives
// it, checked with the reference verifier and the AsyncAPI payload schema. Retries are
// compressed with WEBHOOK_RETRY_SCALE=0.01 (10 s becomes 100 ms), the timeout with
// WEBHOOK_TIMEOUT_MS.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { verifyVariantA } from '../../src/webhooks/verify';
import { testEngines } from '../support/databases';
import { envelopeErrors } from '../support/envelopes';
import {
  deliveryOf,
  seedDelivery,
  seedSubscription,
  waitForDelivery,
  SIX_ATTEMPTS_FAILED,
  waitForSettled,
} from '../support/outbox';
import { deliveriesFor, loopbackDeliveryEnv, startReceiver, untrustedCertificate } from '../support/receiver';

const TIMEOUT_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe.each(testEngines())('Variant A deliveries on %s', (engine) => {
  const d = deliveriesFor(engine, { env: loopbackDeliveryEnv(TIMEOUT_MS) });
  const knex = () => d.server.services.db.knex;
  let n = 0;

  /** A subscription on its own receiver path, and one delivery to it. */
  async function deliver(opts: { url?: string; requestId?: string | null } = {}) {
    const path = `/a/${engine}/${++n}`;
    const url = opts.url ?? d.receiver.url(path);
    const sub = await seedSubscription(knex(), d.server.services.masterKey, { url, variant: 'A' });
    const id = await seedDelivery(knex(), sub, { requestId: opts.requestId });
    return { path, sub, id };
  }

  it.concurrent.each([200, 201, 204])("a %i is DELIVERED, with the contract's request", async (code) => {
    const { path, sub, id } = await deliver({ requestId: 'req_origin_1' });
    d.receiver.reply(path, [{ status: code }]);
    const row = await waitForSettled(knex(), id);
    expect(row).toMatchObject({ status: 'DELIVERED', attempts: 1, last_status_code: code, last_error: null });
    expect(row.finished_at).toBeGreaterThan(0);
    expect(row.attemptRows.map((a: any) => a.outcome)).toEqual(['delivered']);

    const [req] = d.receiver.to(path);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('Shortlink-Webhooks/1.0');
    expect(req.headers['x-service-request-id']).toBe('req_origin_1');
    expect(Object.keys(req.headers).filter((h) => /delivery/i.test(h))).toEqual([]);
    expect(req.headers['x-webhook-signature']).toMatch(/^t=[0-9]+,v1=[0-9a-f]{64}$/);
    // The envelope is exactly { event, timestamp, data }; timestamp is the time it was sent.
    expect(Object.keys(req.body)).toEqual(['event', 'timestamp', 'data']);
    expect(req.body.event).toBe('link.created');
    expect(Math.abs(Date.parse(req.body.timestamp) - req.receivedAt)).toBeLessThan(2_000);
    expect(req.body.data.workspaceId).toBe(sub.workspaceId);
    expect(await envelopeErrors('A', req.body)).toEqual([]);
    // The signature: over "<t>.<raw body>", and t is the same moment as timestamp.
    const t = Number(/t=(\d+)/.exec(req.headers['x-webhook-signature'] as string)![1]);
    expect(t).toBe(Math.floor(Date.parse(req.body.timestamp) / 1000));
    expect(verifyVariantA(req.rawBody, req.headers['x-webhook-signature'] as string, sub.secret)).toBe(true);
    expect(
      verifyVariantA(
        req.rawBody.toString().replace('link.created', 'link.deleted'),
        req.headers['x-webhook-signature'] as string,
        sub.secret,
      ),
    ).toBe(false);
    expect(verifyVariantA(req.rawBody, req.headers['x-webhook-signature'] as string, 'not the secret')).toBe(false);
  });

  it.concurrent('without a request id, no X-Service-Request-Id is sent', async () => {
    const { path, id } = await deliver({ requestId: null });
    await waitForSettled(knex(), id);
    expect(d.receiver.to(path)[0].headers).not.toHaveProperty('x-service-request-id');
  });

  it.concurrent.each([500, 502, 503, 408, 429])(
    'a %i is retried, signed afresh, and DELIVERED when the endpoint recovers',
    async (code) => {
      const { path, sub, id } = await deliver();
      d.receiver.reply(path, [{ status: code }, { status: code }, { status: 200 }]);
      const row = await waitForSettled(knex(), id);
      expect(row).toMatchObject({ status: 'DELIVERED', attempts: 3, last_status_code: 200 });
      expect(row.attemptRows.map((a: any) => [a.outcome, a.status_code])).toEqual([
        ['retry', code],
        ['retry', code],
        ['delivered', 200],
      ]);
      const seen = d.receiver.to(path);
      expect(seen).toHaveLength(3);
      for (const req of seen)
        expect(verifyVariantA(req.rawBody, req.headers['x-webhook-signature'] as string, sub.secret)).toBe(true);
      // Each attempt carries the time it was sent.
      expect(Date.parse(seen[1].body.timestamp)).toBeGreaterThan(Date.parse(seen[0].body.timestamp));
      expect(seen.map((r) => r.body.data)).toEqual([seen[0].body.data, seen[0].body.data, seen[0].body.data]);
    },
  );

  it.concurrent.each([400, 401, 403, 404, 409, 410, 422])('a %i is FAILED at once and not retried', async (code) => {
    const { path, id } = await deliver();
    d.receiver.reply(path, [{ status: code }]);
    const row = await waitForSettled(knex(), id);
    expect(row).toMatchObject({ status: 'FAILED', attempts: 1, last_status_code: code });
    expect(row.last_error).toBe(`HTTP ${code}`);
    await sleep(400); // well past the first retry delay (100 ms)
    expect(d.receiver.to(path)).toHaveLength(1);
    expect((await deliveryOf(knex(), id)).attempts).toBe(1);
  });

  it.concurrent.each([301, 302, 307, 308])(
    'a %i is an answer: FAILED at once, the redirect is not followed',
    async (code) => {
      const { path, id } = await deliver();
      const elsewhere = `${path}/elsewhere`;
      d.receiver.reply(path, [{ status: code, headers: { location: d.receiver.url(elsewhere) } }]);
      const row = await waitForSettled(knex(), id);
      expect(row).toMatchObject({ status: 'FAILED', attempts: 1, last_status_code: code });
      await sleep(400);
      expect(d.receiver.to(elsewhere)).toHaveLength(0);
      expect(d.receiver.to(path)).toHaveLength(1);
    },
  );

  it.concurrent('no answer within the timeout after sending is UNKNOWN and never repeated', async () => {
    const { path, id } = await deliver();
    d.receiver.reply(path, [{ hang: true }]);
    const row = await waitForSettled(knex(), id);
    expect(row).toMatchObject({ status: 'UNKNOWN', attempts: 1, last_status_code: null });
    expect(row.last_error).toMatch(/no answer within 1000 ms after the request was sent/);
    expect(row.attemptRows[0]).toMatchObject({ outcome: 'unknown' });
    expect(Boolean(row.attemptRows[0].request_sent)).toBe(true);
    await sleep(1_000);
    expect(d.receiver.to(path)).toHaveLength(1);
    expect((await deliveryOf(knex(), id)).status).toBe('UNKNOWN');
  });

  it.concurrent('a connection reset after sending is UNKNOWN and never repeated', async () => {
    const { path, id } = await deliver();
    d.receiver.reply(path, [{ reset: true }, { status: 200 }]);
    const row = await waitForSettled(knex(), id);
    expect(row).toMatchObject({ status: 'UNKNOWN', attempts: 1 });
    expect(row.last_error).toMatch(/after the request was sent/);
    await sleep(500);
    expect(d.receiver.to(path)).toHaveLength(1);
  });

  it.concurrent('a refused connection (nothing sent) is retried, and delivered once the endpoint listens', async () => {
    const port = await closedPort();
    const { id } = await deliver({ url: `https://127.0.0.1:${port}/late` });
    await waitForDelivery(
      knex(),
      id,
      (r) => r.attempts >= 2 && r.attemptRows.length >= 2 && r.attemptRows[1].outcome === 'retry',
    );
    const late = await startReceiver({ port });
    try {
      const row = await waitForSettled(knex(), id);
      expect(row.status).toBe('DELIVERED');
      expect(row.attemptRows[0]).toMatchObject({ outcome: 'retry', status_code: null });
      expect(row.attemptRows[0].error).toMatch(/ECONNREFUSED.*nothing was sent/);
      expect(Boolean(row.attemptRows[0].request_sent)).toBe(false);
      expect(late.to('/late')).toHaveLength(1);
    } finally {
      await late.close();
    }
  });

  it.concurrent('a TLS failure (an untrusted certificate) sends nothing and is retried until FAILED', async () => {
    const untrusted = await startReceiver({ tls: await untrustedCertificate() });
    try {
      const { id } = await deliver({ url: untrusted.url('/tls') });
      const row = await waitForSettled(knex(), id);
      expect(row).toMatchObject({ status: 'FAILED', attempts: 6 });
      expect(row.attemptRows.map((a: any) => a.outcome)).toEqual(SIX_ATTEMPTS_FAILED);
      expect(row.last_error).toMatch(/certificate|self.signed/i);
      expect(untrusted.connections).toBeGreaterThan(0);
      expect(untrusted.requests).toHaveLength(0);
    } finally {
      await untrusted.close();
    }
  });

  it.concurrent('a name that does not resolve (nothing sent) is retried', async () => {
    const { id } = await deliver({ url: 'https://no-such-host.invalid/hook' });
    const row = await waitForDelivery(
      knex(),
      id,
      (r) => r.attemptRows.length >= 2 && r.attemptRows[1].outcome !== null,
    );
    expect(row.attemptRows[0].outcome).toBe('retry');
    expect(row.attemptRows[0].error).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it.concurrent('when the fifth retry fails too the delivery is FAILED, after exactly 6 attempts', async () => {
    const { path, id } = await deliver();
    d.receiver.reply(path, [{ status: 503 }]);
    const row = await waitForSettled(knex(), id);
    expect(row).toMatchObject({ status: 'FAILED', attempts: 6, last_status_code: 503 });
    expect(row.attemptRows.map((a: any) => a.outcome)).toEqual(['retry', 'retry', 'retry', 'retry', 'retry', 'failed']);
    await sleep(500);
    expect(d.receiver.to(path)).toHaveLength(6);
  });
});
