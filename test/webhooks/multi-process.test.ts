// Two Shortlink processes on one Postgres database deliver from the same outbox: each attempt is
// made by exactly one of them (claims take disjoint rows with FOR UPDATE SKIP LOCKED). Every
// endpoint answers 503 to the first request of a delivery and 200 to the second, so each
// delivery must reach the receiver exactly twice: a duplicate or a lost attempt shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { deliveryRow, seedSubscription, type SeededSubscription } from '../support/outbox';
import { startDeliveringServer, startReceiver, type Receiver } from '../support/receiver';
import { twoProcessesOnOnePostgres } from '../support/server';

const engines = testEngines().filter((e) => e === 'postgres');
const DELIVERIES = 600;

describe.skipIf(!engines.length)('webhook delivery by two processes on one Postgres', () => {
  let receiver: Receiver;
  const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_RETRY_SCALE: '0.01' };
  const servers = twoProcessesOnOnePostgres((database) => startDeliveringServer('postgres', { env, database }));

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it(`makes each attempt of ${DELIVERIES} deliveries exactly once`, async () => {
    const { a, b } = servers;
    const knex = a.services.db.knex;
    const subs: SeededSubscription[] = [];
    for (const [i, variant] of (['A', 'B', 'A', 'B'] as const).entries()) {
      subs.push(await seedSubscription(knex, a.services.masterKey, { url: receiver.url(`/mp/${i}`), variant }));
    }
    // The key of a delivery as the receiver sees it: the delivery id (B), or data.id (A).
    const keyOf = (r: { headers: Record<string, unknown>; body: any }) =>
      (r.headers['x-service-delivery-id'] as string | undefined) ?? `a:${r.body.data.id}`;
    const seen = new Map<string, number>();
    for (let i = 0; i < subs.length; i++) {
      receiver.reply(`/mp/${i}`, (req) => {
        const n = (seen.get(keyOf(req)) ?? 0) + 1;
        seen.set(keyOf(req), n);
        return { status: n === 1 ? 503 : 200 };
      });
    }
    const rows = Array.from({ length: DELIVERIES }, (_, i) => {
      const sub = subs[i % subs.length];
      const row = deliveryRow(
        sub,
        sub.variant === 'A'
          ? {
              data: {
                id: `lnk_mp_${i}`,
                workspaceId: sub.workspaceId,
                slug: `mp-${i}`,
                domain: 'sho.rt',
                destinationUrl: 'https://example.com/',
                title: null,
              },
            }
          : {},
      );
      return row;
    });
    const expectedKeys = rows.map((r) => (r.variant === 'B' ? r.id : `a:lnk_mp_${rows.indexOf(r)}`));
    // One transaction: both processes find the whole outbox due at the same moment.
    await knex.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += 200) await trx('webhook_deliveries').insert(rows.slice(i, i + 200));
    });

    const start = Date.now();
    for (;;) {
      const [{ n }] = await knex('webhook_deliveries').whereNot('status', 'DELIVERED').count({ n: '*' });
      if (Number(n) === 0) break;
      if (Date.now() - start > 150_000) {
        // What the stuck ones say, so a failure here can be read without running it again.
        const stuck = await knex('webhook_deliveries')
          .whereNot('status', 'DELIVERED')
          .select('id', 'status', 'attempts', 'next_attempt_at', 'lease_until', 'last_status_code', 'last_error')
          .limit(10);
        throw new Error(`${n} deliveries still not DELIVERED: ${JSON.stringify({ now: Date.now(), stuck })}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }

    expect(receiver.requests.length).toBe(2 * DELIVERIES);
    expect(seen.size).toBe(DELIVERIES);
    expect([...seen.values()].every((n) => n === 2)).toBe(true);
    expect(new Set(seen.keys())).toEqual(new Set(expectedKeys));
    const attempts = await knex('webhook_attempts').select('delivery_id').count({ n: '*' }).groupBy('delivery_id');
    expect(attempts).toHaveLength(DELIVERIES);
    expect(attempts.every((r: any) => Number(r.n) === 2)).toBe(true);
    expect(await knex('webhook_deliveries').where('attempts', '!=', 2).count({ n: '*' })).toEqual([{ n: 0 }]);
    // Both processes took part.
    expect(a.webhooks.attemptsMade + b.webhooks.attemptsMade).toBe(2 * DELIVERIES);
    expect(a.webhooks.attemptsMade).toBeGreaterThan(0);
    expect(b.webhooks.attemptsMade).toBeGreaterThan(0);
  }, 180_000);
});
