// The workspace's settings in the dashboard API, through HTTPS on every engine: the workspace
// and its plan, API keys (shown once, usable on /api/v1, revoked), members and their roles,
// custom domains with DNS verification, tags and campaigns; roles and other workspaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ws from '../../src/db/repos/workspaces';
import { testEngines } from '../support/databases';
import { cookieOf, DASHBOARD_API, seedTeam, signIn } from '../support/dashboard';
import { startTestServer, type TestServer } from '../support/server';

describe.each(testEngines())('dashboard settings on %s', (engine) => {
  let server: TestServer;
  let team: Awaited<ReturnType<typeof seedTeam>>;
  let other: Awaited<ReturnType<typeof seedTeam>>;
  let base: string;
  let otherBase: string;
  /** What the DNS answers: TXT records by name. */
  const dns = new Map<string, string[][]>();
  const knex = () => server.services.db.knex;

  beforeAll(async () => {
    server = await startTestServer(engine, {
      resolveTxt: async (name) => {
        const records = dns.get(name);
        if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
        return records;
      },
    });
    team = await seedTeam(server);
    other = await seedTeam(server);
    base = `/workspaces/${team.workspaceId}`;
    otherBase = `/workspaces/${other.workspaceId}`;
  });
  afterAll(async () => server?.stop());

  it("shows the workspace's name, id, plan, the person's role and what the plan includes", async () => {
    const res = await team.member.request('GET', base);
    expect(res.body.data).toMatchObject({ id: team.workspaceId, plan: 'growth', role: 'MEMBER', features: { api: true, expiredUrl: true, webhooks: true } });
    expect(res.body.data.name).toMatch(/^Team \d+$/);
    const free = await seedTeam(server, 'free');
    const freeWs = await free.owner.request('GET', `/workspaces/${free.workspaceId}`);
    expect(freeWs.body.data.features).toEqual({ api: false, expiredUrl: false, webhooks: false, conversions: false, goals: false });
  });

  describe('API keys', () => {
    it('a key is shown once, works on /api/v1 with its scopes, and stops when revoked', async () => {
      const made = await team.member.request('POST', `${base}/keys`, { body: { scopes: ['links:read'] } });
      expect(made.status).toBe(201);
      expect(made.body.key).toMatch(/^mk_[0-9a-f]{40,}$/);
      expect(made.body.data).toMatchObject({ scopes: ['links:read'], expiresAt: null, revokedAt: null, user: { id: team.people.member.userId } });
      expect(made.body.key.endsWith(made.body.data.hint.replace(/^.*?([A-Za-z0-9]+)$/, '$1'))).toBe(true);
      // Listed without the key.
      const listed = await team.member.request('GET', `${base}/keys`);
      expect(JSON.stringify(listed.body)).not.toContain(made.body.key);
      expect(listed.body.data.map((k: any) => k.id)).toContain(made.body.data.id);

      const key = made.body.key;
      expect((await server.request('GET', '/api/v1/links', { key })).status).toBe(200);
      // Its scopes hold: no links:write.
      expect((await server.request('POST', '/api/v1/links', { key, body: { url: 'https://example.com' } })).status).toBe(403);
      expect((await team.member.request('DELETE', `${base}/keys/${made.body.data.id}`)).status).toBe(204);
      expect((await server.request('GET', '/api/v1/links', { key })).status).toBe(401);
      const after = (await team.member.request('GET', `${base}/keys`)).body.data.find((k: any) => k.id === made.body.data.id);
      expect(after.revokedAt).not.toBeNull();
    });

    it('takes an expiry in the future only, and known scopes only', async () => {
      const soon = new Date(Date.now() + 3_600_000).toISOString();
      const made = await team.admin.request('POST', `${base}/keys`, { body: { scopes: ['links:read', 'links:write'], expiresAt: soon } });
      expect(made.status).toBe(201);
      expect(Date.parse(made.body.data.expiresAt)).toBe(Date.parse(soon));
      const past = await team.admin.request('POST', `${base}/keys`, { body: { scopes: ['links:read'], expiresAt: '2020-01-01T00:00:00Z' } });
      expect(past.status).toBe(400);
      expect(past.body).toMatchObject({ field: 'expiresAt', error: 'expiresAt must be in the future' });
      const unknown = await team.admin.request('POST', `${base}/keys`, { body: { scopes: ['links:everything'] } });
      expect(unknown.status).toBe(400);
      expect((await team.admin.request('POST', `${base}/keys`, { body: { scopes: [] } })).status).toBe(400);
    });

    it("a MEMBER sees and revokes only their own keys; OWNER and ADMIN see everyone's", async () => {
      const adminKey = (await team.admin.request('POST', `${base}/keys`, { body: { scopes: ['links:read'] } })).body;
      const memberKeys = (await team.member.request('GET', `${base}/keys`)).body.data;
      expect(memberKeys.every((k: any) => k.user.id === team.people.member.userId)).toBe(true);
      expect((await team.member.request('DELETE', `${base}/keys/${adminKey.data.id}`)).status).toBe(404);
      expect((await server.request('GET', '/api/v1/links', { key: adminKey.key })).status).toBe(200);
      const ownerView = (await team.owner.request('GET', `${base}/keys`)).body.data.map((k: any) => k.id);
      expect(ownerView).toContain(adminKey.data.id);
      expect((await team.analyst.request('POST', `${base}/keys`, { body: { scopes: ['links:read'] } })).status).toBe(403);
    });

    it('a plan without the API makes no keys, and says so', async () => {
      for (const plan of ['free', 'pro'] as const) {
        const t = await seedTeam(server, plan);
        const res = await t.owner.request('POST', `/workspaces/${t.workspaceId}/keys`, { body: { scopes: ['links:read'] } });
        expect(res.status).toBe(403);
        expect(res.body.error).toBe(`The ${plan} plan does not include the API; API keys need the Growth plan or above`);
      }
    });
  });

  describe('members', () => {
    it('adding a member shows a one-time set-up link, which sets their password and signs them in', async () => {
      const email = `new-${Date.now()}@example.com`;
      const added = await team.admin.request('POST', `${base}/members`, { body: { email, role: 'MEMBER' } });
      expect(added.status).toBe(201);
      expect(added.body.data).toMatchObject({ email, role: 'MEMBER', hasPassword: false });
      expect(added.body.setupUrl).toMatch(/^https:\/\/localhost:8443\/app\/setup-password\?token=[A-Za-z0-9_-]{43}$/);
      const token = new URL(added.body.setupUrl).searchParams.get('token');
      const set = await server.request('POST', `${DASHBOARD_API}/password-setup`, { body: { token, password: 'new member password' } });
      expect(set.status).toBe(200);
      expect(cookieOf(set)).toMatch(/^sl_session=/);
      expect(set.body.workspaces).toEqual([expect.objectContaining({ id: team.workspaceId, role: 'MEMBER' })]);
      // Someone who already has a password gets no link.
      const again = await other.owner.request('POST', `${otherBase}/members`, { body: { email, role: 'ANALYST' } });
      expect(again.body).toMatchObject({ data: { hasPassword: true }, setupUrl: null });
      expect((await team.admin.request('POST', `${base}/members`, { body: { email, role: 'ADMIN' } })).status).toBe(409);
      expect((await team.admin.request('POST', `${base}/members`, { body: { email: 'not an email', role: 'ADMIN' } })).status).toBe(400);
    });

    it('only an OWNER adds or removes an OWNER and changes roles; the last OWNER stays', async () => {
      const ownerAdd = await team.admin.request('POST', `${base}/members`, { body: { email: `o-${Date.now()}@example.com`, role: 'OWNER' } });
      expect(ownerAdd.status).toBe(403);
      expect(ownerAdd.body.error).toBe('Only an OWNER adds an OWNER');
      const role = await team.admin.request('PATCH', `${base}/members/${team.people.member.userId}`, { body: { role: 'ADMIN' } });
      expect(role.status).toBe(403);
      expect((await team.admin.request('DELETE', `${base}/members/${team.people.owner.userId}`)).status).toBe(403);
      const last = await team.owner.request('PATCH', `${base}/members/${team.people.owner.userId}`, { body: { role: 'ADMIN' } });
      expect(last.status).toBe(409);
      expect(last.body.error).toBe('The workspace needs an OWNER: make someone else OWNER first');
      expect((await team.owner.request('DELETE', `${base}/members/${team.people.owner.userId}`)).status).toBe(409);
      const promoted = await team.owner.request('PATCH', `${base}/members/${team.people.analyst.userId}`, { body: { role: 'MEMBER' } });
      expect(promoted.body.data.role).toBe('MEMBER');
      await team.owner.request('PATCH', `${base}/members/${team.people.analyst.userId}`, { body: { role: 'ANALYST' } });
      expect(await ws.roleOf(knex(), team.workspaceId, team.people.analyst.userId)).toBe('ANALYST');
    });

    it('two OWNERs demoting each other at once: one OWNER remains', async () => {
      const t = await seedTeam(server);
      const second = await ws.addMember(knex(), t.workspaceId, `o2-${Date.now()}@example.com`, 'OWNER');
      const answers = await Promise.all([
        t.owner.request('PATCH', `/workspaces/${t.workspaceId}/members/${second}`, { body: { role: 'ADMIN' } }),
        t.owner.request('PATCH', `/workspaces/${t.workspaceId}/members/${t.people.owner.userId}`, { body: { role: 'ADMIN' } }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const [{ n }] = await knex()('memberships').where({ workspace_id: t.workspaceId, role: 'OWNER' }).count({ n: '*' });
      expect(Number(n)).toBe(1);
    });

    it("removing a member ends their sessions; members of another workspace are 404", async () => {
      const t = await seedTeam(server);
      const tb = `/workspaces/${t.workspaceId}`;
      expect((await t.admin.request('DELETE', `${tb}/members/${t.people.member.userId}`)).status).toBe(204);
      expect((await t.member.request('GET', '/session')).status).toBe(401);
      expect((await t.admin.request('GET', `${tb}/members`)).body.data.map((m: any) => m.userId)).not.toContain(t.people.member.userId);
      expect((await t.owner.request('DELETE', `${tb}/members/${other.people.member.userId}`)).status).toBe(404);
      expect((await t.owner.request('PATCH', `${tb}/members/${other.people.member.userId}`, { body: { role: 'ADMIN' } })).status).toBe(404);
      expect((await t.owner.request('GET', `${otherBase}/members`)).status).toBe(404);
      expect(await ws.roleOf(knex(), other.workspaceId, other.people.member.userId)).toBe('MEMBER');
    });
  });

  describe('domains', () => {
    it('adds a domain with its verification record, verifies it by DNS, serves links on it, disables it', async () => {
      const host = `go-${Date.now()}.example.com`;
      const added = await team.admin.request('POST', `${base}/domains`, { body: { host: host.toUpperCase() } });
      expect(added.status).toBe(201);
      const domain = added.body.data;
      expect(domain).toMatchObject({ host, status: 'PENDING', verifiedAt: null });
      expect(domain.verification).toEqual({ cname: 'localhost', txtName: `_shortlink-verify.${host}`, txtValue: expect.stringMatching(/^shortlink-verify=[0-9a-f]{32}$/) });

      const missing = await team.admin.request('POST', `${base}/domains/${domain.id}/verify`);
      expect(missing.status).toBe(409);
      expect(missing.body.error).toBe(`No TXT record ${domain.verification.txtName} was found; publish ${domain.verification.txtName} = ${domain.verification.txtValue}, then verify again`);
      dns.set(domain.verification.txtName, [['shortlink-verify=', 'someone else']]);
      const wrong = await team.admin.request('POST', `${base}/domains/${domain.id}/verify`);
      expect(wrong.status).toBe(409);
      expect(wrong.body.error).toContain('(found: "shortlink-verify=someone else")');
      // Long TXT values come in chunks; they are joined.
      const [prefix, rest] = [domain.verification.txtValue.slice(0, 20), domain.verification.txtValue.slice(20)];
      dns.set(domain.verification.txtName, [['v=spf1 -all'], [prefix, rest]]);
      const verified = await team.admin.request('POST', `${base}/domains/${domain.id}/verify`);
      expect(verified.status).toBe(200);
      expect(verified.body.data.status).toBe('ACTIVE');

      const link = await team.member.request('POST', `${base}/links`, { body: { url: 'https://example.com/on-domain', slug: 'ondomain', domainId: domain.id } });
      expect(link.status).toBe(201);
      expect(link.body.data.shortUrl).toBe(`https://${host}/ondomain`);
      await server.changes.poll();
      expect((await server.request('GET', '/ondomain', { headers: { host } })).headers.location).toBe('https://example.com/on-domain');

      const disabled = await team.admin.request('POST', `${base}/domains/${domain.id}/disable`);
      expect(disabled.body.data.status).toBe('DISABLED');
      await server.changes.poll();
      expect((await server.request('GET', '/ondomain', { headers: { host } })).status).toBe(404);
    });

    it("refuses the service's own hosts, bad names and taken hosts; MEMBERs manage no domains; another workspace's domain is 404", async () => {
      for (const host of ['localhost', 'not a host', 'http://x.example.com', '-bad-.example.com']) {
        const res = await team.owner.request('POST', `${base}/domains`, { body: { host } });
        expect(res.status, host).toBe(400);
        expect(res.body.field).toBe('host');
      }
      const host = `taken-${Date.now()}.example.com`;
      expect((await team.owner.request('POST', `${base}/domains`, { body: { host } })).status).toBe(201);
      const taken = await other.owner.request('POST', `${otherBase}/domains`, { body: { host } });
      expect(taken.status).toBe(409);
      expect((await team.member.request('POST', `${base}/domains`, { body: { host: `m-${host}` } })).status).toBe(403);
      const theirs = (await other.owner.request('POST', `${otherBase}/domains`, { body: { host: `theirs-${host}` } })).body.data;
      expect((await team.owner.request('POST', `${base}/domains/${theirs.id}/verify`)).status).toBe(404);
      expect((await team.owner.request('POST', `${base}/domains/${theirs.id}/disable`)).status).toBe(404);
      expect((await team.owner.request('GET', `${base}/domains`)).body.data.map((d: any) => d.id)).not.toContain(theirs.id);
    });
  });

  describe('tags and campaigns', () => {
    it('makes tags (MEMBER too) and campaigns (OWNER and ADMIN), refusing taken tag names', async () => {
      const name = `tag-${Date.now()}`;
      const tag = await team.member.request('POST', `${base}/tags`, { body: { name, color: '#ff0000' } });
      expect(tag.status).toBe(201);
      expect(tag.body.data).toEqual({ id: expect.stringMatching(/^tag_/), name, color: '#ff0000' });
      expect((await team.member.request('POST', `${base}/tags`, { body: { name } })).body).toEqual({ error: `A tag named "${name}" already exists` });
      expect((await team.member.request('POST', `${base}/tags`, { body: { name: '   ' } })).status).toBe(400);
      expect((await team.member.request('POST', `${base}/tags`, { body: { name: 'x', color: 'red' } })).status).toBe(400);
      expect((await team.analyst.request('GET', `${base}/tags`)).body.data.map((t: any) => t.name)).toContain(name);
      // The same name in another workspace is another tag.
      expect((await other.member.request('POST', `${otherBase}/tags`, { body: { name } })).status).toBe(201);

      expect((await team.member.request('POST', `${base}/campaigns`, { body: { name: 'Spring' } })).status).toBe(403);
      const campaign = await team.admin.request('POST', `${base}/campaigns`, { body: { name: 'Spring' } });
      expect(campaign.status).toBe(201);
      expect((await team.analyst.request('GET', `${base}/campaigns`)).body.data).toEqual([campaign.body.data]);
      expect((await other.owner.request('GET', `${otherBase}/campaigns`)).body.data).toEqual([]);
    });
  });
});
