// Crash under mixed load: `node bin/shortlink.mjs serve` runs as a child process over HTTPS while
// this test creates and updates links, records conversions and visits short links as a person
// would, and a real HTTPS receiver takes the webhook deliveries of both variants (answering each
// after a random delay, so deliveries are in flight). At a random moment the process is killed
// with SIGKILL; the same process is started again on the same database, and from every answer
// the test received before the kill it checks what must have survived:
//   - every link and conversion that got a 2xx exists through the API (an acknowledged PATCH is
//     not undone, a conversion's Idempotency-Key still returns the first answer);
//   - the clicks counted on the links lose at most the clicks of the last flush interval before
//     the kill (plus FLUSH_ALLOWANCE_MS, see below) and never exceed the 302s served;
//   - every event acknowledged by a 2xx is in the outbox exactly once, each outbox row ends
//     DELIVERED to the receiver or in a documented final state (Variant A UNKNOWN: the request
//     was written when the process died), and every request the receiver got is a real event
//     (a matching outbox row, a valid signature). The outbox is read from its tables
//     (webhook_deliveries, webhook_attempts), as `shortlink webhook deliveries` shows it.
// The measured click loss and the webhook accounting are printed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { migrateLatest, openDatabase, type Database } from '../../src/db/knex';
import { verifyVariantA, verifyVariantB } from '../../src/webhooks/verify';
import { createTestDatabase, testEngines, type TestDatabase } from '../support/databases';
import {
  freePort,
  serviceClient,
  sleep,
  spawnServe,
  waitUntilHealthy,
  writeTestTls,
  type ServeProcess,
  type ServiceClient,
} from '../support/process';
import { TEST_MASTER_KEY, startReceiver, type Receiver, type ReceivedDelivery } from '../support/receiver';
import { API_SCOPES, seedMemberKey, seedWorkspace } from '../support/seed';
import type { TestResponse } from '../support/server';

const CLICK_FLUSH_MS = 500;
/**
 * A click is durable once the first flush after it commits. A kill during a flush loses that
 * flush's batch too, so the loss reaches back one interval plus the time that flush takes and
 * the lateness of its timer on a busy machine: this is the room allowed for that (the figures
 * printed compare the loss with one interval alone).
 */
const FLUSH_ALLOWANCE_MS = CLICK_FLUSH_MS;
const WEBHOOK_TIMEOUT_MS = 1_500; // lease of a dead process's attempt: 2 x 1.5 s + 5 s
/** The kill comes this long after the load starts (uniformly at random in between). */
const KILL_AFTER_MS = [1_500, 3_500] as const;
const WRITERS = 3;
/** Visitors, each pausing 5 to 15 ms between visits: steady traffic, not a saturated machine. */
const VISITORS = 6;
/** Requests per key, below the 60 a minute the service allows each key. */
const KEY_BUDGET = 55;
const KEYS = 16;
const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const A_EVENTS = ['link.created', 'link.updated', 'conversion.created'];
const B_EVENTS = ['link.created', 'link.updated', 'link.clicked'];
const B_SECRET = 'crash-test-secret-of-variant-b';

/** What became of a request: an answer, or none (in flight when the process died). */
type Outcome = { answered: true; status: number } | { answered: false };

interface CreatedLink {
  id: string;
  slug: string;
  url: string;
}
interface PatchAttempt {
  title: string;
  outcome: Outcome;
}
interface ConversionAttempt {
  idempotencyKey: string;
  body: { eventType: string; linkId: string; value: { amountMinor: number; currency: string } };
  outcome: Outcome;
  id?: string;
}
interface DeliveryRow {
  id: string;
  subscription_id: string;
  variant: 'A' | 'B';
  event_id: string;
  event_type: string;
  data: string;
  status: string;
  attempts: number;
}

/** Keys of one workspace, each used at most KEY_BUDGET times (the rate limit counts per key). */
class KeyPool {
  private used = new Map<string, number>();
  constructor(private readonly keys: string[]) {}
  take(): string {
    for (const k of this.keys) {
      const n = this.used.get(k) ?? 0;
      if (n < KEY_BUDGET) {
        this.used.set(k, n + 1);
        return k;
      }
    }
    throw new Error(`all ${this.keys.length} keys used ${KEY_BUDGET} times: mint more`);
  }
  get requests(): number {
    return [...this.used.values()].reduce((a, b) => a + b, 0);
  }
}

const is2xx = (o: Outcome) => o.answered && o.status >= 200 && o.status < 300;
const count = <T>(xs: T[], f: (x: T) => boolean) => xs.reduce((n, x) => n + (f(x) ? 1 : 0), 0);
const pct = (x: number, of: number) => (of ? `${((100 * x) / of).toFixed(1)}%` : '-');

describe.each(testEngines())('SIGKILL under mixed load on %s', (engine) => {
  let database: TestDatabase;
  let db: Database;
  let receiver: Receiver;
  let dataDir: string;
  const processes: ServeProcess[] = [];
  const clients: ServiceClient[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    db = openDatabase(database.url);
    await migrateLatest(db);
    receiver = await startReceiver();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-crash-load-'));
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    for (const p of processes) await p.kill('SIGKILL');
    await receiver?.close();
    await db?.knex.destroy();
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write and event, and loses at most the last flush interval of clicks', async () => {
    const startedAt = Date.now();
    const knex = db.knex;
    const report: string[] = [];
    let printed = false;
    onTestFailed(() => {
      if (!printed) console.log(report.join('\n'));
      for (const [i, p] of processes.entries())
        console.log(`--- shortlink serve #${i + 1} (pid ${p.pid}) wrote:\n${p.output()}`);
    });

    // --- Seed: one workspace, many keys of its owners (60 requests a minute each).
    const owner = await seedWorkspace(knex, { scopes: API_SCOPES });
    const keyList = [owner.key];
    for (let i = 1; i < KEYS; i++)
      keyList.push((await seedMemberKey(knex, owner.workspaceId, 'OWNER', API_SCOPES)).key);
    const keys = new KeyPool(keyList);

    // --- The service, as an operator starts it.
    const tls = await writeTestTls(dataDir);
    const port = await freePort();
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: path.join(dataDir, 'data'),
      PORT: String(port),
      PUBLIC_URL: `https://localhost:${port}`,
      TLS_CERT_FILE: tls.certFile,
      TLS_KEY_FILE: tls.keyFile,
      LOG_LEVEL: 'warn',
      MASTER_KEY: TEST_MASTER_KEY,
      CLICK_FLUSH_MS: String(CLICK_FLUSH_MS),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
      WEBHOOK_CA_FILE: tls.certFile,
      WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
      WEBHOOK_RETRY_SCALE: '0.01',
    };
    const first = spawnServe(env);
    processes.push(first);
    await waitUntilHealthy(first, port, tls.ca);
    const api = serviceClient(port, tls.ca, { maxSockets: WRITERS + 2 });
    const visits = serviceClient(port, tls.ca, { maxSockets: VISITORS });
    clients.push(api, visits);
    const call = (method: string, pathname: string, body?: unknown, headers?: Record<string, string>) =>
      api.request(method, pathname, { key: keys.take(), body, headers, timeoutMs: 15_000 });

    // --- The receiver: both variants, each delivery answered 200 after 5 to 120 ms.
    let receiverHolding = 0;
    const slowly = async () => {
      receiverHolding++;
      try {
        await sleep(5 + Math.random() * 115);
      } finally {
        receiverHolding--;
      }
      return { status: 200 };
    };
    receiver.reply('/hooks/a', slowly);
    receiver.reply('/hooks/b', slowly);
    const subA = await call('POST', '/api/webhooks', {
      workspaceId: owner.workspaceId,
      url: receiver.url('/hooks/a'),
      events: A_EVENTS,
    });
    expect(subA.status, subA.text).toBe(201);
    const subB = await call('POST', '/api/v1/webhooks', {
      url: receiver.url('/hooks/b'),
      events: B_EVENTS,
      secret: B_SECRET,
    });
    expect(subB.status, subB.text).toBe(201);
    const secretA = subA.body.data.secret as string;
    const subscriptionOf = { A: subA.body.data.id as string, B: subB.body.id as string };

    // --- What the test was told. Only 2xx answers are promises the service made.
    const links: CreatedLink[] = [];
    const unansweredCreates: string[] = []; // slugs
    const rejected: string[] = []; // non-2xx answers: "METHOD path status"
    const patches = new Map<string, PatchAttempt[]>(); // link id -> in order (one at a time per link)
    const patching = new Set<string>();
    const conversions: ConversionAttempt[] = [];
    const served: Array<{ linkId: string; at: number }> = []; // 302s, at = when the answer arrived
    let visitsUnanswered = 0;
    const visitStatuses = new Map<number, number>();
    let killed = false;
    let n = 0;

    const attempt = async (send: () => Promise<TestResponse>): Promise<{ outcome: Outcome; res?: TestResponse }> => {
      try {
        const res = await send();
        return { outcome: { answered: true, status: res.status }, res };
      } catch {
        return { outcome: { answered: false } };
      }
    };
    const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];

    async function createLink() {
      const i = ++n;
      const slug = `load-${i}`;
      const url = `https://example.com/landing/${i}`;
      const { outcome, res } = await attempt(() => call('POST', '/api/v1/links', { url, slug, title: `created ${i}` }));
      if (!outcome.answered) unansweredCreates.push(slug);
      else if (is2xx(outcome)) links.push({ id: res!.body.data.id, slug, url });
      else rejected.push(`POST /api/v1/links ${outcome.status} ${res!.text}`);
    }
    async function patchLink() {
      const free = links.filter((l) => !patching.has(l.id));
      if (!free.length) return;
      const link = pick(free);
      patching.add(link.id);
      const title = `patched ${++n}`;
      const entry: PatchAttempt = { title, outcome: { answered: false } };
      if (!patches.has(link.id)) patches.set(link.id, []);
      patches.get(link.id)!.push(entry);
      const { outcome, res } = await attempt(() => call('PATCH', `/api/v1/links/${link.id}`, { title }));
      entry.outcome = outcome;
      if (outcome.answered && !is2xx(outcome)) rejected.push(`PATCH /api/v1/links ${outcome.status} ${res!.text}`);
      patching.delete(link.id);
    }
    async function recordConversion() {
      const link = pick(links);
      const c: ConversionAttempt = {
        idempotencyKey: `crash-${engine}-${++n}`,
        body: { eventType: 'purchase', linkId: link.id, value: { amountMinor: 100 + n, currency: 'EUR' } },
        outcome: { answered: false },
      };
      conversions.push(c);
      const { outcome, res } = await attempt(() =>
        call('POST', '/api/v1/conversions', c.body, { 'idempotency-key': c.idempotencyKey }),
      );
      c.outcome = outcome;
      if (is2xx(outcome)) c.id = res!.body.data.id;
      else if (outcome.answered) rejected.push(`POST /api/v1/conversions ${outcome.status} ${res!.text}`);
    }
    async function writer() {
      while (!killed) {
        const r = Math.random();
        if (r < 0.35 || links.length < 3) await createLink();
        else if (r < 0.6) await patchLink();
        else await recordConversion();
        await sleep(10 + Math.random() * 20);
      }
    }
    async function visitor() {
      while (!killed) {
        const link = pick(links);
        try {
          const res = await visits.request('GET', `/${link.slug}`, {
            headers: { 'user-agent': PERSON },
            timeoutMs: 15_000,
          });
          if (res.status === 302) served.push({ linkId: link.id, at: Date.now() });
          visitStatuses.set(res.status, (visitStatuses.get(res.status) ?? 0) + 1);
        } catch {
          visitsUnanswered++;
        }
        await sleep(5 + Math.random() * 10);
      }
    }

    // A few links before the load, so visitors have somewhere to go from the start.
    for (let i = 0; i < 5; i++) await createLink();
    expect(links.length, rejected.join('\n')).toBe(5);

    // --- Load, and the kill at a random moment, preferably with deliveries in flight.
    const loadStart = Date.now();
    const workers = [...Array.from({ length: WRITERS }, writer), ...Array.from({ length: VISITORS }, visitor)];
    const killAfter = KILL_AFTER_MS[0] + Math.random() * (KILL_AFTER_MS[1] - KILL_AFTER_MS[0]);
    await sleep(killAfter);
    for (const until = Date.now() + 500; receiverHolding === 0 && Date.now() < until; ) await sleep(2);
    const receiverHeldAtKill = receiverHolding;
    const receivedBeforeKill = receiver.requests.length;
    const tKill = Date.now();
    first.child.kill('SIGKILL');
    killed = true;
    const exit = await first.exited;
    expect(exit.signal).toBe('SIGKILL');
    await Promise.all(workers);
    const loadMs = tKill - loadStart;
    report.push(
      `crash under mixed load on ${engine}: SIGKILL ${loadMs} ms into the load (CLICK_FLUSH_MS ${CLICK_FLUSH_MS}); ` +
        `the receiver held ${receiverHeldAtKill} deliveries and had got ${receivedBeforeKill}`,
    );

    // --- The same process again, on the same database and port.
    const second = spawnServe(env);
    processes.push(second);
    const restartMs = await waitUntilHealthy(second, port, tls.ca);
    // Every delivery settles: attempts the dead process held wait for their lease to run out.
    const settleStart = Date.now();
    for (;;) {
      const open = Number(
        (await knex('webhook_deliveries').whereIn('status', ['PENDING', 'SENDING']).count({ n: '*' }))[0].n,
      );
      if (open === 0) break;
      if (Date.now() - settleStart > 40_000)
        throw new Error(`${open} deliveries still PENDING or SENDING 40 s after the restart:\n${second.output()}`);
      await sleep(100);
    }
    const settleMs = Date.now() - settleStart;
    report.push(`  restart healthy in ${restartMs} ms, every outbox row settled ${settleMs} ms later`);
    // Nothing was visited since the restart; one more flush interval for good measure.
    await sleep(2 * CLICK_FLUSH_MS);

    // =============================================================================================
    // What the restarted service holds.
    const listed = new Map<string, any>();
    for (let page = 1; ; page++) {
      const res = await call('GET', `/api/v1/links?limit=100&page=${page}`);
      expect(res.status, res.text).toBe(200);
      for (const l of res.body.data) listed.set(l.id, l);
      if (page * 100 >= res.body.meta.total) break;
    }
    const bySlug = new Map([...listed.values()].map((l) => [l.slug as string, l]));
    const ackedConversions = conversions.filter((c) => is2xx(c.outcome));
    const unansweredConversions = count(conversions, (c) => !c.outcome.answered);
    const storedIds = new Set(
      (await knex('conversions').where({ workspace_id: owner.workspaceId }).select('id')).map(
        (r: { id: string }) => r.id,
      ),
    );
    const allPatches = [...patches.values()].flat();
    report.push(
      `  acknowledged before the kill: ${links.length} links (+${unansweredCreates.length} unanswered, ` +
        `${count(unansweredCreates, (slug) => bySlug.has(slug))} of them stored), ${count(allPatches, (t) => is2xx(t.outcome))} PATCHes ` +
        `(+${count(allPatches, (t) => !t.outcome.answered)} unanswered), ${ackedConversions.length} conversions ` +
        `(+${unansweredConversions} unanswered, ${storedIds.size - count(ackedConversions, (c) => storedIds.has(c.id!))} of them stored); ` +
        `${keys.requests} API requests in all`,
    );

    // =============================================================================================
    // Links: every 201 is there as created; no acknowledged PATCH is undone.
    const lostLinks = links.filter((l) => !listed.has(l.id));
    expect(lostLinks, 'links that got 201 before the kill and are gone after the restart').toEqual([]);
    for (const l of links)
      expect({ slug: listed.get(l.id).slug, url: listed.get(l.id).originalUrl }).toEqual({ slug: l.slug, url: l.url });
    // Every listed link is one the test asked for.
    expect(
      [...listed.values()].filter((l) => !links.some((x) => x.id === l.id) && !unansweredCreates.includes(l.slug)),
    ).toEqual([]);
    const undonePatches: string[] = [];
    for (const [linkId, tries] of patches) {
      const lastAcked = tries.map((t) => is2xx(t.outcome)).lastIndexOf(true);
      const title = listed.get(linkId).title;
      // The stored title is the last acknowledged one, or a later one whose answer never came.
      const allowed = tries
        .slice(Math.max(lastAcked, 0))
        .filter((t, i) => (i === 0 && lastAcked >= 0) || !t.outcome.answered)
        .map((t) => t.title);
      if (lastAcked < 0) allowed.push(`created ${listed.get(linkId).slug.slice('load-'.length)}`);
      if (!allowed.includes(title))
        undonePatches.push(`${linkId}: title ${JSON.stringify(title)}, expected one of ${JSON.stringify(allowed)}`);
    }
    expect(undonePatches, 'PATCHes answered 200 whose change is gone after the restart').toEqual([]);

    // =============================================================================================
    // Conversions: every 201 is stored and counted.
    expect(
      ackedConversions.filter((c) => !storedIds.has(c.id!)).map((c) => c.id),
      'conversions that got 201 and are gone',
    ).toEqual([]);
    const summary = await call('GET', '/api/v1/conversions');
    expect(summary.status, summary.text).toBe(200);
    expect(summary.body.data.total).toBe(storedIds.size);
    expect(summary.body.data.total).toBeGreaterThanOrEqual(ackedConversions.length);
    expect(summary.body.data.total).toBeLessThanOrEqual(ackedConversions.length + unansweredConversions);
    for (const entry of summary.body.data.byLink as Array<{ id: string; conversions: number }>) {
      expect(entry.conversions).toBeGreaterThanOrEqual(count(ackedConversions, (c) => c.body.linkId === entry.id));
    }

    // =============================================================================================
    // Clicks: never more than the 302s served, never less than those served before the last
    // flush interval (and its allowance) ahead of the kill.
    const servedBy = new Map<string, number>();
    for (const s of served) servedBy.set(s.linkId, (servedBy.get(s.linkId) ?? 0) + 1);
    const clicksOf = (id: string) => Number(listed.get(id)?.clicks ?? 0);
    const recorded = links.reduce((sum, l) => sum + clicksOf(l.id), 0);
    const lost = served.length - recorded;
    const servedInLastInterval = count(served, (s) => s.at > tKill - CLICK_FLUSH_MS);
    const mustBeDurable = (s: { at: number }) => s.at <= tKill - CLICK_FLUSH_MS - FLUSH_ALLOWANCE_MS;
    const newestDurable = Number(
      (await knex('clicks').where({ workspace_id: owner.workspaceId }).max({ m: 'occurred_at' }))[0].m,
    );
    report.push(
      `  clicks: ${served.length} redirects served (${visitsUnanswered} visits unanswered at the kill), ${recorded} counted after the restart: ` +
        `lost ${lost} (${pct(lost, served.length)}); ${servedInLastInterval} were served in the last ${CLICK_FLUSH_MS} ms before the kill, ` +
        `so the loss is ${servedInLastInterval ? (lost / servedInLastInterval).toFixed(2) : '-'} x one flush interval's clicks; ` +
        `the newest durable click is ${newestDurable ? `${tKill - newestDurable} ms` : 'none: not one click was written'} before the kill ` +
        `(the first was served ${served.length ? tKill - served[0].at : '-'} ms before it); bound checked: every click served more than ` +
        `${CLICK_FLUSH_MS + FLUSH_ALLOWANCE_MS} ms before the kill (${count(served, mustBeDurable)}) is counted`,
    );
    // Soft: a click failure still lets the webhook accounting below run and be printed.
    const overCounted = links.filter((l) => clicksOf(l.id) > (servedBy.get(l.id) ?? 0));
    expect
      .soft(
        overCounted.map((l) => `${l.id}: ${clicksOf(l.id)} clicks, ${servedBy.get(l.id) ?? 0} served`),
        'links counting more clicks than were served',
      )
      .toEqual([]);
    const underCounted = links.filter(
      (l) => clicksOf(l.id) < count(served, (s) => s.linkId === l.id && mustBeDurable(s)),
    );
    expect
      .soft(
        underCounted.map(
          (l) =>
            `${l.id}: ${clicksOf(l.id)} clicks, ${count(served, (s) => s.linkId === l.id && mustBeDurable(s))} served more than ${CLICK_FLUSH_MS + FLUSH_ALLOWANCE_MS} ms before the kill`,
        ),
        'links that lost clicks served before the last flush interval',
      )
      .toEqual([]);
    // The counter on the Link and the raw click events were written together.
    const rawClicks = new Map<string, number>(
      (
        await knex('clicks')
          .where({ workspace_id: owner.workspaceId })
          .select('link_id')
          .count({ n: '*' })
          .groupBy('link_id')
      ).map((r: any) => [r.link_id as string, Number(r.n)]),
    );
    for (const l of listed.values())
      expect(rawClicks.get(l.id) ?? 0, `raw click events of ${l.id}`).toBe(Number(l.clicks));

    // =============================================================================================
    // Webhooks: the outbox holds each acknowledged event exactly once, every row is settled,
    // and every request the receiver got is a real, signed event.
    const rows = (await knex('webhook_deliveries')
      .where({ workspace_id: owner.workspaceId })
      .orderBy('seq')) as DeliveryRow[];
    const dataOf = new Map(rows.map((r) => [r.id, JSON.parse(r.data)]));
    const rowsOf = (variant: 'A' | 'B', type: string, match: (data: any) => boolean) =>
      rows.filter((r) => r.variant === variant && r.event_type === type && match(dataOf.get(r.id)));

    // The receiver's view: each request is a signed copy of an outbox row.
    const rowById = new Map(rows.map((r) => [r.id, r]));
    const aRowByContent = new Map(rows.filter((r) => r.variant === 'A').map((r) => [`${r.event_type} ${r.data}`, r]));
    const receipts = new Map<string, ReceivedDelivery[]>();
    const strangers: string[] = [];
    for (const req of receiver.requests) {
      let row: DeliveryRow | undefined;
      if (req.path === '/hooks/a') {
        row = aRowByContent.get(`${req.body?.event} ${JSON.stringify(req.body?.data)}`);
        if (row && !verifyVariantA(req.rawBody, req.headers['x-webhook-signature'] as string, secretA)) row = undefined;
      } else if (req.path === '/hooks/b') {
        row = rowById.get(req.headers['x-service-delivery-id'] as string);
        const same =
          row &&
          req.body?.id === row.event_id &&
          req.body?.type === row.event_type &&
          JSON.stringify(req.body?.data) === row.data;
        if (!same || !verifyVariantB(req.rawBody, req.headers['x-service-signature'] as string, B_SECRET))
          row = undefined;
      }
      if (!row) {
        strangers.push(`${req.path} ${req.rawBody.toString('utf8').slice(0, 300)}`);
        continue;
      }
      if (!receipts.has(row.id)) receipts.set(row.id, []);
      receipts.get(row.id)!.push(req);
    }
    const settledAfterKill = (await knex('webhook_attempts')
      .whereIn(
        'delivery_id',
        rows.map((r) => r.id),
      )
      .where('error', 'like', 'the process making this attempt stopped%')
      .select('error')) as Array<{ error: string }>;
    const byStatus = (variant: 'A' | 'B', status: string) =>
      count(rows, (r) => r.variant === variant && r.status === status);
    const unknownA = rows.filter((r) => r.variant === 'A' && r.status === 'UNKNOWN');
    const ackedEvents = 2 * links.length + 2 * count(allPatches, (t) => is2xx(t.outcome)) + ackedConversions.length;
    report.push(
      `  webhooks: ${ackedEvents} events acknowledged by a 2xx (+ one link.clicked per counted click); ${rows.length} outbox rows ` +
        `(A ${count(rows, (r) => r.variant === 'A')}, B ${count(rows, (r) => r.variant === 'B')}): DELIVERED A ${byStatus('A', 'DELIVERED')} / ` +
        `B ${byStatus('B', 'DELIVERED')}, UNKNOWN A ${unknownA.length} (${count(unknownA, (r) => receipts.has(r.id))} of them reached the receiver), ` +
        `FAILED ${byStatus('A', 'FAILED') + byStatus('B', 'FAILED')}, still open ${count(rows, (r) => r.status === 'PENDING' || r.status === 'SENDING')}`,
      `  the restarted process settled ${settledAfterKill.length} attempts the dead one held ` +
        `(${count(settledAfterKill, (a) => a.error.includes('after writing'))} with the request written); ` +
        `${count(rows, (r) => r.variant === 'B' && (receipts.get(r.id)?.length ?? 0) > 1)} Variant B deliveries were received twice (same id, same bytes); ` +
        `${receiver.requests.length} requests received in all, ${strangers.length} matching no outbox row`,
    );

    expect(rows.every((r) => r.subscription_id === subscriptionOf[r.variant])).toBe(true);
    const missing: string[] = [];
    const expectOne = (what: string, found: DeliveryRow[]) => {
      if (found.length !== 1) missing.push(`${what}: ${found.length} outbox rows`);
      return found[0];
    };
    for (const l of links) {
      expectOne(
        `A link.created ${l.id}`,
        rowsOf('A', 'link.created', (d) => d.id === l.id),
      );
      expectOne(
        `B link.created ${l.id}`,
        rowsOf('B', 'link.created', (d) => d.link_id === l.id),
      );
    }
    for (const [linkId, tries] of patches) {
      for (const t of tries.filter((x) => is2xx(x.outcome))) {
        const a = expectOne(
          `A link.updated ${linkId} "${t.title}"`,
          rowsOf('A', 'link.updated', (d) => d.id === linkId && d.title === t.title),
        );
        // The B form carries no title: the same event is the row with the same event id.
        if (a)
          expectOne(
            `B link.updated ${linkId} (event ${a.event_id})`,
            rows.filter((r) => r.variant === 'B' && r.event_id === a.event_id && r.event_type === 'link.updated'),
          );
      }
    }
    for (const c of ackedConversions)
      expectOne(
        `A conversion.created ${c.id}`,
        rowsOf('A', 'conversion.created', (d) => d.id === c.id),
      );
    for (const l of listed.values()) {
      const clicked = rowsOf('B', 'link.clicked', (d) => d.link_id === l.id).length;
      if (clicked !== Number(l.clicks))
        missing.push(`B link.clicked ${l.id}: ${clicked} outbox rows for ${l.clicks} recorded clicks`);
    }
    expect(missing, 'acknowledged events missing from (or doubled in) the outbox').toEqual([]);

    // No phantom events: every row is an event of a change that happened.
    const phantom = rows.filter((r) => {
      const d = dataOf.get(r.id);
      switch (`${r.variant} ${r.event_type}`) {
        case 'A link.created':
          return !listed.has(d.id);
        case 'B link.created':
        case 'B link.clicked':
          return !listed.has(d.link_id);
        case 'A link.updated':
          return !(patches.get(d.id) ?? []).some(
            (t) => t.title === d.title && (is2xx(t.outcome) || !t.outcome.answered),
          );
        case 'B link.updated':
          return !rows.some((a) => a.variant === 'A' && a.event_id === r.event_id && a.event_type === 'link.updated');
        case 'A conversion.created':
          return !storedIds.has(d.id);
        default:
          return true;
      }
    });
    expect(
      phantom.map((r) => `${r.variant} ${r.event_type} ${r.data}`),
      'outbox rows of changes that never happened',
    ).toEqual([]);

    // Final states: DELIVERED, or Variant A's UNKNOWN (documented: the request was written when
    // the process died, or no answer came in time); nothing FAILED, nothing left open.
    expect(
      rows
        .filter((r) => !(r.status === 'DELIVERED' || (r.variant === 'A' && r.status === 'UNKNOWN')))
        .map((r) => `${r.id} ${r.variant} ${r.event_type} ${r.status}`),
      'outbox rows neither DELIVERED nor UNKNOWN (Variant A)',
    ).toEqual([]);
    expect(strangers, 'requests the receiver got that match no outbox row (or carry a bad signature)').toEqual([]);
    const undelivered = rows.filter((r) => r.status === 'DELIVERED' && !receipts.has(r.id));
    expect(
      undelivered.map((r) => `${r.id} ${r.variant} ${r.event_type}`),
      'DELIVERED rows the receiver never got',
    ).toEqual([]);
    // Variant A never sends an attempt again once its request may have been written.
    const repeatedA = rows.filter((r) => r.variant === 'A' && (receipts.get(r.id)?.length ?? 0) > 1);
    expect(
      repeatedA.map((r) => `${r.id} ${r.event_type} x${receipts.get(r.id)!.length}`),
      'Variant A deliveries received twice',
    ).toEqual([]);
    // Variant B repeats a delivery byte for byte.
    for (const r of rows.filter((x) => x.variant === 'B')) {
      const got = receipts.get(r.id) ?? [];
      for (const g of got) expect(g.rawBody.equals(got[0].rawBody)).toBe(true);
    }

    // =============================================================================================
    // Conversions through the API once more: the Idempotency-Key returns the first answer.
    for (const c of ackedConversions) {
      const again = await call('POST', '/api/v1/conversions', c.body, { 'idempotency-key': c.idempotencyKey });
      expect(again.status, again.text).toBe(201);
      expect(again.body.data.id, `conversion ${c.idempotencyKey}`).toBe(c.id);
    }
    // The load itself was answered: nothing but 2xx, and only 302 for visits.
    expect(rejected, 'non-2xx answers to the load').toEqual([]);
    expect([...visitStatuses.keys()]).toEqual([302]);

    report.push(`  ${Date.now() - startedAt} ms in all`);
    console.log(report.join('\n'));
    printed = true;
  }, 120_000);
});
