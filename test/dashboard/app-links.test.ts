// App deep links through HTTPS on every engine: a custom domain's apple-app-site-association and
// assetlinks.json stored in the dashboard by an OWNER or ADMIN, shape-checked, and served at
// /.well-known/ on that host only (as application/json, byte for byte, no redirect); 404 where
// a host has none; roles and other workspaces; a change made on one process served by another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { seedTeam, startWithTeams, type Team } from '../support/dashboard';
import { startTestServer, twoProcessesOnOnePostgres, type TestServer } from '../support/server';
import { AASA, ANDROID, APPLE, ASSETLINKS, FINGERPRINT } from '../support/app-links';

const SHORT = 'sho.rt';
/** Every rule of the shape check: a body, and the field its 400 must name. */
const BAD: Array<[string, object, string]> = [
  ['apple not an object', { apple: [] }, 'apple'],
  ['apple with none of its sections', { apple: { other: {} } }, 'apple'],
  ['applinks not an object', { apple: { applinks: 'x' } }, 'apple.applinks'],
  ['details missing', { apple: { applinks: {} } }, 'apple.applinks.details'],
  ['a detail not an object', { apple: { applinks: { details: ['x'] } } }, 'apple.applinks.details.0'],
  [
    'appIDs empty',
    { apple: { applinks: { details: [{ appIDs: [], paths: ['*'] }] } } },
    'apple.applinks.details.0.appIDs',
  ],
  [
    'an app id without a team',
    { apple: { applinks: { details: [{ appIDs: ['com.example.app'], paths: ['*'] }] } } },
    'apple.applinks.details.0.appIDs.0',
  ],
  ['no appID nor appIDs', { apple: { applinks: { details: [{ paths: ['*'] }] } } }, 'apple.applinks.details.0.appID'],
  [
    'neither paths nor components',
    { apple: { applinks: { details: [{ appID: 'ABCDE12345.com.example.app' }] } } },
    'apple.applinks.details.0.paths',
  ],
  [
    'paths not strings',
    { apple: { applinks: { details: [{ appID: 'ABCDE12345.com.example.app', paths: [1] }] } } },
    'apple.applinks.details.0.paths',
  ],
  [
    'components not objects',
    { apple: { applinks: { details: [{ appID: 'ABCDE12345.com.example.app', components: ['/'] }] } } },
    'apple.applinks.details.0.components',
  ],
  ['webcredentials without apps', { apple: { webcredentials: {} } }, 'apple.webcredentials.apps'],
  ['appclips with a bad id', { apple: { appclips: { apps: ['nope'] } } }, 'apple.appclips.apps.0'],
  ['android empty', { android: [] }, 'android'],
  ['android an object', { android: {} }, 'android'],
  ['a statement not an object', { android: ['x'] }, 'android.0'],
  ['relation empty', { android: [{ ...ANDROID[0], relation: [] }] }, 'android.0.relation'],
  ['no target', { android: [{ relation: ['x'] }] }, 'android.0.target'],
  [
    'an unknown namespace',
    { android: [{ relation: ['x'], target: { namespace: 'ios_app' } }] },
    'android.0.target.namespace',
  ],
  [
    'a bad package name',
    { android: [{ relation: ['x'], target: { ...ANDROID[0].target, package_name: 'app' } }] },
    'android.0.target.package_name',
  ],
  [
    'a lower-case fingerprint',
    {
      android: [
        { relation: ['x'], target: { ...ANDROID[0].target, sha256_cert_fingerprints: [FINGERPRINT.toLowerCase()] } },
      ],
    },
    'android.0.target.sha256_cert_fingerprints.0',
  ],
  [
    'a short fingerprint',
    {
      android: [
        { relation: ['x'], target: { ...ANDROID[0].target, sha256_cert_fingerprints: [FINGERPRINT.slice(3)] } },
      ],
    },
    'android.0.target.sha256_cert_fingerprints.0',
  ],
  [
    'no fingerprints',
    { android: [{ relation: ['x'], target: { ...ANDROID[0].target, sha256_cert_fingerprints: [] } }] },
    'android.0.target.sha256_cert_fingerprints',
  ],
  [
    'a web site over http',
    { android: [ANDROID[0], { relation: ['x'], target: { namespace: 'web', site: 'http://example.com' } }] },
    'android.1.target.site',
  ],
];

/** Adds `host` to the team's workspace and verifies it (the DNS answers what `dns` holds). */
async function activeDomain(team: Team, dns: Map<string, string[][]>, host: string): Promise<string> {
  const added = await team.owner.request('POST', `/workspaces/${team.workspaceId}/domains`, { body: { host } });
  expect(added.status).toBe(201);
  const { id, verification } = added.body.data;
  dns.set(verification.txtName, [[verification.txtValue]]);
  const verified = await team.owner.request('POST', `/workspaces/${team.workspaceId}/domains/${id}/verify`);
  expect(verified.body.data.status).toBe('ACTIVE');
  return id;
}

const fakeDns = (dns: Map<string, string[][]>) => async (name: string) => {
  const records = dns.get(name);
  if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return records;
};

describe.each(testEngines())('app deep links on %s', (engine) => {
  let server: TestServer, team: Team, other: Team, base: string, otherBase: string;
  const dns = new Map<string, string[][]>();
  const wellKnown = (path: string, host: string) => server.request('GET', path, { headers: { host } });

  beforeAll(async () => {
    ({ server, team, other, base, otherBase } = await startWithTeams(engine, {
      env: { SHORT_DOMAIN: SHORT },
      resolveTxt: fakeDns(dns),
    }));
  });
  afterAll(async () => server?.stop());

  it('serves what an ADMIN stores on the domain’s host only, as application/json, byte for byte', async () => {
    const id = await activeDomain(team, dns, 'go.applinks.example');
    const theirs = await activeDomain(other, dns, 'go.other-applinks.example');
    // None yet: 404 on the host, as JSON like its other unknown paths.
    const none = await wellKnown(AASA, 'go.applinks.example');
    expect(none.status).toBe(404);
    expect(none.body.error).toMatch(/apple-app-site-association/);
    expect((await team.member.request('GET', `${base}/domains/${id}/app-links`)).body.data).toEqual({
      domainId: id,
      host: 'go.applinks.example',
      served: true,
      apple: null,
      android: null,
      updatedAt: null,
    });

    const put = await team.admin.request('PUT', `${base}/domains/${id}/app-links`, {
      body: { apple: APPLE, android: ANDROID },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ domainId: id, served: true, apple: APPLE, android: ANDROID });
    expect(Date.parse(put.body.data.updatedAt)).toBeGreaterThan(Date.now() - 60_000);

    for (const [path, doc] of [
      [AASA, APPLE],
      [ASSETLINKS, ANDROID],
    ] as const) {
      const res = await wellKnown(path, 'GO.applinks.example:443');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toBe(JSON.stringify(doc));
      const head = await server.request('HEAD', path, { headers: { host: 'go.applinks.example' } });
      expect([head.status, head.headers['content-type'], head.text]).toEqual([200, 'application/json', '']);
      // Not on the shared host, another workspace's domain, or a host that is no domain.
      for (const host of [SHORT, 'go.other-applinks.example', 'nowhere.example', '127.0.0.1'])
        expect((await wellKnown(path, host)).status).toBe(404);
    }
    expect(theirs).not.toBe(id);
    // A member reads them; the other workspace cannot reach them.
    expect((await team.analyst.request('GET', `${base}/domains/${id}/app-links`)).body.data.apple).toEqual(APPLE);
    expect((await other.owner.request('GET', `${otherBase}/domains/${id}/app-links`)).status).toBe(404);
  });

  it('answers 403 to a MEMBER or ANALYST and 404 for another workspace’s domain, storing nothing', async () => {
    const id = await activeDomain(team, dns, 'roles.applinks.example');
    for (const who of [team.member, team.analyst]) {
      const res = await who.request('PUT', `${base}/domains/${id}/app-links`, { body: { apple: APPLE } });
      expect(res.status).toBe(403);
    }
    const theirs = await activeDomain(other, dns, 'theirs.applinks.example');
    const cross = await team.owner.request('PUT', `${base}/domains/${theirs}/app-links`, { body: { apple: APPLE } });
    expect(cross.status).toBe(404);
    const viaOwn = await team.owner.request('PUT', `${otherBase}/domains/${theirs}/app-links`, {
      body: { apple: APPLE },
    });
    expect(viaOwn.status).toBe(404);
    expect((await wellKnown(AASA, 'roles.applinks.example')).status).toBe(404);
    expect((await wellKnown(AASA, 'theirs.applinks.example')).status).toBe(404);
    expect((await other.owner.request('GET', `${otherBase}/domains/${theirs}/app-links`)).body.data.apple).toBe(null);
  });

  it('refuses every bad shape with a 400 naming the field, and keeps what was stored', async () => {
    const id = await activeDomain(team, dns, 'shapes.applinks.example');
    const path = `${base}/domains/${id}/app-links`;
    expect((await team.owner.request('PUT', path, { body: { apple: APPLE, android: ANDROID } })).status).toBe(200);
    for (const [what, body, field] of BAD) {
      const res = await team.owner.request('PUT', path, { body: { apple: APPLE, ...body } });
      expect({ what, status: res.status, field: res.body.field }).toEqual({ what, status: 400, field });
      expect(res.body.error).toContain(field);
    }
    // Not JSON of the contract's kinds: refused by the contract, naming the field.
    const text = await team.owner.request('PUT', path, { body: { apple: 'ABCDE12345.com.example.app' } });
    expect([text.status, text.body.field]).toEqual([400, 'apple']);
    const extra = await team.owner.request('PUT', path, { body: { apple: APPLE, ios: {} } });
    expect(extra.status).toBe(400);
    const stored = (await team.owner.request('GET', path)).body.data;
    expect([stored.apple, stored.android]).toEqual([APPLE, ANDROID]);
    // Several changes at once all succeed; one of them is what stays.
    const bodies = [{ apple: APPLE }, { android: ANDROID }, { apple: APPLE, android: ANDROID }, {}];
    const answers = await Promise.all(bodies.map((body) => team.owner.request('PUT', path, { body })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const last = (await team.owner.request('GET', path)).body.data;
    expect(answers.map((a) => [a.body.data.apple, a.body.data.android])).toContainEqual([last.apple, last.android]);
    await team.owner.request('PUT', path, { body: { apple: APPLE, android: ANDROID } });
    expect((await wellKnown(ASSETLINKS, 'shapes.applinks.example')).text).toBe(JSON.stringify(ANDROID));
  });

  it('a document left out is removed; a domain that stops being ACTIVE stops serving them', async () => {
    const id = await activeDomain(team, dns, 'life.applinks.example');
    const path = `${base}/domains/${id}/app-links`;
    await team.owner.request('PUT', path, { body: { apple: APPLE, android: ANDROID } });
    expect((await wellKnown(ASSETLINKS, 'life.applinks.example')).status).toBe(200);
    const onlyApple = await team.owner.request('PUT', path, { body: { apple: APPLE } });
    expect(onlyApple.body.data.android).toBe(null);
    expect((await wellKnown(ASSETLINKS, 'life.applinks.example')).status).toBe(404);
    expect((await wellKnown(AASA, 'life.applinks.example')).status).toBe(200);
    expect((await team.admin.request('POST', `${base}/domains/${id}/disable`)).status).toBe(200);
    expect((await wellKnown(AASA, 'life.applinks.example')).status).toBe(404);
    expect((await team.owner.request('GET', path)).body.data).toMatchObject({ served: false, apple: APPLE });
    expect((await team.owner.request('POST', `${base}/domains/${id}/verify`)).status).toBe(200);
    expect((await wellKnown(AASA, 'life.applinks.example')).text).toBe(JSON.stringify(APPLE));
    const cleared = await team.owner.request('PUT', path, { body: {} });
    expect(cleared.body.data).toMatchObject({ apple: null, android: null, updatedAt: null });
    expect((await wellKnown(AASA, 'life.applinks.example')).status).toBe(404);
  });

  it('keeps a pending domain’s documents without serving them until it is verified', async () => {
    const fresh = await seedTeam(server);
    const added = await fresh.owner.request('POST', `/workspaces/${fresh.workspaceId}/domains`, {
      body: { host: 'pending.applinks.example' },
    });
    const { id, verification } = added.body.data;
    const path = `/workspaces/${fresh.workspaceId}/domains/${id}/app-links`;
    const put = await fresh.owner.request('PUT', path, { body: { android: ANDROID } });
    expect(put.body.data).toMatchObject({ served: false, android: ANDROID });
    expect((await wellKnown(ASSETLINKS, 'pending.applinks.example')).status).toBe(404);
    dns.set(verification.txtName, [[verification.txtValue]]);
    await fresh.owner.request('POST', `/workspaces/${fresh.workspaceId}/domains/${id}/verify`);
    expect((await wellKnown(ASSETLINKS, 'pending.applinks.example')).text).toBe(JSON.stringify(ANDROID));
  });
});

const postgres = testEngines().filter((e) => e === 'postgres');

describe.skipIf(!postgres.length)('app deep links across two processes on one Postgres', () => {
  const dns = new Map<string, string[][]>();
  const servers = twoProcessesOnOnePostgres((database) =>
    startTestServer('postgres', { database, env: { SHORT_DOMAIN: SHORT }, resolveTxt: fakeDns(dns) }),
  );

  it('serves a change made through one process on the other within a second', async () => {
    const { a, b } = servers;
    const team = await seedTeam(a);
    const id = await activeDomain(team, dns, 'mp.applinks.example');
    const onB = () => b.request('GET', AASA, { headers: { host: 'mp.applinks.example' } });
    // The feed reads the last 5 s of changes on every poll (src/redirect/changes.ts), and the
    // verification is one: past it, only the app-links change can make b forget the host.
    await new Promise((r) => setTimeout(r, 5_500));
    expect((await onB()).status).toBe(404); // b now holds "none" for the host
    const path = `/workspaces/${team.workspaceId}/domains/${id}/app-links`;
    await team.owner.request('PUT', path, { body: { apple: APPLE } });
    await within(1000, async () => (await onB()).status === 200);
    expect((await onB()).text).toBe(JSON.stringify(APPLE));
    await team.owner.request('PUT', path, { body: { apple: { webcredentials: APPLE.webcredentials } } });
    await within(1000, async () => (await onB()).text === JSON.stringify({ webcredentials: APPLE.webcredentials }));
  });
});

/** Polls until `check` passes. */
async function within(ms: number, check: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`not within ${ms} ms`);
}
