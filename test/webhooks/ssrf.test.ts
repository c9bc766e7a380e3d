// Deliveries never reach private, loopback, link-local or metadata addresses (DECISIONS.md,
// Webhooks): a server WITHOUT WEBHOOK_ALLOW_PRIVATE_NETWORKS, and a receiver listening on
// loopback that must never see a connection. Variant A: FAILED at once, nothing sent. Variant B:
// a failed attempt on the schedule (WEBHOOK_RETRY_SCALE=0.001 runs it in under a second).
// 10.x and 169.254.169.254 are refused before any connection is tried, so no packet leaves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { seedDelivery, seedSubscription, waitForSettled } from '../support/outbox';
import { startDeliveries, stopDeliveries, type DeliveringServer, type Receiver } from '../support/receiver';

describe.each(testEngines())('address rules of deliveries on %s', (engine) => {
  let receiver: Receiver;
  let server: DeliveringServer;
  const knex = () => server.services.db.knex;

  beforeAll(async () => {
    ({ receiver, server } = await startDeliveries(engine, { env: { WEBHOOK_RETRY_SCALE: '0.001' } }));
  });
  afterAll(async () => {
    // Checked once more at the end: nothing any test here did reached the receiver.
    expect(receiver.connections).toBe(0);
    await stopDeliveries({ receiver, server });
  });

  const targets = (): [string, string, RegExp][] => [
    ['127.0.0.1', receiver.url('/ssrf/v4'), /127\.0\.0\.1 is a loopback address/],
    ['[::1]', receiver.url('/ssrf/v6', '::1'), /::1 is a loopback address/],
    [
      'localhost (a name resolving to loopback)',
      receiver.url('/ssrf/name', 'localhost'),
      /localhost resolves only to addresses deliveries may not reach.*loopback/,
    ],
    ['an IPv4-mapped IPv6 loopback', receiver.url('/ssrf/mapped', '::ffff:127.0.0.1'), /loopback/],
    ['10.0.0.1', 'https://10.0.0.1/hook', /10\.0\.0\.1 is a private \(RFC 1918\) address/],
    ['192.168.1.10', 'https://192.168.1.10/hook', /private/],
    [
      '169.254.169.254 (cloud metadata)',
      'https://169.254.169.254/latest/meta-data/',
      /169\.254\.169\.254 is a cloud metadata address/,
    ],
    ['[fd00:ec2::254] (cloud metadata)', 'https://[fd00:ec2::254]/latest/meta-data/', /metadata/],
    ['100.100.100.200 (cloud metadata)', 'https://100.100.100.200/', /metadata/],
    ['an http URL', `http://localhost:${receiver.port}/ssrf/http`, /http URLs are refused/],
  ];

  /** One delivery of `variant` to each case's URL, settled: each FAILED with its case's reason. */
  async function refusedRows(cases: [string, string, RegExp][], variant: 'A' | 'B') {
    const ids = await Promise.all(
      cases.map(async ([, url]) => {
        const sub = await seedSubscription(knex(), server.services.masterKey, { url, variant });
        return seedDelivery(knex(), sub);
      }),
    );
    const rows = [];
    for (const [i, [what, , reason]] of cases.entries()) {
      const row = await waitForSettled(knex(), ids[i]);
      expect(row.status, what).toBe('FAILED');
      expect(row.last_error, what).toMatch(reason);
      rows.push(row);
    }
    return rows;
  }

  it('Variant A: every refused target is FAILED at once, with nothing sent', async () => {
    const cases = targets();
    const rows = await refusedRows(cases, 'A');
    for (const [i, [what]] of cases.entries()) {
      const row = rows[i];
      expect(row.attempts, what).toBe(1);
      expect(row.last_status_code, what).toBeNull();
      expect(row.last_error, what).toMatch(/nothing was sent; not retried/);
      expect(row.attemptRows[0], what).toMatchObject({ outcome: 'refused', status_code: null });
      expect(Boolean(row.attemptRows[0].request_sent), what).toBe(false);
    }
    expect(receiver.connections).toBe(0);
  });

  it('Variant B: a refused target is a failed attempt on the schedule, FAILED after 6, never contacted', async () => {
    const cases = targets().slice(0, 3);
    const rows = await refusedRows(cases, 'B');
    for (const [i, [what]] of cases.entries()) {
      const row = rows[i];
      expect(row.attempts, what).toBe(6);
      expect(
        row.attemptRows.map((a: any) => a.outcome),
        what,
      ).toEqual(Array(6).fill('refused'));
    }
    expect(receiver.connections).toBe(0);
  });
});
