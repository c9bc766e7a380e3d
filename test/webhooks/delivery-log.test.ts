// The delivery log, test events, endpoint health and "Replay failed since…" against a real
// HTTPS receiver on loopback, with the operator's commands (`shortlink webhook show | test |
// enable | replay-since | subscriptions`). The worker here runs on a clock the test moves ahead
// (WebhookWorkerOptions.clock), so five days of failures take no waiting.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCatalog } from '../../src/webhooks/catalog';
import { verifyVariantA, verifyVariantB } from '../../src/webhooks/verify';
import { WebhookWorker } from '../../src/webhooks/worker';
import { ENDPOINT_FAILING_DISABLE_MS } from '../../src/domain/webhook-delivery';
import { DELIVERY_KEYS, expectJsonLine, runCli } from '../support/cli';
import { testEngines } from '../support/databases';
import { envelopeErrors } from '../support/envelopes';
import {
  seedDelivery,
  seedSettledDelivery,
  seedSubscription,
  waitForDelivery,
  waitForSettled,
} from '../support/outbox';
import { startReceiver, TEST_MASTER_KEY, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';

const DAY = 24 * 60 * 60 * 1000;

describe.each(testEngines())('webhook delivery log and endpoint health on %s', (engine) => {
  let receiver: Receiver;
  let server: TestServer;
  let worker: WebhookWorker;
  let env: Record<string, string>;
  let caDir: string;
  /** How far the worker's clock is ahead of the wall clock. */
  let ahead = 0;
  const knex = () => server.services.db.knex;
  const masterKey = () => server.services.masterKey;
  let n = 0;
  const nextPath = (what: string) => `/log/${engine}/${what}/${++n}`;

  async function cli(args: string[], keys: string[]) {
    return expectJsonLine(args, await runCli(args, env), keys);
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer(engine, {
      env: { MASTER_KEY: TEST_MASTER_KEY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' },
    });
    caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-ca-'));
    fs.writeFileSync(path.join(caDir, 'ca.pem'), receiver.ca);
    env = { ...server.env, WEBHOOK_CA_FILE: path.join(caDir, 'ca.pem'), WEBHOOK_TIMEOUT_MS: '2000' };
    worker = new WebhookWorker({
      knex: knex(),
      engine,
      log: pino({ level: 'silent' }),
      masterKey: masterKey(),
      retryScale: 0.01,
      timeoutMs: 2_000,
      allowPrivateNetworks: true,
      extraCa: [receiver.ca],
      pollMs: 20,
      clock: () => Date.now() + ahead,
    });
    worker.start();
  });
  afterAll(async () => {
    await worker?.stop();
    await server?.stop();
    await receiver?.close();
    if (caDir) fs.rmSync(caDir, { recursive: true, force: true });
  });

  it("keeps every attempt's request headers and body and the first 4 KiB of the answer, never the secret", async () => {
    const p = nextPath('kept');
    const long = `${'x'.repeat(5000)}END`;
    receiver.reply(p, [
      { status: 500, body: long },
      { status: 200, body: 'thanks' },
    ]);
    const sub = await seedSubscription(knex(), masterKey(), { url: receiver.url(p), variant: 'B' });
    const id = await seedDelivery(knex(), sub);
    const row = await waitForSettled(knex(), id);
    expect(row.status).toBe('DELIVERED');
    const sent = receiver.to(p);

    const shown = await cli(['webhook', 'show', '--delivery', id], DELIVERY_KEYS);
    expect(shown).toMatchObject({ id, status: 'DELIVERED', test: false });
    expect(shown.attempts).toHaveLength(2);
    const [first, second] = shown.attempts;
    expect(first).toMatchObject({ attempt: 1, outcome: 'retry', statusCode: 500, requestSent: true });
    expect(first.durationMs).toBeGreaterThanOrEqual(0);
    expect(first.response).toEqual({ body: long.slice(0, 4096), truncated: true });
    expect(second.response).toEqual({ body: 'thanks', truncated: false });
    for (const [i, attempt] of shown.attempts.entries()) {
      expect(attempt.request.body).toBe(sent[i].rawBody.toString('utf8'));
      expect(attempt.request.headers).toMatchObject({
        'X-Service-Delivery-Id': id,
        'X-Service-Signature': sent[i].headers['x-service-signature'],
        'User-Agent': 'Shortlink-Webhooks/1.0',
      });
    }
    // The signing secret is nowhere in what the log keeps.
    const stored = JSON.stringify([
      await knex()('webhook_deliveries').where({ id }),
      await knex()('webhook_attempts').where({ delivery_id: id }),
    ]);
    expect(stored).not.toContain(sub.secret);
  });

  it('Variant A: each attempt shows its own timestamp and signature, byte for byte as received', async () => {
    const p = nextPath('kept-a');
    receiver.reply(p, [{ status: 503, body: 'busy' }, { status: 204 }]);
    const sub = await seedSubscription(knex(), masterKey(), { url: receiver.url(p), variant: 'A' });
    const id = await seedDelivery(knex(), sub);
    expect(await waitForSettled(knex(), id)).toMatchObject({ status: 'DELIVERED', attempts: 2 });
    const sent = receiver.to(p);
    const shown = await cli(['webhook', 'show', '--delivery', id], DELIVERY_KEYS);
    expect(shown.attempts.map((a: any) => a.response)).toEqual([
      { body: 'busy', truncated: false },
      { body: '', truncated: false },
    ]);
    for (const [i, attempt] of shown.attempts.entries()) {
      expect(attempt.request.body).toBe(sent[i].rawBody.toString('utf8'));
      expect(attempt.request.headers).toEqual({
        'Content-Type': 'application/json',
        'User-Agent': 'Shortlink-Webhooks/1.0',
        'X-Webhook-Signature': sent[i].headers['x-webhook-signature'],
        'X-Service-Request-Id': sent[i].headers['x-service-request-id'],
      });
      expect(
        verifyVariantA(Buffer.from(attempt.request.body), attempt.request.headers['X-Webhook-Signature'], sub.secret),
      ).toBe(true);
    }
  });

  it('an attempt that got no answer keeps what was sent and no response', async () => {
    const p = nextPath('refused');
    const sub = await seedSubscription(knex(), masterKey(), { url: `https://127.0.0.1:1${p}`, variant: 'A' });
    const id = await seedDelivery(knex(), sub);
    await waitForDelivery(knex(), id, (r) => r.attemptRows.length >= 1);
    const [attempt] = await knex()('webhook_attempts').where({ delivery_id: id }).orderBy('attempt');
    expect(attempt).toMatchObject({ request_signature: null, request_sent_at: null, response_body: null });
    expect(attempt.error).toMatch(/ECONNREFUSED/);
  });

  it.each(['A', 'B'] as const)(
    '"send test event" delivers the documented example of Variant %s, signed and marked as a test',
    async (variant) => {
      const p = nextPath(`test-${variant}`);
      receiver.reply(p, [{ status: 202, body: '{"ok":true}' }]);
      const sub = await seedSubscription(knex(), masterKey(), { url: receiver.url(p), variant });
      const event = variant === 'A' ? 'conversion.created' : 'qr.scanned';
      const out = await cli(
        ['webhook', 'test', '--subscription', sub.id, '--event', event],
        ['id', 'status', 'attempt'],
      );
      expect(out).toMatchObject({
        status: 'DELIVERED',
        attempt: { statusCode: 202, response: { body: '{"ok":true}', truncated: false } },
      });

      const [req] = receiver.to(p);
      // The documented check: the signature first, then what the signed body says.
      const signature = req.headers[variant === 'A' ? 'x-webhook-signature' : 'x-service-signature'] as string;
      const verify = (body: Buffer) =>
        variant === 'A' ? verifyVariantA(body, signature, sub.secret) : verifyVariantB(body, signature, sub.secret);
      expect(verify(req.rawBody)).toBe(true);
      expect(req.headers['x-service-test']).toBe('true');
      // The envelope is exactly the variant's: nothing is added to mark a sample.
      expect(Object.keys(req.body).sort()).toEqual(
        variant === 'A' ? ['data', 'event', 'timestamp'] : ['data', 'id', 'timestamp', 'type'],
      );
      expect(req.body.data).toEqual(eventCatalog(variant).events.find((e) => e.name === event)!.example);
      expect(await envelopeErrors(variant, req.body)).toEqual([]);
      // The signed marks: Variant A's data names the example's workspace, never the subscription's;
      // Variant B's event id begins with evt_test_, which no real event id does.
      if (variant === 'A') {
        expect(req.body.data.workspaceId).toBe('ws_91c3e7a2');
        expect(req.body.data.workspaceId).not.toBe(sub.workspaceId);
      } else {
        expect(req.body.id).toMatch(/^evt_test_[a-z0-9]{16}$/);
      }
      // Changing the marks breaks the signature: a sample cannot be passed off as real.
      const forged = Buffer.from(
        req.rawBody
          .toString('utf8')
          .replace(variant === 'A' ? 'ws_91c3e7a2' : 'evt_test_', variant === 'A' ? sub.workspaceId : 'evt_real_'),
      );
      expect(verify(forged)).toBe(false);

      const listed = await cli(
        ['webhook', 'deliveries', '--workspace', sub.workspaceId, '--subscription', sub.id],
        ['data'],
      );
      expect(listed.data).toMatchObject([
        { id: out.id, test: true, status: 'DELIVERED', eventType: event, attempts: 1 },
      ]);
      // A test sample is never replayed, and says nothing about the endpoint's health.
      const failing = nextPath('test-failing');
      receiver.reply(failing, [{ status: 500 }]);
      await knex()('webhook_subscriptions')
        .where({ id: sub.id })
        .update({ url: receiver.url(failing) });
      const failed = await cli(
        ['webhook', 'test', '--subscription', sub.id, '--event', event],
        ['id', 'status', 'attempt'],
      );
      expect(failed.status).toBe('FAILED');
      expect(await knex()('webhook_subscriptions').where({ id: sub.id }).first()).toMatchObject({
        failing_since: null,
      });
      if (variant === 'B') {
        const r = await runCli(['webhook', 'replay', '--delivery', failed.id], env);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toMatch(/test event/);
      }
    },
  );

  it('an unknown event name for "send test event" is refused, nothing sent', async () => {
    const p = nextPath('test-unknown');
    const sub = await seedSubscription(knex(), masterKey(), { url: receiver.url(p), variant: 'A' });
    const r = await runCli(['webhook', 'test', '--subscription', sub.id, '--event', 'click.recorded'], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/event "click\.recorded" is not an event of Variant A/);
    expect(receiver.to(p)).toHaveLength(0);
  });

  it('an endpoint whose deliveries all fail for 5 days is disabled with its reason; one success starts the count again; it can be re-enabled', async () => {
    const failing = nextPath('health-failing');
    const recovering = nextPath('health-recovering');
    receiver.reply(failing, [{ status: 410 }]);
    // Fails, then succeeds once (day 2), then fails from then on.
    receiver.reply(recovering, (req) => (req.nth === 2 ? { status: 200 } : { status: 410 }));
    // Variant A: a 410 is FAILED at once, one attempt per delivery.
    const bad = await seedSubscription(knex(), masterKey(), { url: receiver.url(failing), variant: 'A' });
    const good = await seedSubscription(knex(), masterKey(), { url: receiver.url(recovering), variant: 'A' });
    const deliverBoth = async () => {
      const ids = [
        await seedDelivery(knex(), bad, { nextAttemptAt: Date.now() + ahead }),
        await seedDelivery(knex(), good, { nextAttemptAt: Date.now() + ahead }),
      ];
      for (const id of ids) await waitForSettled(knex(), id);
    };
    const subscription = async (id: string) => knex()('webhook_subscriptions').where({ id }).first();

    ahead = 0;
    const start = Date.now();
    await deliverBoth();
    const failingSince = Number((await subscription(bad.id)).failing_since);
    expect(failingSince).toBeGreaterThanOrEqual(start);

    ahead = 2 * DAY;
    await deliverBoth();
    expect(await subscription(good.id)).toMatchObject({ failing_since: null });

    ahead = ENDPOINT_FAILING_DISABLE_MS - 60_000;
    await deliverBoth();
    expect(Boolean((await subscription(bad.id)).enabled)).toBe(true);

    ahead = ENDPOINT_FAILING_DISABLE_MS + 1_000;
    await deliverBoth();
    const disabled = await subscription(bad.id);
    expect(Boolean(disabled.enabled)).toBe(false);
    expect(Number(disabled.disabled_at)).toBeGreaterThanOrEqual(failingSince + ENDPOINT_FAILING_DISABLE_MS);
    expect(disabled.disabled_reason).toMatch(/Every delivery attempt since .* failed \(the last: HTTP 410\).*5 days/);
    // One success on day 2: not disabled.
    const kept = await subscription(good.id);
    expect(Boolean(kept.enabled)).toBe(true);
    expect(Number(kept.failing_since)).toBeGreaterThan(start + 2 * DAY);

    // Shown to the operator, with the time and the reason.
    const listed = await cli(['webhook', 'subscriptions', '--workspace', bad.workspaceId], ['data']);
    expect(listed.data).toEqual([
      expect.objectContaining({
        id: bad.id,
        variant: 'A',
        enabled: false,
        disabledAt: new Date(Number(disabled.disabled_at)).toISOString(),
        disabledReason: disabled.disabled_reason,
      }),
    ]);
    // A delivery for a disabled subscription is FAILED with nothing sent.
    const before = receiver.to(failing).length;
    const orphan = await seedDelivery(knex(), bad, { nextAttemptAt: Date.now() + ahead });
    expect(await waitForSettled(knex(), orphan)).toMatchObject({ status: 'FAILED', attempts: 0 });
    expect(receiver.to(failing)).toHaveLength(before);

    // Re-enabled: the reason is cleared and five new days begin.
    receiver.reply(failing, [{ status: 200 }]);
    expect(await cli(['webhook', 'enable', '--subscription', bad.id], ['id', 'enabled'])).toEqual({
      id: bad.id,
      enabled: true,
    });
    expect(await subscription(bad.id)).toMatchObject({ disabled_at: null, disabled_reason: null, failing_since: null });
    const again = await seedDelivery(knex(), bad, { nextAttemptAt: Date.now() + ahead });
    expect(await waitForSettled(knex(), again)).toMatchObject({ status: 'DELIVERED' });
    ahead = 0;
  });

  it('"replay failed since…" replays exactly the FAILED Variant B deliveries of the subscription since the time', async () => {
    const p = nextPath('replay-since');
    receiver.reply(p, [{ status: 200 }]);
    const sub = await seedSubscription(knex(), masterKey(), { url: receiver.url(p), variant: 'B' });
    const other = await seedSubscription(knex(), masterKey(), {
      url: receiver.url(p),
      variant: 'B',
      workspaceId: sub.workspaceId,
    });
    const since = Date.now() - 60 * 60 * 1000;
    const seed = (s: typeof sub, createdAt: number, status: string, extra: Record<string, unknown> = {}) =>
      seedSettledDelivery(knex(), s, status, createdAt, { finishedAfterMs: 1000, extra });
    const replayed = [await seed(sub, since, 'FAILED'), await seed(sub, since + 10 * 60 * 1000, 'FAILED')];
    const untouched = [
      await seed(sub, since - 1, 'FAILED'),
      await seed(sub, since + 1000, 'DELIVERED'),
      await seed(sub, since + 2000, 'FAILED', { is_test: true }),
      await seed(other, since + 3000, 'FAILED'),
    ];
    const out = await cli(
      ['webhook', 'replay-since', '--subscription', sub.id, '--since', new Date(since).toISOString()],
      ['id', 'replayed'],
    );
    expect(out.id).toBe(sub.id);
    expect([...out.replayed].sort()).toEqual([...replayed].sort());
    for (const id of replayed) {
      expect(await waitForSettled(knex(), id)).toMatchObject({
        status: 'DELIVERED',
        attempts: 7,
        replays: 1,
        round_start: 6,
      });
    }
    const seen = receiver.to(p);
    expect(seen.map((r) => r.headers['x-service-delivery-id']).sort()).toEqual([...replayed].sort());
    for (const id of untouched) expect((await knex()('webhook_deliveries').where({ id }).first()).replays).toBe(0);

    // A Variant A subscription has nothing to replay; a disabled one must be re-enabled first.
    const a = await seedSubscription(knex(), masterKey(), { url: receiver.url(p), variant: 'A' });
    const refusedA = await runCli(['webhook', 'replay-since', '--subscription', a.id, '--since', '2020-01-01'], env);
    expect(refusedA.code).not.toBe(0);
    expect(refusedA.stderr).toMatch(/Variant A/);
    await knex()('webhook_subscriptions').where({ id: other.id }).update({ enabled: false });
    const refusedOff = await runCli(
      ['webhook', 'replay-since', '--subscription', other.id, '--since', '2020-01-01'],
      env,
    );
    expect(refusedOff.stderr).toMatch(/disabled: re-enable it/);
  });
});
