// Two Shortlink processes on one Postgres database behind a real round-robin TCP proxy, used
// only through the proxy, one fresh connection per request (so requests alternate between the
// backends, and the proxy's log of connections tells which backend answered each one): the 60
// requests a minute per key hold in total, every link change shows on both backends within a
// second, and with both webhook workers on every delivery attempt reaches the receiver once.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyVariantA, verifyVariantB } from '../../src/webhooks/verify';
import { testEngines } from '../support/databases';
import {
  startDeliveringServer,
  startReceiver,
  type DeliveringServer,
  type ReceivedDelivery,
  type Receiver,
} from '../support/receiver';
import { seedMemberKey, seedWorkspace } from '../support/seed';
import { httpsRequest, testCertificate, type RequestOptions, type TestResponse } from '../support/server';

const engines = testEngines().filter((e) => e === 'postgres');
const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

interface RoundRobin {
  url: string;
  /** The backend (0 or 1) of every connection accepted so far, in order. */
  picks: number[];
  close(): Promise<void>;
}

/** A TCP proxy: each new connection goes to the next backend in turn; bytes pass untouched (TLS included). */
async function startRoundRobin(ports: number[]): Promise<RoundRobin> {
  const picks: number[] = [];
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  const server = net.createServer((downstream) => {
    const backend = picks.length % ports.length;
    picks.push(backend);
    const upstream = net.connect(ports[backend], '127.0.0.1');
    track(downstream);
    track(upstream);
    downstream.on('error', () => upstream.destroy());
    upstream.on('error', () => downstream.destroy());
    downstream.pipe(upstream).pipe(downstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}`,
    picks,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(!engines.length)('two processes on one Postgres behind a round-robin proxy', () => {
  let receiver: Receiver;
  let a: DeliveringServer;
  let b: DeliveringServer;
  let proxy: RoundRobin;
  let ca: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    // Both webhook workers on, retries 100 times sooner (Variant A: 0.1 s, 0.2 s, ...).
    const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_RETRY_SCALE: '0.01' };
    a = await startDeliveringServer('postgres', { env });
    b = await startDeliveringServer('postgres', { env, database: a.database });
    proxy = await startRoundRobin([a.port, b.port]);
    ca = (await testCertificate()).cert;
  });
  afterAll(async () => {
    await proxy?.close();
    await b?.stop();
    await a?.stop();
    await receiver?.close();
  });

  type ProxiedResponse = TestResponse & { backend: number };

  /** One request through the proxy on a connection of its own; only for requests made one at a time. */
  async function via(method: string, pathname: string, opts: RequestOptions = {}): Promise<ProxiedResponse> {
    const before = proxy.picks.length;
    const res = await httpsRequest(proxy.url, ca, method, pathname, opts);
    expect(proxy.picks.length).toBe(before + 1);
    return { ...res, backend: proxy.picks[before] };
  }
  const visit = (pathname: string) => via('GET', pathname, { headers: { 'user-agent': PERSON } });

  it('lets 60 requests a minute per key through in total, then answers 429 with Retry-After on both backends', async () => {
    const s = await seedWorkspace(a.services.db.knex);
    const started = Date.now();
    const answers: ProxiedResponse[] = [];
    for (let i = 0; i < 64; i++) answers.push(await via('GET', '/api/v1/links', { key: s.key }));
    const elapsedS = (Date.now() - started) / 1000;

    const passed = answers.slice(0, 60);
    expect(passed.map((r) => r.status)).toEqual(Array(60).fill(200));
    // 30 through each backend: counted per process instead, all 64 would have passed.
    expect(passed.filter((r) => r.backend === 0)).toHaveLength(30);
    expect(passed.filter((r) => r.backend === 1)).toHaveLength(30);
    for (const r of passed) {
      expect(r.headers['x-ratelimit-limit']).toBeUndefined();
      expect(r.headers['retry-after']).toBeUndefined();
    }

    const refused = answers.slice(60);
    expect(refused.map((r) => r.status)).toEqual([429, 429, 429, 429]);
    expect(new Set(refused.map((r) => r.backend))).toEqual(new Set([0, 1]));
    for (const r of refused) {
      expect(r.body).toEqual({ error: expect.any(String) });
      expect(r.headers['x-ratelimit-limit']).toBe('60');
      expect(r.headers['x-ratelimit-remaining']).toBe('0');
      const retryAfter = Number(r.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      // The window opened with the first request: what is left of its 60 seconds.
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(retryAfter).toBeGreaterThanOrEqual(60 - Math.ceil(elapsedS) - 1);
      expect(r.headers['x-ratelimit-reset']).toBe(r.headers['retry-after']);
    }
  });

  it('counts concurrent requests of one key exactly across both backends, writes included', async () => {
    const s = await seedWorkspace(a.services.db.knex);
    const reader = await seedMemberKey(a.services.db.knex, s.workspaceId, 'OWNER', ['links:read']);
    const before = proxy.picks.length;
    // 90 requests, 10 at a time: every other one creates a link.
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < 90) {
          const i = next++;
          const res =
            i % 2
              ? await httpsRequest(proxy.url, ca, 'POST', '/api/v1/links', {
                  key: s.key,
                  body: { url: `https://example.com/rr/${i}` },
                })
              : await httpsRequest(proxy.url, ca, 'GET', '/api/v1/links', { key: s.key });
          statuses.push(res.status);
        }
      }),
    );
    const picks = proxy.picks.slice(before);
    expect(picks.filter((p) => p === 0)).toHaveLength(45);
    expect(picks.filter((p) => p === 1)).toHaveLength(45);
    expect(statuses.filter((st) => st === 200 || st === 201)).toHaveLength(60);
    expect(statuses.filter((st) => st === 429)).toHaveLength(30);
    // A refused create changed nothing: the workspace holds exactly the links that got 201.
    const listed = await via('GET', '/api/v1/links?limit=100', { key: reader.key });
    expect(listed.status).toBe(200);
    expect(listed.body.meta.total).toBe(statuses.filter((st) => st === 201).length);
  });

  it('shows every change of a link on the next visits within a second, whichever backend answers', async () => {
    const s = await seedWorkspace(a.services.db.knex);
    const visited = new Set<number>();

    /**
     * Visits until two visits in a row (so one per backend) show the new state, and returns when
     * the first of them was sent, counted from the end of the change; then four more must show it.
     */
    async function settles(pathname: string, shows: (r: ProxiedResponse) => boolean): Promise<number> {
      const start = Date.now();
      const trail: string[] = [];
      let goodSince: number | undefined;
      let inARow = 0;
      while (inARow < 2) {
        const sentAt = Date.now() - start;
        const r = await visit(pathname);
        visited.add(r.backend);
        trail.push(`${sentAt} ms backend ${r.backend}: ${r.status} ${r.headers.location ?? ''}`);
        if (shows(r)) {
          goodSince ??= sentAt;
          inARow++;
        } else {
          goodSince = undefined;
          inARow = 0;
        }
        if (inARow < 2 && sentAt > 3000) break;
      }
      expect(goodSince, `${pathname} did not settle:\n${trail.join('\n')}`).toBeDefined();
      expect(goodSince!, `${pathname} settled late:\n${trail.join('\n')}`).toBeLessThanOrEqual(1000);
      // Settled means settled: no backend goes back to the old state.
      const after = [await visit(pathname), await visit(pathname), await visit(pathname), await visit(pathname)];
      expect(new Set(after.map((r) => r.backend))).toEqual(new Set([0, 1]));
      expect(
        after.every(shows),
        `${pathname} after settling: ${after.map((r) => `${r.backend}:${r.status}`).join(' ')}`,
      ).toBe(true);
      return goodSince!;
    }
    const redirectsTo = (url: string) => (r: ProxiedResponse) => r.status === 302 && r.headers.location === url;
    const notFound = (r: ProxiedResponse) => r.status === 404;
    const change = async (method: string, body?: unknown) => {
      const r = await via(method, `/api/v1/links/${link.id}`, { key: s.key, body });
      expect(r.status).toBe(200);
    };

    // Both backends first learn that rr-renamed does not exist (it is cached as unknown).
    await settles('/rr-renamed', notFound);
    const made = await via('POST', '/api/v1/links', {
      key: s.key,
      body: { url: 'https://example.com/rr/one', slug: 'rr-link' },
    });
    expect(made.status).toBe(201);
    const link = made.body.data;
    await settles('/rr-link', redirectsTo('https://example.com/rr/one'));

    await change('PATCH', { url: 'https://example.com/rr/two' });
    await settles('/rr-link', redirectsTo('https://example.com/rr/two'));

    await change('PATCH', { slug: 'rr-renamed' });
    await settles('/rr-link', notFound);
    await settles('/rr-renamed', redirectsTo('https://example.com/rr/two'));

    await change('PATCH', { status: 'DISABLED' });
    await settles('/rr-renamed', notFound);

    await change('PATCH', { status: 'ACTIVE' });
    await settles('/rr-renamed', redirectsTo('https://example.com/rr/two'));

    await change('DELETE');
    await settles('/rr-renamed', notFound);
    expect(visited).toEqual(new Set([0, 1]));
  });

  it('delivers every attempt of every event once with both webhook workers on, retries included', async () => {
    const knex = a.services.db.knex;
    const s = await seedWorkspace(knex, { scopes: ['links:read', 'links:write', 'webhooks:write'] });
    const converter = await seedMemberKey(knex, s.workspaceId, 'OWNER', ['conversions:write']);
    const secretB = 'round-robin-secret-0123456789';
    const subA = await via('POST', '/api/webhooks', {
      key: s.key,
      body: {
        workspaceId: s.workspaceId,
        url: receiver.url('/rr/a'),
        events: ['link.created', 'link.updated', 'link.deleted', 'conversion.created'],
      },
    });
    expect(subA.status).toBe(201);
    const subB = await via('POST', '/api/v1/webhooks', {
      key: s.key,
      body: {
        url: receiver.url('/rr/b'),
        events: ['link.created', 'link.updated', 'link.deleted', 'link.clicked'],
        secret: secretB,
      },
    });
    expect(subB.status).toBe(201);

    // The receiver's view of a delivery: Variant A's deduplication key (asyncapi/variant-a.yaml),
    // Variant B's delivery id. Every delivery is answered 500 first, link.updated twice, then 200,
    // so the nth arrival of a key is its nth attempt.
    const keyOf = (r: ReceivedDelivery) =>
      r.path === '/rr/a'
        ? `${r.body.event}:${r.body.data.id}:${r.body.data.updatedAt ?? ''}`
        : String(r.headers['x-service-delivery-id']);
    const eventOf = (r: ReceivedDelivery) => (r.path === '/rr/a' ? r.body.event : r.body.type);
    const failuresOf = (event: string) => (event === 'link.updated' ? 2 : 1);
    const arrivals = new Map<string, ReceivedDelivery[]>();
    for (const pathname of ['/rr/a', '/rr/b']) {
      receiver.reply(pathname, (req) => {
        const list = arrivals.get(keyOf(req)) ?? [];
        list.push(req);
        arrivals.set(keyOf(req), list);
        return { status: list.length <= failuresOf(eventOf(req)) ? 500 : 200 };
      });
    }
    const attemptsBefore = a.webhooks.attemptsMade + b.webhooks.attemptsMade;
    const settledCount = () =>
      [...arrivals.values()].filter((list) => list.length === failuresOf(eventOf(list[0])) + 1).length;
    async function waitUntil(what: string, done: () => boolean, ms = 30_000) {
      const start = Date.now();
      while (!done()) {
        if (Date.now() - start > ms) throw new Error(`${what} not within ${ms} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    // Everything through the proxy: 10 links created, each visited twice (two clicks, one per
    // backend), two conversions each, then each changed; deleted once their clicks are delivered.
    const links: Array<{ id: string; slug: string }> = [];
    for (let i = 0; i < 10; i++) {
      const r = await via('POST', '/api/v1/links', {
        key: s.key,
        body: { url: `https://example.com/rr-hook/${i}`, slug: `rr-hook-${i}` },
      });
      expect(r.status).toBe(201);
      links.push(r.body.data);
    }
    const conversionIds: string[] = [];
    for (const link of links) {
      const visits = [await visit(`/${link.slug}`), await visit(`/${link.slug}`)];
      expect(visits.map((v) => v.status)).toEqual([302, 302]);
      expect(new Set(visits.map((v) => v.backend))).toEqual(new Set([0, 1]));
      for (const eventType of ['signup', 'purchase']) {
        const body =
          eventType === 'purchase'
            ? { eventType, linkId: link.id, value: { amountMinor: 1999, currency: 'EUR' } }
            : { eventType, linkId: link.id };
        const r = await via('POST', '/api/v1/conversions', { key: converter.key, body });
        expect(r.status).toBe(201);
        conversionIds.push(r.body.data.id);
      }
      expect(
        (
          await via('PATCH', `/api/v1/links/${link.id}`, {
            key: s.key,
            body: { url: `https://example.com/rr-hook/${link.id}/changed` },
          })
        ).status,
      ).toBe(200);
    }
    const clickedDeliveries = () =>
      [...arrivals.values()].filter((list) => list[0].path === '/rr/b' && list[0].body.type === 'link.clicked').length;
    await waitUntil('20 link.clicked deliveries', () => clickedDeliveries() >= 20);
    for (const link of links)
      expect((await via('DELETE', `/api/v1/links/${link.id}`, { key: s.key })).status).toBe(200);

    // A: 10 created + 10 updated + 10 deleted + 20 conversions; B: 10 + 10 + 10 + 20 clicks.
    const expectedDeliveries = 100;
    const expectedAttempts = 2 * expectedDeliveries + 20;
    await waitUntil('every delivery settled at the receiver', () => settledCount() >= expectedDeliveries);
    // Retries come 0.01 s to 0.2 s apart here and workers look every 0.1 s: a duplicate or a
    // stray later attempt would arrive well within this.
    await new Promise((r) => setTimeout(r, 2000));

    const all = [...arrivals.values()];
    expect(all).toHaveLength(expectedDeliveries);
    for (const list of all) {
      const event = eventOf(list[0]);
      expect(
        list.map((r) => eventOf(r)),
        `${keyOf(list[0])}`,
      ).toEqual(Array(failuresOf(event) + 1).fill(event));
    }
    expect(receiver.to('/rr/a').length + receiver.to('/rr/b').length).toBe(expectedAttempts);
    // Every attempt the two workers made arrived, and nothing else did.
    expect(a.webhooks.attemptsMade + b.webhooks.attemptsMade - attemptsBefore).toBe(expectedAttempts);
    expect(a.webhooks.attemptsMade).toBeGreaterThan(0);
    expect(b.webhooks.attemptsMade).toBeGreaterThan(0);

    // The right events, each signed; Variant B sends the same bytes on every retry.
    const aKeys = all.filter((l) => l[0].path === '/rr/a').map((l) => `${l[0].body.event}:${l[0].body.data.id}`);
    expect(aKeys.sort()).toEqual(
      [
        ...links.flatMap((l) => [`link.created:${l.id}`, `link.updated:${l.id}`, `link.deleted:${l.id}`]),
        ...conversionIds.map((id) => `conversion.created:${id}`),
      ].sort(),
    );
    const bEvents = all.filter((l) => l[0].path === '/rr/b').map((l) => `${l[0].body.type}:${l[0].body.data.link_id}`);
    expect(bEvents.sort()).toEqual(
      links
        .flatMap((l) =>
          ['link.created', 'link.updated', 'link.deleted', 'link.clicked', 'link.clicked'].map((t) => `${t}:${l.id}`),
        )
        .sort(),
    );
    for (const list of all) {
      for (const r of list) {
        if (r.path === '/rr/a')
          expect(verifyVariantA(r.rawBody, r.headers['x-webhook-signature'] as string, subA.body.data.secret)).toBe(
            true,
          );
        else expect(verifyVariantB(r.rawBody, r.headers['x-service-signature'] as string, secretB)).toBe(true);
      }
      if (list[0].path === '/rr/b') expect(new Set(list.map((r) => r.rawBody.toString('utf8'))).size).toBe(1);
    }
  });
});
