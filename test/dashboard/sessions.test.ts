// Signing in to the dashboard, its sessions and their guards, through HTTPS on every engine:
// the cookie's attributes, sliding expiry, the sign-in throttle, forgery protection, set-up
// links, password changes, removal, the first run, and the wall between sessions and keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/db/repos/accounts';
import { addMember, createWorkspace, removeMember } from '../../src/db/repos/workspaces';
import { findTagByName } from '../../src/db/repos/workspace-objects';
import { SESSION_IDLE_MS, SESSION_TOUCH_MS } from '../../src/domain/sessions';
import { testEngines } from '../support/databases';
import { clientFor, cookieOf, DASHBOARD_API, PASSWORD, seedPerson, signIn } from '../support/dashboard';
import { seedWorkspace } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

describe.each(testEngines())('dashboard sessions on %s', (engine) => {
  let server: TestServer;
  let workspaceId: string;
  const knex = () => server.services.db.knex;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    server.request('POST', `${DASHBOARD_API}${path}`, { body, headers });
  const newPerson = (role: 'OWNER' | 'ADMIN' | 'MEMBER' | 'ANALYST' = 'MEMBER') =>
    seedPerson(knex(), workspaceId, role);

  beforeAll(async () => {
    server = await startTestServer(engine);
    workspaceId = await createWorkspace(knex(), 'Sessions', 'growth');
  });
  afterAll(async () => server?.stop());

  it('signs in with the right password: an HttpOnly, Secure, SameSite=Lax cookie for /app, 14 days', async () => {
    const person = await newPerson('ADMIN');
    const res = await post('/session', { email: person.email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
    const cookie = String((res.headers['set-cookie'] as string[])[0]);
    expect(cookie).toMatch(/^sl_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('Secure');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/app');
    expect(cookie).toContain(`Max-Age=${SESSION_IDLE_MS / 1000}`);
    expect(res.body.user).toEqual({ id: person.userId, email: person.email });
    expect(res.body.workspaces).toEqual([{ id: workspaceId, name: 'Sessions', plan: 'growth', role: 'ADMIN' }]);
    expect(res.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const me = await clientFor(server, cookieOf(res), res.body.csrfToken).request('GET', '/session');
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(person.userId);
    // The database keeps only a hash of the cookie's token.
    const token = cookieOf(res).split('=')[1];
    expect(await knex()('sessions').where({ id: token }).first()).toBeUndefined();
  });

  it('refuses a wrong password and an unknown email alike, with 401 and the same message', async () => {
    const person = await newPerson();
    const wrong = await post('/session', { email: person.email, password: 'not the password' });
    const unknown = await post('/session', { email: `nobody-${Date.now()}@example.com`, password: PASSWORD });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Wrong email or password' });
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('a member without a password cannot sign in with any password', async () => {
    const userId = await addMember(knex(), workspaceId, `nopass-${Date.now()}@example.com`, 'MEMBER');
    const user = await accounts.findUser(knex(), userId);
    expect((await post('/session', { email: user!.email, password: '' })).status).toBe(400);
    expect((await post('/session', { email: user!.email, password: 'decoy password for unknown emails' })).status).toBe(
      401,
    );
  });

  it('after 5 wrong passwords for an email, answers 429 with the wait, even to the right one', async () => {
    const person = await newPerson();
    for (let i = 0; i < 5; i++)
      expect((await post('/session', { email: person.email, password: `wrong ${i}` })).status).toBe(401);
    const blocked = await post('/session', { email: person.email, password: 'wrong again' });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatch(/^Too many wrong passwords\. Try again in 1[45] minutes\.$/);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(800);
    expect((await post('/session', { email: person.email, password: PASSWORD })).status).toBe(429);
    // Another person is not held up by it.
    const other = await newPerson();
    expect((await post('/session', { email: other.email, password: PASSWORD })).status).toBe(200);
  });

  it('right passwords do not use up the allowance', async () => {
    const person = await newPerson();
    for (let i = 0; i < 8; i++)
      expect((await post('/session', { email: person.email, password: PASSWORD })).status).toBe(200);
    for (let i = 0; i < 4; i++)
      expect((await post('/session', { email: person.email, password: 'wrong' })).status).toBe(401);
    expect((await post('/session', { email: person.email, password: PASSWORD })).status).toBe(200);
  });

  it('sign-in races cannot beat the limit: 20 wrong guesses at once, at most 5 are checked', async () => {
    const person = await newPerson();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post('/session', { email: person.email, password: `guess ${i}` })),
    );
    expect(answers.filter((a) => a.status === 401)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(15);
  });

  it('signing out ends the session: the cookie opens nothing afterwards', async () => {
    const client = await signIn(server, await newPerson());
    const out = await client.request('DELETE', '/session');
    expect(out.status).toBe(204);
    expect(String((out.headers['set-cookie'] as string[])[0])).toContain('Max-Age=0');
    const after = await client.request('GET', '/session');
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'Your session has ended; sign in again' });
    expect((await client.request('GET', `/workspaces/${workspaceId}/links`)).status).toBe(401);
  });

  it('no cookie, a made-up cookie and an expired session are all 401', async () => {
    expect((await server.request('GET', `${DASHBOARD_API}/session`)).status).toBe(401);
    expect((await clientFor(server, 'sl_session=made-up', 'x').request('GET', '/session')).status).toBe(401);
    const client = await signIn(server, await newPerson());
    await knex()('sessions')
      .update({ expires_at: Date.now() - 1 })
      .where('user_id', client.session.user.id);
    expect((await client.request('GET', '/session')).status).toBe(401);
  });

  it('slides: a session used after SESSION_TOUCH_MS gets 14 more days and its cookie again', async () => {
    const person = await newPerson();
    const client = await signIn(server, person);
    // Used again at once: no write, no new cookie.
    const soon = await client.request('GET', '/session');
    expect(soon.headers['set-cookie']).toBeUndefined();
    const before = Date.now();
    const lastUse = before - SESSION_TOUCH_MS - 1000;
    await knex()('sessions')
      .update({ last_used_at: lastUse, expires_at: lastUse + SESSION_IDLE_MS })
      .where('user_id', person.userId);
    const later = await client.request('GET', '/session');
    expect(later.status).toBe(200);
    expect(String((later.headers['set-cookie'] as string[])[0])).toContain(client.cookie);
    expect(Date.parse(later.body.expiresAt)).toBeGreaterThanOrEqual(before + SESSION_IDLE_MS - 1000);
    const row = await knex()('sessions').where('user_id', person.userId).first();
    expect(Number(row.expires_at)).toBeGreaterThanOrEqual(before + SESSION_IDLE_MS);
  });

  describe('forgery', () => {
    it('refuses a change without the session token, with a wrong one, or from another origin', async () => {
      const client = await signIn(server, await newPerson());
      const body = { name: `tag-${Date.now()}` };
      const none = await client.request('POST', `/workspaces/${workspaceId}/tags`, { body, csrf: null });
      expect(none.status).toBe(403);
      expect(none.body.error).toMatch(/anti-forgery token/);
      expect(
        (
          await client.request('POST', `/workspaces/${workspaceId}/tags`, {
            body,
            csrf: 'x'.repeat(client.csrfToken.length),
          })
        ).status,
      ).toBe(403);
      // Another person's token does not open this session.
      const other = await signIn(server, await newPerson());
      expect(
        (await client.request('POST', `/workspaces/${workspaceId}/tags`, { body, csrf: other.csrfToken })).status,
      ).toBe(403);
      const cross = await client.request('POST', `/workspaces/${workspaceId}/tags`, {
        body,
        headers: { origin: 'https://evil.example' },
      });
      expect(cross.status).toBe(403);
      expect(cross.body.error).toBe('Requests from https://evil.example are not accepted');
      // Who is asking is checked before what was sent: a bad body without the token is 403, not 400.
      expect(
        (await client.request('POST', `/workspaces/${workspaceId}/tags`, { body: { bogus: 1 }, csrf: null })).status,
      ).toBe(403);
      // Sign-out is a change too.
      expect((await client.request('DELETE', '/session', { csrf: null })).status).toBe(403);
      expect((await client.request('GET', '/session')).status).toBe(200);
      expect(await findTagByName(knex(), workspaceId, body.name)).toBeUndefined();
      // With the token and the service's own origin it goes through.
      const host = new URL(server.url).host;
      expect(
        (
          await client.request('POST', `/workspaces/${workspaceId}/tags`, {
            body,
            headers: { origin: `https://${host}` },
          })
        ).status,
      ).toBe(201);
    });
  });

  describe('sessions and API keys never open each other', () => {
    it('a session cookie does not open /api/v1, and an API key does not open the dashboard API', async () => {
      const seeded = await seedWorkspace(knex());
      const person = await seedPerson(knex(), seeded.workspaceId, 'OWNER');
      const client = await signIn(server, person);
      const viaCookie = await server.request('GET', '/api/v1/links', { headers: { cookie: client.cookie } });
      expect(viaCookie.status).toBe(401);
      const viaKey = await server.request('GET', `${DASHBOARD_API}/workspaces/${seeded.workspaceId}/links`, {
        key: seeded.key,
      });
      expect(viaKey.status).toBe(401);
      expect(viaKey.body).toEqual({ error: 'The dashboard API takes a session, not an API key' });
      // Both together: the key is still refused here, the cookie still ignored there.
      const both = await server.request('GET', `${DASHBOARD_API}/workspaces/${seeded.workspaceId}/links`, {
        key: seeded.key,
        headers: { cookie: client.cookie },
      });
      expect(both.status).toBe(401);
    });
  });

  describe('passwords', () => {
    it('changing the password ends every session of that person, and only theirs', async () => {
      const person = await newPerson();
      const a = await signIn(server, person);
      const b = await signIn(server, person);
      const bystander = await signIn(server, await newPerson());
      const short = await a.request('POST', '/password', { body: { currentPassword: PASSWORD, newPassword: 'short' } });
      expect(short.status).toBe(400);
      expect(short.body).toEqual({ field: 'newPassword', error: 'newPassword must be at least 10 characters' });
      const wrong = await a.request('POST', '/password', {
        body: { currentPassword: 'not it at all', newPassword: 'a brand new password' },
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body).toMatchObject({ field: 'currentPassword' });
      expect((await a.request('GET', '/session')).status).toBe(200);
      const changed = await a.request('POST', '/password', {
        body: { currentPassword: PASSWORD, newPassword: 'a brand new password' },
      });
      expect(changed.status).toBe(204);
      expect((await a.request('GET', '/session')).status).toBe(401);
      expect((await b.request('GET', '/session')).status).toBe(401);
      expect((await bystander.request('GET', '/session')).status).toBe(200);
      expect((await post('/session', { email: person.email, password: PASSWORD })).status).toBe(401);
      expect((await post('/session', { email: person.email, password: 'a brand new password' })).status).toBe(200);
    });

    it('a set-up link sets the password once, within 24 hours, and signs the person in', async () => {
      const userId = await addMember(knex(), workspaceId, `setup-${Date.now()}@example.com`, 'MEMBER');
      const token = await accounts.createSetupToken(knex(), userId, Date.now());
      const short = await post('/password-setup', { token, password: 'too short' });
      expect(short.status).toBe(400);
      expect(short.body.field).toBe('password');
      const set = await post('/password-setup', { token, password: 'my own password 1' });
      expect(set.status).toBe(200);
      expect(set.body.user.id).toBe(userId);
      expect(cookieOf(set)).toMatch(/^sl_session=/);
      const again = await post('/password-setup', { token, password: 'my own password 2' });
      expect(again.status).toBe(404);
      expect(again.body.error).toMatch(/not valid any more/);
      const user = await accounts.findUser(knex(), userId);
      expect((await post('/session', { email: user!.email, password: 'my own password 1' })).status).toBe(200);

      // A day-old link does not work, and a newer link replaces an older one.
      const old = await accounts.createSetupToken(knex(), userId, Date.now() - 24 * 3_600_000 - 1000);
      expect((await post('/password-setup', { token: old, password: 'my own password 3' })).status).toBe(404);
      const first = await accounts.createSetupToken(knex(), userId, Date.now());
      const second = await accounts.createSetupToken(knex(), userId, Date.now());
      expect((await post('/password-setup', { token: first, password: 'my own password 4' })).status).toBe(404);
      expect((await post('/password-setup', { token: second, password: 'my own password 5' })).status).toBe(200);
    });

    it('two uses of one set-up link at once: exactly one sets the password', async () => {
      const userId = await addMember(knex(), workspaceId, `race-${Date.now()}@example.com`, 'MEMBER');
      const token = await accounts.createSetupToken(knex(), userId, Date.now());
      const answers = await Promise.all(
        [1, 2, 3, 4].map((i) => post('/password-setup', { token, password: `racing password ${i}` })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 404, 404, 404]);
    });
  });

  it("removal from the workspace ends the person's sessions, and the workspace is then 404", async () => {
    const person = await newPerson();
    const client = await signIn(server, person);
    expect((await client.request('GET', `/workspaces/${workspaceId}`)).status).toBe(200);
    await removeMember(knex(), workspaceId, person.userId);
    expect((await client.request('GET', '/session')).status).toBe(401);
    const again = await signIn(server, person);
    expect(again.session.workspaces).toEqual([]);
    expect((await again.request('GET', `/workspaces/${workspaceId}`)).status).toBe(404);
  });
});

describe.each(testEngines())('the first run on %s', (engine) => {
  let server: TestServer;
  const knex = () => server.services.db.knex;
  const post = (path: string, body: unknown) => server.request('POST', `${DASHBOARD_API}${path}`, { body });

  beforeAll(async () => {
    server = await startTestServer(engine);
  });
  afterAll(async () => server?.stop());

  it('the printed token creates the first workspace and its OWNER once; nothing else can claim it', async () => {
    const token = await accounts.createFirstRunToken(knex(), Date.now());
    const claim = { token, workspaceName: 'Acme', email: 'Founder@Example.com', password: 'first password!' };
    expect((await server.request('GET', `${DASHBOARD_API}/first-run?token=${token}`)).body).toEqual({
      available: true,
    });
    expect((await server.request('GET', `${DASHBOARD_API}/first-run?token=guess`)).body).toEqual({ available: false });
    expect((await post('/first-run', { ...claim, token: 'guessed-token' })).status).toBe(404);
    const short = await post('/first-run', { ...claim, password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.field).toBe('password');
    const blank = await post('/first-run', { ...claim, workspaceName: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.body.field).toBe('workspaceName');
    expect(await accounts.userCount(knex())).toBe(0);

    const made = await post('/first-run', claim);
    expect(made.status).toBe(201);
    expect(made.body.user.email).toBe('founder@example.com');
    expect(made.body.workspaces).toEqual([expect.objectContaining({ name: 'Acme', role: 'OWNER' })]);
    expect(cookieOf(made)).toMatch(/^sl_session=/);

    // The token is spent; a second token minted before the claim is spent too.
    expect((await post('/first-run', { ...claim, email: 'second@example.com' })).status).toBe(404);
    expect((await server.request('GET', `${DASHBOARD_API}/first-run?token=${token}`)).body).toEqual({
      available: false,
    });
    const late = await accounts.createFirstRunToken(knex(), Date.now());
    expect((await post('/first-run', { ...claim, token: late, email: 'third@example.com' })).status).toBe(404);
    expect(await accounts.userCount(knex())).toBe(1);
  });
});

describe.each(testEngines())('first-run races on %s', (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(engine);
  });
  afterAll(async () => server?.stop());

  it('two claims at once with two valid tokens: one workspace, one OWNER', async () => {
    const knex = server.services.db.knex;
    const tokens = await Promise.all([1, 2].map(() => accounts.createFirstRunToken(knex, Date.now())));
    const answers = await Promise.all(
      tokens.map((token, i) =>
        server.request('POST', `${DASHBOARD_API}/first-run`, {
          body: { token, workspaceName: `W${i}`, email: `w${i}@example.com`, password: 'first password!' },
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 404]);
    expect(await accounts.userCount(knex)).toBe(1);
    const [{ n }] = await knex('workspaces').count({ n: '*' });
    expect(Number(n)).toBe(1);
  });
});
