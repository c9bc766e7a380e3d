// One-time tokens never reach the request log: set-up links, the first-run link, invitations,
// shared reports' addresses and their API paths, a token inside an encoded next=, and the
// Referer of a page opened with one. Through HTTPS on every engine, reading the log as written.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { DASHBOARD_API, seedTeam } from '../support/dashboard';
import { seedWorkspace } from '../support/seed';
import { startTestServer, type TestServer } from '../support/server';

describe.each(testEngines())('tokens kept out of the request log on %s', (engine) => {
  let server: TestServer;
  const logs: string[] = [];
  /** Each test's tokens: unlike anything else in a log line, so a leak of any part shows. */
  let n = 0;
  const secret = () => `SeCrEt${++n}x${Math.random().toString(36).slice(2, 10)}`;

  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (c) => logs.push(String(c)));
    server = await startTestServer(engine, { logStream: stream });
  });
  afterAll(async () => server?.stop());

  /** The request lines logged since `from`, once the answers' log lines are written. */
  async function requestLines(from: number): Promise<any[]> {
    await new Promise((r) => setTimeout(r, 100));
    return logs
      .slice(from)
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.req);
  }

  it('redacts token query parameters, shared-report segments and tokens inside next=', async () => {
    const from = logs.length;
    const [s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11] = Array.from({ length: 11 }, secret);
    const addresses = [
      `/app/setup-password?token=${s1}`,
      `/app/setup?token=${s2}`,
      `${DASHBOARD_API}/first-run?token=${s3}`,
      `/app/shared/${s4}`,
      `${DASHBOARD_API}/shared/${s5}`,
      `/app/invite?token=${s6}&x=1`,
      `${DASHBOARD_API}/invitation?TOKEN=${s7}`,
      `/app/login?next=${encodeURIComponent(`/setup-password?token=${s8}`)}`,
      `/app/login?next=${encodeURIComponent(encodeURIComponent(`/invite?token=${s9}`))}`,
      `/app/login?next=${encodeURIComponent(`/shared/${s10}`)}`,
      `/app/setup-password?tok%65n=${s11}`,
    ];
    for (const address of addresses) await server.request('GET', address);
    const s12 = secret();
    await server.request('POST', `${DASHBOARD_API}/shared/${s12}/unlock`, { body: { password: 'not it' } });
    const lines = await requestLines(from);
    const text = JSON.stringify(lines);
    for (const s of [s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12]) expect(text, s).not.toContain(s);
    // The addresses themselves are still there to read, with their tokens replaced.
    const urls = lines.map((l) => l.req.url);
    expect(urls).toEqual(
      expect.arrayContaining([
        '/app/setup-password?token=[REDACTED]',
        '/app/shared/[REDACTED]',
        `${DASHBOARD_API}/shared/[REDACTED]/unlock`,
        '/app/invite?token=[REDACTED]&x=1',
        `/app/login?next=${encodeURIComponent('/setup-password?token=[REDACTED]')}`,
      ]),
    );
    expect(lines.find((l) => l.req.url.startsWith('/app/setup-password')).req.query).toEqual({ token: '[REDACTED]' });
  });

  it("redacts a real invitation link's token, and the Referer of the page it opened", async () => {
    const team = await seedTeam(server);
    const invited = await team.admin.request('POST', `/workspaces/${team.workspaceId}/invitations`, {
      body: { email: `log-${Date.now()}@example.com`, role: 'MEMBER' },
    });
    const link = new URL(invited.body.inviteUrl);
    const token = link.searchParams.get('token')!;
    const from = logs.length;
    await server.request('GET', `${link.pathname}${link.search}`);
    // The page's own requests carry its address as the Referer (Referrer-Policy: same-origin).
    await server.request('GET', `${DASHBOARD_API}/invitation?token=${token}`, {
      headers: { referer: link.toString() },
    });
    await server.request('GET', '/app/favicon.svg', { headers: { referer: link.toString() } });
    const lines = await requestLines(from);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(lines)).not.toContain(token);
    expect(lines.filter((l) => l.req.headers.referer).map((l) => l.req.headers.referer)).toEqual([
      'https://localhost:8443/app/invite?token=[REDACTED]',
      'https://localhost:8443/app/invite?token=[REDACTED]',
    ]);
    // The token still works: only the log forgot it.
    const body = { token, password: 'a long enough password' };
    const made = await server.request('POST', `${DASHBOARD_API}/invitation/register`, { body });
    expect(made.status).toBe(201);
  });

  it('keeps everything else of the address, and keys and cookies stay out as before', async () => {
    const from = logs.length;
    const key = `mk_${'0'.repeat(64)}`;
    await server.request('GET', '/api/v1/links?page=2&limit=5', { key, headers: { cookie: 'sl_session=abc' } });
    const [line] = await requestLines(from);
    expect(line.req.url).toBe('/api/v1/links?page=2&limit=5');
    expect(line.req.query).toEqual({ page: '2', limit: '5' });
    expect(line.req.headers.authorization).toBe('[Redacted]');
    expect(line.req.headers.cookie).toBe('[Redacted]');
  });
});

describe.each(testEngines())('one short request line at info on %s', (engine) => {
  let server: TestServer;
  const logs: string[] = [];

  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (c) => logs.push(String(c)));
    // Conversions off: their operations answer 503, which is written in full.
    server = await startTestServer(engine, {
      logStream: stream,
      logLevel: 'info',
      env: { FEATURE_CONVERSIONS: 'off' },
    });
  });
  afterAll(async () => server?.stop());

  it('writes method, address, status and time with the request id, and nothing of the headers', async () => {
    const from = logs.length;
    const key = `mk_${'0'.repeat(64)}`;
    const token = `SeCrEt${Math.random().toString(36).slice(2, 10)}`;
    const listed = await server.request('GET', '/api/v1/links?page=2&limit=5', {
      key,
      headers: { cookie: 'sl_session=abc', 'user-agent': 'LongAgentName/1.0', referer: 'https://ref.example/' },
    });
    await server.request('GET', `/app/setup?token=${token}`);
    await new Promise((r) => setTimeout(r, 100));
    // The request lines (others, such as the cache's preload, may be written meanwhile).
    const lines = logs
      .slice(from)
      .join('')
      .split('\n')
      .filter((l) => l.includes('"reqId"'));
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.map((l) => l.msg)).toEqual([
      expect.stringMatching(/^GET \/api\/v1\/links\?page=2&limit=5 401 \d+ms$/),
      expect.stringMatching(/^GET \/app\/setup\?token=\[REDACTED\] 200 \d+ms$/),
    ]);
    expect(parsed[0].reqId).toBe(listed.headers['x-service-request-id']);
    for (const line of parsed) {
      // Beside the logger's own base fields (pid and hostname here; the service's name in serve).
      const own = Object.keys(line).filter((k) => !['pid', 'hostname'].includes(k));
      expect(own.sort()).toEqual(['level', 'msg', 'reqId', 'responseTime', 'time']);
      expect(line.level).toBe(30);
    }
    const text = lines.join('\n');
    for (const hidden of [token, 'LongAgentName', 'ref.example', '127.0.0.1', 'sl_session', key])
      expect(text).not.toContain(hidden);
    for (const line of lines) expect(line.length).toBeLessThan(200);
  });

  it('keeps a 2xx line short and writes a 5xx line of the same server in full at error, keys still redacted', async () => {
    const seeded = await seedWorkspace(server.services.db.knex, { scopes: ['links:read', 'conversions:read'] });
    // The same request headers on both: only the answer's status may make the lines differ.
    const headers = { cookie: 'sl_session=abc', 'user-agent': 'LongAgentName/1.0', referer: 'https://ref.example/' };
    const from = logs.length;
    const ok = await server.request('GET', '/api/v1/links?limit=5', { key: seeded.key, headers });
    expect(ok.status, ok.text).toBe(200);
    const failed = await server.request('GET', '/api/v1/conversions?eventType=purchase', { key: seeded.key, headers });
    expect(failed.status, failed.text).toBe(503);
    await new Promise((r) => setTimeout(r, 100));
    const lines = logs
      .slice(from)
      .join('')
      .split('\n')
      .filter((l) => l.includes('"reqId"'))
      .map((l) => JSON.parse(l));
    const lineOf = (res: { headers: Record<string, unknown> }) =>
      lines.find((l) => l.reqId === res.headers['x-service-request-id']);
    const short = lineOf(ok);
    const full = lineOf(failed);

    expect(short.level).toBe(30);
    expect(short.msg).toMatch(/^GET \/api\/v1\/links\?limit=5 200 \d+ms$/);
    expect(
      Object.keys(short)
        .filter((k) => !['pid', 'hostname'].includes(k))
        .sort(),
    ).toEqual(['level', 'msg', 'reqId', 'responseTime', 'time']);
    for (const hidden of ['LongAgentName', 'ref.example', '127.0.0.1'])
      expect(JSON.stringify(short)).not.toContain(hidden);

    expect(full.level).toBe(50);
    expect(full.msg).toBe('GET /api/v1/conversions?eventType=purchase 503 failed');
    expect(full.req).toMatchObject({
      method: 'GET',
      url: '/api/v1/conversions?eventType=purchase',
      query: { eventType: 'purchase' },
      remoteAddress: '127.0.0.1',
      headers: {
        authorization: '[Redacted]',
        cookie: '[Redacted]',
        'user-agent': 'LongAgentName/1.0',
        referer: 'https://ref.example/',
      },
    });
    expect(full.res.statusCode).toBe(503);
    for (const hidden of [seeded.key, 'sl_session']) expect(JSON.stringify(full)).not.toContain(hidden);
  });
});
