// Passkeys through HTTPS on every engine, with a passkey authenticator in Node
// (test/support/passkeys.ts): the options (RP ID, user verification, discoverable credentials),
// adding one (the challenge single use, the person's own, 5 minutes; origin and user verification
// checked), signing in with one alone (a full session, audited; a forged, replayed or foreign
// answer 400, audited and counted, then 429), a passkey as the second step, renaming and removing
// (another person's 404, a recent sign-in), and a workspace's requirement met by a passkey.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/db/repos/workspaces';
import { totpCode, TOTP_PERIOD_S } from '../../src/domain/second-factors';
import { hashSecret } from '../../src/domain/sessions';
import { MAX_PASSKEYS, PASSKEY_OPTIONS_PER_MINUTE, PASSKEY_SIGN_IN_ATTEMPTS } from '../../src/operations/passkeys';
import { auditMark, auditSince } from '../support/audit';
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
import { softAuthenticator, type SoftAuthenticator } from '../support/passkeys';
import { startTestServer, type TestServer } from '../support/server';

describe.each(testEngines())('passkeys on %s', (engine) => {
  let server: TestServer;
  let workspaceId: string;
  const knex = () => server.services.db.knex;
  const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
    server.request('POST', `${DASHBOARD_API}${path}`, { body, headers });

  /** A new person of the workspace, signed in, with an authenticator holding one added passkey. */
  async function personWithPasskey(role: 'OWNER' | 'MEMBER' = 'MEMBER') {
    const person = await seedPerson(knex(), workspaceId, role);
    const client = await signIn(server, person);
    const authenticator = softAuthenticator();
    const passkey = await addPasskey(client, authenticator, 'Laptop');
    return { person, client, authenticator, passkey };
  }

  async function addPasskey(client: DashboardClient, authenticator: SoftAuthenticator, name: string) {
    const options = await client.request('POST', '/account/passkeys/registration');
    expect(options.status, options.text).toBe(201);
    const added = await client.request('POST', '/account/passkeys', {
      body: { name, credential: authenticator.register(options.body.data.options) },
    });
    expect(added.status, added.text).toBe(201);
    return added.body.data as { id: string; name: string };
  }

  async function signInOptions() {
    const res = await post('/session/passkey/options');
    expect(res.status, res.text).toBe(200);
    return res.body.data.options;
  }

  beforeAll(async () => {
    server = await startTestServer(engine);
    workspaceId = await createWorkspace(knex(), 'Keys', 'growth');
  });
  afterAll(async () => server?.stop());

  it("adds a passkey: options for a discoverable credential with user verification, for PUBLIC_URL's host; the challenge kept hashed, once", async () => {
    const person = await seedPerson(knex(), workspaceId, 'MEMBER');
    const client = await signIn(server, person);
    const res = await client.request('POST', '/account/passkeys/registration');
    expect(res.status).toBe(201);
    const { options, expiresAt } = res.body.data;
    expect(options.rp).toEqual({ name: 'Shortlink', id: 'localhost' });
    expect(options.user.name).toBe(person.email);
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(4 * 60_000);
    // Only the challenge's hash is kept, with its purpose and person.
    const kept = await knex()('passkey_challenges')
      .where({ id: hashSecret(options.challenge) })
      .first();
    expect(kept).toMatchObject({ purpose: 'register', user_id: person.userId });
    expect(JSON.stringify(await knex()('passkey_challenges'))).not.toContain(options.challenge);

    const authenticator = softAuthenticator();
    const credential = authenticator.register(options);
    const added = await client.request('POST', '/account/passkeys', { body: { name: ' Laptop ', credential } });
    expect(added.status, added.text).toBe(201);
    expect(added.body.data).toMatchObject({ name: 'Laptop', lastUsedAt: null });
    const stored = await knex()('passkeys').where({ id: added.body.data.id }).first();
    expect(stored).toMatchObject({ user_id: person.userId, credential_id: credential.id, name: 'Laptop' });
    expect(JSON.parse(stored.transports)).toEqual(['internal']);
    // The same answer again: its challenge was used.
    const again = await client.request('POST', '/account/passkeys', { body: { name: 'Again', credential } });
    expect(again.status).toBe(400);
    expect(again.body.field).toBe('credential');
    const list = await client.request('GET', '/account/passkeys');
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['Laptop']);
    // The passkey is excluded from the next registration's options.
    const next = await client.request('POST', '/account/passkeys/registration');
    expect(next.body.data.options.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([credential.id]);
  });

  it("refuses to add a passkey from another person's, an expired or another purpose's challenge, another origin, or without user verification", async () => {
    const person = await seedPerson(knex(), workspaceId, 'MEMBER');
    const client = await signIn(server, person);
    const other = await signIn(server, await seedPerson(knex(), workspaceId, 'MEMBER'));
    const authenticator = softAuthenticator();
    const refused = async (credential: unknown) => {
      const res = await client.request('POST', '/account/passkeys', { body: { name: 'Key', credential } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.field).toBe('credential');
    };
    // Another person's challenge.
    const theirs = (await other.request('POST', '/account/passkeys/registration')).body.data.options;
    await refused(authenticator.register({ ...theirs, user: { id: 'eA' } }));
    // An expired challenge.
    const old = (await client.request('POST', '/account/passkeys/registration')).body.data.options;
    await knex()('passkey_challenges')
      .where({ id: hashSecret(old.challenge) })
      .update({ expires_at: Date.now() - 1 });
    await refused(authenticator.register(old));
    // A sign-in's challenge.
    const signInChallenge = await signInOptions();
    await refused(authenticator.register({ ...signInChallenge, user: { id: 'eA' } }));
    // A page of another origin (phishing) and an authenticator that did not verify the person.
    const fresh = async () => (await client.request('POST', '/account/passkeys/registration')).body.data.options;
    await refused(authenticator.register(await fresh(), { origin: 'https://localhost.evil.example' }));
    await refused(authenticator.register(await fresh(), { userVerified: false }));
    // Nonsense in the client data is 400 too, never a 500.
    await refused({ id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: 'not-json' } });
    // A blank name is refused before anything else.
    const blank = await client.request('POST', '/account/passkeys', {
      body: { name: '   ', credential: authenticator.register(await fresh()) },
    });
    expect(blank.status).toBe(400);
    expect(blank.body.field).toBe('name');
    expect(await knex()('passkeys').where({ user_id: person.userId })).toHaveLength(0);
  });

  it(`refuses a passkey past ${MAX_PASSKEYS} with 409`, async () => {
    const person = await seedPerson(knex(), workspaceId, 'MEMBER');
    const client = await signIn(server, person);
    await knex()('passkeys').insert(
      Array.from({ length: MAX_PASSKEYS }, (_, i) => ({
        id: `pk_${String(i).padStart(4, '0')}${person.userId.slice(-16)}`,
        user_id: person.userId,
        credential_id: `cred-${person.userId}-${i}`,
        public_key: 'pk',
        counter: 0,
        name: `Key ${i}`,
        created_at: i,
      })),
    );
    const options = (await client.request('POST', '/account/passkeys/registration')).body.data.options;
    const res = await client.request('POST', '/account/passkeys', {
      body: { name: 'One more', credential: softAuthenticator().register(options) },
    });
    expect(res.status, res.text).toBe(409);
    expect(await knex()('passkeys').where({ user_id: person.userId })).toHaveLength(MAX_PASSKEYS);
    expect((await client.request('GET', '/account/passkeys')).body.data).toHaveLength(MAX_PASSKEYS);
  });

  it('signs in with a passkey alone: a full session, audited; the challenge once; the counter only forwards', async () => {
    const { person, authenticator, passkey } = await personWithPasskey();
    const mark = await auditMark(knex(), workspaceId);
    const options = await signInOptions();
    expect(options.rpId).toBe('localhost');
    expect(options.userVerification).toBe('required');
    expect(options.allowCredentials ?? []).toEqual([]);
    const credential = authenticator.assert(options);
    const res = await post('/session/passkey', { credential });
    expect(res.status, res.text).toBe(200);
    expect(res.body.user).toEqual({ id: person.userId, email: person.email });
    const client = clientFor(server, cookieOf(res), res.body.csrfToken);
    expect((await client.request('GET', '/session')).status).toBe(200);
    const entries = await auditSince(knex(), workspaceId, mark);
    expect(entries.map((e) => [e.action, e.actor_user_id])).toEqual([['session.signed_in', person.userId]]);
    const listed = (await client.request('GET', '/account/passkeys')).body.data;
    expect(listed[0].id).toBe(passkey.id);
    expect(listed[0].lastUsedAt).not.toBeNull();
    // The same answer again (its challenge used), and a new challenge with an old counter.
    expect((await post('/session/passkey', { credential })).status).toBe(400);
    const replay = authenticator.assert(await signInOptions(), { signCount: 1 });
    expect((await post('/session/passkey', { credential: replay })).status).toBe(400);
    // The next counter works.
    expect((await post('/session/passkey', { credential: authenticator.assert(await signInOptions()) })).status).toBe(
      200,
    );
  });

  it('refuses a forged, expired, foreign or unknown answer with 400, audited for the person it names', async () => {
    const { person, authenticator } = await personWithPasskey();
    const mark = await auditMark(knex(), workspaceId);
    const refused = async (credential: unknown) => {
      const res = await post('/session/passkey', { credential });
      expect(res.status, res.text).toBe(400);
      expect(res.body.field).toBe('credential');
      expect(res.headers['set-cookie']).toBeUndefined();
    };
    await refused(authenticator.assert(await signInOptions(), { forge: true }));
    // Another person's user handle with this person's credential.
    await refused(authenticator.assert(await signInOptions(), { userHandle: 'dXNyX290aGVy' }));
    const expired = await signInOptions();
    await knex()('passkey_challenges')
      .where({ id: hashSecret(expired.challenge) })
      .update({ expires_at: Date.now() - 1 });
    await refused(authenticator.assert(expired));
    await refused(authenticator.assert(await signInOptions(), { origin: 'https://evil.example' }));
    // A credential never added here.
    const stranger = softAuthenticator();
    stranger.register({ challenge: 'x', user: { id: 'eA' } });
    await refused(stranger.assert(await signInOptions()));
    await expect
      .poll(async () => (await auditSince(knex(), workspaceId, mark)).map((e) => e.action))
      .toEqual([
        'session.sign_in_failed',
        'session.sign_in_failed',
        'session.sign_in_failed',
        'session.sign_in_failed',
      ]);
    const entries = await auditSince(knex(), workspaceId, mark);
    expect(new Set(entries.map((e) => e.object_id))).toEqual(new Set([person.userId]));
  });

  it("asks for a passkey as the second step after the password, once, the pending person's own only", async () => {
    const { person, authenticator, passkey } = await personWithPasskey();
    const { authenticator: othersAuthenticator } = await personWithPasskey();
    const password = await post('/session', { email: person.email, password: PASSWORD });
    expect(password.status).toBe(200);
    expect(password.body.secondFactor.methods).toEqual(['passkey']);
    expect(password.body.user).toBeUndefined();
    const cookie = pendingCookie(password);
    // No pending sign-in, no options.
    expect((await post('/session/second-factor/passkey/options')).status).toBe(401);
    const options = await post('/session/second-factor/passkey/options', undefined, { cookie });
    expect(options.status, options.text).toBe(200);
    const allowed = options.body.data.options.allowCredentials.map((c: { id: string }) => c.id);
    expect(allowed).toEqual([authenticator.credentials[0].id]);
    expect(
      await knex()('passkey_challenges')
        .where({ id: hashSecret(options.body.data.options.challenge) })
        .first(),
    ).toMatchObject({ purpose: 'second_factor', user_id: person.userId });
    // Another person's passkey answering this person's challenge: 400.
    const foreign = othersAuthenticator.assert(options.body.data.options);
    expect((await post('/session/second-factor/passkey', { credential: foreign }, { cookie })).status).toBe(400);
    // A sign-in-alone challenge is not a second step's.
    const alone = authenticator.assert(await signInOptions());
    expect((await post('/session/second-factor/passkey', { credential: alone }, { cookie })).status).toBe(400);
    const fresh = (await post('/session/second-factor/passkey/options', undefined, { cookie })).body.data.options;
    const done = await post('/session/second-factor/passkey', { credential: authenticator.assert(fresh) }, { cookie });
    expect(done.status, done.text).toBe(200);
    expect(done.body.user.id).toBe(person.userId);
    const cookies = [done.headers['set-cookie']].flat().join('\n');
    expect(cookies).toMatch(/sl_session=/);
    expect(cookies).toMatch(/sl_second_factor=;/);
    expect((await knex()('passkeys').where({ id: passkey.id }).first()).last_used_at).not.toBeNull();
    // The pending sign-in is used up.
    const later = (await post('/session/second-factor/passkey/options', undefined, { cookie })).status;
    expect(later).toBe(401);
  });

  it('throttles wrong passkeys of the second step as wrong codes: 429 after 5 for the person', async () => {
    const { person, authenticator } = await personWithPasskey();
    const cookie = pendingCookie(await post('/session', { email: person.email, password: PASSWORD }));
    const options = async () =>
      (await post('/session/second-factor/passkey/options', undefined, { cookie })).body.data.options;
    for (let i = 0; i < 5; i++) {
      const res = await post(
        '/session/second-factor/passkey',
        { credential: authenticator.assert(await options(), { forge: true }) },
        { cookie },
      );
      expect(res.status).toBe(400);
    }
    const res = await post(
      '/session/second-factor/passkey',
      { credential: authenticator.assert(await options()) },
      { cookie },
    );
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it("renames and removes a passkey: another person's is 404; removing asks for a recent sign-in; it signs in no more", async () => {
    const { client, authenticator, passkey } = await personWithPasskey();
    const { client: other, passkey: theirs } = await personWithPasskey();
    const mark = await auditMark(knex(), workspaceId);
    const renamed = await client.request('PATCH', `/account/passkeys/${passkey.id}`, { body: { name: 'Work laptop' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.name).toBe('Work laptop');
    expect((await client.request('PATCH', `/account/passkeys/${theirs.id}`, { body: { name: 'Mine' } })).status).toBe(
      404,
    );
    expect((await client.request('DELETE', `/account/passkeys/${theirs.id}`)).status).toBe(404);
    expect((await client.request('PATCH', `/account/passkeys/${passkey.id}`, { body: { name: ' ' } })).status).toBe(
      400,
    );
    // A session started more than 15 minutes ago.
    const sessionId = hashSecret(client.cookie.split('=')[1]);
    await knex()('sessions')
      .where({ id: sessionId })
      .update({ created_at: Date.now() - 16 * 60_000 });
    const stale = await client.request('DELETE', `/account/passkeys/${passkey.id}`);
    expect(stale.status).toBe(403);
    expect(stale.body.code).toBe('recent_sign_in_required');
    await knex()('sessions').where({ id: sessionId }).update({ created_at: Date.now() });
    expect((await client.request('DELETE', `/account/passkeys/${passkey.id}`)).status).toBe(204);
    expect((await client.request('DELETE', `/account/passkeys/${passkey.id}`)).status).toBe(404);
    expect((await client.request('GET', '/account/passkeys')).body.data).toEqual([]);
    expect((await other.request('GET', '/account/passkeys')).body.data.map((p: { id: string }) => p.id)).toEqual([
      theirs.id,
    ]);
    expect((await post('/session/passkey', { credential: authenticator.assert(await signInOptions()) })).status).toBe(
      400,
    );
    const entries = await auditSince(knex(), workspaceId, mark);
    expect(entries.filter((e) => e.object_type === 'passkey').map((e) => [e.action, JSON.parse(e.changes)])).toEqual([
      ['user.passkey_renamed', { name: { from: 'Laptop', to: 'Work laptop' } }],
      ['user.passkey_removed', { name: { from: 'Work laptop' } }],
    ]);
  });

  it("meets a workspace's requirement with a passkey: no restriction, not listed as without; the last one stays", async () => {
    const ws = await createWorkspace(knex(), 'Strict', 'growth');
    const owner = await seedPerson(knex(), ws, 'OWNER');
    const ownerClient = await signIn(server, owner);
    // The OWNER requires a factor having only a passkey.
    await addPasskey(ownerClient, softAuthenticator(), 'Phone');
    const member = await seedPerson(knex(), ws, 'MEMBER');
    const required = await ownerClient.request('PUT', `/workspaces/${ws}/second-factor-requirement`, {
      body: { requireSecondFactor: true },
    });
    expect(required.status, required.text).toBe(200);
    expect(required.body.data.membersWithoutFactor.map((m: { email: string }) => m.email)).toEqual([member.email]);
    const memberClient = await signIn(server, member);
    expect((await memberClient.request('GET', `/workspaces/${ws}/links`)).status).toBe(403);
    const passkey = await addPasskey(memberClient, softAuthenticator(), 'Laptop');
    expect((await memberClient.request('GET', `/workspaces/${ws}/links`)).status).toBe(200);
    const status = (await memberClient.request('GET', '/account/second-factor')).body.data;
    expect(status).toMatchObject({ enabled: true, restricted: false, methods: ['passkey'] });
    expect(status.totp.enabled).toBe(false);
    const requirement = await ownerClient.request('GET', `/workspaces/${ws}/second-factor-requirement`);
    expect(requirement.body.data.membersWithoutFactor).toEqual([]);
    // Their only factor, while the workspace requires one.
    const last = await memberClient.request('DELETE', `/account/passkeys/${passkey.id}`);
    expect(last.status).toBe(409);
    expect(last.body.error).toContain('Strict');
    expect(await knex()('passkeys').where({ id: passkey.id })).toHaveLength(1);
  });

  it('with an app and a passkey: both offered after the password, passkey first; the app may go while a passkey keeps the requirement met', async () => {
    const ws = await createWorkspace(knex(), 'Both', 'growth');
    const owner = await seedPerson(knex(), ws, 'OWNER');
    const client = await signIn(server, owner);
    const secret = (await client.request('POST', '/account/second-factor/totp')).body.data.secret as string;
    const confirmed = await client.request('POST', '/account/second-factor/totp/confirm', {
      body: { code: totpCode(secret, Date.now() - TOTP_PERIOD_S * 1000) },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    await addPasskey(client, softAuthenticator(), 'Laptop');
    const password = await post('/session', { email: owner.email, password: PASSWORD });
    expect(password.body.secondFactor.methods).toEqual(['passkey', 'totp', 'recovery']);
    expect(
      (
        await client.request('PUT', `/workspaces/${ws}/second-factor-requirement`, {
          body: { requireSecondFactor: true },
        })
      ).status,
    ).toBe(200);
    // The passkey stays: turning the app off leaves a factor, so the requirement allows it.
    const off = await client.request('POST', '/account/second-factor/totp/disable', { body: { password: PASSWORD } });
    expect(off.status, off.text).toBe(204);
    const status = (await client.request('GET', '/account/second-factor')).body.data;
    expect(status).toMatchObject({ enabled: true, restricted: false, methods: ['passkey'], recoveryCodesLeft: 0 });
  });

  it(`throttles a client's wrong passkey sign-ins (429 after ${PASSKEY_SIGN_IN_ATTEMPTS}) and its options (${PASSKEY_OPTIONS_PER_MINUTE} a minute)`, async () => {
    const { authenticator } = await personWithPasskey();
    // The sign-ins above left some of the window's failures: count up to the limit.
    let status = 400;
    let tries = 0;
    while (status === 400 && tries++ <= PASSKEY_SIGN_IN_ATTEMPTS) {
      status = (
        await post('/session/passkey', { credential: authenticator.assert(await signInOptions(), { forge: true }) })
      ).status;
    }
    expect(status).toBe(429);
    const right = await post('/session/passkey', { credential: authenticator.assert(await signInOptions()) });
    expect(right.status).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    let options = 200;
    for (let i = 0; i <= PASSKEY_OPTIONS_PER_MINUTE && options === 200; i++)
      options = (await post('/session/passkey/options')).status;
    expect(options).toBe(429);
  });
});
