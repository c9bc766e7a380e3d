// The package's own client (src/client, `shortlink/client`) pointed at a test server: the API
// suites make their requests through it where they do not need raw HTTP, so it is exercised on
// every run. Node's fetch cannot be told to trust the test certificate per request, so the client
// gets a fetch over node:https that does (the client's `fetch` option exists for this).
import https from 'node:https';
import { createClient, type ClientOptions, type ShortlinkError } from '../../src/client/index';
import type { TestResponse, TestServer } from './server';

/** A fetch over node:https trusting `ca`: what a partner with a private CA would pass too. */
export function httpsFetch(ca: string): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const url = new URL(request.url);
    return new Promise<Response>((resolve, reject) => {
      const headers: Record<string, string> = Object.fromEntries(request.headers);
      if (body) headers['content-length'] = String(body.length);
      const req = https.request(
        url,
        { method: request.method, headers, ca, agent: false, servername: url.hostname },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const noBody = status === 204 || status === 304 || request.method === 'HEAD';
            const out = new Headers();
            for (const [k, v] of Object.entries(res.headers)) {
              if (Array.isArray(v)) v.forEach((x) => out.append(k, x));
              else if (v !== undefined) out.set(k, v);
            }
            resolve(new Response(noBody ? null : Buffer.concat(chunks), { status, headers: out }));
          });
        },
      );
      req.on('error', reject);
      if (body) req.write(body);
      req.end();
    });
  };
}

/** The client of `key` on the test server. */
export function apiClient(server: TestServer, key: string, options: Partial<ClientOptions> = {}) {
  return createClient({ baseUrl: server.url, key, fetch: httpsFetch(server.ca), ...options });
}

/**
 * A client's outcome as the suites' raw answers look (status, body, headers), so an assertion
 * reads the same whichever way the request went: a success's body is what the service sent; an
 * error's is the ShortlinkError's `{ error, field?, code? }`.
 */
export async function asResponse(
  outcome: Promise<{ data?: unknown; error?: ShortlinkError; response?: Response }>,
): Promise<TestResponse> {
  const o = await outcome;
  const headers: TestResponse['headers'] = {};
  o.response?.headers.forEach((v, k) => (headers[k] = v));
  if (o.error) {
    const { status, retryAfterSeconds: _wait, ...body } = o.error;
    return { status, headers, text: JSON.stringify(body), body };
  }
  return { status: o.response!.status, headers, text: JSON.stringify(o.data), body: o.data };
}
