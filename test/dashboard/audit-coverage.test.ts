// Every change either API makes is in the audit log. The table below maps each non-GET operation
// of openapi/openapi.yaml and openapi/dashboard.yaml to the action it must record, with a request
// that makes the change; an operation that records nothing is listed in EXEMPT with the reason.
// The first test fails when an operation is in neither (a new operation added without an audit
// entry); the others make each change through HTTPS, on each engine, and find its entry.
//
// To extend: add the operation under its key (`api:<operationId>` or `dashboard:<operationId>`)
// with the action, the object type and a `run` that makes the change and answers the object's id.
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import api from '../../generated/openapi.json';
import dashboard from '../../generated/dashboard.json';
import * as accounts from '../../src/db/repos/accounts';
import { createKey } from '../../src/db/repos/api-keys';
import { totpCode } from '../../src/domain/second-factors';
import { createWorkspace } from '../../src/db/repos/workspaces';
import { ANDROID, APPLE } from '../support/app-links';
import { softAuthenticator } from '../support/passkeys';
import { auditMark, auditSince, type StoredEntry } from '../support/audit';
import { testEngines } from '../support/databases';
import { DASHBOARD_API, PASSWORD, seedPerson, seedTeam, signIn, type Team } from '../support/dashboard';
import { seedSettledDelivery, seedSubscription } from '../support/outbox';
import { API_SCOPES } from '../support/seed';
import { startTestServer, type TestResponse, type TestServer } from '../support/server';
import { subscriptionBodyA, subscriptionBodyB } from '../support/subscriptions';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** Operations that change nothing a person is accountable for, and why. */
const EXEMPT: Record<string, string> = {
  'api:recordConversion':
    'a conversion is an event a visitor caused, recorded like a click, not a change a person makes',
  'api:tryLinkRouting': '"Try a visit" only answers where a visit would go; it stores nothing',
  'api:submitLinkPassword': "a visitor's password form in front of a link: a visit, not a change",
  'dashboard:tryDashboardLinkRouting': '"Try a visit" only answers where a visit would go; it stores nothing',
  'dashboard:previewPage': 'renders a draft that is not stored',
  'dashboard:unlockSharedReport': "a reader's password for a shared report: a read, not a change",
  'dashboard:sendDashboardWebhookTest':
    'sends a test event to the endpoint; no setting changes, and the delivery log keeps the attempt',
  'dashboard:startTotpEnrolment':
    'makes a secret that does nothing until a code confirms it; confirmTotp records the change',
  'dashboard:startSsoSignIn': 'starts a sign-in at the provider; the sign-in itself is recorded when it comes back',
  'dashboard:requestPasswordReset':
    'answers the same for every email and changes no password; the reset itself is user.password_set (setPassword)',
  'dashboard:startPasskeyRegistration':
    'stores only a hashed single-use challenge for 5 minutes, which adds nothing; addPasskey records the passkey',
  'dashboard:startPasskeySignIn':
    'stores only a hashed single-use challenge for 5 minutes; the sign-in itself is recorded (signInWithPasskey)',
  'dashboard:startPasskeySecondFactor':
    'stores only a hashed single-use challenge for 5 minutes; the second step is recorded (verifyPasskeySecondFactor)',
  'dashboard:linkSso':
    'starts a sign-in at the provider; the link is recorded (user.sso_linked) when the provider confirms it',
};

/**
 * Audited, and proved so by the suite that can make the change: single sign-on's settings need a
 * real OpenID provider, which test/dashboard/sso.test.ts starts.
 */
const AUDITED_ELSEWHERE: Record<string, string> = {
  'dashboard:putSsoProvider': 'test/dashboard/sso.test.ts',
  'dashboard:deleteSsoProvider': 'test/dashboard/sso.test.ts',
};

/** A person of the team with a passkey: the client, the Node authenticator holding it, and its id. */
async function withPasskey(f: Fixture) {
  const person = await seedPerson(f.knex, f.team.workspaceId, 'MEMBER');
  const client = await signIn(f.server, person);
  const authenticator = softAuthenticator();
  const options = ok(await client.request('POST', '/account/passkeys/registration')).body.data.options;
  const added = ok(
    await client.request('POST', '/account/passkeys', {
      body: { name: 'Laptop', credential: authenticator.register(options) },
    }),
  );
  return { person, client, authenticator, passkeyId: added.body.data.id as string };
}

/** A person of the team with an authenticator app on: the client, the secret, and a code for now. */
async function withTotp(f: Fixture) {
  const person = await seedPerson(f.knex, f.team.workspaceId, 'MEMBER');
  const client = await signIn(f.server, person);
  const started = ok(await client.request('POST', '/account/second-factor/totp'));
  const secret = started.body.data.secret as string;
  // A step before now, so that the code of now is still unused afterwards.
  ok(
    await client.request('POST', '/account/second-factor/totp/confirm', {
      body: { code: totpCode(secret, Date.now() - 30_000) },
    }),
  );
  return { person, client, secret };
}

interface Fixture {
  server: TestServer;
  knex: Knex;
  team: Team;
  base: string;
  /** The OWNER's API key, with every scope. */
  key: string;
  keyId: string;
  dns: Map<string, string[][]>;
  /** A public API request with the OWNER's key. */
  api(method: string, path: string, body?: unknown): Promise<TestResponse>;
  link(): Promise<string>;
  n(): number;
}

interface Outcome {
  res: TestResponse;
  /** The object the entry names; unchecked when undefined. */
  objectId?: string | null;
  /** How many entries of the action the change makes (bulk: one per object). */
  count?: number;
  /** The workspace whose chain holds the entry (default the team's), and its database. */
  workspaceId?: string;
  knex?: Knex;
}

interface Audited {
  action: string;
  objectType: string;
  /** Who the entry names: the session's person (default for the dashboard) or the key (the API). */
  actor?: 'user' | 'api_key' | 'anonymous';
  run(f: Fixture): Promise<Outcome>;
}

const ok = (res: TestResponse) => {
  expect(res.status, res.text).toBeLessThan(300);
  return res;
};
const dataId = (res: TestResponse) => ok(res).body.data.id as string;

async function activeDomain(f: Fixture): Promise<string> {
  const added = ok(
    await f.team.owner.request('POST', `${f.base}/domains`, { body: { host: `d${f.n()}.example.com` } }),
  );
  const { id, verification } = added.body.data;
  f.dns.set(verification.txtName, [[verification.txtValue]]);
  ok(await f.team.owner.request('POST', `${f.base}/domains/${id}/verify`));
  return id;
}

const subscriptionB = async (f: Fixture) =>
  seedSubscription(f.knex, f.server.services.masterKey, {
    url: 'https://hooks.example.com/b',
    variant: 'B',
    workspaceId: f.team.workspaceId,
  });

const inviteToken = async (f: Fixture, email: string) => {
  const res = ok(await f.team.owner.request('POST', `${f.base}/invitations`, { body: { email, role: 'MEMBER' } }));
  return new URL(res.body.inviteUrl).searchParams.get('token')!;
};

const AUDITED: Record<string, Audited> = {
  // The public API, as a key acting for its owner.
  'api:createLink': {
    action: 'link.created',
    objectType: 'link',
    actor: 'api_key',
    run: async (f) => {
      const res = ok(await f.api('POST', '/api/v1/links', { url: `https://example.com/api-${f.n()}` }));
      return { res, objectId: res.body.data.id };
    },
  },
  'api:createLinksBulk': {
    action: 'link.created',
    objectType: 'link',
    actor: 'api_key',
    run: async (f) => ({
      res: ok(
        await f.api('POST', '/api/v1/links/bulk', {
          links: [{ url: `https://example.com/b-${f.n()}` }, { url: `https://example.com/b-${f.n()}` }],
        }),
      ),
      count: 2,
    }),
  },
  'api:updateLinksBulk': {
    action: 'link.updated',
    objectType: 'link',
    actor: 'api_key',
    run: async (f) => {
      const ids = [await f.link(), await f.link()];
      return { res: ok(await f.api('PATCH', '/api/v1/links/bulk', { ids, changes: { title: 'Both' } })), count: 2 };
    },
  },
  'api:deleteLinksBulk': {
    action: 'link.deleted',
    objectType: 'link',
    actor: 'api_key',
    run: async (f) => {
      const ids = [await f.link(), await f.link()];
      return { res: ok(await f.api('DELETE', `/api/v1/links/bulk?ids=${ids.join(',')}`)), count: 2 };
    },
  },
  'api:updateLink': {
    action: 'link.updated',
    objectType: 'link',
    actor: 'api_key',
    run: async (f) => {
      const id = await f.link();
      return { res: ok(await f.api('PATCH', `/api/v1/links/${id}`, { title: 'Renamed' })), objectId: id };
    },
  },
  'api:deleteLink': {
    action: 'link.deleted',
    objectType: 'link',
    actor: 'api_key',
    run: async (f) => {
      const id = await f.link();
      return { res: ok(await f.api('DELETE', `/api/v1/links/${id}`)), objectId: id };
    },
  },
  'api:setLinkRouting': {
    action: 'link.routing_changed',
    objectType: 'link',
    actor: 'api_key',
    run: async (f) => {
      const id = await f.link();
      return { res: ok(await f.api('PUT', `/api/v1/links/${id}/routing`, { forwardQuery: false })), objectId: id };
    },
  },
  'api:createTag': {
    action: 'tag.created',
    objectType: 'tag',
    actor: 'api_key',
    run: async (f) => {
      const res = await f.api('POST', '/api/v1/tags', { name: `api tag ${f.n()}` });
      return { res, objectId: dataId(res) };
    },
  },
  'api:updateTag': {
    action: 'tag.updated',
    objectType: 'tag',
    actor: 'api_key',
    run: async (f) => {
      const id = dataId(await f.api('POST', '/api/v1/tags', { name: `api tag ${f.n()}` }));
      return { res: ok(await f.api('PATCH', `/api/v1/tags/${id}`, { color: '#112233' })), objectId: id };
    },
  },
  'api:deleteTag': {
    action: 'tag.deleted',
    objectType: 'tag',
    actor: 'api_key',
    run: async (f) => {
      const id = dataId(await f.api('POST', '/api/v1/tags', { name: `api tag ${f.n()}` }));
      return { res: ok(await f.api('DELETE', `/api/v1/tags/${id}`)), objectId: id };
    },
  },
  'api:createQrCode': {
    action: 'qr_code.created',
    objectType: 'qr_code',
    actor: 'api_key',
    run: async (f) => {
      const res = await f.api('POST', '/api/v1/qr-codes', { linkId: await f.link() });
      return { res, objectId: dataId(res) };
    },
  },
  'api:deleteQrCode': {
    action: 'qr_code.deleted',
    objectType: 'qr_code',
    actor: 'api_key',
    run: async (f) => {
      const id = dataId(await f.api('POST', '/api/v1/qr-codes', { linkId: await f.link() }));
      return { res: ok(await f.api('DELETE', `/api/v1/qr-codes/${id}`)), objectId: id };
    },
  },
  'api:createWebhook': {
    action: 'webhook.created',
    objectType: 'webhook',
    actor: 'api_key',
    run: async (f) => {
      const res = await f.api('POST', '/api/webhooks', subscriptionBodyA(f.team.workspaceId));
      return { res, objectId: dataId(res) };
    },
  },
  'api:updateWebhook': {
    action: 'webhook.updated',
    objectType: 'webhook',
    actor: 'api_key',
    run: async (f) => {
      const id = dataId(await f.api('POST', '/api/webhooks', subscriptionBodyA(f.team.workspaceId)));
      const res = ok(await f.api('PATCH', `/api/webhooks/${id}`, { url: 'https://hooks.example.com/other' }));
      return { res, objectId: id };
    },
  },
  'api:deleteWebhook': {
    action: 'webhook.deleted',
    objectType: 'webhook',
    actor: 'api_key',
    run: async (f) => {
      const id = dataId(await f.api('POST', '/api/webhooks', subscriptionBodyA(f.team.workspaceId)));
      return { res: ok(await f.api('DELETE', `/api/webhooks/${id}`)), objectId: id };
    },
  },
  'api:createWebhookV1': {
    action: 'webhook.created',
    objectType: 'webhook',
    actor: 'api_key',
    run: async (f) => {
      const res = ok(await f.api('POST', '/api/v1/webhooks', subscriptionBodyB()));
      return { res, objectId: res.body.id };
    },
  },
  'api:deleteWebhookV1': {
    action: 'webhook.deleted',
    objectType: 'webhook',
    actor: 'api_key',
    run: async (f) => {
      const id = ok(await f.api('POST', '/api/v1/webhooks', subscriptionBodyB())).body.id;
      return { res: ok(await f.api('DELETE', `/api/v1/webhooks/${id}`)), objectId: id };
    },
  },

  // The dashboard, as the signed-in person.
  'dashboard:signIn': {
    action: 'session.signed_in',
    objectType: 'user',
    run: async (f) => {
      const p = f.team.people.analyst;
      const res = await f.server.request('POST', `${DASHBOARD_API}/session`, {
        body: { email: p.email, password: p.password },
      });
      return { res: ok(res), objectId: p.userId };
    },
  },
  'dashboard:verifySecondFactor': {
    action: 'session.signed_in',
    objectType: 'user',
    run: async (f) => {
      const { person, secret } = await withTotp(f);
      const password = await f.server.request('POST', `${DASHBOARD_API}/session`, {
        body: { email: person.email, password: PASSWORD },
      });
      const cookie = String(
        [password.headers['set-cookie']].flat().find((c) => String(c).startsWith('sl_second_factor=')),
      ).split(';')[0];
      const res = await f.server.request('POST', `${DASHBOARD_API}/session/second-factor`, {
        body: { method: 'totp', code: totpCode(secret, Date.now()) },
        headers: { cookie },
      });
      // Two: the set-up's own sign-in (before the app was on) and this one; the password step
      // alone started no session and recorded none.
      return { res: ok(res), objectId: person.userId, count: 2 };
    },
  },
  'dashboard:addPasskey': {
    action: 'user.passkey_added',
    objectType: 'passkey',
    run: async (f) => {
      const person = await seedPerson(f.knex, f.team.workspaceId, 'MEMBER');
      const client = await signIn(f.server, person);
      const options = ok(await client.request('POST', '/account/passkeys/registration')).body.data.options;
      const res = await client.request('POST', '/account/passkeys', {
        body: { name: 'Laptop', credential: softAuthenticator().register(options) },
      });
      return { res: ok(res), objectId: res.body.data.id };
    },
  },
  'dashboard:renamePasskey': {
    action: 'user.passkey_renamed',
    objectType: 'passkey',
    run: async (f) => {
      const { client, passkeyId } = await withPasskey(f);
      const res = await client.request('PATCH', `/account/passkeys/${passkeyId}`, { body: { name: 'Phone' } });
      return { res: ok(res), objectId: passkeyId };
    },
  },
  'dashboard:removePasskey': {
    action: 'user.passkey_removed',
    objectType: 'passkey',
    run: async (f) => {
      const { client, passkeyId } = await withPasskey(f);
      return { res: ok(await client.request('DELETE', `/account/passkeys/${passkeyId}`)), objectId: passkeyId };
    },
  },
  'dashboard:signInWithPasskey': {
    action: 'session.signed_in',
    objectType: 'user',
    run: async (f) => {
      const { person, authenticator } = await withPasskey(f);
      const options = ok(await f.server.request('POST', `${DASHBOARD_API}/session/passkey/options`)).body.data.options;
      const res = await f.server.request('POST', `${DASHBOARD_API}/session/passkey`, {
        body: { credential: authenticator.assert(options) },
      });
      // Two: the set-up's own sign-in with the password and this one.
      return { res: ok(res), objectId: person.userId, count: 2 };
    },
  },
  'dashboard:verifyPasskeySecondFactor': {
    action: 'session.signed_in',
    objectType: 'user',
    run: async (f) => {
      const { person, authenticator } = await withPasskey(f);
      const password = await f.server.request('POST', `${DASHBOARD_API}/session`, {
        body: { email: person.email, password: PASSWORD },
      });
      const cookie = String(
        [password.headers['set-cookie']].flat().find((c) => String(c).startsWith('sl_second_factor=')),
      ).split(';')[0];
      const options = ok(
        await f.server.request('POST', `${DASHBOARD_API}/session/second-factor/passkey/options`, {
          headers: { cookie },
        }),
      ).body.data.options;
      const res = await f.server.request('POST', `${DASHBOARD_API}/session/second-factor/passkey`, {
        body: { credential: authenticator.assert(options) },
        headers: { cookie },
      });
      // Two: the set-up's own sign-in and this one; the password step alone recorded none.
      return { res: ok(res), objectId: person.userId, count: 2 };
    },
  },
  'dashboard:confirmTotp': {
    action: 'user.second_factor_enabled',
    objectType: 'user',
    run: async (f) => {
      const person = await seedPerson(f.knex, f.team.workspaceId, 'MEMBER');
      const client = await signIn(f.server, person);
      const secret = ok(await client.request('POST', '/account/second-factor/totp')).body.data.secret as string;
      const res = await client.request('POST', '/account/second-factor/totp/confirm', {
        body: { code: totpCode(secret, Date.now()) },
      });
      return { res: ok(res), objectId: person.userId };
    },
  },
  'dashboard:disableTotp': {
    action: 'user.second_factor_disabled',
    objectType: 'user',
    run: async (f) => {
      const { person, client } = await withTotp(f);
      const res = await client.request('POST', '/account/second-factor/totp/disable', {
        body: { password: PASSWORD },
      });
      return { res: ok(res), objectId: person.userId };
    },
  },
  'dashboard:regenerateRecoveryCodes': {
    action: 'user.recovery_codes_renewed',
    objectType: 'user',
    run: async (f) => {
      const { person, client } = await withTotp(f);
      const res = await client.request('POST', '/account/second-factor/recovery-codes', {
        body: { password: PASSWORD },
      });
      return { res: ok(res), objectId: person.userId };
    },
  },
  'dashboard:setSecondFactorRequirement': {
    action: 'workspace.updated',
    objectType: 'workspace',
    run: async (f) => {
      // Off: on would restrict the team's people the other cases sign in as.
      const res = await f.team.owner.request('PUT', `${f.base}/second-factor-requirement`, {
        body: { requireSecondFactor: false },
      });
      return { res: ok(res), objectId: f.team.workspaceId };
    },
  },
  'dashboard:endSession': {
    action: 'session.ended',
    objectType: 'session',
    run: async (f) => {
      const p = await seedPerson(f.knex, f.team.workspaceId, 'MEMBER');
      const client = await signIn(f.server, p);
      await signIn(f.server, p);
      const other = ok(await client.request('GET', '/sessions')).body.data.find((s: any) => !s.current).id;
      return { res: ok(await client.request('DELETE', `/sessions/${other}`)), objectId: other };
    },
  },
  'dashboard:endOtherSessions': {
    action: 'session.others_ended',
    objectType: 'user',
    run: async (f) => {
      const p = await seedPerson(f.knex, f.team.workspaceId, 'MEMBER');
      const client = await signIn(f.server, p);
      await signIn(f.server, p);
      return { res: ok(await client.request('DELETE', '/sessions/others')), objectId: p.userId };
    },
  },
  'dashboard:signOut': {
    action: 'session.signed_out',
    objectType: 'user',
    run: async (f) => {
      const p = f.team.people.analyst;
      const client = await signIn(f.server, p);
      return { res: ok(await client.request('DELETE', '/session')), objectId: p.userId };
    },
  },
  'dashboard:setPassword': {
    action: 'user.password_set',
    objectType: 'user',
    actor: 'user',
    run: async (f) => {
      const p = await seedPerson(f.knex, f.team.workspaceId, 'MEMBER');
      const token = await accounts.createSetupToken(f.knex, p.userId, Date.now());
      const res = await f.server.request('POST', `${DASHBOARD_API}/password-setup`, {
        body: { token, password: 'a new long password' },
      });
      return { res: ok(res), objectId: p.userId };
    },
  },
  'dashboard:changePassword': {
    action: 'user.password_changed',
    objectType: 'user',
    run: async (f) => {
      const p = await seedPerson(f.knex, f.team.workspaceId, 'MEMBER');
      const client = await signIn(f.server, p);
      const res = await client.request('POST', '/password', {
        body: { currentPassword: PASSWORD, newPassword: 'another long password' },
      });
      return { res: ok(res), objectId: p.userId };
    },
  },
  'dashboard:claimFirstRun': {
    action: 'workspace.created',
    objectType: 'workspace',
    run: async (f) => {
      // The first run exists only while nobody has an account: a server of its own.
      const fresh = await startTestServer(
        f.server.services.config.databaseUrl.startsWith('postgres') ? 'postgres' : 'sqlite',
      );
      try {
        const token = await accounts.createFirstRunToken(fresh.services.db.knex, Date.now());
        const res = await fresh.request('POST', `${DASHBOARD_API}/first-run`, {
          body: { token, workspaceName: 'First', email: 'first@example.com', password: 'a first long password' },
        });
        const workspaceId = ok(res).body.workspaces[0].id as string;
        // Read before the server and its database go.
        const entries = await auditSince(fresh.services.db.knex, workspaceId, 0);
        expect(entries.map((e) => e.action)).toEqual(['workspace.created', 'session.signed_in']);
        expect(entries[0]).toMatchObject({ object_id: workspaceId, actor_type: 'user' });
        return { res, objectId: workspaceId, workspaceId, knex: undefined, entries };
      } finally {
        await fresh.stop();
      }
    },
  },
  'dashboard:acceptInvitation': {
    action: 'member.joined',
    objectType: 'member',
    run: async (f) => {
      const elsewhere = await createWorkspace(f.knex, `Elsewhere ${f.n()}`, 'growth');
      const p = await seedPerson(f.knex, elsewhere, 'MEMBER');
      const token = await inviteToken(f, p.email);
      const client = await signIn(f.server, p);
      return { res: ok(await client.request('POST', '/invitation/accept', { body: { token } })), objectId: p.userId };
    },
  },
  'dashboard:registerWithInvitation': {
    action: 'member.joined',
    objectType: 'member',
    actor: 'user',
    run: async (f) => {
      const token = await inviteToken(f, `new${f.n()}@example.com`);
      const res = await f.server.request('POST', `${DASHBOARD_API}/invitation/register`, {
        body: { token, password: 'a brand new password' },
      });
      return { res: ok(res), objectId: res.body.user.id };
    },
  },
  'dashboard:updateWorkspace': {
    action: 'workspace.updated',
    objectType: 'workspace',
    run: async (f) => ({
      res: ok(await f.team.owner.request('PATCH', f.base, { body: { name: `Renamed ${f.n()}` } })),
      objectId: f.team.workspaceId,
    }),
  },
  'dashboard:createDashboardLink': {
    action: 'link.created',
    objectType: 'link',
    run: async (f) => {
      const res = await f.team.member.request('POST', `${f.base}/links`, {
        body: { url: `https://example.com/d${f.n()}` },
      });
      return { res, objectId: dataId(res) };
    },
  },
  'dashboard:bulkLinks': {
    action: 'link.updated',
    objectType: 'link',
    run: async (f) => {
      const linkIds = [await f.link(), await f.link()];
      const res = await f.team.owner.request('POST', `${f.base}/links/bulk`, { body: { linkIds, action: 'disable' } });
      return { res: ok(res), count: 2 };
    },
  },
  'dashboard:importLinks': {
    action: 'link.created',
    objectType: 'link',
    run: async (f) => {
      const rawBody = `url\nhttps://example.com/i${f.n()}\nhttps://example.com/i${f.n()}\n`;
      const res = await f.team.owner.request('POST', `${f.base}/links/import`, {
        rawBody,
        headers: { 'content-type': 'text/csv' },
      });
      return { res: ok(res), count: 2 };
    },
  },
  'dashboard:updateDashboardLink': {
    action: 'link.updated',
    objectType: 'link',
    run: async (f) => {
      const id = await f.link();
      return {
        res: ok(await f.team.owner.request('PATCH', `${f.base}/links/${id}`, { body: { title: 'T' } })),
        objectId: id,
      };
    },
  },
  'dashboard:deleteDashboardLink': {
    action: 'link.deleted',
    objectType: 'link',
    run: async (f) => {
      const id = await f.link();
      return { res: ok(await f.team.owner.request('DELETE', `${f.base}/links/${id}`)), objectId: id };
    },
  },
  'dashboard:makeLinkQr': {
    action: 'qr_code.created',
    objectType: 'qr_code',
    run: async (f) => {
      const res = await f.team.owner.request('POST', `${f.base}/links/${await f.link()}/qr`);
      return { res, objectId: dataId(res) };
    },
  },
  'dashboard:setDashboardLinkRouting': {
    action: 'link.routing_changed',
    objectType: 'link',
    run: async (f) => {
      const id = await f.link();
      const res = await f.team.owner.request('PUT', `${f.base}/links/${id}/routing`, { body: { forwardQuery: false } });
      return { res: ok(res), objectId: id };
    },
  },
  'dashboard:uploadAsset': {
    action: 'asset.uploaded',
    objectType: 'asset',
    run: async (f) => ({
      res: ok(
        await f.team.owner.request('POST', `${f.base}/assets`, {
          rawBody: PNG,
          headers: { 'content-type': 'image/png' },
        }),
      ),
    }),
  },
  'dashboard:createKey': {
    action: 'api_key.created',
    objectType: 'api_key',
    run: async (f) => {
      const res = await f.team.owner.request('POST', `${f.base}/keys`, { body: { scopes: ['links:read'] } });
      return { res, objectId: dataId(res) };
    },
  },
  'dashboard:revokeKey': {
    action: 'api_key.revoked',
    objectType: 'api_key',
    run: async (f) => {
      const id = dataId(await f.team.owner.request('POST', `${f.base}/keys`, { body: { scopes: ['links:read'] } }));
      return { res: ok(await f.team.owner.request('DELETE', `${f.base}/keys/${id}`)), objectId: id };
    },
  },
  'dashboard:updateMember': {
    action: 'member.role_changed',
    objectType: 'member',
    run: async (f) => {
      const p = await seedPerson(f.knex, f.team.workspaceId, 'MEMBER');
      const res = await f.team.owner.request('PATCH', `${f.base}/members/${p.userId}`, { body: { role: 'ADMIN' } });
      return { res: ok(res), objectId: p.userId };
    },
  },
  'dashboard:removeMember': {
    action: 'member.removed',
    objectType: 'member',
    run: async (f) => {
      const p = await seedPerson(f.knex, f.team.workspaceId, 'MEMBER');
      return { res: ok(await f.team.owner.request('DELETE', `${f.base}/members/${p.userId}`)), objectId: p.userId };
    },
  },
  'dashboard:createInvitation': {
    action: 'invitation.created',
    objectType: 'invitation',
    run: async (f) => {
      const res = await f.team.owner.request('POST', `${f.base}/invitations`, {
        body: { email: `inv${f.n()}@example.com`, role: 'MEMBER' },
      });
      return { res, objectId: dataId(res) };
    },
  },
  'dashboard:revokeInvitation': {
    action: 'invitation.revoked',
    objectType: 'invitation',
    run: async (f) => {
      const id = dataId(
        await f.team.owner.request('POST', `${f.base}/invitations`, {
          body: { email: `inv${f.n()}@example.com`, role: 'MEMBER' },
        }),
      );
      return { res: ok(await f.team.owner.request('DELETE', `${f.base}/invitations/${id}`)), objectId: id };
    },
  },
  'dashboard:addDomain': {
    action: 'domain.added',
    objectType: 'domain',
    run: async (f) => {
      const res = await f.team.owner.request('POST', `${f.base}/domains`, { body: { host: `a${f.n()}.example.com` } });
      return { res, objectId: dataId(res) };
    },
  },
  'dashboard:verifyDomain': {
    action: 'domain.verified',
    objectType: 'domain',
    run: async (f) => {
      const added = ok(
        await f.team.owner.request('POST', `${f.base}/domains`, { body: { host: `v${f.n()}.example.com` } }),
      );
      const { id, verification } = added.body.data;
      f.dns.set(verification.txtName, [[verification.txtValue]]);
      return { res: ok(await f.team.owner.request('POST', `${f.base}/domains/${id}/verify`)), objectId: id };
    },
  },
  'dashboard:disableDomain': {
    action: 'domain.disabled',
    objectType: 'domain',
    run: async (f) => {
      const id = await activeDomain(f);
      return { res: ok(await f.team.owner.request('POST', `${f.base}/domains/${id}/disable`)), objectId: id };
    },
  },
  'dashboard:putDomainAppLinks': {
    action: 'domain.app_links_changed',
    objectType: 'domain',
    run: async (f) => {
      const id = await activeDomain(f);
      const res = await f.team.owner.request('PUT', `${f.base}/domains/${id}/app-links`, {
        body: { apple: APPLE, android: ANDROID },
      });
      return { res: ok(res), objectId: id };
    },
  },
  'dashboard:createTag': {
    action: 'tag.created',
    objectType: 'tag',
    run: async (f) => {
      const res = await f.team.member.request('POST', `${f.base}/tags`, { body: { name: `tag ${f.n()}` } });
      return { res, objectId: dataId(res) };
    },
  },
  'dashboard:updateTag': {
    action: 'tag.updated',
    objectType: 'tag',
    run: async (f) => {
      const id = dataId(await f.team.owner.request('POST', `${f.base}/tags`, { body: { name: `tag ${f.n()}` } }));
      const res = await f.team.owner.request('PATCH', `${f.base}/tags/${id}`, { body: { name: `renamed ${f.n()}` } });
      return { res: ok(res), objectId: id };
    },
  },
  'dashboard:deleteTag': {
    action: 'tag.deleted',
    objectType: 'tag',
    run: async (f) => {
      const id = dataId(await f.team.owner.request('POST', `${f.base}/tags`, { body: { name: `tag ${f.n()}` } }));
      return { res: ok(await f.team.owner.request('DELETE', `${f.base}/tags/${id}`)), objectId: id };
    },
  },
  'dashboard:createDashboardGoal': {
    action: 'goal.created',
    objectType: 'goal',
    run: async (f) => {
      const res = await f.team.owner.request('POST', `${f.base}/goals`, {
        body: { name: `Goal ${f.n()}`, type: 'signup' },
      });
      return { res, objectId: dataId(res) };
    },
  },
  'dashboard:updateDashboardGoal': {
    action: 'goal.updated',
    objectType: 'goal',
    run: async (f) => {
      const id = dataId(
        await f.team.owner.request('POST', `${f.base}/goals`, { body: { name: `Goal ${f.n()}`, type: 'signup' } }),
      );
      const res = await f.team.owner.request('PATCH', `${f.base}/goals/${id}`, { body: { name: `Goal ${f.n()}` } });
      return { res: ok(res), objectId: id };
    },
  },
  'dashboard:setDashboardGoalStatus': {
    action: 'goal.status_changed',
    objectType: 'goal',
    run: async (f) => {
      const id = dataId(
        await f.team.owner.request('POST', `${f.base}/goals`, { body: { name: `Goal ${f.n()}`, type: 'signup' } }),
      );
      const res = await f.team.owner.request('POST', `${f.base}/goals/${id}/status`, { body: { status: 'PAUSED' } });
      return { res: ok(res), objectId: id };
    },
  },
  'dashboard:createDashboardReport': {
    action: 'report.created',
    objectType: 'report',
    run: async (f) => {
      const body = { kind: 'LINK', title: 'Report', params: { linkId: await f.link(), window: { lastDays: 7 } } };
      const res = await f.team.owner.request('POST', `${f.base}/reports`, { body });
      return { res, objectId: dataId(res) };
    },
  },
  'dashboard:updateDashboardReport': {
    action: 'report.updated',
    objectType: 'report',
    run: async (f) => {
      const body = { kind: 'LINK', title: 'Report', params: { linkId: await f.link(), window: { lastDays: 7 } } };
      const id = dataId(await f.team.owner.request('POST', `${f.base}/reports`, { body }));
      const res = await f.team.owner.request('PATCH', `${f.base}/reports/${id}`, { body: { title: 'Renamed' } });
      return { res: ok(res), objectId: id };
    },
  },
  'dashboard:deleteDashboardReport': {
    action: 'report.deleted',
    objectType: 'report',
    run: async (f) => {
      const body = { kind: 'LINK', title: 'Report', params: { linkId: await f.link(), window: { lastDays: 7 } } };
      const id = dataId(await f.team.owner.request('POST', `${f.base}/reports`, { body }));
      return { res: ok(await f.team.owner.request('DELETE', `${f.base}/reports/${id}`)), objectId: id };
    },
  },
  'dashboard:renewDashboardReportToken': {
    action: 'report.token_renewed',
    objectType: 'report',
    run: async (f) => {
      const body = { kind: 'LINK', title: 'Report', params: { linkId: await f.link(), window: { lastDays: 7 } } };
      const id = dataId(await f.team.owner.request('POST', `${f.base}/reports`, { body }));
      return { res: ok(await f.team.owner.request('POST', `${f.base}/reports/${id}/token`)), objectId: id };
    },
  },
  'dashboard:createCampaign': {
    action: 'campaign.created',
    objectType: 'campaign',
    run: async (f) => {
      const res = await f.team.owner.request('POST', `${f.base}/campaigns`, { body: { name: `Campaign ${f.n()}` } });
      return { res, objectId: dataId(res) };
    },
  },
  'dashboard:createDashboardWebhookSubscription': {
    action: 'webhook.created',
    objectType: 'webhook',
    run: async (f) => {
      const body = { variant: 'A', url: 'https://hooks.example.com/d', events: ['link.created'] };
      const res = await f.team.owner.request('POST', `${f.base}/webhooks/subscriptions`, { body });
      return { res, objectId: dataId(res) };
    },
  },
  'dashboard:updateDashboardWebhookSubscription': {
    action: 'webhook.updated',
    objectType: 'webhook',
    run: async (f) => {
      const body = { variant: 'A', url: 'https://hooks.example.com/d', events: ['link.created'] };
      const id = dataId(await f.team.owner.request('POST', `${f.base}/webhooks/subscriptions`, { body }));
      const res = await f.team.owner.request('PATCH', `${f.base}/webhooks/subscriptions/${id}`, {
        body: { events: ['link.created', 'link.deleted'] },
      });
      return { res: ok(res), objectId: id };
    },
  },
  'dashboard:deleteDashboardWebhookSubscription': {
    action: 'webhook.deleted',
    objectType: 'webhook',
    run: async (f) => {
      const body = { variant: 'A', url: 'https://hooks.example.com/d', events: ['link.created'] };
      const id = dataId(await f.team.owner.request('POST', `${f.base}/webhooks/subscriptions`, { body }));
      return { res: ok(await f.team.owner.request('DELETE', `${f.base}/webhooks/subscriptions/${id}`)), objectId: id };
    },
  },
  'dashboard:enableDashboardWebhookSubscription': {
    action: 'webhook.enabled',
    objectType: 'webhook',
    run: async (f) => {
      const body = { variant: 'A', url: 'https://hooks.example.com/d', events: ['link.created'] };
      const id = dataId(await f.team.owner.request('POST', `${f.base}/webhooks/subscriptions`, { body }));
      const path = `${f.base}/webhooks/subscriptions/${id}`;
      ok(await f.team.owner.request('PATCH', path, { body: { enabled: false } }));
      return { res: ok(await f.team.owner.request('POST', `${path}/enable`)), objectId: id };
    },
  },
  'dashboard:replayDashboardWebhookFailedSince': {
    action: 'webhook_delivery.replayed',
    objectType: 'webhook_delivery',
    run: async (f) => {
      const sub = await subscriptionB(f);
      const id = await seedSettledDelivery(f.knex, sub, 'FAILED', Date.now() - 60_000);
      const since = new Date(Date.now() - 3_600_000).toISOString();
      const res = await f.team.owner.request('POST', `${f.base}/webhooks/subscriptions/${sub.id}/replay-failed`, {
        body: { since },
      });
      return { res: ok(res), objectId: id };
    },
  },
  'dashboard:replayDashboardWebhookDelivery': {
    action: 'webhook_delivery.replayed',
    objectType: 'webhook_delivery',
    run: async (f) => {
      const id = await seedSettledDelivery(f.knex, await subscriptionB(f), 'FAILED', Date.now() - 60_000);
      return {
        res: ok(await f.team.owner.request('POST', `${f.base}/webhooks/deliveries/${id}/replay`)),
        objectId: id,
      };
    },
  },
  'dashboard:resolveDashboardWebhookDelivery': {
    action: 'webhook_delivery.resolved',
    objectType: 'webhook_delivery',
    run: async (f) => {
      const sub = await seedSubscription(f.knex, f.server.services.masterKey, {
        url: 'https://hooks.example.com/a',
        variant: 'A',
        workspaceId: f.team.workspaceId,
      });
      const id = await seedSettledDelivery(f.knex, sub, 'UNKNOWN', Date.now() - 60_000);
      const res = await f.team.owner.request('POST', `${f.base}/webhooks/deliveries/${id}/resolve`, {
        body: { outcome: 'DELIVERED' },
      });
      return { res: ok(res), objectId: id };
    },
  },
  'dashboard:createPage': {
    action: 'page.created',
    objectType: 'page',
    run: async (f) => {
      const res = await f.team.owner.request('POST', `${f.base}/pages`, {
        body: { handle: `p${f.n()}`, title: 'Page' },
      });
      return { res, objectId: dataId(res) };
    },
  },
  'dashboard:updatePage': {
    action: 'page.updated',
    objectType: 'page',
    run: async (f) => {
      const id = dataId(
        await f.team.owner.request('POST', `${f.base}/pages`, { body: { handle: `p${f.n()}`, title: 'Page' } }),
      );
      const res = await f.team.owner.request('PATCH', `${f.base}/pages/${id}`, { body: { title: 'Other' } });
      return { res: ok(res), objectId: id };
    },
  },
  'dashboard:deletePage': {
    action: 'page.deleted',
    objectType: 'page',
    run: async (f) => {
      const id = dataId(
        await f.team.owner.request('POST', `${f.base}/pages`, { body: { handle: `p${f.n()}`, title: 'Page' } }),
      );
      return { res: ok(await f.team.owner.request('DELETE', `${f.base}/pages/${id}`)), objectId: id };
    },
  },
  'dashboard:publishPage': {
    action: 'page.published',
    objectType: 'page',
    run: async (f) => {
      const id = dataId(
        await f.team.owner.request('POST', `${f.base}/pages`, { body: { handle: `p${f.n()}`, title: 'Page' } }),
      );
      return { res: ok(await f.team.owner.request('POST', `${f.base}/pages/${id}/publish`)), objectId: id };
    },
  },
  'dashboard:unpublishPage': {
    action: 'page.unpublished',
    objectType: 'page',
    run: async (f) => {
      const id = dataId(
        await f.team.owner.request('POST', `${f.base}/pages`, { body: { handle: `p${f.n()}`, title: 'Page' } }),
      );
      ok(await f.team.owner.request('POST', `${f.base}/pages/${id}/publish`));
      return { res: ok(await f.team.owner.request('POST', `${f.base}/pages/${id}/unpublish`)), objectId: id };
    },
  },
};

/** Every operation of both contracts that is not a read, as `api:<id>` and `dashboard:<id>`. */
function changingOperations(): string[] {
  const out: string[] = [];
  for (const [name, doc] of [
    ['api', api],
    ['dashboard', dashboard],
  ] as const) {
    for (const item of Object.values<any>(doc.paths))
      for (const [method, op] of Object.entries<any>(item))
        if (['post', 'put', 'patch', 'delete'].includes(method)) out.push(`${name}:${op.operationId}`);
  }
  return out;
}

describe('the audit table', () => {
  it('names every changing operation of both contracts, as audited or exempt with a reason', () => {
    const ops = changingOperations();
    const neither = ops.filter((id) => !(id in AUDITED) && !(id in EXEMPT) && !(id in AUDITED_ELSEWHERE));
    expect(neither, 'operations neither audited nor exempt: add them to AUDITED or EXEMPT').toEqual([]);
    const both = ops.filter((id) => id in AUDITED && id in EXEMPT);
    expect(both).toEqual([]);
    // No entry for an operation the contracts no longer have.
    const stale = [...Object.keys(AUDITED), ...Object.keys(EXEMPT), ...Object.keys(AUDITED_ELSEWHERE)].filter(
      (id) => !ops.includes(id),
    );
    expect(stale).toEqual([]);
    for (const reason of Object.values(EXEMPT)) expect(reason.length).toBeGreaterThan(20);
  });
});

describe.each(testEngines())('every audited operation records its entry on %s', (engine) => {
  const f = {} as Fixture;
  let counter = 0;

  beforeAll(async () => {
    f.dns = new Map();
    f.server = await startTestServer(engine, {
      resolveTxt: async (name) => {
        const records = f.dns.get(name);
        if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
        return records;
      },
    });
    f.knex = f.server.services.db.knex;
    f.team = await seedTeam(f.server);
    f.base = `/workspaces/${f.team.workspaceId}`;
    const made = await createKey(f.knex, f.team.workspaceId, f.team.people.owner.userId, API_SCOPES, null);
    f.key = made.key;
    f.keyId = made.id;
    f.n = () => ++counter;
    f.api = (method, path, body) => f.server.request(method, path, { key: f.key, body });
    f.link = async () => {
      const res = await f.api('POST', '/api/v1/links', { url: `https://example.com/l${f.n()}` });
      return dataId(res);
    };
  });
  afterAll(async () => f.server?.stop());

  it.each(Object.keys(AUDITED))('%s', async (id) => {
    const c = AUDITED[id];
    const expectedActor = c.actor ?? (id.startsWith('api:') ? 'api_key' : 'user');
    const mark = await auditMark(f.knex, f.team.workspaceId);
    const out = (await c.run(f)) as Outcome & { entries?: StoredEntry[] };
    const entries = out.entries ?? (await auditSince(out.knex ?? f.knex, out.workspaceId ?? f.team.workspaceId, mark));
    const mine = entries.filter(
      (e) =>
        e.action === c.action &&
        e.object_type === c.objectType &&
        (out.objectId === undefined || e.object_id === out.objectId),
    );
    expect(mine.length, `${id}: entries ${JSON.stringify(entries.map((e) => e.action))}`).toBe(out.count ?? 1);
    for (const e of mine) {
      expect(e.actor_type).toBe(expectedActor);
      if (expectedActor === 'api_key')
        expect(e).toMatchObject({ actor_id: f.keyId, actor_user_id: f.team.people.owner.userId });
      // The test client connects over loopback: its network, never the address itself.
      if (!out.entries) expect(e.address_network).toMatch(/^127\.0\.0\.0\/24$|::\/48$/);
      expect(JSON.stringify(e)).not.toContain('127.0.0.1');
    }
  });
});
