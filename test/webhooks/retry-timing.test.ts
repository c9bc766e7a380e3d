// The measured gaps between attempts follow each variant's schedule (scaled down by
// WEBHOOK_RETRY_SCALE): never early, late by no more than the cost of an attempt, and in the
// schedule's proportions. Timing does not depend on the engine, so this runs on SQLite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_DELAYS_S } from '../../src/domain/webhook-delivery';
import { seedDelivery, seedSubscription, waitForSettled } from '../support/outbox';
import { startDeliveringServer, startReceiver, type DeliveringServer, type Receiver } from '../support/receiver';

/** How late an attempt may be: a poll, a TLS connection and a few writes on a loaded CI machine. */
const lateMs = (expected: number) => Math.max(300, expected * 0.1);

/**
 * Consecutive gaps stand in the schedule's proportions, within 25%. Gaps shorter than 300 ms
 * are left to the absolute check: there the few milliseconds an attempt costs would dominate.
 */
function expectRatios(gaps: number[], expected: number[]) {
  let compared = 0;
  for (let i = 1; i < gaps.length; i++) {
    if (expected[i - 1] < 300) continue;
    const want = expected[i] / expected[i - 1];
    const got = gaps[i] / gaps[i - 1];
    expect(got, `gap ${i + 1} / gap ${i} should be about ${want}: ${gaps.join(', ')} ms`).toBeGreaterThan(want * 0.75);
    expect(got, `gap ${i + 1} / gap ${i} should be about ${want}: ${gaps.join(', ')} ms`).toBeLessThan(want * 1.25);
    compared++;
  }
  expect(compared).toBeGreaterThanOrEqual(2);
}

describe('retry delays as measured by the receiver', () => {
  let receiver: Receiver;
  const servers: Record<string, DeliveringServer> = {};
  const SCALE = { A: 0.02, B: 0.01 };

  // Both servers are up before either measures: a server starting up would hold the event loop.
  beforeAll(async () => {
    receiver = await startReceiver();
    for (const variant of ['A', 'B'] as const) {
      servers[variant] = await startDeliveringServer('sqlite', {
        env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_RETRY_SCALE: String(SCALE[variant]) },
      });
    }
  });
  afterAll(async () => {
    for (const s of Object.values(servers)) await s.stop();
    await receiver?.close();
  });

  async function measure(variant: 'A' | 'B'): Promise<{ gaps: number[]; expected: number[] }> {
    const server = servers[variant];
    const scale = SCALE[variant];
    const path = `/timing/${variant}`;
    receiver.reply(path, [{ status: 503 }]);
    const sub = await seedSubscription(server.services.db.knex, server.services.masterKey, {
      url: receiver.url(path),
      variant,
    });
    const id = await seedDelivery(server.services.db.knex, sub);
    const row = await waitForSettled(server.services.db.knex, id, 30_000);
    expect(row).toMatchObject({ status: 'FAILED', attempts: 6 });
    const times = receiver.to(path).map((r) => r.receivedAt);
    expect(times).toHaveLength(6);
    return {
      gaps: times.slice(1).map((t, i) => t - times[i]),
      expected: RETRY_DELAYS_S[variant].map((s) => s * 1000 * scale),
    };
  }

  /** Each retry came no sooner than its delay and no later than lateMs allows. */
  function expectEachGapOnTime(gaps: number[], expected: number[]) {
    for (const [i, gap] of gaps.entries()) {
      expect(gap, `retry ${i + 1}: ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(expected[i]);
      expect(gap, `retry ${i + 1}: ${gaps.join(', ')} ms`).toBeLessThanOrEqual(expected[i] + lateMs(expected[i]));
    }
  }

  it.concurrent('Variant A: 10, 20, 40, 80, 160 s (x 0.02), each gap twice the one before', async () => {
    const { gaps, expected } = await measure('A');
    expectEachGapOnTime(gaps, expected);
    expectRatios(gaps, expected);
  });

  it.concurrent('Variant B: 1 s, 5 s, 30 s, 2 min, 10 min (x 0.01), in those proportions', async () => {
    const { gaps, expected } = await measure('B');
    expectEachGapOnTime(gaps, expected);
    expectRatios(gaps, expected);
  });
});
