// Second factors through HTTPS on every engine: enrolling an authenticator app (QR code, secret
// sealed, confirmed with a code), signing in with it (no session from the password alone; a
// pending cookie once, five minutes; a code never accepted twice; wrong codes throttled), the
// recovery codes (hashed, single use, replaced as ten), turning it off, and a workspace's
// requirement (OWNER only, the list of who has none, restricted sessions, API keys unaffected).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/db/repos/workspaces';
import { totpCode, TOTP_PERIOD_S } from '../../src/domain/second-factors';
import { testEngines } from '../support/databases';
import {
  clientFor,
  cookieOf,
  DASHBOARD_API,
  PASSWORD,
  seedPerson,
  signIn,
  type DashboardClient,
  pendingCookie,
} from '../support/dashboard';
import { dataKey } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

const STEP_MS = TOTP_PERIOD_S * 1000;

describe.each(testEngines())('second factors on %s', (engine) => {
  let server: TestServer;
  let workspaceId: string;
  const knex = () => server.services.db.knex;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    server.request('POST', `${DASHBOARD_API}${path}`, { body, headers });

  /** Enrols the client's person; the secret and the recovery codes. Codes are made for steps ahead of any earlier use. */
  async function enrol(client: DashboardClient, at = Date.now()) {
    const started = await client.request('POST', '/account/second-factor/totp');
    expect(started.status).toBe(201);
    const secret = started.body.data.secret as string;
    const confirmed = await client.request('POST', '/account/second-factor/totp/confirm', {
      body: { code: totpCode(secret, at) },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    return { secret, recoveryCodes: confirmed.body.data.recoveryCodes as string[], started: started.body.data };
  }

  /** The password step for a person with a factor: the pending cookie. */
  async function passwordStep(email: string) {
    const res = await post('/session', { email, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.secondFactor).toBeDefined();
    return { res, cookie: pendingCookie(res) };
  }

  beforeAll(async () => {
    server = await startTestServer(engine);
    workspaceId = await createWorkspace(knex(), 'Factors', 'growth');
  });
  afterAll(async () => server?.stop());

  it('enrols an app: QR code and secret, sealed at rest, on only once a code confirms it; ten recovery codes kept hashed', async () => {
    const person = await seedPerson(knex(), workspaceId, 'MEMBER');
    const client = await signIn(server, person);
    expect(client.session.secondFactor).toEqual({ enabled: false, restricted: false, requiredBy: [] });
    const started = await client.request('POST', '/account/second-factor/totp');
    expect(started.status).toBe(201);
    const { secret, otpauthUri, qrCode, label } = started.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    expect(otpauthUri).toContain(`secret=${secret}`);
    expect(otpauthUri).toContain('algorithm=SHA1');
    expect(otpauthUri).toContain('digits=6');
    expect(otpauthUri).toContain('period=30');
    expect(label).toBe(person.email);
    expect(qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(qrCode.split(',')[1], 'base64').toString()).toContain('<svg');
    // Started is not on: signing in still needs the password only.
    expect((await client.request('GET', '/account/second-factor')).body.data.enabled).toBe(false);
    expect((await post('/session', { email: person.email, password: PASSWORD })).body.user).toBeDefined();
    const row = await knex()('totp_factors').where({ user_id: person.userId }).first();
    expect(row.pending_sealed).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(secret);
    // A wrong code does not turn it on.
    const wrong = await client.request('POST', '/account/second-factor/totp/confirm', {
      body: { code: totpCode(secret, Date.now() - 10 * STEP_MS) },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.field).toBe('code');
    const confirmed = await client.request('POST', '/account/second-factor/totp/confirm', {
      body: { code: totpCode(secret, Date.now()) },
    });
    expect(confirmed.status).toBe(200);
    const codes = confirmed.body.data.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const stored = await knex()('recovery_codes').where({ user_id: person.userId });
    expect(stored).toHaveLength(10);
    expect(JSON.stringify(stored)).not.toContain(codes[0]);
    const status = (await client.request('GET', '/account/second-factor')).body.data;
    expect(status).toMatchObject({ enabled: true, methods: ['totp', 'recovery'], recoveryCodesLeft: 10 });
    expect(status.totp.enabledAt).toMatch(/Z$/);
    // Without a started enrolment there is nothing to confirm.
    const again = await client.request('POST', '/account/second-factor/totp/confirm', { body: { code: '123456' } });
    expect(again.status).toBe(409);
  });

  it('signing in asks for the code after the password: a pending cookie, then the session; a code is accepted once', async () => {
    const person = await seedPerson(knex(), workspaceId, 'MEMBER');
    const { secret } = await enrol(await signIn(server, person), Date.now() - STEP_MS);
    const { res, cookie } = await passwordStep(person.email);
    expect(res.body.secondFactor.methods).toEqual(['totp', 'recovery']);
    expect(res.body.user).toBeUndefined();
    expect(res.body.csrfToken).toBeUndefined();
    const header = String((res.headers['set-cookie'] as string[])[0]);
    expect(header).not.toContain('sl_session=');
    for (const a of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/app/api/session', 'Max-Age=300'])
      expect(header).toContain(a);
    // The pending cookie is no session.
    expect((await server.request('GET', `${DASHBOARD_API}/session`, { headers: { cookie } })).status).toBe(401);
    // No pending cookie: 401.
    expect((await post('/session/second-factor', { method: 'totp', code: totpCode(secret, Date.now()) })).status).toBe(
      401,
    );
    const code = totpCode(secret, Date.now());
    const done = await post('/session/second-factor', { method: 'totp', code }, { cookie });
    expect(done.status, done.text).toBe(200);
    expect(done.body.user.id).toBe(person.userId);
    expect(done.body.secondFactor.enabled).toBe(true);
    const me = clientFor(server, cookieOf(done), done.body.csrfToken);
    expect((await me.request('GET', '/session')).status).toBe(200);
    // Single use: the pending cookie is spent.
    expect((await post('/session/second-factor', { method: 'totp', code }, { cookie })).status).toBe(401);
    // The same code again, with a new pending sign-in: refused (the step was used).
    const second = await passwordStep(person.email);
    const replay = await post('/session/second-factor', { method: 'totp', code }, { cookie: second.cookie });
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: 'That code is not correct', field: 'code' });
    // The next step's code is accepted (one step either side).
    const next = await post(
      '/session/second-factor',
      { method: 'totp', code: totpCode(secret, Date.now() + STEP_MS) },
      { cookie: second.cookie },
    );
    expect(next.status).toBe(200);
  });

  it('a pending sign-in lasts five minutes and belongs to its person', async () => {
    const person = await seedPerson(knex(), workspaceId, 'MEMBER');
    const { secret } = await enrol(await signIn(server, person));
    const { cookie } = await passwordStep(person.email);
    await knex()('second_factor_challenges')
      .where({ user_id: person.userId })
      .update({ expires_at: Date.now() - 1 });
    const late = await post(
      '/session/second-factor',
      { method: 'totp', code: totpCode(secret, Date.now() + STEP_MS) },
      { cookie },
    );
    expect(late.status).toBe(401);
    expect(late.body.error).toMatch(/expired/);
    // Another person's code does not open this person's pending sign-in.
    const other = await seedPerson(knex(), workspaceId, 'MEMBER');
    const otherFactor = await enrol(await signIn(server, other));
    const mine = await passwordStep(person.email);
    const theirs = await post(
      '/session/second-factor',
      { method: 'totp', code: totpCode(otherFactor.secret, Date.now() + STEP_MS) },
      { cookie: mine.cookie },
    );
    expect(theirs.status).toBe(400);
  });

  it('after 5 wrong codes answers 429 with the wait, even to the right code', async () => {
    const person = await seedPerson(knex(), workspaceId, 'MEMBER');
    const { secret } = await enrol(await signIn(server, person));
    const { cookie } = await passwordStep(person.email);
    for (let i = 0; i < 5; i++) {
      const res = await post('/session/second-factor', { method: 'totp', code: `00000${i}` }, { cookie });
      expect(res.status).toBe(400);
    }
    const blocked = await post(
      '/session/second-factor',
      { method: 'totp', code: totpCode(secret, Date.now() + STEP_MS) },
      { cookie },
    );
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatch(/^Too many wrong codes\. Try again in 1[45] minutes\.$/);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(800);
    // Wrong recovery codes count the same.
    expect((await post('/session/second-factor', { method: 'recovery', code: 'aaaaa-aaaaa' }, { cookie })).status).toBe(
      429,
    );
  });

  it('a recovery code signs in once; new codes replace all ten; the app can be turned off with the password', async () => {
    const person = await seedPerson(knex(), workspaceId, 'ADMIN');
    const client = await signIn(server, person);
    const { recoveryCodes } = await enrol(client);
    const first = await passwordStep(person.email);
    // Case, spaces and the dash do not matter.
    const typed = ` ${recoveryCodes[3].toUpperCase().replace('-', ' ')} `;
    const used = await post('/session/second-factor', { method: 'recovery', code: typed }, { cookie: first.cookie });
    expect(used.status, used.text).toBe(200);
    const signedIn = clientFor(server, cookieOf(used), used.body.csrfToken);
    expect((await signedIn.request('GET', '/account/second-factor')).body.data.recoveryCodesLeft).toBe(9);
    const second = await passwordStep(person.email);
    const again = await post(
      '/session/second-factor',
      { method: 'recovery', code: recoveryCodes[3] },
      { cookie: second.cookie },
    );
    expect(again.status).toBe(400);
    expect(again.body.field).toBe('code');
    // Regenerating needs the password (or a code) and replaces every code.
    const refused = await signedIn.request('POST', '/account/second-factor/recovery-codes', {
      body: { password: 'not the password' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.field).toBe('password');
    const fresh = await signedIn.request('POST', '/account/second-factor/recovery-codes', {
      body: { password: PASSWORD },
    });
    expect(fresh.status).toBe(200);
    const newCodes = fresh.body.data.recoveryCodes as string[];
    expect(newCodes).toHaveLength(10);
    expect((await signedIn.request('GET', '/account/second-factor')).body.data.recoveryCodesLeft).toBe(10);
    const old = await post(
      '/session/second-factor',
      { method: 'recovery', code: recoveryCodes[0] },
      { cookie: second.cookie },
    );
    expect(old.status).toBe(400);
    expect(
      (await post('/session/second-factor', { method: 'recovery', code: newCodes[0] }, { cookie: second.cookie }))
        .status,
    ).toBe(200);
    // Off with the password: the password alone signs in again, and nothing of the factor is left.
    const wrong = await signedIn.request('POST', '/account/second-factor/totp/disable', { body: { password: 'nope' } });
    expect(wrong.status).toBe(400);
    const off = await signedIn.request('POST', '/account/second-factor/totp/disable', { body: { password: PASSWORD } });
    expect(off.status).toBe(204);
    expect((await post('/session', { email: person.email, password: PASSWORD })).body.user.id).toBe(person.userId);
    expect(await knex()('recovery_codes').where({ user_id: person.userId })).toEqual([]);
    expect(await knex()('totp_factors').where({ user_id: person.userId }).first()).toBeUndefined();
    expect(
      (await signedIn.request('POST', '/account/second-factor/totp/disable', { body: { password: PASSWORD } })).status,
    ).toBe(409);
  });

  it('turning it off with a current code works too; a wrong code is refused', async () => {
    const person = await seedPerson(knex(), workspaceId, 'MEMBER');
    const client = await signIn(server, person);
    const { secret } = await enrol(client, Date.now() - STEP_MS);
    const wrong = await client.request('POST', '/account/second-factor/totp/disable', { body: { code: '000000' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.field).toBe('code');
    const off = await client.request('POST', '/account/second-factor/totp/disable', {
      body: { code: totpCode(secret, Date.now()) },
    });
    expect(off.status).toBe(204);
  });

  it('the requirement: OWNER only, with a factor of their own; lists who has none; restricts their sessions to enrolling', async () => {
    const ws = await createWorkspace(knex(), 'Strict Co', 'growth');
    const ownerP = await seedPerson(knex(), ws, 'OWNER');
    const adminP = await seedPerson(knex(), ws, 'ADMIN');
    const memberP = await seedPerson(knex(), ws, 'MEMBER');
    const owner = await signIn(server, ownerP);
    const admin = await signIn(server, adminP);
    const member = await signIn(server, memberP);
    const path = `/workspaces/${ws}/second-factor-requirement`;
    const before = await owner.request('GET', path);
    expect(before.status).toBe(200);
    expect(before.body.data.requireSecondFactor).toBe(false);
    expect(before.body.data.membersWithoutFactor.map((m: any) => m.email).sort()).toEqual(
      [ownerP.email, adminP.email, memberP.email].sort(),
    );
    expect((await member.request('GET', path)).status).toBe(403);
    // Only an OWNER changes it.
    const byAdmin = await admin.request('PUT', path, { body: { requireSecondFactor: true } });
    expect(byAdmin.status).toBe(403);
    // An OWNER without a factor would shut themselves out.
    const early = await owner.request('PUT', path, { body: { requireSecondFactor: true } });
    expect(early.status).toBe(409);
    expect(early.body.error).toMatch(/your own authenticator app/);
    await enrol(owner);
    const on = await owner.request('PUT', path, { body: { requireSecondFactor: true } });
    expect(on.status).toBe(200);
    expect(on.body.data.requireSecondFactor).toBe(true);
    expect(on.body.data.membersWithoutFactor.map((m: any) => m.email).sort()).toEqual(
      [adminP.email, memberP.email].sort(),
    );
    // The member's session is held to enrolling.
    const links = await member.request('GET', `/workspaces/${ws}/links`);
    expect(links.status).toBe(403);
    expect(links.body.code).toBe('second_factor_required');
    expect(links.body.error).toMatch(/^Strict Co requires a second factor/);
    expect((await member.request('POST', `/workspaces/${ws}/tags`, { body: { name: 'x' } })).status).toBe(403);
    expect(
      (
        await member.request('POST', '/password', {
          body: { currentPassword: PASSWORD, newPassword: 'another password 1' },
        })
      ).status,
    ).toBe(403);
    const session = await member.request('GET', '/session');
    expect(session.status).toBe(200);
    expect(session.body.secondFactor).toEqual({
      enabled: false,
      restricted: true,
      requiredBy: [{ id: ws, name: 'Strict Co' }],
    });
    expect((await member.request('GET', '/account/second-factor')).body.data.restricted).toBe(true);
    // A new sign-in is restricted as well.
    const again = await signIn(server, memberP);
    expect(again.session.secondFactor.restricted).toBe(true);
    expect((await again.request('GET', `/workspaces/${ws}`)).status).toBe(403);
    // API keys are not people: the member's key still works.
    const key = await dataKey(knex(), ws, memberP.userId);
    const api = await server.request('GET', '/api/v1/links', { headers: { authorization: `Bearer ${key}` } });
    expect(api.status).toBe(200);
    // The owner is not held up; nor is anyone once enrolled, and they cannot turn it off while required.
    expect((await owner.request('GET', `/workspaces/${ws}/links`)).status).toBe(200);
    const { secret } = await enrol(member, Date.now() - STEP_MS);
    expect((await member.request('GET', `/workspaces/${ws}/links`)).status).toBe(200);
    const off = await member.request('POST', '/account/second-factor/totp/disable', {
      body: { code: totpCode(secret, Date.now()) },
    });
    expect(off.status).toBe(409);
    expect(off.body.error).toMatch(/Strict Co requires a second factor/);
    // Off again: nobody is held.
    const offReq = await owner.request('PUT', path, { body: { requireSecondFactor: false } });
    expect(offReq.body.data.requireSecondFactor).toBe(false);
    expect((await admin.request('GET', `/workspaces/${ws}/links`)).status).toBe(200);
    // Signing out works while restricted.
    await owner.request('PUT', path, { body: { requireSecondFactor: true } });
    expect((await admin.request('DELETE', '/session')).status).toBe(204);
  });

  it("another workspace's requirement and lookups stay in their workspace", async () => {
    const ws = await createWorkspace(knex(), 'Elsewhere', 'growth');
    const ownerP = await seedPerson(knex(), ws, 'OWNER');
    const owner = await signIn(server, ownerP);
    const stranger = await signIn(server, await seedPerson(knex(), workspaceId, 'OWNER'));
    const path = `/workspaces/${ws}/second-factor-requirement`;
    expect((await stranger.request('GET', path)).status).toBe(404);
    expect((await stranger.request('PUT', path, { body: { requireSecondFactor: false } })).status).toBe(404);
    expect((await owner.request('GET', path)).body.data.membersWithoutFactor).toEqual([
      { userId: ownerP.userId, email: ownerP.email, role: 'OWNER' },
    ]);
  });

  it('a set-up link signs a person with a factor in only through the second step', async () => {
    const person = await seedPerson(knex(), workspaceId, 'MEMBER');
    await enrol(await signIn(server, person));
    const { createSetupToken } = await import('../../src/db/repos/accounts');
    const token = await createSetupToken(knex(), person.userId, Date.now());
    const res = await post('/password-setup', { token, password: 'a brand new password' });
    expect(res.status).toBe(200);
    expect(res.body.secondFactor.methods).toContain('totp');
    expect(pendingCookie(res)).toMatch(/^sl_second_factor=/);
  });
});
