// The service's mail against a real SMTP server on loopback (test/support/smtp.ts), on every
// engine: "forgot password" (one answer for every email, the link works once and ends the
// person's other sessions, the throttle), invitations mailed instead of shown, the notice of a
// sign-in from a new browser, retries after a refusal, the outbox emptied, SMTP_URL's password
// kept out of the log, and two processes on one Postgres sending each mail once. Without
// SMTP_URL the service answers as before.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESET_LINK_MS } from '../../src/domain/mail';
import { testEngines } from '../support/databases';
import { clientFor, DASHBOARD_API, PASSWORD, seedPerson, seedTeam, signIn } from '../support/dashboard';
import { linkIn, SMTP_PASSWORD, startSmtp, type TestSmtp } from '../support/smtp';
import { startTestServer, type TestServer } from '../support/server';

const CHROME_ON_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const NEW_PASSWORD = 'a brand new password';
let counter = 0;
const address = (what: string) => `${what}-${++counter}-${Date.now()}@example.test`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` holds, up to `ms`. */
async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('the condition did not hold in time');
    await sleep(50);
  }
}

describe.each(testEngines())('mail on %s', (engine) => {
  let smtp: TestSmtp;
  let server: TestServer;
  let workspaceId: string;
  let log = '';
  const knex = () => server.services.db.knex;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    server.request('POST', `${DASHBOARD_API}${path}`, { body, headers });
  const outboxRows = async () => Number((await knex()('mail_outbox').count({ n: '*' }))[0].n);

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer(engine, {
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'Shortlink <links@example.test>' },
      logLevel: 'info',
      logStream: new Writable({
        write(chunk, _enc, done) {
          log += chunk.toString();
          done();
        },
      }),
    });
    workspaceId = (await seedTeam(server)).workspaceId;
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
  });

  describe('forgot password', () => {
    it('says reset links go by email', async () => {
      const res = await server.request('GET', `${DASHBOARD_API}/password-reset`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ byEmail: true });
    });

    it('answers an email with an account and one without alike, and mails only the first', async () => {
      const person = await seedPerson(knex(), workspaceId, 'MEMBER');
      const nobody = address('nobody');
      const known = await post('/password-reset', { email: person.email.toUpperCase() });
      const unknown = await post('/password-reset', { email: nobody });
      expect(known.status).toBe(202);
      expect(unknown.status).toBe(202);
      expect(unknown.body).toEqual(known.body);
      expect(unknown.headers['set-cookie']).toBeUndefined();
      const mail = await smtp.waitFor(person.email, /new Shortlink password/);
      expect(mail.from).toBe('links@example.test');
      expect(mail.user).toBe('shortlink');
      expect(linkIn(mail).pathname).toBe('/app/reset-password');
      await sleep(500);
      expect(smtp.to(nobody)).toEqual([]);
      // Sent, so gone from the outbox; nothing was written for the unknown email.
      await eventually(async () => (await outboxRows()) === 0);
    });

    it("the mailed link sets the password once, signs in, and ends the person's other sessions", async () => {
      const person = await seedPerson(knex(), workspaceId, 'MEMBER');
      const elsewhere = await signIn(server, person);
      expect((await post('/password-reset', { email: person.email })).status).toBe(202);
      const token = linkIn(await smtp.waitFor(person.email, /new Shortlink password/)).searchParams.get('token')!;
      // The database keeps only the token's hash, the outbox only a sealed payload.
      expect(await knex()('password_setup_tokens').where({ token_hash: token }).first()).toBeUndefined();
      const used = await post('/password-setup', { token, password: NEW_PASSWORD });
      expect(used.status).toBe(200);
      expect(used.body.user.email).toBe(person.email);
      expect((await elsewhere.request('GET', '/session')).status).toBe(401);
      const again = await post('/password-setup', { token, password: 'yet another password' });
      expect(again.status).toBe(404);
      expect(again.body.error).toMatch(/not valid any more/);
      expect((await post('/session', { email: person.email, password: PASSWORD })).status).toBe(401);
      expect((await post('/session', { email: person.email, password: NEW_PASSWORD })).status).toBe(200);
    });

    it('a reset link stops working after an hour, and a newer one replaces it', async () => {
      const person = await seedPerson(knex(), workspaceId, 'MEMBER');
      await post('/password-reset', { email: person.email });
      const first = linkIn(await smtp.waitFor(person.email, /new Shortlink password/)).searchParams.get('token')!;
      await post('/password-reset', { email: person.email });
      const second = linkIn(await smtp.waitFor(person.email, /new Shortlink password/)).searchParams.get('token')!;
      expect((await post('/password-setup', { token: first, password: NEW_PASSWORD })).status).toBe(404);
      const row = await knex()('password_setup_tokens').where({ user_id: person.userId }).whereNull('used_at').first();
      expect(Number(row.expires_at) - Number(row.created_at)).toBe(RESET_LINK_MS);
      await knex()('password_setup_tokens')
        .where({ user_id: person.userId })
        .update({ expires_at: Date.now() - 1 });
      expect((await post('/password-setup', { token: second, password: NEW_PASSWORD })).status).toBe(404);
    });

    it('at most 3 reset mails an hour reach one account, whatever the clients', async () => {
      const person = await seedPerson(knex(), workspaceId, 'MEMBER');
      for (let i = 0; i < 5; i++)
        expect(
          (await post('/password-reset', { email: person.email }, { 'x-forwarded-for': `10.0.0.${i}` })).status,
        ).toBe(202);
      await eventually(async () => smtp.to(person.email).length >= 3, 30_000);
      await sleep(1_000);
      expect(smtp.to(person.email)).toHaveLength(3);
    });

    it('5 requests per email and client in 15 minutes, then 429 with the wait, for an unknown email too', async () => {
      for (const email of [address('throttled'), (await seedPerson(knex(), workspaceId, 'MEMBER')).email]) {
        for (let i = 0; i < 5; i++) expect((await post('/password-reset', { email })).status).toBe(202);
        const blocked = await post('/password-reset', { email });
        expect(blocked.status).toBe(429);
        expect(blocked.body.error).toMatch(/^Too many requests for this email\. Try again in 1[45] minutes\.$/);
        expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(800);
      }
    });

    it('refuses a malformed email with 400 naming the field', async () => {
      const res = await post('/password-reset', { email: 'not-an-email' });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('email');
    });
  });

  describe('invitations', () => {
    it('are mailed to the invitee, never shown; the mailed link makes the account once', async () => {
      const team = await seedTeam(server);
      const invitee = address('invitee');
      const res = await team.admin.request('POST', `/workspaces/${team.workspaceId}/invitations`, {
        body: { email: invitee, role: 'MEMBER' },
      });
      expect(res.status).toBe(201);
      expect(res.body.mailed).toBe(true);
      expect(res.body.inviteUrl).toBeUndefined();
      expect(res.text).not.toMatch(/token/);
      const mail = await smtp.waitFor(invitee, /invited to Team/);
      expect(mail.text).toContain(team.people.admin.email);
      const link = linkIn(mail);
      expect(link.pathname).toBe('/app/invite');
      const token = link.searchParams.get('token')!;
      const preview = await server.request('GET', `${DASHBOARD_API}/invitation?token=${token}`);
      expect(preview.status).toBe(200);
      expect(preview.body.data.email).toBe(invitee);
      const made = await post('/invitation/register', { token, password: NEW_PASSWORD });
      expect(made.status).toBe(201);
      expect((await post('/invitation/register', { token, password: NEW_PASSWORD })).status).toBe(404);
      // The inviting person sees that it went: the invitation is listed until accepted.
      const listed = await team.admin.request('GET', `/workspaces/${team.workspaceId}/invitations`);
      expect(listed.body.data.map((i: { email: string }) => i.email)).not.toContain(invitee);
    });
  });

  describe('new-browser sign-in notices', () => {
    it('mail a person when a browser they have not used signs in, with the browser and system', async () => {
      const person = await seedPerson(knex(), workspaceId, 'MEMBER');
      const signInFrom = (ua: string, browserCookie?: string) =>
        post(
          '/session',
          { email: person.email, password: PASSWORD },
          { 'user-agent': ua, ...(browserCookie ? { cookie: browserCookie } : {}) },
        );
      // The first browser ever remembered is no news.
      const first = await signInFrom(CHROME_ON_WINDOWS);
      expect(first.status).toBe(200);
      const cookies = first.headers['set-cookie'] as string[];
      const browser = cookies.find((c) => c.startsWith('sl_browser='))!;
      expect(browser).toMatch(
        /^sl_browser=[A-Za-z0-9_-]{43}; Path=\/app; HttpOnly; Secure; SameSite=Lax; Max-Age=34560000$/,
      );
      const browserCookie = browser.split(';')[0];
      // The same browser again: no notice, no new cookie.
      const same = await signInFrom(CHROME_ON_WINDOWS, browserCookie);
      expect((same.headers['set-cookie'] as string[]).some((c) => c.startsWith('sl_browser='))).toBe(false);
      // Another browser: a notice.
      expect((await signInFrom(FIREFOX_ON_LINUX)).status).toBe(200);
      const notice = await smtp.waitFor(person.email, /New sign-in/);
      expect(notice.text).toContain('Browser: Firefox on Linux');
      expect(notice.text).toMatch(/When: \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      expect(linkIn(notice).pathname).toBe('/app/account');
      await sleep(500);
      expect(smtp.to(person.email).filter((m) => /New sign-in/.test(m.subject))).toHaveLength(1);
      // Only hashes of browser tokens are kept.
      const stored = await knex()('known_browsers').where({ user_id: person.userId }).select('browser_hash');
      expect(stored).toHaveLength(2);
      expect(stored.map((r: { browser_hash: string }) => r.browser_hash)).not.toContain(browserCookie.split('=')[1]);
    });

    it('a wrong password from a new browser mails nothing', async () => {
      const person = await seedPerson(knex(), workspaceId, 'MEMBER');
      await signIn(server, person);
      expect((await post('/session', { email: person.email, password: 'wrong password' })).status).toBe(401);
      await sleep(700);
      expect(smtp.to(person.email)).toEqual([]);
    });
  });

  it('a refused mail is tried again and then leaves the outbox', async () => {
    const person = await seedPerson(knex(), workspaceId, 'MEMBER');
    smtp.refuseNext(1);
    await post('/password-reset', { email: person.email });
    await eventually(async () => {
      const row = await knex()('mail_outbox').first('attempts', 'last_error');
      return !!row && Number(row.attempts) === 1 && /451/.test(String(row.last_error));
    });
    const mail = await smtp.waitFor(person.email, /new Shortlink password/, 20_000);
    expect(linkIn(mail).searchParams.get('token')).toBeTruthy();
    await eventually(async () => (await outboxRows()) === 0);
  });

  it("never writes SMTP_URL's password to the log", async () => {
    await eventually(async () => /mail sent/.test(log));
    expect(log).not.toContain(SMTP_PASSWORD);
  });
});

describe.each(testEngines())('without SMTP_URL on %s', (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(engine);
  });
  afterAll(async () => server?.stop());

  it('forgot password answers 503 mail_unavailable, and says so before asking', async () => {
    const team = await seedTeam(server);
    expect((await server.request('GET', `${DASHBOARD_API}/password-reset`)).body).toEqual({ byEmail: false });
    const res = await server.request('POST', `${DASHBOARD_API}/password-reset`, {
      body: { email: team.people.member.email },
    });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('mail_unavailable');
    expect(await server.services.db.knex('mail_outbox').first()).toBeUndefined();
  });

  it('an invitation answers its link to the inviting person, as before, and queues no mail', async () => {
    const team = await seedTeam(server);
    const res = await team.owner.request('POST', `/workspaces/${team.workspaceId}/invitations`, {
      body: { email: address('shown'), role: 'MEMBER' },
    });
    expect(res.status).toBe(201);
    expect(res.body.mailed).toBe(false);
    expect(res.body.inviteUrl).toMatch(/^https:\/\/localhost:8443\/app\/invite\?token=/);
    expect(await server.services.db.knex('mail_outbox').first()).toBeUndefined();
  });

  it('a sign-in from a new browser queues nothing', async () => {
    const team = await seedTeam(server);
    const again = await signIn(server, team.people.member);
    expect(again.session.user.email).toBe(team.people.member.email);
    expect(await server.services.db.knex('mail_outbox').first()).toBeUndefined();
  });
});

describe.skipIf(!testEngines().includes('postgres'))('two processes on one Postgres', () => {
  let smtp: TestSmtp;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    smtp = await startSmtp();
    a = await startTestServer('postgres', { env: { SMTP_URL: smtp.url } });
    b = await startTestServer('postgres', { env: { SMTP_URL: smtp.url }, database: a.database });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await smtp?.close();
  });

  it('send each mail once', { timeout: 240_000 }, async () => {
    const team = await seedTeam(a);
    const invitees = Array.from({ length: 20 }, () => address('once'));
    // Written by both processes, so that both wake to send.
    const answers = await Promise.all(
      invitees.map((email, i) =>
        clientFor(i % 2 ? b : a, team.owner.cookie, team.owner.csrfToken).request(
          'POST',
          `/workspaces/${team.workspaceId}/invitations`,
          { body: { email, role: 'MEMBER' } },
        ),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(invitees.map(() => 201));
    await eventually(async () => invitees.every((e) => smtp.to(e).length > 0), 120_000);
    await sleep(1_500);
    for (const e of invitees) expect(smtp.to(e)).toHaveLength(1);
    expect((a.mail?.sent ?? 0) + (b.mail?.sent ?? 0)).toBe(20);
    expect(await a.services.db.knex('mail_outbox').first()).toBeUndefined();
  });
});
