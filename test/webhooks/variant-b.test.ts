// Variant B deliveries against a real HTTPS receiver on loopback: every row of the outcome table
// (asyncapi/variant-b.yaml, "Delivery outcomes and retries"), byte-identical bodies and one
// X-Service-Delivery-Id across retries and a replay (`shortlink webhook replay`), checked with
// the reference verifier and the AsyncAPI payload schema. WEBHOOK_RETRY_SCALE=0.01 turns the
// schedule 1 s, 5 s, 30 s, 2 min, 10 min into 10 ms, 50 ms, 300 ms, 1.2 s, 6 s.
import { describe, expect, it } from 'vitest';
import { verifyVariantB } from '../../src/webhooks/verify';
import { expectJsonLine, runCli } from '../support/cli';
import { testEngines } from '../support/databases';
import { envelopeErrors } from '../support/envelopes';
import { seedDelivery, seedSubscription, SIX_ATTEMPTS_FAILED, waitForSettled } from '../support/outbox';
import { deliveriesFor, loopbackDeliveryEnv, startReceiver, type ReceivedDelivery } from '../support/receiver';

const TIMEOUT_MS = 800;

function expectSameDelivery(requests: ReceivedDelivery[], deliveryId: string, secret: string) {
  for (const req of requests) {
    expect(req.headers['x-service-delivery-id']).toBe(deliveryId);
    expect(req.rawBody.equals(requests[0].rawBody)).toBe(true);
    expect(req.headers['x-service-signature']).toBe(requests[0].headers['x-service-signature']);
    expect(verifyVariantB(req.rawBody, req.headers['x-service-signature'] as string, secret)).toBe(true);
  }
}

describe.each(testEngines())('Variant B deliveries on %s', (engine) => {
  const d = deliveriesFor(engine, { env: loopbackDeliveryEnv(TIMEOUT_MS) });
  const knex = () => d.server.services.db.knex;
  const subscribe = (url: string) => seedSubscription(knex(), d.server.services.masterKey, { url, variant: 'B' });
  let n = 0;

  async function deliver() {
    const path = `/b/${engine}/${++n}`;
    const sub = await subscribe(d.receiver.url(path));
    const occurredAt = Date.now() - 1234;
    const id = await seedDelivery(knex(), sub, { occurredAt });
    return { path, sub, id, occurredAt };
  }

  it.concurrent("a 2xx is DELIVERED, with the contract's request", async () => {
    const { path, sub, id, occurredAt } = await deliver();
    const row = await waitForSettled(knex(), id);
    expect(row).toMatchObject({ status: 'DELIVERED', attempts: 1, last_status_code: 200, last_error: null });
    const [req] = d.receiver.to(path);
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Shortlink-Webhooks/1.0',
      'x-service-event': 'link.created',
      'x-service-delivery-id': id,
    });
    expect(req.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(req.body)).toEqual(['id', 'type', 'timestamp', 'data']);
    expect(req.body).toMatchObject({
      id: row.event_id,
      type: 'link.created',
      timestamp: new Date(occurredAt).toISOString(),
    });
    expect(await envelopeErrors('B', req.body)).toEqual([]);
    expect(verifyVariantB(req.rawBody, req.headers['x-service-signature'] as string, sub.secret)).toBe(true);
    expect(
      verifyVariantB(
        Buffer.concat([req.rawBody, Buffer.from(' ')]),
        req.headers['x-service-signature'] as string,
        sub.secret,
      ),
    ).toBe(false);
    expect(verifyVariantB(req.rawBody, req.headers['x-service-signature'] as string, `${sub.secret}x`)).toBe(false);
  });

  it.concurrent.each([301, 302, 400, 404, 410, 429, 500, 503])(
    'a %i is retried with the same bytes and delivery id',
    async (code) => {
      const { path, sub, id } = await deliver();
      d.receiver.reply(path, [
        { status: code, headers: { location: d.receiver.url(`${path}/moved`) } },
        { status: 200 },
      ]);
      const row = await waitForSettled(knex(), id);
      expect(row).toMatchObject({ status: 'DELIVERED', attempts: 2 });
      expect(row.attemptRows.map((a: any) => [a.outcome, a.status_code])).toEqual([
        ['retry', code],
        ['delivered', 200],
      ]);
      expectSameDelivery(d.receiver.to(path), id, sub.secret);
      expect(d.receiver.to(`${path}/moved`)).toHaveLength(0);
    },
  );

  it.concurrent('no answer within the timeout is retried', async () => {
    const { path, sub, id } = await deliver();
    d.receiver.reply(path, [{ hang: true }, { status: 204 }]);
    const row = await waitForSettled(knex(), id);
    expect(row).toMatchObject({ status: 'DELIVERED', attempts: 2 });
    expect(row.attemptRows[0]).toMatchObject({ outcome: 'retry', status_code: null });
    expect(row.attemptRows[0].error).toMatch(`no answer within ${TIMEOUT_MS} ms`);
    expectSameDelivery(d.receiver.to(path), id, sub.secret);
  });

  it.concurrent('a connection reset is retried', async () => {
    const { path, sub, id } = await deliver();
    d.receiver.reply(path, [{ reset: true }, { status: 200 }]);
    const row = await waitForSettled(knex(), id);
    expect(row).toMatchObject({ status: 'DELIVERED', attempts: 2 });
    expectSameDelivery(d.receiver.to(path), id, sub.secret);
  });

  it.concurrent('delivers to an IPv6 literal and to a name (localhost), checking the certificate against either', async () => {
    for (const host of ['::1', 'localhost']) {
      const path = `/b/${engine}/host/${host}`;
      const sub = await subscribe(d.receiver.url(path, host));
      const row = await waitForSettled(knex(), await seedDelivery(knex(), sub));
      expect(row.status, host).toBe('DELIVERED');
      expect(d.receiver.to(path)[0].headers.host).toBe(`${host === '::1' ? '[::1]' : host}:${d.receiver.port}`);
    }
  });

  it.concurrent('consecutive deliveries to one endpoint share a kept-alive connection', async () => {
    const own = await startReceiver();
    try {
      const sub = await subscribe(own.url('/keepalive'));
      for (let i = 0; i < 3; i++) await waitForSettled(knex(), await seedDelivery(knex(), sub));
      expect(own.to('/keepalive')).toHaveLength(3);
      expect(own.connections).toBe(1);
    } finally {
      await own.close();
    }
  });

  it.concurrent('a pending delivery of a deleted or disabled subscription is FAILED with nothing sent', async () => {
    const { path, sub } = await deliver().then(async (d) => {
      await waitForSettled(knex(), d.id);
      return d;
    });
    const later = await seedDelivery(knex(), sub, { nextAttemptAt: Date.now() + 300 });
    await knex()('webhook_subscriptions').where({ id: sub.id }).update({ deleted_at: Date.now() });
    const row = await waitForSettled(knex(), later);
    expect(row).toMatchObject({ status: 'FAILED', attempts: 0 });
    expect(row.last_error).toMatch(/subscription was deleted or disabled/);
    expect(row.attemptRows).toEqual([]);
    expect(d.receiver.to(path)).toHaveLength(1);
  });

  it.concurrent('after the fifth retry fails the delivery is FAILED (6 attempts); a replay delivers the same bytes under the same id', async () => {
    const { path, sub, id } = await deliver();
    let healthy = false;
    d.receiver.reply(path, () => (healthy ? { status: 200 } : { status: 500 }));
    const failed = await waitForSettled(knex(), id);
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 6, last_status_code: 500 });
    expect(failed.attemptRows.map((a: any) => a.outcome)).toEqual(SIX_ATTEMPTS_FAILED);
    expect(d.receiver.to(path)).toHaveLength(6);

    healthy = true;
    const args = ['webhook', 'replay', '--delivery', id];
    expect(expectJsonLine(args, await runCli(args, d.server.env), ['id', 'status'])).toEqual({ id, status: 'PENDING' });
    const replayed = await waitForSettled(knex(), id);
    expect(replayed).toMatchObject({ status: 'DELIVERED', attempts: 7, replays: 1, round_start: 6 });
    const seen = d.receiver.to(path);
    expect(seen).toHaveLength(7);
    expectSameDelivery(seen, id, sub.secret);
  });
});
