// Settings › Webhooks in the dashboard API, through HTTPS on every engine, against a real HTTPS
// receiver: both variants' subscriptions (Variant A's secret shown once, Variant B's taken from
// the caller), the catalogue with each event's schema and example, "Send test event", the
// delivery log (newest first, filters, attempts with request and answer), replay, "Replay
// failed since…", "Mark delivered" / "Mark failed", re-enabling a subscription the endpoint
// health rule disabled; roles (OWNER and ADMIN act, ANALYST reads), another workspace's objects,
// the anti-forgery token, plans. Responses are validated against the contract
// (SHORTLINK_VALIDATE_RESPONSES).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyVariantA } from '../../src/webhooks/verify';
import { testEngines } from '../support/databases';
import { seedTeam } from '../support/dashboard';
import { seedDelivery, seedSettledDelivery, seedSubscription, waitForSettled } from '../support/outbox';
import { startDeliveries, stopDeliveries, type DeliveringServer, type Receiver } from '../support/receiver';

describe.each(testEngines())('dashboard webhooks on %s', (engine) => {
  let receiver: Receiver;
  let server: DeliveringServer;
  let team: Awaited<ReturnType<typeof seedTeam>>;
  let other: Awaited<ReturnType<typeof seedTeam>>;
  let base: string;
  const knex = () => server.services.db.knex;
  let n = 0;
  const nextPath = (what: string) => `/dash/${engine}/${what}/${++n}`;

  beforeAll(async () => {
    ({ receiver, server } = await startDeliveries(engine, {
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_RETRY_SCALE: '0.01', WEBHOOK_TIMEOUT_MS: '2000' },
    }));
    team = await seedTeam(server as any);
    other = await seedTeam(server as any);
    base = `/workspaces/${team.workspaceId}/webhooks`;
  });
  afterAll(() => stopDeliveries({ receiver, server }));

  const seedFor = (variant: 'A' | 'B', path: string) =>
    seedSubscription(knex(), server.services.masterKey, {
      url: receiver.url(path),
      variant,
      workspaceId: team.workspaceId,
    });

  it("makes both variants' subscriptions: Variant A shows its generated secret once, Variant B takes the caller's", async () => {
    const a = await team.owner.request('POST', `${base}/subscriptions`, {
      body: { variant: 'A', url: receiver.url(nextPath('a')), events: ['link.created', 'conversion.created'] },
    });
    expect(a.status).toBe(201);
    expect(a.body.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(a.body.data).toMatchObject({
      variant: 'A',
      enabled: true,
      events: ['link.created', 'conversion.created'],
      failingSince: null,
      disabledReason: null,
    });
    const b = await team.admin.request('POST', `${base}/subscriptions`, {
      body: {
        variant: 'B',
        url: receiver.url(nextPath('b')),
        events: ['link.clicked'],
        secret: 'a caller chosen secret',
      },
    });
    expect(b.status).toBe(201);
    expect(b.body.secret).toBeUndefined();
    const listed = await team.analyst.request('GET', `${base}/subscriptions`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((s: any) => s.id)).toEqual(expect.arrayContaining([a.body.data.id, b.body.data.id]));
    expect(listed.text).not.toContain(a.body.secret);
    expect(listed.text).not.toContain('a caller chosen secret');
    // The same rules as the public endpoints, naming the field.
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ variant: 'B', url: receiver.url('/x'), events: ['link.clicked'], secret: 'short' }, 'secret'],
      [{ variant: 'B', url: receiver.url('/x'), events: ['link.clicked'] }, 'secret'],
      [{ variant: 'A', url: receiver.url('/x'), events: ['link.created'], secret: 'not yours to choose!' }, 'secret'],
      [{ variant: 'A', url: 'http://example.com/hook', events: ['link.created'] }, 'url'],
      [{ variant: 'A', url: receiver.url('/x'), events: ['click.recorded'] }, 'events'],
    ];
    for (const [body, field] of refused) {
      const res = await team.owner.request('POST', `${base}/subscriptions`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.field, JSON.stringify(body)).toBe(field);
    }

    // Variant A's URL, events and enabled change; Variant B has no update.
    const patched = await team.admin.request('PATCH', `${base}/subscriptions/${a.body.data.id}`, {
      body: { events: ['link.deleted'], enabled: false },
    });
    expect(patched.body.data).toMatchObject({ events: ['link.deleted'], enabled: false });
    expect(
      (await team.admin.request('PATCH', `${base}/subscriptions/${b.body.data.id}`, { body: { enabled: false } }))
        .status,
    ).toBe(409);
    expect((await team.owner.request('DELETE', `${base}/subscriptions/${b.body.data.id}`)).status).toBe(204);
    expect((await team.owner.request('GET', `${base}/subscriptions`)).body.data.map((s: any) => s.id)).not.toContain(
      b.body.data.id,
    );
  });

  it("serves each variant's catalogue with every event's payload schema and example", async () => {
    const res = await team.analyst.request('GET', `${base}/events`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((v: any) => v.variant)).toEqual(['A', 'B']);
    const a = res.body.data[0];
    expect(a.retired.map((r: any) => r.name)).toEqual(['click.recorded', 'subscription.updated']);
    const created = a.events.find((e: any) => e.name === 'link.created');
    expect(created.payload.type).toBe('object');
    expect(created.example).toMatchObject({ id: expect.any(String), slug: expect.any(String) });
  });

  it('"send test event" answers what came back; the delivery is in the log marked as a test, with its attempt', async () => {
    const p = nextPath('test');
    receiver.reply(p, [{ status: 200, body: 'received' }]);
    const sub = await seedFor('A', p);
    const res = await team.owner.request('POST', `${base}/subscriptions/${sub.id}/test`, {
      body: { event: 'link.created' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'DELIVERED',
      attempt: { statusCode: 200, response: { body: 'received', truncated: false } },
    });
    const [req] = receiver.to(p);
    expect(verifyVariantA(req.rawBody, req.headers['x-webhook-signature'] as string, sub.secret)).toBe(true);
    // A sample: the variant's envelope, the documented example's workspace (never this one), the unsigned hint.
    expect(Object.keys(req.body).sort()).toEqual(['data', 'event', 'timestamp']);
    expect(req.body.data.workspaceId).toBe('ws_91c3e7a2');
    expect(req.headers['x-service-test']).toBe('true');
    const log = await team.analyst.request('GET', `${base}/deliveries?subscriptionId=${sub.id}`);
    expect(log.body.data).toMatchObject([{ id: res.body.data.deliveryId, test: true, status: 'DELIVERED' }]);
    const detail = await team.analyst.request('GET', `${base}/deliveries/${res.body.data.deliveryId}`);
    expect(detail.body.attempts[0].request.body).toBe(req.rawBody.toString('utf8'));
    expect(
      (await team.owner.request('POST', `${base}/subscriptions/${sub.id}/test`, { body: { event: 'no.such' } })).status,
    ).toBe(400);
  });

  it('the log: newest first, filtered by status, event and subscription, paged; each delivery opens to its attempts', async () => {
    const p = nextPath('log');
    receiver.reply(p, [{ status: 410, body: 'gone for good' }]);
    const sub = await seedFor('A', p);
    const first = await seedDelivery(knex(), sub, { eventType: 'link.created' });
    await waitForSettled(knex(), first);
    const second = await seedDelivery(knex(), sub, { eventType: 'link.created' });
    await waitForSettled(knex(), second);
    const log = await team.member.request(
      'GET',
      `${base}/deliveries?subscriptionId=${sub.id}&status=FAILED&event=link.created`,
    );
    expect(log.status).toBe(200);
    expect(log.body.data.map((d: any) => d.id)).toEqual([second, first]);
    expect(
      (await team.member.request('GET', `${base}/deliveries?subscriptionId=${sub.id}&status=DELIVERED`)).body.data,
    ).toEqual([]);
    expect(
      (await team.member.request('GET', `${base}/deliveries?subscriptionId=${sub.id}&event=link.deleted`)).body.data,
    ).toEqual([]);
    const page1 = await team.member.request('GET', `${base}/deliveries?subscriptionId=${sub.id}&limit=1`);
    expect(page1.body).toMatchObject({ data: [{ id: second }], next: second });
    const page2 = await team.member.request(
      'GET',
      `${base}/deliveries?subscriptionId=${sub.id}&limit=1&before=${second}`,
    );
    expect(page2.body).toMatchObject({ data: [{ id: first }], next: null });
    const detail = await team.member.request('GET', `${base}/deliveries/${first}`);
    expect(detail.body.data).toMatchObject({ id: first, status: 'FAILED', lastStatusCode: 410 });
    expect(detail.body.attempts).toMatchObject([
      { attempt: 1, statusCode: 410, outcome: 'failed', response: { body: 'gone for good', truncated: false } },
    ]);
    expect(detail.body.attempts[0].request.headers['X-Webhook-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('replays a FAILED Variant B delivery, replays failed since a time, marks an UNKNOWN Variant A delivery', async () => {
    const p = nextPath('replay');
    receiver.reply(p, [{ status: 200 }]);
    const b = await seedFor('B', p);
    const seedSettled = (s: typeof b, status: string, createdAt: number) =>
      seedSettledDelivery(knex(), s, status, createdAt);
    const now = Date.now();
    const one = await seedSettled(b, 'FAILED', now - 3 * 3600_000);
    const replayed = await team.admin.request('POST', `${base}/deliveries/${one}/replay`);
    expect(replayed.body).toEqual({ data: { id: one, status: 'PENDING' } });
    expect(await waitForSettled(knex(), one)).toMatchObject({ status: 'DELIVERED', attempts: 7 });
    expect((await team.admin.request('POST', `${base}/deliveries/${one}/replay`)).status).toBe(409);

    const old = await seedSettled(b, 'FAILED', now - 2 * 3600_000);
    const recent = [
      await seedSettled(b, 'FAILED', now - 30 * 60_000),
      await seedSettled(b, 'FAILED', now - 20 * 60_000),
    ];
    const since = await team.owner.request('POST', `${base}/subscriptions/${b.id}/replay-failed`, {
      body: { since: new Date(now - 3600_000).toISOString() },
    });
    expect(since.status).toBe(200);
    expect([...since.body.data.replayed].sort()).toEqual([...recent].sort());
    for (const id of recent) expect(await waitForSettled(knex(), id)).toMatchObject({ status: 'DELIVERED' });
    expect((await knex()('webhook_deliveries').where({ id: old }).first()).status).toBe('FAILED');

    const a = await seedFor('A', nextPath('unknown'));
    const unknown = await seedSettled(a, 'UNKNOWN', now);
    expect((await team.admin.request('POST', `${base}/deliveries/${unknown}/replay`)).status).toBe(409);
    const marked = await team.admin.request('POST', `${base}/deliveries/${unknown}/resolve`, {
      body: { outcome: 'DELIVERED' },
    });
    expect(marked.body).toEqual({ data: { id: unknown, status: 'DELIVERED' } });
    expect(
      (await team.admin.request('POST', `${base}/deliveries/${unknown}/resolve`, { body: { outcome: 'FAILED' } }))
        .status,
    ).toBe(409);
    expect(
      (await team.admin.request('POST', `${base}/deliveries/${unknown}/resolve`, { body: { outcome: 'MAYBE' } }))
        .status,
    ).toBe(400);
  });

  it('shows why the service disabled an endpoint, and re-enables it', async () => {
    const sub = await seedFor('B', nextPath('health'));
    const when = Date.now() - 1000;
    await knex()('webhook_subscriptions')
      .where({ id: sub.id })
      .update({
        enabled: false,
        failing_since: when - 5 * 86_400_000,
        disabled_at: when,
        disabled_reason: 'Every delivery attempt since ... failed',
      });
    const listed = (await team.analyst.request('GET', `${base}/subscriptions`)).body.data.find(
      (s: any) => s.id === sub.id,
    );
    expect(listed).toMatchObject({
      enabled: false,
      disabledAt: new Date(when).toISOString(),
      disabledReason: 'Every delivery attempt since ... failed',
    });
    const enabled = await team.owner.request('POST', `${base}/subscriptions/${sub.id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({
      enabled: true,
      disabledAt: null,
      disabledReason: null,
      failingSince: null,
    });
  });

  it("an ANALYST (and a MEMBER) reads and changes nothing; another workspace's objects are 404; a change needs the anti-forgery token; a plan without webhooks is 403", async () => {
    const p = nextPath('roles');
    const sub = await seedFor('B', p);
    const delivery = await seedDelivery(knex(), sub);
    await waitForSettled(knex(), delivery);
    const acts: Array<[string, string, unknown?]> = [
      [
        'POST',
        `${base}/subscriptions`,
        { variant: 'B', url: receiver.url('/r'), events: ['link.clicked'], secret: 'sixteen chars ok' },
      ],
      ['PATCH', `${base}/subscriptions/${sub.id}`, { enabled: false }],
      ['DELETE', `${base}/subscriptions/${sub.id}`],
      ['POST', `${base}/subscriptions/${sub.id}/enable`],
      ['POST', `${base}/subscriptions/${sub.id}/test`, { event: 'link.created' }],
      ['POST', `${base}/subscriptions/${sub.id}/replay-failed`, { since: '2020-01-01T00:00:00Z' }],
      ['POST', `${base}/deliveries/${delivery}/replay`],
      ['POST', `${base}/deliveries/${delivery}/resolve`, { outcome: 'FAILED' }],
    ];
    for (const who of [team.analyst, team.member]) {
      for (const [method, path, body] of acts) {
        const res = await who.request(method, path, { body });
        expect(res.status, `${method} ${path}`).toBe(403);
      }
    }
    expect(receiver.to(p)).toHaveLength(1);
    for (const path of [
      `${base}/subscriptions`,
      `${base}/events`,
      `${base}/deliveries`,
      `${base}/deliveries/${delivery}`,
    ]) {
      expect((await team.analyst.request('GET', path)).status, path).toBe(200);
    }
    // Another workspace: its own path does not find these; this workspace's path is not theirs.
    const theirs = `/workspaces/${other.workspaceId}/webhooks`;
    expect((await other.owner.request('GET', `${theirs}/deliveries/${delivery}`)).status).toBe(404);
    expect(
      (await other.owner.request('POST', `${theirs}/deliveries/${delivery}/resolve`, { body: { outcome: 'FAILED' } }))
        .status,
    ).toBe(404);
    expect(
      (await other.owner.request('POST', `${theirs}/subscriptions/${sub.id}/test`, { body: { event: 'link.created' } }))
        .status,
    ).toBe(404);
    expect((await other.owner.request('DELETE', `${theirs}/subscriptions/${sub.id}`)).status).toBe(404);
    expect((await other.owner.request('GET', `${theirs}/deliveries?subscriptionId=${sub.id}`)).status).toBe(404);
    expect((await other.owner.request('GET', `${theirs}/deliveries`)).body.data.map((d: any) => d.id)).not.toContain(
      delivery,
    );
    expect((await other.owner.request('GET', `${base}/subscriptions`)).status).toBe(404);
    expect(receiver.to(p)).toHaveLength(1);
    // Without the session's anti-forgery token nothing changes.
    expect((await team.owner.request('DELETE', `${base}/subscriptions/${sub.id}`, { csrf: null })).status).toBe(403);
    expect((await team.owner.request('GET', `${base}/subscriptions`)).body.data.map((s: any) => s.id)).toContain(
      sub.id,
    );
    const pro = await seedTeam(server as any, 'pro');
    const res = await pro.owner.request('GET', `/workspaces/${pro.workspaceId}/webhooks/subscriptions`);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/pro plan/);
  });
});
