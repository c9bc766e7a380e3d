// visitHeaders reads the redirect path's headers from rawHeaders; it must agree with what Node's
// own req.headers gives for the same bytes (case, duplicates, the purpose and country fallbacks).
import net from 'node:net';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visitHeaders } from '../../src/redirect/visitor';

let server: http.Server;
const seen: Array<{ raw: string[]; headers: http.IncomingHttpHeaders }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ raw: req.rawHeaders, headers: req.headers });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends one request with exactly these header lines and returns what the server received. */
async function received(lines: string[]) {
  const before = seen.length;
  const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', () => resolve());
    socket.write(`GET /x HTTP/1.1\r\n${lines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`);
  });
  socket.destroy();
  expect(seen.length).toBe(before + 1);
  return seen[before];
}

/** What the handler read from req.headers before visitHeaders. */
function fromNode(h: http.IncomingHttpHeaders) {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  return {
    host: h.host ?? '',
    userAgent: h['user-agent'],
    referer: h.referer,
    purpose: one(h['sec-purpose'] ?? h.purpose ?? h['x-purpose'] ?? h['x-moz']),
    country: one(h['cf-ipcountry']) ?? one(h['x-country-code']),
  };
}

describe('visitHeaders', () => {
  const cases: Record<string, string[]> = {
    'usual browser visit': ['Host: sho.rt', 'User-Agent: Mozilla/5.0 Chrome/120.0', 'Referer: https://news.example/a', 'Accept: */*'],
    'names in any case': ['HOST: Sho.Rt:8443', 'user-AGENT: curl/8', 'REFERER: https://r.example/', 'SEC-PURPOSE: prefetch', 'Cf-IpCountry: de'],
    'repeated host, user agent and referer: the first wins': ['Host: a.example', 'Host: b.example', 'User-Agent: first', 'User-Agent: second', 'Referer: https://1/', 'Referer: https://2/'],
    'repeated purpose and country headers are joined': ['Host: h', 'Purpose: preview', 'Purpose: other', 'CF-IPCountry: US', 'CF-IPCountry: FR'],
    'sec-purpose before purpose before x-purpose before x-moz': ['Host: h', 'X-Moz: prefetch', 'X-Purpose: preview', 'Purpose: prerender', 'Sec-Purpose: prefetch;prerender'],
    'x-moz alone': ['Host: h', 'X-Moz: prefetch'],
    'x-country-code when there is no cf-ipcountry': ['Host: h', 'X-Country-Code: fr'],
    'cf-ipcountry before x-country-code': ['Host: h', 'X-Country-Code: fr', 'CF-IPCountry: NL'],
    'empty user agent and lookalike names': ['Host: h', 'User-Agent:', 'X-Referer: no', 'Purposes: no', 'Hosts: no'],
  };
  for (const [name, lines] of Object.entries(cases)) {
    it(name, async () => {
      const { raw, headers } = await received(lines);
      expect(visitHeaders(raw)).toEqual(fromNode(headers));
    });
  }

  it('reads the fields it was written for', async () => {
    const { raw } = await received(['Host: a.example', 'Host: b.example', 'user-agent: UA', 'Purpose: preview', 'Purpose: x', 'X-Country-Code: fr']);
    expect(visitHeaders(raw)).toEqual({ host: 'a.example', userAgent: 'UA', referer: undefined, purpose: 'preview, x', country: 'fr' });
  });
});
