// A person's own sessions (openapi/dashboard.yaml, Your sessions), through HTTPS on every engine:
// listed with what tells browsers apart and never a token, this one marked; another person's
// session is 404 and stays; ending one signs that browser out, ending the current one clears the
// cookie, and "all others" keeps only this one.
import { describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { clientFor, cookieOf, DASHBOARD_API, PASSWORD, seedPerson, serverWithTeam } from '../support/dashboard';

const SAFARI_ON_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

describe.each(testEngines())('own sessions on %s', (engine) => {
  const fixture = serverWithTeam(engine);
  const knex = () => fixture.server.services.db.knex;
  const signInWith = async (person: { email: string }, ua?: string) => {
    const res = await fixture.server.request('POST', `${DASHBOARD_API}/session`, {
      body: { email: person.email, password: PASSWORD },
      headers: ua ? { 'user-agent': ua } : {},
    });
    expect(res.status).toBe(200);
    return clientFor(fixture.server, cookieOf(res), res.body.csrfToken, res.body);
  };

  it('lists only the person’s own live sessions, this one marked, with browser and system, no token', async () => {
    const person = await seedPerson(knex(), fixture.team.workspaceId, 'ANALYST');
    const phone = await signInWith(person, SAFARI_ON_IOS);
    const desk = await signInWith(person);
    const res = await desk.request('GET', '/sessions');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    const [mine, other] = [res.body.data.find((s: any) => s.current), res.body.data.find((s: any) => !s.current)];
    expect(other).toMatchObject({ browser: 'Mobile Safari', os: 'iOS', place: null, current: false });
    expect(mine.current).toBe(true);
    // Neither the cookie's token nor its stored hash is shown.
    const token = phone.cookie.split('=')[1];
    const stored = await knex()('sessions').where({ user_id: person.userId }).pluck('id');
    for (const secret of [token, ...stored]) expect(res.text).not.toContain(secret);
    // The phone sees the same two, itself current.
    const fromPhone = await phone.request('GET', '/sessions');
    expect(fromPhone.body.data.find((s: any) => s.current).id).toBe(other.id);
    // Another person (an OWNER, even) never sees them.
    const owner = await fixture.team.owner.request('GET', '/sessions');
    expect(owner.body.data.map((s: any) => s.id)).not.toContain(other.id);
  });

  it('ends one session: that browser is signed out, the others stay; another person’s is 404', async () => {
    const person = await seedPerson(knex(), fixture.team.workspaceId, 'MEMBER');
    const phone = await signInWith(person, SAFARI_ON_IOS);
    const desk = await signInWith(person);
    const phoneId = (await phone.request('GET', '/sessions')).body.data.find((s: any) => s.current).id;
    // Not theirs: the team's owner cannot end it.
    const refused = await fixture.team.owner.request('DELETE', `/sessions/${phoneId}`);
    expect(refused.status).toBe(404);
    expect((await phone.request('GET', '/session')).status).toBe(200);
    // Without the anti-forgery token: 403, nothing ended.
    expect((await desk.request('DELETE', `/sessions/${phoneId}`, { csrf: null })).status).toBe(403);
    const ended = await desk.request('DELETE', `/sessions/${phoneId}`);
    expect(ended.status).toBe(204);
    expect(ended.headers['set-cookie']).toBeUndefined();
    expect((await phone.request('GET', '/session')).status).toBe(401);
    expect((await desk.request('GET', '/session')).status).toBe(200);
    expect((await desk.request('DELETE', `/sessions/${phoneId}`)).status).toBe(404);
  });

  it('ending the current session signs out and clears the cookie', async () => {
    const person = await seedPerson(knex(), fixture.team.workspaceId, 'MEMBER');
    const desk = await signInWith(person);
    const id = (await desk.request('GET', '/sessions')).body.data[0].id;
    const res = await desk.request('DELETE', `/sessions/${id}`);
    expect(res.status).toBe(204);
    expect(String((res.headers['set-cookie'] as string[])[0])).toContain('Max-Age=0');
    expect((await desk.request('GET', '/session')).status).toBe(401);
  });

  it('"sign out everywhere else" keeps only this session', async () => {
    const person = await seedPerson(knex(), fixture.team.workspaceId, 'MEMBER');
    const others = [await signInWith(person), await signInWith(person, SAFARI_ON_IOS)];
    const desk = await signInWith(person);
    expect((await desk.request('DELETE', '/sessions/others')).status).toBe(204);
    for (const o of others) expect((await o.request('GET', '/session')).status).toBe(401);
    const left = await desk.request('GET', '/sessions');
    expect(left.body.data).toHaveLength(1);
    expect(left.body.data[0].current).toBe(true);
    // Another person's sessions are untouched.
    expect((await fixture.team.owner.request('GET', '/session')).status).toBe(200);
  });

  it('needs a session', async () => {
    expect((await fixture.server.request('GET', `${DASHBOARD_API}/sessions`)).status).toBe(401);
    expect((await fixture.server.request('DELETE', `${DASHBOARD_API}/sessions/others`)).status).toBe(401);
  });
});
