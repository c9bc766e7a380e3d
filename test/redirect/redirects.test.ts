// The short link itself, through real HTTPS on every engine: resolution rules, pages, clicks.
import { clickTotals } from '../../src/db/repos/links';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { createQrCode } from '../../src/db/repos/workspace-objects';
import { setPolicyDisabled } from '../../src/db/repos/links';
import { policyDisabled } from '../../src/webhooks/link-events';
import { sqliteFilename } from '../../src/db/knex';
import { LinkLookupThread } from '../../src/db/lookup-thread';
import { testEngines } from '../support/databases';
import { hostImage, seedWorkspace, serverWithOwner } from '../support/seed';
import { standInRedirectService } from '../support/redirect-service';
import { startTestServer } from '../support/server';
import { IPHONE_STORED, IPHONE_USER_AGENT } from '../support/user-agents';
import { loadDefinition } from '../../src/http/definition';
import { fixedPathsOf } from '../../src/http/routing';

const PERSON =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const CRAWLER = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';
const HOUR = 3_600_000;
/** The instant `ms` from now (negative: ago), as the API takes it. */
const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('fixed paths of the contract', () => {
  // The API answers a fixed path for every method (405 for one it lacks, test/api/platform.test.ts):
  // the dispatcher hands it over whether or not its name is a reserved slug.
  it('are handed to the API for every method, never looked up as a slug', async () => {
    const fixed = standInRedirectService({}, undefined, { fixedPaths: new Set(['/status', '/healthz']) });
    const answers = ['GET', 'HEAD', 'POST'].flatMap((method) => [
      fixed.visit('/status', method),
      fixed.visit('/healthz', method),
    ]);
    expect(fixed.store.findLink).not.toHaveBeenCalled();
    expect(await Promise.all(answers)).toEqual(Array(6).fill('fallback'));
    // Without it, /status would be a short link's address.
    const plain = standInRedirectService();
    void plain.visit('/status');
    expect(plain.store.findLink).toHaveBeenCalledWith('', 'status');
  });

  it('are the paths of the served contract without a template', () => {
    expect([...fixedPathsOf(loadDefinition())].filter((p) => p.split('/').length === 2).sort()).toEqual([
      '/',
      '/healthz',
      '/metrics',
      '/readyz',
    ]);
  });
});

describe.each(testEngines())('short links on %s', (engine) => {
  const suite = serverWithOwner(engine, { env: { CLICK_FLUSH_MS: '60000', TRUST_PROXY: '1' } }, [
    'links:read',
    'links:write',
  ]);
  const knex = () => suite.server.services.db.knex;
  const create = async (body: object) => {
    const res = await suite.server.request('POST', '/api/v1/links', { key: suite.owner.key, body });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  };
  /** PATCH /api/v1/links/{id} as the owner. */
  const patch = (id: string, body: object) =>
    suite.server.request('PATCH', `/api/v1/links/${id}`, { key: suite.owner.key, body });
  const visit = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    suite.server.request(method, path, { headers: { 'user-agent': PERSON, ...headers } });
  const flushed = async () => suite.server.clicks.flush();
  // The Link's clicks as the API computes them (its daily counts summed).
  const clicksOf = async (id: string) => {
    const { workspace_id } = await knex()('links').where({ id }).first();
    return (await clickTotals(knex(), workspace_id, [id])).get(id);
  };

  describe('redirects', () => {
    it('answers 302 by default and 301 for PERMANENT, with headers that forbid reuse', async () => {
      await create({ url: 'https://example.com/temp?q=1', slug: 'r-temp' });
      await create({ url: 'https://example.com/perm', slug: 'r-perm', redirectType: 'PERMANENT' });
      const temp = await visit('/r-temp');
      expect(temp.status).toBe(302);
      expect(temp.headers.location).toBe('https://example.com/temp?q=1');
      expect(temp.headers['cache-control']).toMatch(/no-store/);
      expect(temp.headers['cache-control']).toMatch(/private/);
      const perm = await visit('/r-perm');
      expect(perm.status).toBe(301);
      expect(perm.headers['cache-control']).toMatch(/no-store/);
    });

    it('matches slugs lowercased', async () => {
      await create({ url: 'https://example.com/case', slug: 'CaseSlug' });
      expect((await visit('/CASESLUG')).headers.location).toBe('https://example.com/case');
      expect((await visit('/caseslug?utm=x')).status).toBe(302);
    });

    it('encodes a non-ASCII destination into a valid Location', async () => {
      await create({ url: 'https://example.com/größe', slug: 'r-unicode' });
      expect((await visit('/r-unicode')).headers.location).toBe('https://example.com/gr%C3%B6%C3%9Fe');
    });

    it('applies an update from the next click', async () => {
      const link = await create({ url: 'https://example.com/one', slug: 'r-update' });
      expect((await visit('/r-update')).headers.location).toBe('https://example.com/one');
      await patch(link.id, { url: 'https://example.com/two', redirectType: 'PERMANENT' });
      const next = await visit('/r-update');
      expect(next.status).toBe(301);
      expect(next.headers.location).toBe('https://example.com/two');
    });

    it('stops resolving a renamed slug at once', async () => {
      const link = await create({ url: 'https://example.com/rn', slug: 'r-old' });
      expect((await visit('/r-old')).status).toBe(302);
      await patch(link.id, { slug: 'r-new' });
      expect((await visit('/r-old')).status).toBe(404);
      expect((await visit('/r-new')).headers.location).toBe('https://example.com/rn');
    });

    it('shows the not-found page for unknown, DISABLED, policy-disabled and deleted links', async () => {
      const unknown = await visit('/no-such-slug');
      expect(unknown.status).toBe(404);
      expect(unknown.headers['content-type']).toMatch(/text\/html/);
      expect(unknown.text).toContain('Link not found');
      const a = await create({ url: 'https://example.com', slug: 'r-disabled' });
      expect((await visit('/r-disabled')).status).toBe(302);
      await patch(a.id, { status: 'DISABLED' });
      expect((await visit('/r-disabled')).status).toBe(404);
      const b = await create({ url: 'https://example.com', slug: 'r-deleted' });
      expect((await visit('/r-deleted')).status).toBe(302);
      await suite.server.request('DELETE', `/api/v1/links/${b.id}`, { key: suite.owner.key });
      expect((await visit('/r-deleted')).status).toBe(404);
      const c = await create({ url: 'https://example.com', slug: 'r-policy' });
      expect((await visit('/r-policy')).status).toBe(302);
      await setPolicyDisabled(knex(), c.id, policyDisabled({ shortDomain: 'localhost' })); // another process (the CLI): seen through the change feed
      await suite.server.changes.poll();
      expect((await visit('/r-policy')).status).toBe(404);
      expect((await visit('/bad%ZZslug')).status).toBe(404);
    });

    it('never redirects to a stored destination that is not http(s), however it got there', async () => {
      // The API refuses such URLs (links.test.ts); a row edited behind its back must still not
      // become an open redirect to another scheme.
      const made = await create({ url: 'https://example.com/safe', slug: 'r-scheme' });
      for (const [url, expired] of [
        ['javascript:alert(document.domain)', null],
        ['data:text/html,<script>alert(1)</script>', null],
        ['//evil.example/', null],
        ['https://example.com/ok', 'javascript:alert(1)'],
      ] as const) {
        await knex()('links')
          .where({ id: made.id })
          .update({ original_url: url, expired_url: expired, expires_at: expired ? Date.now() - 1000 : null });
        await suite.server.redirects.invalidate([{ domainKey: '', slug: 'r-scheme' }]);
        const res = await visit('/r-scheme');
        expect(res.headers.location, url).toBeUndefined();
        expect(res.status, `${url} / ${expired}`).toBe(expired ? 410 : 404);
      }
    });

    // Postgres only: SQLite has no suite.server to drop connections.
    if (engine === 'postgres')
      it('survives Postgres dropping its connections and serves again', async () => {
        const other = await startTestServer(engine);
        try {
          const s = await seedWorkspace(other.services.db.knex);
          await other.request('POST', '/api/v1/links', {
            key: s.key,
            body: { url: 'https://example.com/again', slug: 'r-dropped' },
          });
          expect((await other.request('GET', '/r-dropped', { headers: { 'user-agent': PERSON } })).status).toBe(302);
          // What a Postgres restart or failover does to every connection, idle ones included.
          const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
          await admin.connect();
          const dbName = new URL(other.database.url).pathname.slice(1);
          const killed = await admin.query(
            'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1',
            [dbName],
          );
          await admin.end();
          expect(killed.rowCount).toBeGreaterThan(0);
          await new Promise((r) => setTimeout(r, 300));
          // Uncached, so the redirect store must open a new connection.
          await other.redirects.invalidate([{ domainKey: '', slug: 'r-dropped' }]);
          let status = 0;
          for (let i = 0; i < 5 && status !== 302; i++)
            status = (await other.request('GET', '/r-dropped', { headers: { 'user-agent': PERSON } })).status;
          expect(status).toBe(302);
        } finally {
          await other.stop();
        }
      });

    it('leaves API routes, docs and health to the API', async () => {
      expect((await visit('/healthz')).body).toEqual({ status: 'ok' });
      expect((await visit('/api/v1/links')).status).toBe(401);
    });
  });

  describe('schedule, expiry and click limits', () => {
    it('is not live before startAt (404) and ends after endAt (410)', async () => {
      await create({ url: 'https://example.com', slug: 'r-later', startAt: fromNow(HOUR) });
      const later = await visit('/r-later');
      expect(later.status).toBe(404);
      expect(later.text).toContain('not live yet');
      await create({ url: 'https://example.com', slug: 'r-ended', startAt: fromNow(-2 * HOUR), endAt: fromNow(-HOUR) });
      const ended = await visit('/r-ended');
      expect(ended.status).toBe(410);
      await create({
        url: 'https://example.com/live',
        slug: 'r-window',
        startAt: fromNow(-HOUR),
        endAt: fromNow(HOUR),
      });
      expect((await visit('/r-window')).status).toBe(302);
    });

    it('sends visitors of an expired link to expiredUrl, or shows the expired page (410)', async () => {
      const past = fromNow(-1000);
      await create({
        url: 'https://example.com',
        slug: 'r-exp-fallback',
        expiresAt: past,
        expiredUrl: 'https://example.com/sorry',
      });
      const fb = await visit('/r-exp-fallback');
      expect(fb.status).toBe(302);
      expect(fb.headers.location).toBe('https://example.com/sorry');
      await create({ url: 'https://example.com', slug: 'r-exp-page', expiresAt: past });
      const page = await visit('/r-exp-page');
      expect(page.status).toBe(410);
      expect(page.text).toContain('expired');
      await create({ url: 'https://example.com/fresh', slug: 'r-not-exp', expiresAt: fromNow(HOUR) });
      expect((await visit('/r-not-exp')).status).toBe(302);
    });

    it('stops resolving once clickLimit clicks were served; bots do not use it up', async () => {
      const link = await create({ url: 'https://example.com/lim', slug: 'r-limit', clickLimit: 3 });
      expect((await visit('/r-limit', { 'user-agent': CRAWLER })).status).toBe(302);
      for (let i = 0; i < 3; i++) expect((await visit('/r-limit')).status).toBe(302);
      const over = await visit('/r-limit');
      expect(over.status).toBe(410);
      expect(over.text).toContain('reached');
      await patch(link.id, { clickLimit: 5 });
      expect((await visit('/r-limit')).status).toBe(302);
    });

    // SQLite only: on Postgres nothing waits for a lock on this thread. Another connection (as
    // the click writer thread does during a flush) holds SQLite's write lock while `during` runs.
    const whileWriteLocked = async (during: () => Promise<void>) => {
      const { default: Sqlite } = await import('better-sqlite3');
      const other = new Sqlite(sqliteFilename(suite.server.database.url));
      other.exec('BEGIN IMMEDIATE');
      try {
        await during();
      } finally {
        other.exec('COMMIT');
        other.close();
      }
    };
    // Waiting inside SQLite's busy handler would block the event loop for 5 s, then fail.
    const visitorsAreServed = async (slug: string) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let i = 0; i < 3; i++) expect((await visit(`/${slug}`)).status).toBe(302);
    };

    if (engine === 'sqlite')
      it('a click-limited visit waiting for the write lock holds up no other visitor, then is served', async () => {
        const link = await create({ url: 'https://example.com/locked', slug: 'r-locked', clickLimit: 10 });
        await create({ url: 'https://example.com/free', slug: 'r-free' });
        expect((await visit('/r-free')).status).toBe(302);
        let limited: { status: number } | undefined;
        let waiting: Promise<unknown> | undefined;
        await whileWriteLocked(async () => {
          waiting = visit('/r-locked').then((r) => (limited = r));
          await visitorsAreServed('r-free');
          expect(limited).toBeUndefined();
        });
        await waiting;
        expect(limited!.status).toBe(302);
        expect(Number((await knex()('links').where({ id: link.id }).first()).served)).toBe(1);
      });

    if (engine === 'sqlite')
      it('an API write waiting for the write lock holds up no visitor, then succeeds', async () => {
        await create({ url: 'https://example.com/free2', slug: 'r-free2' });
        expect((await visit('/r-free2')).status).toBe(302);
        let made: { status: number } | undefined;
        let making: Promise<unknown> | undefined;
        await whileWriteLocked(async () => {
          making = suite.server
            .request('POST', '/api/v1/links', {
              key: suite.owner.key,
              body: { url: 'https://example.com/made-while-locked', slug: 'r-made-locked' },
            })
            .then((r) => (made = r));
          await visitorsAreServed('r-free2');
          expect(made).toBeUndefined();
        });
        await making;
        expect(made!.status).toBe(201);
        expect((await visit('/r-made-locked')).headers.location).toBe('https://example.com/made-while-locked');
      });

    // A crawler's visit answered by the service's handler, called in the test's own turn (so
    // several visits can share one turn); resolves to the Location sent.
    const locationOf = (path: string) =>
      new Promise<unknown>((resolve) => {
        let location: unknown;
        const req = {
          url: path,
          method: 'GET',
          headers: { host: suite.server.services.config.shortDomain, 'user-agent': CRAWLER },
          socket: {},
        };
        const res = {
          req,
          writeHead: (_status: number, headers: Record<string, unknown>) => void (location = headers.Location),
          end: () => resolve(location),
          headersSent: false,
        };
        suite.server.redirects.handle(req as never, res as never, () => expect.unreachable('not a short link'));
      });

    // SQLite only: the misses of one event-loop turn go to the lookup thread as one batch, read in
    // one read transaction (src/db/lookup-thread.ts); on Postgres every lookup is a
    // statement of its own.
    if (engine === 'sqlite')
      it('applies a change committed within a turn whose misses share one batch from the next click', async () => {
        const link = await create({ url: 'https://example.com/snap-one', slug: 'r-snap' });
        await create({ url: 'https://example.com/snap-other', slug: 'r-snap-other' });
        const { default: Sqlite } = await import('better-sqlite3');
        const other = new Sqlite(sqliteFilename(suite.server.database.url));
        try {
          // Cached with its first destination.
          expect(await locationOf('/r-snap')).toBe('https://example.com/snap-one');
          // One turn: a miss, then a change and its invalidation, then the changed link.
          const first = locationOf('/r-snap-other');
          other.prepare('UPDATE links SET original_url = ? WHERE id = ?').run('https://example.com/snap-two', link.id);
          // What the API does right after its commit.
          suite.server.redirects.linkChanged('', 'r-snap');
          const changed = locationOf('/r-snap');
          expect(await first).toBe('https://example.com/snap-other');
          expect(await changed).toBe('https://example.com/snap-two');
        } finally {
          other.close();
        }
      });

    if (engine === 'sqlite')
      it('keeps redirecting after the lookup thread stops: a new one takes over', async () => {
        await create({ url: 'https://example.com/after-crash', slug: 'r-after-crash' });
        await create({ url: 'https://example.com/after-crash-2', slug: 'r-after-crash-2' });
        const { lookups } = suite.server.store as { lookups?: LinkLookupThread };
        expect(lookups).toBeInstanceOf(LinkLookupThread);
        await lookups!.crashForTest();
        // Two misses in one turn: a batch for the thread (a lone miss is read on the event loop).
        const batches = lookups!.batches;
        const both = await Promise.all([locationOf('/r-after-crash'), locationOf('/r-after-crash-2')]);
        expect(both).toEqual(['https://example.com/after-crash', 'https://example.com/after-crash-2']);
        expect(lookups!.batches).toBe(batches + 1);
        // And through HTTPS, as a visitor.
        expect((await visit('/r-after-crash')).headers.location).toBe('https://example.com/after-crash');
      });

    it('redirects exactly clickLimit of 500 concurrent visitors', async () => {
      await create({ url: 'https://example.com/race', slug: 'r-race', clickLimit: 50 });
      const results = await Promise.all(Array.from({ length: 500 }, () => visit('/r-race')));
      const redirected = results.filter((r) => r.status === 302).length;
      expect(redirected).toBe(50);
      expect(results.filter((r) => r.status === 410).length).toBe(450);
    });
  });

  describe('custom domains', () => {
    it('resolves links on an active custom domain by the Host header', async () => {
      const host = `go${Date.now()}.example.com`;
      const domainId = await addDomain(knex(), suite.owner.workspaceId, host);
      await setDomainStatus(knex(), domainId, 'ACTIVE');
      await create({ url: 'https://example.com/custom', slug: 'promo', domainId });
      await create({ url: 'https://example.com/shared', slug: 'promo' });
      expect((await visit('/promo', { host })).headers.location).toBe('https://example.com/custom');
      expect((await visit('/promo', { host: `${host.toUpperCase()}:443` })).headers.location).toBe(
        'https://example.com/custom',
      );
      expect((await visit('/promo')).headers.location).toBe('https://example.com/shared');
      // Disabling the domain (from the CLI, another process) stops its links.
      await setDomainStatus(knex(), domainId, 'DISABLED');
      await suite.server.changes.poll();
      expect((await visit('/promo', { host })).status).toBe(404);
      // An unknown host is not a short domain.
      expect((await visit('/promo', { host: 'unknown.example.org' })).status).toBe(404);
    });
  });

  describe('passwords', () => {
    const cookieOf = (res: { headers: Record<string, any> }) =>
      String(res.headers['set-cookie']?.[0] ?? '').split(';')[0];
    const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1];
    const submit = (slug: string, form: Record<string, string>, cookie: string, extra: Record<string, string> = {}) =>
      suite.server.request('POST', `/${slug}`, {
        rawBody: new URLSearchParams(form).toString(),
        headers: { 'user-agent': PERSON, 'content-type': 'application/x-www-form-urlencoded', cookie, ...extra },
      });

    /** Makes a link at `slug` locked with the password 'right one'; its form's token and cookie. */
    const lockedForm = async (slug: string) => {
      await create({ url: 'https://example.com/secret', slug, password: 'right one' });
      const form = await visit(`/${slug}`);
      return { csrf: csrfOf(form.text), cookie: cookieOf(form) };
    };

    it('asks for the password and redirects only after the right one', async () => {
      const link = await create({ url: 'https://example.com/secret', slug: 'r-pw', password: 'open sesame' });
      const form = await visit('/r-pw');
      expect(form.status).toBe(401);
      expect(form.headers.location).toBeUndefined();
      expect(form.text).toContain('type="password"');
      expect(form.headers['content-security-policy']).toMatch(/default-src 'none'/);
      expect(form.headers['referrer-policy']).toBe('no-referrer');
      expect(form.headers['set-cookie']?.[0]).toMatch(/HttpOnly; SameSite=Strict; Secure/);
      const cookie = cookieOf(form);
      const wrong = await submit('r-pw', { csrf: csrfOf(form.text), password: 'nope' }, cookie);
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('not correct');
      const ok = await submit('r-pw', { csrf: csrfOf(form.text), password: 'open sesame' }, cookie);
      expect(ok.status).toBe(302);
      expect(ok.headers.location).toBe('https://example.com/secret');
      await flushed();
      expect(await clicksOf(link.id)).toBe(1);
    });

    it('refuses a submission without the matching anti-forgery token', async () => {
      await create({ url: 'https://example.com/secret', slug: 'r-pw-csrf', password: 'open sesame' });
      const form = await visit('/r-pw-csrf');
      const token = csrfOf(form.text);
      expect((await submit('r-pw-csrf', { csrf: token, password: 'open sesame' }, '')).status).toBe(401);
      expect((await submit('r-pw-csrf', { password: 'open sesame' }, cookieOf(form))).status).toBe(401);
      const other = await visit('/r-pw');
      // A token issued for another link does not unlock this one.
      expect(
        (await submit('r-pw-csrf', { csrf: csrfOf(other.text), password: 'open sesame' }, cookieOf(other))).status,
      ).toBe(401);
    });

    it('throttles wrong passwords per link and client', async () => {
      const { csrf, cookie } = await lockedForm('r-pw-throttle');
      const client = { 'x-forwarded-for': '203.0.113.7' };
      for (let i = 0; i < 5; i++)
        expect((await submit('r-pw-throttle', { csrf, password: `wrong${i}` }, cookie, client)).status).toBe(401);
      const blocked = await submit('r-pw-throttle', { csrf, password: 'right one' }, cookie, client);
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      // Another client is not blocked.
      expect(
        (await submit('r-pw-throttle', { csrf, password: 'right one' }, cookie, { 'x-forwarded-for': '198.51.100.1' }))
          .status,
      ).toBe(302);
    });

    it('throttles by the address the trusted proxy saw, whatever the client wrote before it in X-Forwarded-For', async () => {
      const { csrf, cookie } = await lockedForm('r-pw-xff');
      // TRUST_PROXY=1: the proxy appends the address it saw (203.0.113.50); a client that writes
      // its own entries first gets nothing from rotating them.
      const guesses = [];
      for (let i = 0; i < 20; i++) {
        guesses.push(
          (
            await submit('r-pw-xff', { csrf, password: `wrong${i}` }, cookie, {
              'x-forwarded-for': `10.9.${i}.1, 203.0.113.50`,
            })
          ).status,
        );
      }
      expect(guesses.filter((s) => s === 401)).toHaveLength(5);
      expect(guesses.filter((s) => s === 429)).toHaveLength(15);
      expect(
        (
          await submit('r-pw-xff', { csrf, password: 'right one' }, cookie, {
            'x-forwarded-for': '198.18.0.1, 203.0.113.50',
          })
        ).status,
      ).toBe(429);
      // The address the proxy saw decides: another client is not blocked.
      expect(
        (
          await submit('r-pw-xff', { csrf, password: 'right one' }, cookie, {
            'x-forwarded-for': '10.9.0.1, 203.0.113.51',
          })
        ).status,
      ).toBe(302);
    });

    it('gives a client sending many guesses at once exactly 5 tries, and right passwords use none', async () => {
      const { csrf, cookie } = await lockedForm('r-pw-burst');
      const client = { 'x-forwarded-for': '203.0.113.99' };
      // Right passwords give their attempt back: ten of them leave all five wrong tries.
      for (let i = 0; i < 10; i++)
        expect((await submit('r-pw-burst', { csrf, password: 'right one' }, cookie, client)).status).toBe(302);
      const burst = await Promise.all(
        Array.from({ length: 30 }, (_, i) => submit('r-pw-burst', { csrf, password: `guess${i}` }, cookie, client)),
      );
      const statuses = burst.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 401)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    });

    it('answers a form posted to a link without a password 405 with Allow, on a page that says so', async () => {
      await create({ url: 'https://example.com/open', slug: 'r-pw-none' });
      const res = await submit('r-pw-none', { csrf: 'x', password: 'y' }, '');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('<h1>Method not allowed</h1>');
      expect(res.text).toContain('no password to unlock');
      // The link exists: the page must not say it does not.
      expect(res.text).not.toMatch(/not found|no link at this address/i);
      // An unknown slug is still the not-found page.
      expect((await submit('r-pw-nowhere', { csrf: 'x', password: 'y' }, '')).text).toContain('Link not found');
    });

    it('answers a form over 4 KiB 413 on a page that says so', async () => {
      await create({ url: 'https://example.com/secret', slug: 'r-pw-large', password: 'open sesame' });
      const res = await submit('r-pw-large', { password: 'x'.repeat(5000) }, '');
      expect(res.status).toBe(413);
      expect(res.text).toContain('<h1>Form too large</h1>');
      expect(res.text).not.toMatch(/not found|no link at this address/i);
    });

    it('answers a malformed cookie like a missing one, not with an error', async () => {
      await create({ url: 'https://example.com/secret', slug: 'r-pw-cookie', password: 'right one' });
      const form = await visit('/r-pw-cookie');
      const res = await submit(
        'r-pw-cookie',
        { csrf: csrfOf(form.text), password: 'right one' },
        'sl_csrf=%E0%A4%A; other=%',
      );
      expect(res.status).toBe(401);
      expect(res.text).toContain('session expired');
    });
  });

  describe('clicks', () => {
    it('counts people, not bots, HEAD requests or prefetches, and shows after the flush', async () => {
      const link = await create({ url: 'https://example.com/count', slug: 'r-count' });
      await visit('/r-count');
      await visit('/r-count', {
        'user-agent': IPHONE_USER_AGENT,
        referer: 'https://news.example.org/story?id=1',
        'cf-ipcountry': 'DE',
      });
      await visit('/r-count', { 'user-agent': CRAWLER });
      await visit('/r-count', { 'user-agent': 'curl/8.0' });
      await visit('/r-count', {}, 'HEAD');
      await visit('/r-count', { 'sec-purpose': 'prefetch' });
      expect(
        (await suite.server.request('GET', `/api/v1/links/${link.id}`, { key: suite.owner.key })).body.data.clicks,
      ).toBe(0);
      await flushed();
      expect(
        (await suite.server.request('GET', `/api/v1/links/${link.id}`, { key: suite.owner.key })).body.data.clicks,
      ).toBe(2);
      const events = await knex()('clicks').where({ link_id: link.id }).orderBy('id');
      expect(events).toHaveLength(2);
      expect(events[1]).toMatchObject({
        referrer_host: 'news.example.org',
        country: 'DE',
        ...IPHONE_STORED,
        qr_code_id: null,
      });
      expect(events[0]).toMatchObject({ device: 'desktop', browser: 'Chrome', os: 'Windows', referrer_host: null });
      // Never the IP address.
      expect(Object.keys(events[0]).some((k) => /ip/i.test(k))).toBe(false);
      const daily = await knex()('link_daily_clicks').where({ link_id: link.id });
      expect(daily.map((d) => Number(d.clicks))).toEqual([2]);
    });

    it('reads visit headers in any case: every prefetch announcement skips the click, X-Country-Code counts when CF-IPCountry is absent', async () => {
      const link = await create({ url: 'https://example.com/count-headers', slug: 'r-count-headers' });
      const announcements: Array<Record<string, string>> = [
        { Purpose: 'prefetch' },
        { 'X-Purpose': 'preview' },
        { 'X-Moz': 'prefetch' },
        { 'SEC-PURPOSE': 'prefetch;prerender' },
      ];
      for (const announce of announcements) {
        expect((await visit('/r-count-headers', announce)).status).toBe(302);
      }
      await visit('/r-count-headers', {
        'USER-AGENT': IPHONE_USER_AGENT,
        'x-country-code': 'fr',
        REFERER: 'https://Mail.Example.net/inbox',
      });
      await flushed();
      const events = await knex()('clicks').where({ link_id: link.id });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ country: 'FR', device: 'mobile', referrer_host: 'mail.example.net' });
    });

    it('gives crawlers the social preview page and people the redirect', async () => {
      const link = await create({ url: 'https://example.com/preview', slug: 'r-preview' });
      const image = await hostImage(
        suite.server.services.db.knex,
        suite.owner.workspaceId,
        suite.server.services.config.assetBaseUrl,
      );
      await patch(link.id, {
        previewTitle: 'Big "launch"',
        previewDescription: 'All <new> things',
        previewImage: image,
      });
      const bot = await visit('/r-preview', { 'user-agent': CRAWLER });
      expect(bot.status).toBe(200);
      expect(bot.text).toContain('<meta property="og:title" content="Big &quot;launch&quot;">');
      expect(bot.text).toContain('<meta property="og:description" content="All &lt;new&gt; things">');
      expect(bot.text).toContain(`<meta property="og:image" content="${image}">`);
      expect(bot.text).toContain('<meta name="twitter:card" content="summary_large_image">');
      expect((await visit('/r-preview')).status).toBe(302);
      // A crawler of a link without preview fields just gets the redirect.
      await create({ url: 'https://example.com/plain', slug: 'r-plain' });
      expect((await visit('/r-plain', { 'user-agent': CRAWLER })).status).toBe(302);
    });

    it('writes buffered clicks on a clean shutdown', async () => {
      const other = await startTestServer(engine, { env: { CLICK_FLUSH_MS: '600000' } });
      try {
        const s = await seedWorkspace(other.services.db.knex);
        const made = await other.request('POST', '/api/v1/links', {
          key: s.key,
          body: { url: 'https://example.com', slug: 'r-shutdown' },
        });
        for (let i = 0; i < 3; i++) await other.request('GET', '/r-shutdown', { headers: { 'user-agent': PERSON } });
        expect(other.clicks.pending).toBe(3);
        await other.close();
        const { openDatabase } = await import('../../src/db/knex');
        const db = openDatabase(other.database.url);
        const { workspace_id } = await db.knex('links').where({ id: made.body.data.id }).first();
        expect((await clickTotals(db.knex, workspace_id, [made.body.data.id])).get(made.body.data.id)).toBe(3);
        await db.knex.destroy();
      } finally {
        await other.database.drop();
      }
    });
  });

  describe('QR codes', () => {
    it('redirects a scan like the link, records it as a scan, and serves the image', async () => {
      const link = await create({ url: 'https://example.com/qr-dest', slug: 'r-qr' });
      const { id: qrId, code } = await createQrCode(knex(), suite.owner.workspaceId, link.id);
      const scan = await visit(`/qr/${code}`);
      expect(scan.status).toBe(302);
      expect(scan.headers.location).toBe('https://example.com/qr-dest');
      await flushed();
      const events = await knex()('clicks').where({ link_id: link.id });
      expect(events.map((e) => e.qr_code_id)).toEqual([qrId]);
      expect(Number((await knex()('link_daily_clicks').where({ link_id: link.id }).first()).scans)).toBe(1);
      const svg = await visit(`/qr/${code}.svg`);
      expect(svg.status).toBe(200);
      expect(svg.headers['content-type']).toBe('image/svg+xml');
      expect(svg.text).toContain('<svg');
      const png = await suite.server.request('GET', `/qr/${code}.png`);
      expect(png.headers['content-type']).toBe('image/png');
      expect(png.text.slice(1, 4)).toBe('PNG');
      expect((await visit('/qr/nosuchcode')).status).toBe(404);
    });
  });
});
