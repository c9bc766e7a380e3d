// The Prism contract checks (./prism.test.ts) are only as good as the detection: this holds the
// detection itself to Prism's actual behaviour, with an upstream that answers off-contract on
// purpose, and shows the two things the proxy cannot carry (so those answers are checked
// directly there): redirects, which its forwarder follows, and binary bodies, which it re-encodes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directViolations, PRISM_ERROR, prismViolations, startPrismProxy, type PrismProxy } from '../support/prism';

describe('Prism violation detection', () => {
  let upstream: http.Server;
  let prism: PrismProxy;
  const requestId = '0b7c9a52-5c1e-4f0e-9a53-1f1d2b9c0e11';

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      const json = (
        status: number,
        body: unknown,
        headers: Record<string, string> = { 'x-service-request-id': requestId },
      ) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/healthz') return json(200, { status: 'ok' });
      if (req.url === '/readyz') return json(200, { status: 'ok' }); // const is "ready"
      if (req.url === '/api/v1/links') return json(418, { error: 'teapot' }); // undeclared 4xx
      if (req.url === '/api/v1/links/lnk_nohdr') return json(404, { error: 'gone' }, {}); // no request id
      if (req.url === '/api/v1/links/lnk_501') return json(501, { error: 'not implemented' });
      if (req.url === '/hop') {
        res.writeHead(302, { location: '/landing', 'cache-control': 'no-store', 'content-length': '0' });
        return res.end();
      }
      if (req.url === '/landing') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<!doctype html><p>the destination</p>');
      }
      if (req.url === '/qr/image.png') {
        const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0x80]);
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) });
        return res.end(png);
      }
      return json(404, { error: 'nope' });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    prism = await startPrismProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await prism?.stop();
    await new Promise((resolve) => upstream?.close(resolve));
  });
  const auth = { headers: { authorization: `Bearer mk_${'0'.repeat(64)}` } };

  it('passes a contract-valid answer untouched', async () => {
    const res = await prism.request('GET', '/healthz');
    expect(prismViolations(res)).toEqual([]);
    expect(res.status).toBe(200);
  });

  it('turns a body violation into its 500 #VIOLATIONS and the sl-violations header', async () => {
    const res = await prism.request('GET', '/readyz');
    expect(res.status).toBe(500);
    expect(res.body.type).toBe(`${PRISM_ERROR}VIOLATIONS`);
    expect(prismViolations(res).join('\n')).toMatch(/Error at response\.body.*constant/s);
  });

  it('lets an undeclared 4xx through with only a Warning in sl-violations', async () => {
    const res = await prism.request('GET', '/api/v1/links', auth);
    expect(res.status).toBe(418);
    expect(prismViolations(res)).toEqual([
      expect.stringMatching(/^Warning at response: Unable to match the returned status code/),
    ]);
  });

  it('reports a missing X-Service-Request-Id', async () => {
    const res = await prism.request('GET', '/api/v1/links/lnk_nohdr', auth);
    expect(prismViolations(res).join('\n')).toMatch(/x-service-request-id/i);
  });

  it('notices that Prism re-mocked an upstream 501', async () => {
    const res = await prism.request('GET', '/api/v1/links/lnk_501', auth);
    expect(prismViolations(res)).not.toEqual([]);
  });

  it('refuses a request the document forbids without forwarding it', async () => {
    const res = await prism.request('GET', '/api/v1/links?page=0', auth);
    expect(res.status).toBe(422);
    expect(prismViolations(res)).not.toEqual([]);
  });

  // Why the visitor paths' redirects are checked directly: the client never sees the 302.
  it('follows a redirect itself and answers with the destination', async () => {
    const res = await prism.request('GET', '/hop');
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('the destination');
  });

  // Why the PNG QR image is checked directly: the bytes do not survive the proxy.
  it('re-encodes a binary body as text', async () => {
    const res = await prism.request('GET', '/qr/image.png');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(Number(res.headers['content-length'])).toBeGreaterThan(12); // 12 bytes were sent
  });

  it('validates a direct answer with the same validator', async () => {
    const answer = (
      status: number,
      body: unknown,
      headers: Record<string, string> = { 'x-service-request-id': requestId },
    ) => ({
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
      text: JSON.stringify(body),
      body,
    });
    expect(await directViolations('GET', '/healthz', answer(200, { status: 'ok' }))).toEqual([]);
    expect((await directViolations('GET', '/healthz', answer(200, { status: 'ok', extra: 1 }))).join('\n')).toMatch(
      /extra/,
    );
    expect(
      (
        await directViolations('GET', '/api/v1/links?page=0', answer(400, { error: 'x', field: 'page', detail: [] }))
      ).join('\n'),
    ).toMatch(/detail/);
    expect((await directViolations('GET', '/api/v1/links', answer(400, { error: 'x' }, {}))).join('\n')).toMatch(
      /x-service-request-id/i,
    );
    expect((await directViolations('GET', '/api/v1/links', answer(418, { error: 'x' }))).join('\n')).toMatch(
      /Unable to match/,
    );
  });
});
