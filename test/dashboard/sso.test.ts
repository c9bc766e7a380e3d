// Single sign-on with OpenID Connect through HTTPS on every engine, against a real provider
// (oidc-provider on loopback over HTTPS, test/support/oidc-provider.ts): the OWNER's settings and
// their guards, a sign-in that makes a person, and each refusal: a replayed state, a wrong
// audience, an expired token, a stranger's signature, an unverified email, an email outside the
// domains, a disabled provider, and a person of another workspace who must link first.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/domain/second-factors';
import { openSecret } from '../../src/webhooks/secrets';
import { auditMark, auditSince } from '../support/audit';
import { testEngines } from '../support/databases';
import { DASHBOARD_API, PASSWORD, seedPerson, seedTeam, signIn, type Team } from '../support/dashboard';
import {
  callbackOf,
  setCookie,
  ssoTestEnv,
  startTestProvider,
  throughProvider,
  type TestAccount,
  type TestProvider,
} from '../support/oidc-provider';
import { startTestServer, type TestServer } from '../support/server';

describe.each(testEngines())('single sign-on on %s', (engine) => {
  let server: TestServer;
  let provider: TestProvider;
  let team: Team;
  let other: Team;
  let n = 0;
  /** What the service logged of each refused sign-in: its code and why. */
  const refusals: Array<{ code: string; detail: string }> = [];
  const knex = () => server.services.db.knex;
  const sso = () => `/workspaces/${team.workspaceId}/sso`;
  const settings = (over: Record<string, unknown> = {}) => ({
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    domains: ['acme.example', '@Acme-Labs.example'],
    defaultRole: 'MEMBER',
    enabled: true,
    passwordSignIn: true,
    ...over,
  });
  const account = (email: string, over: Partial<TestAccount> = {}): TestAccount => ({
    sub: `sub-${++n}`,
    email,
    email_verified: true,
    ...over,
  });

  /** Starts at the sign-in screen's SSO path with `email`, goes through the provider as `as`, comes back. */
  async function ssoSignIn(email: string, as: TestAccount) {
    provider.loginAs(as);
    const start = await server.request('POST', `${DASHBOARD_API}/sso/start`, { body: { email } });
    expect(start.status, start.text).toBe(200);
    const browser = setCookie(start.headers, 'sl_sso')!;
    expect(browser).toBeDefined();
    const callback = await throughProvider(start.body.authorizationUrl);
    const res = await server.request('GET', callback, { headers: { cookie: browser } });
    expect(res.status).toBe(303);
    return { res, callback, browser, location: String(res.headers.location) };
  }

  const sessionOf = async (res: { headers: Record<string, unknown> }) => {
    const cookie = setCookie(res.headers, 'sl_session');
    if (!cookie) return undefined;
    const me = await server.request('GET', `${DASHBOARD_API}/session`, { headers: { cookie } });
    return me.status === 200 ? me.body : undefined;
  };

  beforeAll(async () => {
    const log = new PassThrough();
    log.setEncoding('utf8');
    log.on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter(Boolean)) {
        const entry = JSON.parse(line);
        if (entry.msg === 'a single sign-on was refused') refusals.push({ code: entry.code, detail: entry.detail });
      }
    });
    server = await startTestServer(engine, { env: await ssoTestEnv(), logStream: log, logLevel: 'info' });
    provider = await startTestProvider(callbackOf(server));
    team = await seedTeam(server);
    other = await seedTeam(server);
    const put = await team.owner.request('PUT', sso(), { body: settings() });
    expect(put.status, put.text).toBe(200);
  });
  afterAll(async () => {
    await provider?.stop();
    await server?.stop();
  });

  it('keeps the OWNER’s settings: the secret sealed and never answered, the domains normalized', async () => {
    const res = await team.owner.request('GET', sso());
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      issuer: provider.issuer,
      clientId: provider.clientId,
      domains: ['acme-labs.example', 'acme.example'],
      defaultRole: 'MEMBER',
      enabled: true,
      passwordSignIn: true,
      redirectUri: callbackOf(server),
    });
    expect(res.text).not.toContain(provider.clientSecret);
    const row = await knex()('sso_providers').where({ workspace_id: team.workspaceId }).first();
    expect(row.client_secret_sealed).not.toContain(provider.clientSecret);
    expect(openSecret(server.services.masterKey, row.client_secret_sealed)).toBe(provider.clientSecret);
    // Only an OWNER reads or changes it.
    expect((await team.admin.request('GET', sso())).status).toBe(403);
    expect((await team.admin.request('PUT', sso(), { body: settings() })).status).toBe(403);
    // Another workspace's owner reaches nothing of it.
    expect((await other.owner.request('GET', sso())).status).toBe(404);
  });

  it('refuses an issuer that is not https, or at an address the server may not fetch, before storing', async () => {
    const plain = await team.owner.request('PUT', sso(), {
      body: settings({ issuer: provider.issuer.replace('https:', 'http:') }),
    });
    expect(plain.status).toBe(400);
    expect(plain.body).toMatchObject({ field: 'issuer', error: 'issuer must be an https URL' });
    const metadata = await team.owner.request('PUT', sso(), { body: settings({ issuer: 'https://169.254.169.254' }) });
    expect(metadata.status).toBe(400);
    expect(metadata.body.field).toBe('issuer');
    expect(metadata.body.error).toContain('cloud metadata address');
    const domain = await team.owner.request('PUT', sso(), { body: settings({ domains: ['not a domain'] }) });
    expect(domain.status).toBe(400);
    expect(domain.body.field).toBe('domains.0');
    // The first set-up needs the secret.
    const { clientSecret: _, ...noSecret } = settings();
    const first = await other.owner.request('PUT', `/workspaces/${other.workspaceId}/sso`, {
      body: { ...noSecret, domains: ['other.example'] },
    });
    expect(first.status).toBe(400);
    expect(first.body.field).toBe('clientSecret');
    expect((await team.owner.request('GET', sso())).body.data.issuer).toBe(provider.issuer);
  });

  it('gives a domain to one workspace’s provider only (409)', async () => {
    const res = await other.owner.request('PUT', `/workspaces/${other.workspaceId}/sso`, {
      body: settings({ domains: ['other.example', 'ACME.example'] }),
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toContain('acme.example is already claimed');
    expect(await knex()('sso_domains').where({ workspace_id: other.workspaceId })).toEqual([]);
  });

  it('signs a new person in through the provider and makes their membership with the provider’s role', async () => {
    const person = account('New.Person@acme.example');
    const { res, location } = await ssoSignIn('new.person@acme.example', person);
    expect(location).toBe('/app/');
    const session = await sessionOf(res);
    expect(session.user.email).toBe('new.person@acme.example');
    expect(session.workspaces).toEqual([expect.objectContaining({ id: team.workspaceId, role: 'MEMBER' })]);
    // The sign-in cookie is cleared; the state is kept only as a hash, and used.
    expect(String(res.headers['set-cookie'])).toContain('sl_sso=; Path=/app/api/sso');
    const logins = await knex()('sso_logins').where({ workspace_id: team.workspaceId });
    expect(logins.every((l: any) => l.used_at !== null && /^[0-9a-f]{64}$/.test(l.state_hash))).toBe(true);
    // The same identity signs in the same person again.
    const again = await ssoSignIn('new.person@acme.example', person);
    expect((await sessionOf(again.res)).user.id).toBe(session.user.id);
  });

  it('refuses a replayed state, and a state brought back by another browser', async () => {
    const first = await ssoSignIn('replay@acme.example', account('replay@acme.example'));
    expect(first.location).toBe('/app/');
    const replay = await server.request('GET', first.callback, { headers: { cookie: first.browser } });
    expect(replay.status).toBe(303);
    expect(replay.headers.location).toBe('/app/login?sso_error=expired');
    expect(setCookie(replay.headers, 'sl_session')).toBeUndefined();
    // Parameters some providers add are no reason for a 400: the answer is still the refusal.
    const extra = await server.request('GET', `${first.callback}&scope=openid&prompt=none`, {
      headers: { cookie: first.browser },
    });
    expect(extra.headers.location).toBe('/app/login?sso_error=expired');
    // A state started in one browser and finished in another (no sl_sso, or another's).
    provider.loginAs(account('other-browser@acme.example'));
    const start = await server.request('POST', `${DASHBOARD_API}/sso/start`, {
      body: { email: 'other-browser@acme.example' },
    });
    const callback = await throughProvider(start.body.authorizationUrl);
    const stranger = await server.request('GET', callback, { headers: { cookie: first.browser } });
    expect(stranger.headers.location).toBe('/app/login?sso_error=expired');
  });

  it('refuses an ID token for another audience, an expired one, and one signed with another key', async () => {
    const cases: Array<[string, RegExp, () => void]> = [
      ['audience', /aud/, () => (provider.tamper = (c) => ({ ...c, aud: 'another-client' }))],
      [
        'expired',
        /exp/,
        () =>
          (provider.tamper = (c) => ({
            ...c,
            iat: Math.floor(Date.now() / 1000) - 7200,
            exp: Math.floor(Date.now() / 1000) - 3600,
          })),
      ],
      ['signature', /signature|key/i, () => (provider.strangerKey = true)],
    ];
    try {
      for (const [what, why, arrange] of cases) {
        arrange();
        refusals.length = 0;
        const email = `token-${what}@acme.example`;
        const { res, location } = await ssoSignIn(email, account(email));
        expect(location, what).toBe('/app/login?sso_error=token_invalid');
        expect(setCookie(res.headers, 'sl_session'), what).toBeUndefined();
        expect(await knex()('users').where({ email }).first(), what).toBeUndefined();
        // Refused for the reason under test, not another one.
        expect(refusals, what).toEqual([{ code: 'token_invalid', detail: expect.stringMatching(why) }]);
        provider.tamper = undefined;
        provider.strangerKey = false;
      }
    } finally {
      provider.tamper = undefined;
      provider.strangerKey = false;
    }
  });

  it('requires a verified email, of one of the provider’s domains', async () => {
    const unverified = await ssoSignIn(
      'unverified@acme.example',
      account('unverified@acme.example', { email_verified: false }),
    );
    expect(unverified.location).toBe('/app/login?sso_error=email_unverified');
    const outside = await ssoSignIn('someone@acme.example', account('someone@elsewhere.example'));
    expect(outside.location).toBe('/app/login?sso_error=domain_not_allowed');
    expect(await knex()('users').where({ email: 'someone@elsewhere.example' }).first()).toBeUndefined();
    // No provider holds the domain: nothing starts.
    const none = await server.request('POST', `${DASHBOARD_API}/sso/start`, { body: { email: 'a@nowhere.example' } });
    expect(none.status).toBe(404);
    expect(none.body.error).toContain('nowhere.example');
  });

  it('never signs in a person of another workspace by their email: they sign in and link first', async () => {
    const person = await seedPerson(knex(), other.workspaceId, 'ADMIN', `linker${n}@acme.example`);
    const identity = account(person.email);
    const refused = await ssoSignIn(person.email, identity);
    expect(refused.location).toBe('/app/login?sso_error=link_required');
    expect(setCookie(refused.res.headers, 'sl_session')).toBeUndefined();
    expect(await knex()('memberships').where({ workspace_id: team.workspaceId, user_id: person.userId })).toEqual([]);
    // Signed in with the password, the person links the provider's identity to their account.
    const me = await signIn(server, person);
    provider.loginAs(identity);
    const link = await me.request('POST', '/sso/link');
    expect(link.status, link.text).toBe(200);
    const callback = await throughProvider(link.body.authorizationUrl);
    const linked = await server.request('GET', callback, { headers: { cookie: setCookie(link.headers, 'sl_sso')! } });
    expect(linked.headers.location).toBe('/app/');
    const session = await sessionOf(linked);
    expect(session.user.id).toBe(person.userId);
    expect(session.workspaces.map((w: any) => w.id).sort()).toEqual([team.workspaceId, other.workspaceId].sort());
    // From now on the provider signs them in.
    const later = await ssoSignIn(person.email, identity);
    expect((await sessionOf(later.res)).user.id).toBe(person.userId);
    // Linking needs the provider to confirm the same email.
    const mismatch = await seedPerson(knex(), other.workspaceId, 'MEMBER', `mismatch${n}@acme.example`);
    const mine = await signIn(server, mismatch);
    provider.loginAs(account(`someone-else${n}@acme.example`));
    const wrong = await mine.request('POST', '/sso/link');
    const back = await throughProvider(wrong.body.authorizationUrl);
    const res = await server.request('GET', back, { headers: { cookie: setCookie(wrong.headers, 'sl_sso')! } });
    expect(res.headers.location).toBe('/app/login?sso_error=email_mismatch');
  });

  it('signs in an existing person who belongs to this workspace only, and links them', async () => {
    const person = await seedPerson(knex(), team.workspaceId, 'ANALYST', `insider${n}@acme.example`);
    const { res, location } = await ssoSignIn(person.email, account(person.email));
    expect(location).toBe('/app/');
    const session = await sessionOf(res);
    expect(session.user.id).toBe(person.userId);
    // Their role stays what it was.
    expect(session.workspaces).toEqual([expect.objectContaining({ id: team.workspaceId, role: 'ANALYST' })]);
  });

  it('asks a person with a second factor for it after the provider too, then starts the session', async () => {
    const person = await seedPerson(knex(), team.workspaceId, 'MEMBER', `factor${n}@acme.example`);
    const client = await signIn(server, person);
    const started = await client.request('POST', '/account/second-factor/totp');
    expect(started.status).toBe(201);
    const secret = started.body.data.secret as string;
    const confirmed = await client.request('POST', '/account/second-factor/totp/confirm', {
      body: { code: totpCode(secret, Date.now() - 30_000) },
    });
    expect(confirmed.status, confirmed.text).toBe(200);

    const { res, location } = await ssoSignIn(person.email, account(person.email));
    expect(location).toBe('/app/login?second-factor=totp,recovery');
    expect(setCookie(res.headers, 'sl_session')).toBeUndefined();
    const pending = setCookie(res.headers, 'sl_second_factor')!;
    expect(pending).toBeDefined();
    const done = await server.request('POST', `${DASHBOARD_API}/session/second-factor`, {
      body: { method: 'totp', code: totpCode(secret, Date.now()) },
      headers: { cookie: pending },
    });
    expect(done.status, done.text).toBe(200);
    expect((await sessionOf(done)).user.id).toBe(person.userId);
  });

  it('turns password sign-in off only for people whose every workspace turned it off', async () => {
    const only = await seedPerson(knex(), team.workspaceId, 'MEMBER', `only${n}@acme.example`);
    const both = await seedPerson(knex(), team.workspaceId, 'MEMBER', `both${n}@acme.example`);
    await knex()('memberships').insert({
      workspace_id: other.workspaceId,
      user_id: both.userId,
      role: 'MEMBER',
      created_at: Date.now(),
    });
    const off = await team.owner.request('PUT', sso(), { body: settings({ passwordSignIn: false }) });
    expect(off.status).toBe(200);
    try {
      const refused = await server.request('POST', `${DASHBOARD_API}/session`, {
        body: { email: only.email, password: PASSWORD },
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toContain('single sign-on');
      // A wrong password still answers 401: the 403 is said only to the right password.
      const wrong = await server.request('POST', `${DASHBOARD_API}/session`, {
        body: { email: only.email, password: 'not the password' },
      });
      expect(wrong.status).toBe(401);
      // The other workspace still signs this person in with a password.
      const kept = await server.request('POST', `${DASHBOARD_API}/session`, {
        body: { email: both.email, password: PASSWORD },
      });
      expect(kept.status).toBe(200);
      // People of other domains are not concerned.
      expect((await signIn(server, team.people.member)).session.user.email).toBe(team.people.member.email);
    } finally {
      await team.owner.request('PUT', sso(), { body: settings() });
    }
  });

  it('stops signing in through a disabled provider, also a sign-in already under way', async () => {
    provider.loginAs(account('late@acme.example'));
    const start = await server.request('POST', `${DASHBOARD_API}/sso/start`, { body: { email: 'late@acme.example' } });
    const callback = await throughProvider(start.body.authorizationUrl);
    const off = await team.owner.request('PUT', sso(), { body: settings({ enabled: false, clientSecret: undefined }) });
    expect(off.status).toBe(200);
    try {
      const res = await server.request('GET', callback, { headers: { cookie: setCookie(start.headers, 'sl_sso')! } });
      expect(res.headers.location).toBe('/app/login?sso_error=disabled');
      expect(setCookie(res.headers, 'sl_session')).toBeUndefined();
      const refused = await server.request('POST', `${DASHBOARD_API}/sso/start`, {
        body: { email: 'late@acme.example' },
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toContain('turned off');
    } finally {
      expect((await team.owner.request('PUT', sso(), { body: settings() })).status).toBe(200);
    }
  });

  it('answers 503 when the provider cannot be reached at the start of a sign-in', async () => {
    const gone = await startTestProvider(callbackOf(server));
    const put = await other.owner.request('PUT', `/workspaces/${other.workspaceId}/sso`, {
      body: {
        ...settings({ domains: ['gone.example'] }),
        issuer: gone.issuer,
        clientId: gone.clientId,
        clientSecret: gone.clientSecret,
      },
    });
    expect(put.status, put.text).toBe(200);
    await gone.stop();
    const start = await server.request('POST', `${DASHBOARD_API}/sso/start`, { body: { email: 'a@gone.example' } });
    expect(start.status).toBe(503);
    expect(start.body.code).toBe('sso_provider_unreachable');
    expect(setCookie(start.headers, 'sl_sso')).toBeUndefined();
  });

  it('removes the provider with its domains; only an OWNER may', async () => {
    const put = await other.owner.request('PUT', `/workspaces/${other.workspaceId}/sso`, {
      body: settings({ domains: ['other.example'] }),
    });
    expect(put.status).toBe(200);
    expect((await other.admin.request('DELETE', `/workspaces/${other.workspaceId}/sso`)).status).toBe(403);
    expect((await other.owner.request('DELETE', `/workspaces/${other.workspaceId}/sso`)).status).toBe(204);
    expect((await other.owner.request('GET', `/workspaces/${other.workspaceId}/sso`)).body).toEqual({ data: null });
    expect((await other.owner.request('DELETE', `/workspaces/${other.workspaceId}/sso`)).status).toBe(404);
    const start = await server.request('POST', `${DASHBOARD_API}/sso/start`, { body: { email: 'x@other.example' } });
    expect(start.status).toBe(404);
    // The team's provider is untouched.
    expect((await team.owner.request('GET', sso())).body.data.enabled).toBe(true);
  });

  it('records setting up, changing and removing the provider in the audit log, the secret by name only', async () => {
    const mark = await auditMark(knex(), other.workspaceId);
    const path = `/workspaces/${other.workspaceId}/sso`;
    expect((await other.owner.request('PUT', path, { body: settings({ domains: ['audit.example'] }) })).status).toBe(
      200,
    );
    const { clientSecret: _kept, ...withoutSecret } = settings({ domains: ['audit.example'], enabled: false });
    expect((await other.owner.request('PUT', path, { body: withoutSecret })).status).toBe(200);
    expect((await other.owner.request('DELETE', path)).status).toBe(204);
    const entries = await auditSince(knex(), other.workspaceId, mark);
    expect(entries.map((e) => [e.action, e.object_type, e.object_id, e.actor_user_id])).toEqual([
      ['sso.created', 'sso_provider', other.workspaceId, other.people.owner.userId],
      ['sso.updated', 'sso_provider', other.workspaceId, other.people.owner.userId],
      ['sso.deleted', 'sso_provider', other.workspaceId, other.people.owner.userId],
    ]);
    expect(JSON.parse(entries[0].changes)).toMatchObject({
      clientSecret: { secret: true },
      domains: { to: ['audit.example'] },
    });
    expect(JSON.parse(entries[1].changes)).toEqual({ enabled: { from: true, to: false } });
    for (const e of entries) expect(e.changes).not.toContain(provider.clientSecret);
  });
});
