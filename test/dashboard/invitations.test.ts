// Accounts are shared by workspaces, so nothing one workspace does may reach another
// (openapi/dashboard.yaml, Accounts and workspaces): joining is by invitation, accepted by the
// person signed in as the invited email or creating that account; a token opens its own
// workspace once; no answer tells a workspace who has an account; leaving ends nothing
// elsewhere. Through HTTPS on every engine, with the outside probe's attacks first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/db/repos/accounts';
import { addMember, roleOf, setRole } from '../../src/db/repos/workspaces';
import { testEngines } from '../support/databases';
import {
  clientFor,
  cookieOf,
  DASHBOARD_API,
  seedPerson,
  seedTeam,
  signIn,
  type DashboardClient,
} from '../support/dashboard';
import { startTestServer, type TestServer } from '../support/server';

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
let counter = 0;
const email = (what: string) => `${what}-${++counter}-${Date.now()}@example.test`;

describe.each(testEngines())('invitations on %s', (engine) => {
  let server: TestServer;
  let alpha: Awaited<ReturnType<typeof seedTeam>>;
  let bravo: Awaited<ReturnType<typeof seedTeam>>;
  const knex = () => server.services.db.knex;
  const anonymous = (method: string, path: string, body?: unknown) =>
    server.request(method, `${DASHBOARD_API}${path}`, { body });
  const invite = (who: DashboardClient, workspaceId: string, address: string, role = 'MEMBER') =>
    who.request('POST', `/workspaces/${workspaceId}/invitations`, { body: { email: address, role } });
  /** Signs in the answer of a register (its cookie, its anti-forgery token). */
  const signedInBy = (res: Awaited<ReturnType<typeof anonymous>>) =>
    clientFor(server, cookieOf(res), res.body.csrfToken, res.body);
  /** Registering through `inviteUrl` is refused (404) and makes no user of `address`. */
  const expectRegistrationRefused = async (inviteUrl: string, address: string) => {
    const res = await anonymous('POST', '/invitation/register', {
      token: tokenOf(inviteUrl),
      password: 'a good password',
    });
    expect(res.status).toBe(404);
    expect(await knex()('users').where({ email: address }).first()).toBeUndefined();
  };

  beforeAll(async () => {
    server = await startTestServer(engine);
    alpha = await seedTeam(server);
    bravo = await seedTeam(server);
  });
  afterAll(async () => server?.stop());

  describe("the probe's attacks", () => {
    it("an ADMIN of another workspace cannot take over an account Bravo's operator added (no password yet)", async () => {
      const victim = email('victim');
      // Bravo's operator adds the victim as OWNER from the command line and hands over the set-up link.
      const victimId = await addMember(knex(), bravo.workspaceId, victim, 'OWNER');
      const victimLink = await accounts.createSetupToken(knex(), victimId, Date.now());

      // Alpha's ADMIN adds the same email: an invitation, with nothing about the account in it.
      const invited = await invite(alpha.admin, alpha.workspaceId, victim, 'ANALYST');
      expect(invited.status).toBe(201);
      expect(Object.keys(invited.body).sort()).toEqual(['data', 'inviteUrl', 'mailed']);
      expect(invited.body.mailed).toBe(false);
      expect(invited.body.inviteUrl).toMatch(/^https:\/\/localhost:8443\/app\/invite\?token=[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(invited.body)).not.toMatch(/password|setup/i);

      // The invitation's token sets no password: the account exists, so it is refused.
      const token = tokenOf(invited.body.inviteUrl);
      const takeover = await anonymous('POST', '/invitation/register', { token, password: 'attacker password' });
      expect(takeover.status).toBe(409);
      expect(takeover.headers['set-cookie']).toBeUndefined();
      expect((await accounts.findUser(knex(), victimId))!.password_hash).toBeNull();
      // Nor is it a set-up link.
      expect((await anonymous('POST', '/password-setup', { token, password: 'attacker password' })).status).toBe(404);
      expect(await roleOf(knex(), alpha.workspaceId, victimId)).toBeNull();

      // The victim's own link still works, and makes them Bravo's OWNER.
      const own = await anonymous('POST', '/password-setup', { token: victimLink, password: 'the victim password' });
      expect(own.status).toBe(200);
      expect(own.body.workspaces).toEqual([expect.objectContaining({ id: bravo.workspaceId, role: 'OWNER' })]);
    });

    it("a password set through one workspace's invitation never opens a workspace that invites the email later", async () => {
      const future = email('future');
      // Alpha's admin invites an email nobody has used, creates its account with the link, and is removed again.
      const first = await invite(alpha.admin, alpha.workspaceId, future, 'ANALYST');
      const made = await anonymous('POST', '/invitation/register', {
        token: tokenOf(first.body.inviteUrl),
        password: 'attacker password',
      });
      expect(made.status).toBe(201);
      const attacker = signedInBy(made);
      const attackerId = made.body.user.id;
      expect(
        (await alpha.admin.request('DELETE', `/workspaces/${alpha.workspaceId}/members/${attackerId}`)).status,
      ).toBe(204);

      // Later Bravo invites the same email as ADMIN: nothing happens until its own link is accepted.
      const bravoInvite = await invite(bravo.owner, bravo.workspaceId, future, 'ADMIN');
      expect(bravoInvite.status).toBe(201);
      expect(await roleOf(knex(), bravo.workspaceId, attackerId)).toBeNull();
      const again = await signIn(server, { email: future, password: 'attacker password' });
      expect(again.session.workspaces).toEqual([]);
      expect((await again.request('GET', `/workspaces/${bravo.workspaceId}`)).status).toBe(404);
      // Alpha's used token opens nothing, Bravo's included.
      const reuse = await again.request('POST', '/invitation/accept', {
        body: { token: tokenOf(first.body.inviteUrl) },
      });
      expect(reuse.status).toBe(404);
      expect(await roleOf(knex(), bravo.workspaceId, attackerId)).toBeNull();
      // Removed from their only workspace, the first session ended.
      expect((await attacker.request('GET', `/workspaces/${bravo.workspaceId}/links`)).status).toBe(401);
    });

    it("removing someone from Alpha signs them out of nothing else, and Alpha learns nothing about Bravo's people", async () => {
      // Bravo's owner also belongs to Alpha, by accepting Alpha's invitation.
      const both = await seedPerson(knex(), bravo.workspaceId, 'ADMIN', email('both'));
      const bothClient = await signIn(server, both);
      const invited = await invite(alpha.admin, alpha.workspaceId, both.email);
      expect(
        (await bothClient.request('POST', '/invitation/accept', { body: { token: tokenOf(invited.body.inviteUrl) } }))
          .status,
      ).toBe(200);
      for (let i = 0; i < 3; i++) {
        expect(
          (await alpha.admin.request('DELETE', `/workspaces/${alpha.workspaceId}/members/${both.userId}`)).status,
        ).toBe(204);
        // Still signed in, still reading Bravo.
        expect((await bothClient.request('GET', '/session')).status).toBe(200);
        expect((await bothClient.request('GET', `/workspaces/${bravo.workspaceId}/links`)).status).toBe(200);
        // Re-adding is an invitation again: Alpha cannot put them back on its own.
        const back = await invite(alpha.admin, alpha.workspaceId, both.email);
        expect(back.status).toBe(201);
        expect(await roleOf(knex(), alpha.workspaceId, both.userId)).toBeNull();
        expect(
          (await bothClient.request('POST', '/invitation/accept', { body: { token: tokenOf(back.body.inviteUrl) } }))
            .status,
        ).toBe(200);
      }
      // Removed from their last workspace, their sessions end.
      const only = await seedPerson(knex(), alpha.workspaceId, 'MEMBER', email('only'));
      const onlyClient = await signIn(server, only);
      expect(
        (await alpha.admin.request('DELETE', `/workspaces/${alpha.workspaceId}/members/${only.userId}`)).status,
      ).toBe(204);
      expect((await onlyClient.request('GET', '/session')).status).toBe(401);
    });

    it('an invitation answers the same for an email with an account, one without, and one with no password', async () => {
      const withAccount = bravo.people.member.email;
      const noPassword = email('pending');
      await addMember(knex(), bravo.workspaceId, noPassword, 'MEMBER');
      const shapes = [];
      for (const address of [withAccount, noPassword, email('nobody')]) {
        const res = await invite(alpha.admin, alpha.workspaceId, address);
        expect(res.status).toBe(201);
        shapes.push(
          JSON.stringify({
            ...res.body,
            inviteUrl: 'x',
            data: { ...res.body.data, id: 'x', email: 'x', createdAt: 'x', expiresAt: 'x' },
          }),
        );
        const preview = await anonymous('GET', `/invitation?token=${tokenOf(res.body.inviteUrl)}`);
        shapes.push(JSON.stringify({ ...preview.body, data: { ...preview.body.data, email: 'x', expiresAt: 'x' } }));
      }
      expect(new Set(shapes.filter((_, i) => i % 2 === 0)).size).toBe(1);
      expect(new Set(shapes.filter((_, i) => i % 2 === 1)).size).toBe(1);
      // The members list holds no credentials either.
      const members = await alpha.owner.request('GET', `/workspaces/${alpha.workspaceId}/members`);
      expect(Object.keys(members.body.data[0]).sort()).toEqual(['email', 'joinedAt', 'role', 'userId']);
    });
  });

  describe('the invitation', () => {
    it('signed in as the invited email, the person joins with its role, once', async () => {
      const person = await seedPerson(knex(), bravo.workspaceId, 'ANALYST', email('joiner'));
      const client = await signIn(server, person);
      const res = await invite(alpha.owner, alpha.workspaceId, person.email.toUpperCase(), 'ADMIN');
      expect(res.body.data).toMatchObject({
        email: person.email,
        role: 'ADMIN',
        invitedBy: { id: alpha.people.owner.userId, email: alpha.people.owner.email },
      });
      expect(Date.parse(res.body.data.expiresAt) - Date.parse(res.body.data.createdAt)).toBe(7 * 24 * 3_600_000);
      const token = tokenOf(res.body.inviteUrl);
      const preview = await anonymous('GET', `/invitation?token=${token}`);
      expect(preview.body.data).toMatchObject({
        workspaceName: expect.stringMatching(/^Team /),
        email: person.email,
        role: 'ADMIN',
      });
      const listed = await alpha.admin.request('GET', `/workspaces/${alpha.workspaceId}/invitations`);
      expect(listed.body.data.map((i: any) => i.id)).toContain(res.body.data.id);

      const accepted = await client.request('POST', '/invitation/accept', { body: { token } });
      expect(accepted.status).toBe(200);
      expect(accepted.body.data).toMatchObject({ id: alpha.workspaceId, role: 'ADMIN' });
      expect(await roleOf(knex(), alpha.workspaceId, person.userId)).toBe('ADMIN');
      expect((await client.request('GET', '/session')).body.workspaces.map((w: any) => w.id).sort()).toEqual(
        [alpha.workspaceId, bravo.workspaceId].sort(),
      );
      // Used: the link and the list forget it.
      expect((await client.request('POST', '/invitation/accept', { body: { token } })).status).toBe(404);
      expect((await anonymous('GET', `/invitation?token=${token}`)).status).toBe(404);
      expect(
        (await alpha.admin.request('GET', `/workspaces/${alpha.workspaceId}/invitations`)).body.data.map(
          (i: any) => i.id,
        ),
      ).not.toContain(res.body.data.id);
      // Someone already a member is not invited again.
      const twice = await invite(alpha.owner, alpha.workspaceId, person.email);
      expect(twice.status).toBe(409);
      expect(twice.body.error).toBe(`${person.email} is already a member of this workspace`);
    });

    it('signed in as another email, accepting is refused and changes nothing', async () => {
      const address = email('meant');
      const res = await invite(alpha.admin, alpha.workspaceId, address);
      const token = tokenOf(res.body.inviteUrl);
      const wrong = await bravo.member.request('POST', '/invitation/accept', { body: { token } });
      expect(wrong.status).toBe(403);
      expect(wrong.body.error).toContain(`This invitation is for ${address}`);
      expect(await roleOf(knex(), alpha.workspaceId, bravo.people.member.userId)).toBeNull();
      // Still usable by its person.
      const made = await anonymous('POST', '/invitation/register', { token, password: 'a good password' });
      expect(made.status).toBe(201);
      expect(made.body.workspaces).toEqual([expect.objectContaining({ id: alpha.workspaceId, role: 'MEMBER' })]);
      expect(cookieOf(made)).toMatch(/^sl_session=/);
      // The new account signs in with its password.
      expect((await signIn(server, { email: address, password: 'a good password' })).session.user.email).toBe(address);
    });

    it('creating the account: a short password is refused; two creations at once make one account', async () => {
      const res = await invite(alpha.admin, alpha.workspaceId, email('race'));
      const token = tokenOf(res.body.inviteUrl);
      const short = await anonymous('POST', '/invitation/register', { token, password: 'short' });
      expect(short.status).toBe(400);
      expect(short.body.field).toBe('password');
      const answers = await Promise.all(
        [1, 2, 3].map((n) => anonymous('POST', '/invitation/register', { token, password: `racing password ${n}` })),
      );
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 201)) {
        expect([404, 409]).toContain(a.status);
        expect(a.body.error).toBeTruthy();
      }
      const [{ n }] = await knex()('users').where({ email: res.body.data.email }).count({ n: '*' });
      expect(Number(n)).toBe(1);
    });

    it('inviting again replaces the waiting invitation; revoked and expired links open nothing', async () => {
      const address = email('again');
      const first = await invite(alpha.admin, alpha.workspaceId, address, 'ANALYST');
      const second = await invite(alpha.admin, alpha.workspaceId, address, 'MEMBER');
      expect((await anonymous('GET', `/invitation?token=${tokenOf(first.body.inviteUrl)}`)).status).toBe(404);
      const waiting = (
        await alpha.admin.request('GET', `/workspaces/${alpha.workspaceId}/invitations`)
      ).body.data.filter((i: any) => i.email === address);
      expect(waiting).toEqual([expect.objectContaining({ id: second.body.data.id, role: 'MEMBER' })]);

      expect(
        (await alpha.admin.request('DELETE', `/workspaces/${alpha.workspaceId}/invitations/${second.body.data.id}`))
          .status,
      ).toBe(204);
      const revoked = await anonymous('POST', '/invitation/register', {
        token: tokenOf(second.body.inviteUrl),
        password: 'a good password',
      });
      expect(revoked.status).toBe(404);
      expect(revoked.body.error).toMatch(/^This invitation is not valid any more/);
      expect(
        (await alpha.admin.request('DELETE', `/workspaces/${alpha.workspaceId}/invitations/${second.body.data.id}`))
          .status,
      ).toBe(404);

      const third = await invite(alpha.admin, alpha.workspaceId, address);
      await knex()('invitations')
        .where({ id: third.body.data.id })
        .update({ expires_at: Date.now() - 1 });
      expect((await anonymous('GET', `/invitation?token=${tokenOf(third.body.inviteUrl)}`)).status).toBe(404);
      await expectRegistrationRefused(third.body.inviteUrl, address);
    });

    it('an invitation stands only while its sender may still invite to its role', async () => {
      const t = await seedTeam(server);
      const address = email('orphan');
      const res = await invite(t.admin, t.workspaceId, address);
      await setRole(knex(), t.workspaceId, t.people.admin.userId, 'MEMBER');
      await expectRegistrationRefused(res.body.inviteUrl, address);
      await setRole(knex(), t.workspaceId, t.people.admin.userId, 'ADMIN');
      const made = await anonymous('POST', '/invitation/register', {
        token: tokenOf(res.body.inviteUrl),
        password: 'a good password',
      });
      expect(made.status).toBe(201);
    });

    it("roles: OWNER and ADMIN invite, only an OWNER invites or revokes an OWNER; other workspaces' invitations are 404", async () => {
      const ownerByAdmin = await invite(alpha.admin, alpha.workspaceId, email('o'), 'OWNER');
      expect(ownerByAdmin.status).toBe(403);
      expect(ownerByAdmin.body.error).toBe('Only an OWNER invites an OWNER');
      for (const who of [alpha.member, alpha.analyst]) {
        expect((await invite(who, alpha.workspaceId, email('m'))).status).toBe(403);
        expect((await who.request('GET', `/workspaces/${alpha.workspaceId}/invitations`)).status).toBe(403);
      }
      const ownerInvite = await invite(alpha.owner, alpha.workspaceId, email('o2'), 'OWNER');
      expect(ownerInvite.status).toBe(201);
      const path = `/workspaces/${alpha.workspaceId}/invitations/${ownerInvite.body.data.id}`;
      expect((await alpha.admin.request('DELETE', path)).status).toBe(403);
      expect(
        (
          await bravo.owner.request(
            'DELETE',
            `/workspaces/${bravo.workspaceId}/invitations/${ownerInvite.body.data.id}`,
          )
        ).status,
      ).toBe(404);
      expect((await bravo.owner.request('GET', `/workspaces/${alpha.workspaceId}/invitations`)).status).toBe(404);
      expect((await alpha.owner.request('DELETE', path)).status).toBe(204);
      const bad = await invite(alpha.admin, alpha.workspaceId, 'not an email');
      expect(bad.status).toBe(400);
      expect(bad.body.field).toBe('email');
    });

    it('accepting needs a session and its anti-forgery token; reading a link needs neither', async () => {
      const res = await invite(alpha.admin, alpha.workspaceId, bravo.people.analyst.email);
      const token = tokenOf(res.body.inviteUrl);
      expect((await anonymous('POST', '/invitation/accept', { token })).status).toBe(401);
      expect((await bravo.analyst.request('POST', '/invitation/accept', { body: { token }, csrf: null })).status).toBe(
        403,
      );
      expect(await roleOf(knex(), alpha.workspaceId, bravo.people.analyst.userId)).toBeNull();
      expect((await anonymous('GET', `/invitation?token=${token}`)).status).toBe(200);
      expect((await anonymous('GET', '/invitation?token=nothing-like-it')).status).toBe(404);
    });
  });
});
