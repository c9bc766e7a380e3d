// People in the dashboard: a member with a password, and a signed-in client that sends the
// session cookie and the anti-forgery token the way the single-page app does.
import type { Knex } from 'knex';
import { afterAll, beforeAll } from 'vitest';
import type { Role } from '../../src/domain/access';
import * as accounts from '../../src/db/repos/accounts';
import { addMember, createWorkspace } from '../../src/db/repos/workspaces';
import { hashPassword } from '../../src/domain/passwords';
import type { Engine } from '../../src/db/knex';
import { startTestServer, type RequestOptions, type TestResponse, type TestServer } from './server';

export const DASHBOARD_API = '/app/api';
let counter = 0;
let sharedHash: Promise<string> | undefined;
/** Every seeded person has this password (hashed once: scrypt is slow on purpose). */
export const PASSWORD = 'correct horse battery';

export interface Person {
  userId: string;
  email: string;
  password: string;
}

/** A member of the workspace who has set their password. */
export async function seedPerson(knex: Knex, workspaceId: string, role: Role, email?: string): Promise<Person> {
  const address = email ?? `person${++counter}-${Date.now()}@example.com`;
  const userId = await addMember(knex, workspaceId, address, role);
  await accounts.setPassword(knex, userId, await (sharedHash ??= hashPassword(PASSWORD)), Date.now());
  return { userId, email: address, password: PASSWORD };
}

export interface DashboardClient {
  cookie: string;
  csrfToken: string;
  /** The session answer of the sign-in. */
  session: any;
  /** A dashboard API request (path under /app/api), with the cookie, and the token on a change. */
  request(method: string, path: string, opts?: RequestOptions & { csrf?: string | null }): Promise<TestResponse>;
}

/** The session cookie's `name=value` from a Set-Cookie answer. */
export function cookieOf(res: TestResponse): string {
  const header = res.headers['set-cookie'];
  const first = (Array.isArray(header) ? header : [header ?? ''])[0]!;
  return first.split(';')[0];
}

/** The pending second step's cookie (`sl_second_factor`) `name=value` from a sign-in answer. */
export function pendingCookie(res: TestResponse): string {
  const all = [res.headers['set-cookie'] ?? []].flat();
  const found = all.find((c) => c.startsWith('sl_second_factor='));
  if (!found) throw new Error(`no pending cookie in ${JSON.stringify(all)}`);
  return found.split(';')[0];
}

export function clientFor(
  server: TestServer,
  cookie: string,
  csrfToken: string,
  session: any = undefined,
): DashboardClient {
  return {
    cookie,
    csrfToken,
    session,
    request(method, path, opts = {}) {
      const headers: Record<string, string> = { cookie, ...opts.headers };
      const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
      const token = opts.csrf === undefined ? csrfToken : opts.csrf;
      if (unsafe && token !== null) headers['x-csrf-token'] = token;
      return server.request(method, `${DASHBOARD_API}${path}`, { ...opts, headers });
    },
  };
}

export async function signIn(
  server: TestServer,
  person: { email: string; password: string },
): Promise<DashboardClient> {
  const res = await server.request('POST', `${DASHBOARD_API}/session`, {
    body: { email: person.email, password: person.password },
  });
  if (res.status !== 200) throw new Error(`sign-in of ${person.email} answered ${res.status}: ${res.text}`);
  return clientFor(server, cookieOf(res), res.body.csrfToken, res.body);
}

/** A workspace with a signed-in member of each role. */
export async function seedTeam(server: TestServer, plan: 'free' | 'pro' | 'growth' | 'business' = 'growth') {
  const knex = server.services.db.knex;
  const workspaceId = await createWorkspace(knex, `Team ${++counter}`, plan);
  const roles: Role[] = ['OWNER', 'ADMIN', 'MEMBER', 'ANALYST'];
  const people = await Promise.all(roles.map((role) => seedPerson(knex, workspaceId, role)));
  const clients = await Promise.all(people.map((p) => signIn(server, p)));
  const [owner, admin, member, analyst] = clients;
  const [ownerP, adminP, memberP, analystP] = people;
  return {
    workspaceId,
    owner,
    admin,
    member,
    analyst,
    people: { owner: ownerP, admin: adminP, member: memberP, analyst: analystP },
  };
}

/** A workspace with a signed-in member of each role (what seedTeam gives). */
export type Team = Awaited<ReturnType<typeof seedTeam>>;

/** A server and two teams on it: `team`, and `other` whose objects `team` must not reach. */
export interface TwoTeams {
  server: TestServer;
  team: Team;
  other: Team;
  /** The dashboard API path of each team's workspace. */
  base: string;
  otherBase: string;
}

/** Starts a test server on `engine` (`opts` as startTestServer takes them) and seeds two teams. */
export async function startWithTeams(engine: Engine, opts?: Parameters<typeof startTestServer>[1]): Promise<TwoTeams> {
  const server = await startTestServer(engine, opts);
  const team = await seedTeam(server);
  const other = await seedTeam(server);
  return {
    server,
    team,
    other,
    base: `/workspaces/${team.workspaceId}`,
    otherBase: `/workspaces/${other.workspaceId}`,
  };
}

/**
 * For a describe block: starts a test server on `engine` with one team (seedTeam) before its tests
 * and stops it after them. The object returned is filled in by the time the tests run.
 */
export function serverWithTeam(
  engine: Engine,
  opts?: Parameters<typeof startTestServer>[1],
): { server: TestServer; team: Team } {
  const fixture = {} as { server: TestServer; team: Team };
  beforeAll(async () => {
    fixture.server = await startTestServer(engine, opts);
    fixture.team = await seedTeam(fixture.server);
  });
  afterAll(async () => fixture.server?.stop());
  return fixture;
}
