// The workspace's settings in the dashboard API, through HTTPS on every engine: the workspace
// and its plan, API keys (shown once, usable on /api/v1, revoked), members and their roles,
// custom domains with DNS verification, tags and campaigns; roles and other workspaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, roleOf } from '../../src/db/repos/workspaces';
import { keysOf } from '../../src/db/repos/api-keys';
import { testEngines } from '../support/databases';
import { seedTeam, startWithTeams, type Team } from '../support/dashboard';
import type { TestServer } from '../support/server';

describe.each(testEngines())('dashboard settings on %s', (engine) => {
  let server: TestServer, team: Team, other: Team, base: string, otherBase: string;
  /** What the DNS answers: TXT records by name. */
  const dns = new Map<string, string[][]>();
  const knex = () => server.services.db.knex;

  beforeAll(async () => {
    ({ server, team, other, base, otherBase } = await startWithTeams(engine, {
      resolveTxt: async (name) => {
        const records = dns.get(name);
        if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
        return records;
      },
    }));
  });
  afterAll(async () => server?.stop());

  it("shows the workspace's name, id, plan, the person's role and what the plan includes", async () => {
    const res = await team.member.request('GET', base);
    expect(res.body.data).toMatchObject({
      id: team.workspaceId,
      plan: 'growth',
      role: 'MEMBER',
      features: { api: true, expiredUrl: true, webhooks: true },
    });
    expect(res.body.data.name).toMatch(/^Team \d+$/);
    const free = await seedTeam(server, 'free');
    const freeWs = await free.owner.request('GET', `/workspaces/${free.workspaceId}`);
    expect(freeWs.body.data.features).toEqual({
      api: false,
      expiredUrl: false,
      webhooks: false,
      conversions: false,
      goals: false,
    });
  });

  it('an OWNER or ADMIN renames the workspace, trimmed; the session lists the new name; others may not', async () => {
    const renamed = await team.admin.request('PATCH', base, { body: { name: '  Acme marketing  ' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: team.workspaceId, name: 'Acme marketing', role: 'ADMIN' });
    const listed = (await team.member.request('GET', '/session')).body.workspaces;
    expect(listed.find((w: any) => w.id === team.workspaceId).name).toBe('Acme marketing');
    expect((await team.owner.request('PATCH', base, { body: { name: 'Acme' } })).body.data.name).toBe('Acme');

    for (const name of ['', '   ']) {
      const blank = await team.owner.request('PATCH', base, { body: { name } });
      expect(blank.status).toBe(400);
      expect(blank.body).toMatchObject({ field: 'name' });
    }
    const long = await team.owner.request('PATCH', base, { body: { name: 'x'.repeat(201) } });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ field: 'name' });
    expect(long.body.error).toMatch(/200/);
    expect((await team.owner.request('PATCH', base, { body: { name: 'x'.repeat(200) } })).status).toBe(200);

    for (const who of [team.member, team.analyst]) {
      const refused = await who.request('PATCH', base, { body: { name: 'Mine now' } });
      expect(refused.status).toBe(403);
    }
    // Another workspace's is not found, and keeps its name.
    const before = (await other.owner.request('GET', otherBase)).body.data.name;
    expect((await team.owner.request('PATCH', otherBase, { body: { name: 'Taken over' } })).status).toBe(404);
    expect((await other.owner.request('GET', otherBase)).body.data.name).toBe(before);
    expect((await team.owner.request('GET', base)).body.data.name).toBe('x'.repeat(200));
  });

  describe('API keys', () => {
    it('a key is shown once, works on /api/v1 with its scopes, and stops when revoked', async () => {
      const made = await team.member.request('POST', `${base}/keys`, { body: { scopes: ['links:read'] } });
      expect(made.status).toBe(201);
      expect(made.body.key).toMatch(/^mk_[0-9a-f]{40,}$/);
      expect(made.body.data).toMatchObject({
        scopes: ['links:read'],
        expiresAt: null,
        revokedAt: null,
        user: { id: team.people.member.userId },
      });
      expect(made.body.key.endsWith(made.body.data.hint.replace(/^.*?([A-Za-z0-9]+)$/, '$1'))).toBe(true);
      // Listed without the key.
      const listed = await team.member.request('GET', `${base}/keys`);
      expect(JSON.stringify(listed.body)).not.toContain(made.body.key);
      expect(listed.body.data.map((k: any) => k.id)).toContain(made.body.data.id);

      const key = made.body.key;
      expect((await server.request('GET', '/api/v1/links', { key })).status).toBe(200);
      // Its scopes hold: no links:write.
      expect(
        (await server.request('POST', '/api/v1/links', { key, body: { url: 'https://example.com' } })).status,
      ).toBe(403);
      expect((await team.member.request('DELETE', `${base}/keys/${made.body.data.id}`)).status).toBe(204);
      expect((await server.request('GET', '/api/v1/links', { key })).status).toBe(401);
      const after = (await team.member.request('GET', `${base}/keys`)).body.data.find(
        (k: any) => k.id === made.body.data.id,
      );
      expect(after.revokedAt).not.toBeNull();
    });

    it('a key may have a name, trimmed, at most 100 characters; the list shows it beside the hint', async () => {
      const named = await team.member.request('POST', `${base}/keys`, {
        body: { scopes: ['links:read'], name: '  Zapier  ' },
      });
      expect(named.status).toBe(201);
      expect(named.body.data).toMatchObject({ name: 'Zapier', hint: named.body.key.slice(-4) });
      const listed = (await team.member.request('GET', `${base}/keys`)).body.data;
      expect(listed.find((k: any) => k.id === named.body.data.id)).toMatchObject({ name: 'Zapier' });
      // Without a name, or a blank one, the key has none.
      for (const body of [{ scopes: ['links:read'] }, { scopes: ['links:read'], name: '   ' }]) {
        const plain = await team.member.request('POST', `${base}/keys`, { body });
        expect(plain.status).toBe(201);
        expect(plain.body.data.name).toBeNull();
      }
      const before = (await team.member.request('GET', `${base}/keys`)).body.data.length;
      const long = await team.member.request('POST', `${base}/keys`, {
        body: { scopes: ['links:read'], name: 'x'.repeat(101) },
      });
      expect(long.status).toBe(400);
      expect(long.body).toMatchObject({ field: 'name' });
      expect((await team.member.request('GET', `${base}/keys`)).body.data.length).toBe(before);
      const most = await team.member.request('POST', `${base}/keys`, {
        body: { scopes: ['links:read'], name: 'x'.repeat(100) },
      });
      expect(most.body.data.name).toBe('x'.repeat(100));
    });

    it('takes an expiry in the future only, and known scopes only', async () => {
      const soon = new Date(Date.now() + 3_600_000).toISOString();
      const made = await team.admin.request('POST', `${base}/keys`, {
        body: { scopes: ['links:read', 'links:write'], expiresAt: soon },
      });
      expect(made.status).toBe(201);
      expect(Date.parse(made.body.data.expiresAt)).toBe(Date.parse(soon));
      const past = await team.admin.request('POST', `${base}/keys`, {
        body: { scopes: ['links:read'], expiresAt: '2020-01-01T00:00:00Z' },
      });
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
      expect((await team.analyst.request('POST', `${base}/keys`, { body: { scopes: ['links:read'] } })).status).toBe(
        403,
      );
    });

    it("a key gets only the scopes its person's role may hold, and the form is told which", async () => {
      const keyScopes = async (who: typeof team.owner) => (await who.request('GET', base)).body.data.keyScopes;
      const every = [
        'links:read',
        'links:write',
        'conversions:read',
        'conversions:write',
        'analytics:read',
        'pages:read',
        'pages:write',
        'webhooks:read',
        'webhooks:write',
        'team:read',
      ];
      expect(await keyScopes(team.owner)).toEqual(every);
      expect(await keyScopes(team.admin)).toEqual(every);
      expect(await keyScopes(team.member)).toEqual(every.filter((s) => s !== 'webhooks:write'));
      expect(await keyScopes(team.analyst)).toEqual([]);

      const mine = () => keysOf(knex(), team.workspaceId, team.people.member.userId);
      const before = (await mine()).length;
      const scopes = ['links:read', 'webhooks:write', 'webhooks:read'];
      const refused = await team.member.request('POST', `${base}/keys`, { body: { scopes } });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        field: 'scopes',
        error:
          'The role MEMBER may not hold the scope webhooks:write on an API key; it may hold ' +
          'links:read, links:write, conversions:read, conversions:write, analytics:read, pages:read, pages:write, ' +
          'webhooks:read, team:read',
      });
      expect((await mine()).length).toBe(before);
      // What a MEMBER may hold is made; an ADMIN may hold webhooks:write.
      const allowed = await team.member.request('POST', `${base}/keys`, { body: { scopes: ['webhooks:read'] } });
      expect(allowed.status).toBe(201);
      const adminKey = await team.admin.request('POST', `${base}/keys`, { body: { scopes: ['webhooks:write'] } });
      expect(adminKey.status).toBe(201);
      expect(adminKey.body.data.scopes).toEqual(['webhooks:write']);
    });

    it('a plan without the API makes no keys, and says so', async () => {
      for (const plan of ['free', 'pro'] as const) {
        const t = await seedTeam(server, plan);
        const res = await t.owner.request('POST', `/workspaces/${t.workspaceId}/keys`, {
          body: { scopes: ['links:read'] },
        });
        expect(res.status).toBe(403);
        expect(res.body.error).toBe(
          `The ${plan} plan does not include the API; API keys need the Growth plan or above`,
        );
      }
    });
  });

  describe('members', () => {
    it('only an OWNER removes an OWNER and changes roles; the last OWNER stays; members are added by invitation', async () => {
      // Adding is inviting (test/dashboard/invitations.test.ts): the members path makes nobody a member.
      const add = await team.admin.request('POST', `${base}/members`, {
        body: { email: `o-${Date.now()}@example.com`, role: 'MEMBER' },
      });
      expect(add.status).toBe(405);
      const role = await team.admin.request('PATCH', `${base}/members/${team.people.member.userId}`, {
        body: { role: 'ADMIN' },
      });
      expect(role.status).toBe(403);
      expect((await team.admin.request('DELETE', `${base}/members/${team.people.owner.userId}`)).status).toBe(403);
      const last = await team.owner.request('PATCH', `${base}/members/${team.people.owner.userId}`, {
        body: { role: 'ADMIN' },
      });
      expect(last.status).toBe(409);
      expect(last.body.error).toBe('The workspace needs an OWNER: make someone else OWNER first');
      expect((await team.owner.request('DELETE', `${base}/members/${team.people.owner.userId}`)).status).toBe(409);
      const promoted = await team.owner.request('PATCH', `${base}/members/${team.people.analyst.userId}`, {
        body: { role: 'MEMBER' },
      });
      expect(promoted.body.data.role).toBe('MEMBER');
      await team.owner.request('PATCH', `${base}/members/${team.people.analyst.userId}`, { body: { role: 'ANALYST' } });
      expect(await roleOf(knex(), team.workspaceId, team.people.analyst.userId)).toBe('ANALYST');
    });

    it('two OWNERs demoting each other at once: one OWNER remains', async () => {
      const t = await seedTeam(server);
      const second = await addMember(knex(), t.workspaceId, `o2-${Date.now()}@example.com`, 'OWNER');
      const answers = await Promise.all([
        t.owner.request('PATCH', `/workspaces/${t.workspaceId}/members/${second}`, { body: { role: 'ADMIN' } }),
        t.owner.request('PATCH', `/workspaces/${t.workspaceId}/members/${t.people.owner.userId}`, {
          body: { role: 'ADMIN' },
        }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const [{ n }] = await knex()('memberships')
        .where({ workspace_id: t.workspaceId, role: 'OWNER' })
        .count({ n: '*' });
      expect(Number(n)).toBe(1);
    });

    it('removing a member from their only workspace ends their sessions; members of another workspace are 404', async () => {
      const t = await seedTeam(server);
      const tb = `/workspaces/${t.workspaceId}`;
      expect((await t.admin.request('DELETE', `${tb}/members/${t.people.member.userId}`)).status).toBe(204);
      expect((await t.member.request('GET', '/session')).status).toBe(401);
      expect((await t.admin.request('GET', `${tb}/members`)).body.data.map((m: any) => m.userId)).not.toContain(
        t.people.member.userId,
      );
      expect((await t.owner.request('DELETE', `${tb}/members/${other.people.member.userId}`)).status).toBe(404);
      expect(
        (await t.owner.request('PATCH', `${tb}/members/${other.people.member.userId}`, { body: { role: 'ADMIN' } }))
          .status,
      ).toBe(404);
      expect((await t.owner.request('GET', `${otherBase}/members`)).status).toBe(404);
      expect(await roleOf(knex(), other.workspaceId, other.people.member.userId)).toBe('MEMBER');
    });
  });

  describe('domains', () => {
    it('adds a domain with its verification record, verifies it by DNS, serves links on it, disables it', async () => {
      const host = `go-${Date.now()}.example.com`;
      const added = await team.admin.request('POST', `${base}/domains`, { body: { host: host.toUpperCase() } });
      expect(added.status).toBe(201);
      const domain = added.body.data;
      expect(domain).toMatchObject({ host, status: 'PENDING', verifiedAt: null });
      expect(domain.verification).toEqual({
        cname: 'localhost',
        txtName: `_shortlink-verify.${host}`,
        txtValue: expect.stringMatching(/^shortlink-verify=[0-9a-f]{32}$/),
      });

      const missing = await team.admin.request('POST', `${base}/domains/${domain.id}/verify`);
      expect(missing.status).toBe(409);
      expect(missing.body.error).toBe(
        `No TXT record ${domain.verification.txtName} was found; publish ${domain.verification.txtName} = ${domain.verification.txtValue}, then verify again`,
      );
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

      const link = await team.member.request('POST', `${base}/links`, {
        body: { url: 'https://example.com/on-domain', slug: 'ondomain', domainId: domain.id },
      });
      expect(link.status).toBe(201);
      expect(link.body.data.shortUrl).toBe(`https://${host}/ondomain`);
      await server.changes.poll();
      expect((await server.request('GET', '/ondomain', { headers: { host } })).headers.location).toBe(
        'https://example.com/on-domain',
      );

      const disabled = await team.admin.request('POST', `${base}/domains/${domain.id}/disable`);
      expect(disabled.body.data.status).toBe('DISABLED');
      await server.changes.poll();
      expect((await server.request('GET', '/ondomain', { headers: { host } })).status).toBe(404);
    });

    it("refuses the service's own hosts, bad names, a host added twice; MEMBERs none; others' are 404", async () => {
      for (const host of ['localhost', 'not a host', 'http://x.example.com', '-bad-.example.com']) {
        const res = await team.owner.request('POST', `${base}/domains`, { body: { host } });
        expect(res.status, host).toBe(400);
        expect(res.body.field).toBe('host');
      }
      const host = `taken-${Date.now()}.example.com`;
      expect((await team.owner.request('POST', `${base}/domains`, { body: { host } })).status).toBe(201);
      const twice = await team.admin.request('POST', `${base}/domains`, { body: { host: host.toUpperCase() } });
      expect(twice.status).toBe(409);
      expect(twice.body.error).toBe(`The domain ${host} is already added to this workspace`);
      expect((await team.member.request('POST', `${base}/domains`, { body: { host: `m-${host}` } })).status).toBe(403);
      const theirs = (await other.owner.request('POST', `${otherBase}/domains`, { body: { host: `theirs-${host}` } }))
        .body.data;
      expect((await team.owner.request('POST', `${base}/domains/${theirs.id}/verify`)).status).toBe(404);
      expect((await team.owner.request('POST', `${base}/domains/${theirs.id}/disable`)).status).toBe(404);
      expect((await team.owner.request('GET', `${base}/domains`)).body.data.map((d: any) => d.id)).not.toContain(
        theirs.id,
      );
    });

    it('an unverified claim blocks nobody: the first workspace to verify owns the host', async () => {
      const host = `claimed-${Date.now()}.example.com`;
      // A squatter claims the host first and never verifies it; the real owner still adds it.
      const squat = await team.owner.request('POST', `${base}/domains`, { body: { host } });
      const real = await other.owner.request('POST', `${otherBase}/domains`, { body: { host } });
      expect([squat.status, real.status]).toEqual([201, 201]);
      expect(real.body.data).toMatchObject({ status: 'PENDING', verifiedAt: null, expiresAt: expect.any(String) });
      expect(Date.parse(real.body.data.expiresAt) - Date.parse(real.body.data.createdAt)).toBe(7 * 86_400_000);
      const { txtName } = real.body.data.verification;
      expect(squat.body.data.verification.txtName).toBe(txtName);
      expect(squat.body.data.verification.txtValue).not.toBe(real.body.data.verification.txtValue);

      // The host's DNS holds the real owner's record: they verify; the squatter cannot.
      dns.set(txtName, [[real.body.data.verification.txtValue]]);
      expect((await team.owner.request('POST', `${base}/domains/${squat.body.data.id}/verify`)).status).toBe(409);
      const verified = await other.owner.request('POST', `${otherBase}/domains/${real.body.data.id}/verify`);
      expect(verified.status).toBe(200);
      expect(verified.body.data).toMatchObject({ status: 'ACTIVE', expiresAt: null });
      // Even with its own record published too, a second workspace does not take a verified host.
      dns.set(txtName, [[real.body.data.verification.txtValue], [squat.body.data.verification.txtValue]]);
      const late = await team.owner.request('POST', `${base}/domains/${squat.body.data.id}/verify`);
      expect(late.status).toBe(409);
      expect(late.body.error).toBe(`The domain ${host} is already registered: another workspace verified it`);
      const listed = (await team.owner.request('GET', `${base}/domains`)).body.data;
      expect(listed.find((d: any) => d.id === squat.body.data.id).status).toBe('PENDING');
      // Nor adds it again; a third workspace cannot claim it either.
      const third = await seedTeam(server);
      const refused = await third.owner.request('POST', `/workspaces/${third.workspaceId}/domains`, { body: { host } });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe(`The domain ${host} is already registered: another workspace verified it`);

      // The host serves the owner's links only; the claim gives the squatter nothing to link on.
      const theirLink = await other.member.request('POST', `${otherBase}/links`, {
        body: { url: 'https://example.com/real-owner', slug: 'claimed', domainId: real.body.data.id },
      });
      expect(theirLink.status).toBe(201);
      const squatLink = await team.member.request('POST', `${base}/links`, {
        body: { url: 'https://example.com/squatter', slug: 'claimed', domainId: squat.body.data.id },
      });
      expect(squatLink.status).toBe(400);
      await server.changes.poll();
      const visit = await server.request('GET', '/claimed', { headers: { host } });
      expect(visit.headers.location).toBe('https://example.com/real-owner');
    });

    it('two workspaces verifying the same host at once: exactly one wins, the other stays PENDING', async () => {
      for (let round = 0; round < 3; round++) {
        const host = `race-${round}-${Date.now()}.example.com`;
        const a = (await team.owner.request('POST', `${base}/domains`, { body: { host } })).body.data;
        const b = (await other.owner.request('POST', `${otherBase}/domains`, { body: { host } })).body.data;
        // Both records are published (whoever controls the DNS made a mistake): only one may win.
        dns.set(a.verification.txtName, [[a.verification.txtValue], [b.verification.txtValue]]);
        const answers = await Promise.all([
          team.owner.request('POST', `${base}/domains/${a.id}/verify`),
          other.owner.request('POST', `${otherBase}/domains/${b.id}/verify`),
        ]);
        expect(answers.map((r) => r.status).sort(), host).toEqual([200, 409]);
        const rows = await knex()('domains').where({ host }).select('workspace_id', 'status', 'verified_at');
        expect(rows.filter((r: any) => r.status === 'ACTIVE')).toHaveLength(1);
        expect(rows.filter((r: any) => r.verified_at !== null)).toHaveLength(1);
        expect(rows.filter((r: any) => r.status === 'PENDING')).toHaveLength(1);
        const winner = answers[0].status === 200 ? team.workspaceId : other.workspaceId;
        expect(rows.find((r: any) => r.status === 'ACTIVE').workspace_id).toBe(winner);
        const loser = answers.find((r) => r.status === 409)!;
        expect(loser.body.error).toBe(`The domain ${host} is already registered: another workspace verified it`);
      }
    });

    it('a claim not verified within 7 days lapses: shown EXPIRED, not verifiable, and added again afresh', async () => {
      const host = `lapsed-${Date.now()}.example.com`;
      const added = (await team.owner.request('POST', `${base}/domains`, { body: { host } })).body.data;
      dns.set(added.verification.txtName, [[added.verification.txtValue]]);
      await knex()('domains')
        .where({ id: added.id })
        .update({ created_at: Date.now() - 7 * 86_400_000 - 1000 });
      const listed = (await team.owner.request('GET', `${base}/domains`)).body.data.find((d: any) => d.id === added.id);
      expect(listed).toMatchObject({ status: 'EXPIRED', verifiedAt: null });
      expect(Date.parse(listed.expiresAt)).toBeLessThan(Date.now());
      const verify = await team.owner.request('POST', `${base}/domains/${added.id}/verify`);
      expect(verify.status).toBe(409);
      expect(verify.body.error).toBe(`The claim on ${host} lapsed unverified; add the domain again for a new record`);
      expect((await knex()('domains').where({ id: added.id }).first()).status).toBe('PENDING');
      // Adding it again replaces the lapsed claim with a new one, with a new record to publish.
      const again = await team.owner.request('POST', `${base}/domains`, { body: { host } });
      expect(again.status).toBe(201);
      expect(again.body.data).toMatchObject({ host, status: 'PENDING' });
      expect(again.body.data.id).not.toBe(added.id);
      expect(again.body.data.verification.txtValue).not.toBe(added.verification.txtValue);
      const rows = await knex()('domains').where({ host, workspace_id: team.workspaceId }).pluck('id');
      expect(rows).toEqual([again.body.data.id]);
    });
  });

  describe('tags and campaigns', () => {
    it('makes tags (MEMBER too) and campaigns (OWNER and ADMIN), refusing taken tag names', async () => {
      const name = `tag-${Date.now()}`;
      const tag = await team.member.request('POST', `${base}/tags`, { body: { name, color: '#ff0000' } });
      expect(tag.status).toBe(201);
      expect(tag.body.data).toEqual({ id: expect.stringMatching(/^tag_/), name, color: '#ff0000' });
      expect((await team.member.request('POST', `${base}/tags`, { body: { name } })).body).toEqual({
        error: `A tag named "${name}" already exists`,
      });
      expect((await team.member.request('POST', `${base}/tags`, { body: { name: '   ' } })).status).toBe(400);
      expect((await team.member.request('POST', `${base}/tags`, { body: { name: 'x', color: 'red' } })).status).toBe(
        400,
      );
      expect((await team.analyst.request('GET', `${base}/tags`)).body.data.map((t: any) => t.name)).toContain(name);
      // The same name in another workspace is another tag.
      expect((await other.member.request('POST', `${otherBase}/tags`, { body: { name } })).status).toBe(201);

      expect((await team.member.request('POST', `${base}/campaigns`, { body: { name: 'Spring' } })).status).toBe(403);
      const campaign = await team.admin.request('POST', `${base}/campaigns`, { body: { name: 'Spring' } });
      expect(campaign.status).toBe(201);
      expect((await team.analyst.request('GET', `${base}/campaigns`)).body.data).toEqual([campaign.body.data]);
      expect((await other.owner.request('GET', `${otherBase}/campaigns`)).body.data).toEqual([]);
    });

    it('lists each tag with the live links that carry it; renames and deletes with the API rules and roles', async () => {
      const made = async (name: string) =>
        (await team.member.request('POST', `${base}/tags`, { body: { name } })).body.data.id as string;
      const [counted, spare] = [await made(`counted-${Date.now()}`), await made(`spare-${Date.now()}`)];
      const link = async (tagIds: string[]) =>
        (await team.member.request('POST', `${base}/links`, { body: { url: 'https://example.com/t', tagIds } })).body
          .data.id as string;
      const [a, , gone] = [await link([counted]), await link([counted, spare]), await link([counted])];
      // A deleted link is not counted: it is listed nowhere.
      expect((await team.owner.request('DELETE', `${base}/links/${gone}`)).status).toBe(204);
      const countOf = async (id: string) =>
        (await team.analyst.request('GET', `${base}/tags`)).body.data.find((t: any) => t.id === id)?.linkCount;
      expect(await countOf(counted)).toBe(2);
      expect(await countOf(spare)).toBe(1);

      // Renaming: MEMBER too, trimmed; blank 400, taken 409, another workspace's 404, ANALYST 403.
      const renamed = await team.member.request('PATCH', `${base}/tags/${spare}`, { body: { name: '  renamed  ' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body.data).toMatchObject({ id: spare, name: 'renamed' });
      expect((await team.member.request('GET', `${base}/links/${a}`)).status).toBe(200);
      const blank = await team.member.request('PATCH', `${base}/tags/${spare}`, { body: { name: '  ' } });
      expect(blank.status).toBe(400);
      expect(blank.body).toMatchObject({ field: 'name' });
      const long = await team.member.request('PATCH', `${base}/tags/${spare}`, { body: { name: 'x'.repeat(101) } });
      expect(long.status).toBe(400);
      expect(long.body).toMatchObject({ field: 'name' });
      const takenName = (await team.member.request('GET', `${base}/tags`)).body.data.find(
        (t: any) => t.id === counted,
      ).name;
      const taken = await team.member.request('PATCH', `${base}/tags/${spare}`, { body: { name: takenName } });
      expect(taken.status).toBe(409);
      expect(taken.body.error).toContain(takenName);
      expect((await team.analyst.request('PATCH', `${base}/tags/${spare}`, { body: { name: 'mine' } })).status).toBe(
        403,
      );
      const theirs = await other.member.request('POST', `${otherBase}/tags`, {
        body: { name: `theirs-${Date.now()}` },
      });
      expect(
        (await team.owner.request('PATCH', `${base}/tags/${theirs.body.data.id}`, { body: { name: 'ours' } })).status,
      ).toBe(404);

      // Deleting: OWNER and ADMIN only (as for links); the tag leaves its links, which stay.
      expect((await team.member.request('DELETE', `${base}/tags/${counted}`)).status).toBe(403);
      expect((await team.owner.request('DELETE', `${base}/tags/${theirs.body.data.id}`)).status).toBe(404);
      expect((await team.admin.request('DELETE', `${base}/tags/${counted}`)).status).toBe(204);
      expect(await countOf(counted)).toBeUndefined();
      const after = await team.member.request('GET', `${base}/links/${a}`);
      expect(after.status).toBe(200);
      expect(after.body.data.tags).toEqual([]);
      expect((await team.admin.request('DELETE', `${base}/tags/${counted}`)).status).toBe(404);
      expect((await other.member.request('GET', `${otherBase}/tags`)).body.data.map((t: any) => t.id)).toContain(
        theirs.body.data.id,
      );
    });
  });
});
