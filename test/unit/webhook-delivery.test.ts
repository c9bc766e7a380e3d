// The delivery rules of both webhook variants (schedule.ts), the address rules (ssrf.ts), the
// signatures (signing.ts) and the reference verifiers (verify.mjs), without I/O.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMEOUT_MS,
  MAX_ATTEMPTS,
  attemptTimeoutMs,
  deliveryOutcome,
  leaseMs,
  retryDelayMs,
  type AttemptResult,
} from '../../src/domain/webhook-delivery';
import { composeVariantA, composeVariantB, signVariantA, signVariantB } from '../../src/webhooks/signing';
import { RefusedTarget, refusalReason, vetTarget } from '../../src/webhooks/ssrf';
import { verifyVariantA, verifyVariantB } from '../../src/webhooks/verify';

const answered = (statusCode: number): AttemptResult => ({ kind: 'answered', statusCode });
const notSent: AttemptResult = { kind: 'not_sent', error: 'connect ECONNREFUSED' };
const refused: AttemptResult = { kind: 'refused', error: 'refused: 10.0.0.1 is a private address' };
const lost: AttemptResult = { kind: 'lost', error: 'no answer within 10000 ms' };

describe('retry schedules', () => {
  it('Variant A doubles from 10 s: 10, 20, 40, 80, 160 s', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs('A', n))).toEqual([10_000, 20_000, 40_000, 80_000, 160_000]);
  });
  it('Variant B waits 1 s, 5 s, 30 s, 2 min, 10 min', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs('B', n))).toEqual([1_000, 5_000, 30_000, 120_000, 600_000]);
  });
  it('WEBHOOK_RETRY_SCALE multiplies every delay', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs('A', n, 0.01))).toEqual([100, 200, 400, 800, 1600]);
    expect(retryDelayMs('B', 5, 0.001)).toBe(600);
  });
  it('there are five retries and no sixth', () => {
    expect(MAX_ATTEMPTS).toBe(6);
    expect(() => retryDelayMs('A', 6)).toThrow(RangeError);
    expect(() => retryDelayMs('B', 0)).toThrow(RangeError);
  });
  it('timeouts are 10 s (A) and 30 s (B) unless WEBHOOK_TIMEOUT_MS is set; the lease outlasts connect + answer', () => {
    expect(DEFAULT_TIMEOUT_MS).toEqual({ A: 10_000, B: 30_000 });
    expect(attemptTimeoutMs('A')).toBe(10_000);
    expect(attemptTimeoutMs('B', 500)).toBe(500);
    expect(leaseMs(10_000)).toBeGreaterThan(2 * 10_000);
  });
});

describe('Variant A outcomes', () => {
  const a = (result: AttemptResult, attempt = 1) => deliveryOutcome('A', attempt, result);
  it.each([200, 201, 202, 204, 299])('%i is DELIVERED', (code) => {
    expect(a(answered(code))).toEqual({ status: 'DELIVERED', attemptOutcome: 'delivered' });
  });
  it.each([500, 502, 503, 504, 599, 408, 429])('%i is retried after 10 s', (code) => {
    expect(a(answered(code))).toEqual({ status: 'PENDING', attemptOutcome: 'retry', retryInMs: 10_000 });
  });
  it.each([400, 401, 403, 404, 405, 409, 410, 413, 422, 451])('%i is FAILED at once', (code) => {
    expect(a(answered(code))).toEqual({ status: 'FAILED', attemptOutcome: 'failed' });
  });
  it.each([301, 302, 303, 307, 308, 304])('a %i is an answer, not followed: FAILED at once', (code) => {
    expect(a(answered(code))).toEqual({ status: 'FAILED', attemptOutcome: 'failed' });
  });
  it('nothing sent (refused connection, DNS, TLS) is retried on the same schedule', () => {
    expect(a(notSent, 3)).toEqual({ status: 'PENDING', attemptOutcome: 'retry', retryInMs: 40_000 });
  });
  it('a timeout or reset after sending is UNKNOWN, never repeated', () => {
    for (let n = 1; n <= MAX_ATTEMPTS; n++)
      expect(a(lost, n)).toEqual({ status: 'UNKNOWN', attemptOutcome: 'unknown' });
  });
  it('a refused address is FAILED at once: nothing was sent and waiting cannot change it', () => {
    expect(a(refused)).toEqual({ status: 'FAILED', attemptOutcome: 'refused' });
  });
  it('after the fifth retry fails the delivery is FAILED', () => {
    expect(a(answered(503), 5)).toEqual({ status: 'PENDING', attemptOutcome: 'retry', retryInMs: 160_000 });
    expect(a(answered(503), 6)).toEqual({ status: 'FAILED', attemptOutcome: 'failed' });
    expect(a(notSent, 6)).toEqual({ status: 'FAILED', attemptOutcome: 'failed' });
    expect(a(answered(200), 6)).toEqual({ status: 'DELIVERED', attemptOutcome: 'delivered' });
  });
});

describe('Variant B outcomes', () => {
  const b = (result: AttemptResult, attempt = 1) => deliveryOutcome('B', attempt, result);
  it('a 2xx is DELIVERED', () =>
    expect(b(answered(204))).toEqual({ status: 'DELIVERED', attemptOutcome: 'delivered' }));
  it.each([301, 400, 404, 410, 500, 503])('%i is retried', (code) => {
    expect(b(answered(code), 2)).toEqual({ status: 'PENDING', attemptOutcome: 'retry', retryInMs: 5_000 });
  });
  it('a timeout, a reset or a network error is retried', () => {
    expect(b(lost, 3)).toEqual({ status: 'PENDING', attemptOutcome: 'retry', retryInMs: 30_000 });
    expect(b(notSent, 4)).toEqual({ status: 'PENDING', attemptOutcome: 'retry', retryInMs: 120_000 });
  });
  it('a refused address is a failed attempt on the schedule', () => {
    expect(b(refused, 1)).toEqual({ status: 'PENDING', attemptOutcome: 'refused', retryInMs: 1_000 });
    expect(b(refused, 6)).toEqual({ status: 'FAILED', attemptOutcome: 'refused' });
  });
  it('after the fifth retry fails the delivery is FAILED', () => {
    expect(b(answered(500), 5)).toEqual({ status: 'PENDING', attemptOutcome: 'retry', retryInMs: 600_000 });
    expect(b(lost, 6)).toEqual({ status: 'FAILED', attemptOutcome: 'failed' });
  });
});

describe('addresses deliveries may reach', () => {
  const closed = { allowPrivateNetworks: false };
  const open = { allowPrivateNetworks: true };
  it.each([
    ['127.0.0.1', /loopback/],
    ['127.8.9.10', /loopback/],
    ['::1', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['192.168.1.1', /private/],
    ['169.254.1.1', /link-local/],
    ['fe80::1', /link-local/],
    ['fc00::1', /unique-local/],
    ['fd12:3456::1', /unique-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['224.0.0.1', /multicast/],
    ['ff02::1', /multicast/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['255.255.255.255', /broadcast/],
    ['240.0.0.1', /reserved/],
    ['198.18.0.1', /reserved/],
    ['169.254.169.254', /metadata/],
    ['fd00:ec2::254', /metadata/],
    ['100.100.100.200', /metadata/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:7f00:1', /loopback/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:169.254.169.254', /metadata/],
    ['64:ff9b::a00:1', /NAT64/],
    ['2002:7f00:1::', /6to4/],
  ])('refuses %s', (address, reason) => {
    expect(refusalReason(address, closed)).toMatch(reason);
  });
  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(refusalReason(address, closed)).toBeNull();
    },
  );
  it('WEBHOOK_ALLOW_PRIVATE_NETWORKS opens loopback and private ranges, never metadata or multicast', () => {
    for (const a of ['127.0.0.1', '::1', '10.0.0.1', '192.168.0.1', 'fd12::1', '::ffff:127.0.0.1'])
      expect(refusalReason(a, open)).toBeNull();
    for (const a of ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '224.0.0.1', '0.0.0.0'])
      expect(refusalReason(a, open)).not.toBeNull();
  });

  it('refuses http URLs', async () => {
    await expect(vetTarget(new URL('http://93.184.216.34/hook'), closed)).rejects.toThrow(RefusedTarget);
  });
  it('keeps only acceptable answers of a name and refuses a name with none', async () => {
    const lookup = async () => [
      { address: '10.0.0.5', family: 4 },
      { address: '93.184.216.34', family: 4 },
    ];
    expect(await vetTarget(new URL('https://hooks.example/x'), closed, lookup)).toEqual({
      address: '93.184.216.34',
      family: 4,
    });
    const privateOnly = async () => [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
    await expect(vetTarget(new URL('https://rebind.example/x'), closed, privateOnly)).rejects.toThrow(
      /resolves only to addresses/,
    );
  });
  it('a DNS failure is not a refusal (nothing sent, retried)', async () => {
    const failing = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    };
    const err = await vetTarget(new URL('https://nowhere.invalid/'), closed, failing).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(RefusedTarget);
  });
});

describe('signatures and the reference verifiers', () => {
  const secret = 'whsec_0123456789abcdef';
  const content = {
    id: 'dlv_1',
    eventId: 'evt_1',
    eventType: 'link.created',
    requestId: 'req_1',
    occurredAt: Date.UTC(2026, 0, 1),
    data: JSON.stringify({ link_id: 'lnk_1', slug: 's' }),
  };

  it('Variant A signs "<t>.<raw body>" and the verifier accepts it within 300 s', () => {
    const sentAt = Date.UTC(2026, 0, 1, 12);
    const { body, headers } = composeVariantA(content, secret, sentAt);
    expect(JSON.parse(body)).toEqual({
      event: 'link.created',
      timestamp: '2026-01-01T12:00:00.000Z',
      data: { link_id: 'lnk_1', slug: 's' },
    });
    expect(Object.keys(JSON.parse(body))).toEqual(['event', 'timestamp', 'data']);
    expect(headers['X-Webhook-Signature']).toMatch(/^t=1767268800,v1=[0-9a-f]{64}$/);
    expect(headers['X-Service-Request-Id']).toBe('req_1');
    expect(Object.keys(headers).some((h) => /delivery/i.test(h))).toBe(false);
    const sig = headers['X-Webhook-Signature'];
    expect(verifyVariantA(body, sig, secret, { now: sentAt + 299_000 })).toBe(true);
    expect(verifyVariantA(Buffer.from(body), sig, secret, { now: new Date(sentAt - 299_000) })).toBe(true);
    expect(verifyVariantA(body, sig, secret, { now: sentAt + 301_000 })).toBe(false);
    expect(verifyVariantA(body, sig, secret, { now: sentAt + 1_000_000, toleranceSeconds: 2_000 })).toBe(true);
    expect(verifyVariantA(body.replace('"s"', '"t"'), sig, secret, { now: sentAt })).toBe(false);
    expect(verifyVariantA(body, sig, 'another secret', { now: sentAt })).toBe(false);
    expect(verifyVariantA(` ${body}`, sig, secret, { now: sentAt })).toBe(false);
  });

  it('Variant A: a header with a rotated extra v1 verifies; malformed headers do not, and never throw', () => {
    const t = 1767268800;
    const body = '{"event":"x"}';
    const good = signVariantA(secret, t, body);
    const now = t * 1000;
    expect(verifyVariantA(body, `${good},v1=${'0'.repeat(64)}`, secret, { now })).toBe(true);
    expect(verifyVariantA(body, `t=${t},v1=${'0'.repeat(64)},${good.split(',')[1]}`, secret, { now })).toBe(true);
    for (const bad of [
      undefined,
      null,
      '',
      'garbage',
      `t=${t}`,
      good.split(',')[1],
      `t=abc,${good.split(',')[1]}`,
      `t=${t},t=${t},${good.split(',')[1]}`,
      `t=${t},v1=XYZ`,
      good.toUpperCase(),
    ]) {
      expect(verifyVariantA(body, bad as string, secret, { now })).toBe(false);
    }
    expect(() => verifyVariantA(body, good, '')).toThrow(TypeError);
  });

  it('Variant B signs the raw body; the same delivery always has the same bytes', () => {
    const one = composeVariantB(content, secret);
    const two = composeVariantB(content, secret);
    expect(two.body).toBe(one.body);
    expect(JSON.parse(one.body)).toEqual({
      id: 'evt_1',
      type: 'link.created',
      timestamp: '2026-01-01T00:00:00.000Z',
      data: { link_id: 'lnk_1', slug: 's' },
    });
    expect(one.headers).toMatchObject({
      'X-Service-Signature': signVariantB(secret, one.body),
      'X-Service-Event': 'link.created',
      'X-Service-Delivery-Id': 'dlv_1',
      'User-Agent': 'Shortlink-Webhooks/1.0',
      'Content-Type': 'application/json',
    });
    expect(verifyVariantB(one.body, one.headers['X-Service-Signature'], secret)).toBe(true);
    expect(verifyVariantB(Buffer.from(one.body), one.headers['X-Service-Signature'].toUpperCase(), secret)).toBe(true);
    expect(verifyVariantB(one.body.replace('lnk_1', 'lnk_2'), one.headers['X-Service-Signature'], secret)).toBe(false);
    expect(verifyVariantB(one.body, 'abc', secret)).toBe(false);
    expect(verifyVariantB(one.body, undefined, secret)).toBe(false);
    expect(() => verifyVariantB(one.body, 'abc', undefined as unknown as string)).toThrow(TypeError);
  });
});
