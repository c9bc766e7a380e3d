// The audit log through the dashboard API on every engine: OWNER and ADMIN read it (MEMBER and
// ANALYST 403, another workspace 404), filtered by person, action, object and time, in pages,
// and as CSV; a failed sign-in for a known email is recorded in the person's workspaces with the
// same answer as an unknown email's; no secret, password, token, key or address is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditMark, auditSince } from '../support/audit';
import { testEngines } from '../support/databases';
import { DASHBOARD_API, startWithTeams, type Team } from '../support/dashboard';
import type { TestServer } from '../support/server';

describe.each(testEngines())('the audit log on %s', (engine) => {
  let server: TestServer, team: Team, other: Team, base: string, otherBase: string;
  const knex = () => server.services.db.knex;

  beforeAll(async () => {
    ({ server, team, other, base, otherBase } = await startWithTeams(engine));
  });
  afterAll(async () => server?.stop());

  it('OWNER and ADMIN read it; MEMBER and ANALYST get 403; another workspace 404', async () => {
    for (const who of [team.owner, team.admin]) expect((await who.request('GET', `${base}/audit`)).status).toBe(200);
    for (const who of [team.member, team.analyst]) {
      expect((await who.request('GET', `${base}/audit`)).status).toBe(403);
      expect((await who.request('GET', `${base}/audit/export`)).status).toBe(403);
    }
    expect((await team.owner.request('GET', `${otherBase}/audit`)).status).toBe(404);
    expect((await team.owner.request('GET', `${otherBase}/audit/export`)).status).toBe(404);
  });

  it('filters by person, action, object and time, pages newest first, and names the person', async () => {
    const made = await team.member.request('POST', `${base}/tags`, { body: { name: 'Filtered' } });
    const tagId = made.body.data.id;
    await team.admin.request('PATCH', `${base}/tags/${tagId}`, { body: { name: 'Filtered 2' } });
    const list = async (q: string) => (await team.owner.request('GET', `${base}/audit?${q}`)).body;

    const byObject = await list(`objectType=tag&objectId=${tagId}`);
    expect(byObject.data.map((e: any) => e.action)).toEqual(['tag.updated', 'tag.created']);
    expect(byObject.data[0]).toMatchObject({
      objectId: tagId,
      actor: { type: 'user', userId: team.people.admin.userId, email: team.people.admin.email },
      changes: { name: { from: 'Filtered', to: 'Filtered 2' } },
      address: { network: expect.stringMatching(/\/(24|48)$/), hmac: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    // The same address, the same HMAC: "seen before" without keeping it.
    expect(byObject.data[0].address).toEqual(byObject.data[1].address);

    const byPerson = await list(`userId=${team.people.member.userId}&action=tag.created`);
    expect(byPerson.data.map((e: any) => e.objectId)).toContain(tagId);
    expect(byPerson.data.every((e: any) => e.actor.userId === team.people.member.userId)).toBe(true);

    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await list(`from=${future}`)).data).toEqual([]);
    expect((await list(`to=${new Date(0).toISOString()}`)).data).toEqual([]);
    const bad = await team.owner.request('GET', `${base}/audit?from=${future}&to=${new Date(0).toISOString()}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ field: 'to' });

    // Pages: `next` is the `before` of the following page, and the pages join without a gap.
    const all = (await list('limit=200')).data;
    const first = await list('limit=2');
    expect(first.data).toEqual(all.slice(0, 2));
    const second = await list(`limit=2&before=${first.next}`);
    expect(second.data).toEqual(all.slice(2, 4));
  });

  it('the CSV holds the filtered entries, oldest first, with their chain', async () => {
    await team.owner.request('POST', `${base}/campaigns`, { body: { name: '=HYPERLINK("x")' } });
    const res = await team.admin.request('GET', `${base}/audit/export?action=campaign.created`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.text.trim().split(/\r?\n/);
    expect(lines[0]).toBe(
      'seq,at,actor_type,actor_id,actor_user_id,actor_email,action,object_type,object_id,changes,address_network,address_hmac,prev_hash,hash',
    );
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('campaign.created');
    expect(lines[1]).toContain(team.people.owner.email);
  });

  it('a failed sign-in for a known email is recorded in their workspaces; an unknown one nowhere; same answer', async () => {
    const p = team.people.analyst;
    const mark = await auditMark(knex(), team.workspaceId);
    const otherMark = await auditMark(knex(), other.workspaceId);
    const wrong = await server.request('POST', `${DASHBOARD_API}/session`, {
      body: { email: p.email, password: 'not the password at all' },
    });
    const unknown = await server.request('POST', `${DASHBOARD_API}/session`, {
      body: { email: 'nobody-here@example.com', password: 'not the password at all' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    // Recorded beside the answer, not before it (src/http/dashboard/handlers/account.ts).
    let entries = await auditSince(knex(), team.workspaceId, mark);
    for (let i = 0; i < 50 && !entries.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      entries = await auditSince(knex(), team.workspaceId, mark);
    }
    expect(entries.map((e) => [e.action, e.object_id, e.actor_type])).toEqual([
      ['session.sign_in_failed', p.userId, 'anonymous'],
    ]);
    expect(await auditSince(knex(), other.workspaceId, otherMark)).toEqual([]);
  });

  it('stores no secret, password, token, key or whole address', async () => {
    const mark = await auditMark(knex(), team.workspaceId);
    const key = await team.owner.request('POST', `${base}/keys`, { body: { scopes: ['links:read'] } });
    const hook = await team.owner.request('POST', `${base}/webhooks/subscriptions`, {
      body: {
        variant: 'B',
        url: 'https://hooks.example.com/s',
        events: ['link.created'],
        secret: 'a-secret-of-my-own-choice',
      },
    });
    const link = await team.owner.request('POST', `${base}/links`, {
      body: { url: 'https://example.com/secret', password: 'link password 1' },
    });
    await team.owner.request('PATCH', `${base}/links/${link.body.data.id}`, { body: { password: 'link password 2' } });
    const invite = await team.owner.request('POST', `${base}/invitations`, {
      body: { email: 'secretive@example.com', role: 'MEMBER' },
    });
    const token = new URL(invite.body.inviteUrl).searchParams.get('token')!;
    const stored = JSON.stringify(await auditSince(knex(), team.workspaceId, mark));
    for (const secret of [
      key.body.key,
      'a-secret-of-my-own-choice',
      'link password 1',
      'link password 2',
      token,
      '127.0.0.1',
    ])
      expect(stored).not.toContain(secret);
    expect(hook.status).toBe(201);
    const changes = (await auditSince(knex(), team.workspaceId, mark)).map((e) => JSON.parse(e.changes));
    expect(changes).toContainEqual(expect.objectContaining({ key: { secret: true } }));
    expect(changes).toContainEqual(expect.objectContaining({ secret: { secret: true } }));
    expect(changes).toContainEqual(expect.objectContaining({ password: { secret: true } }));
  });
});
