// visitHeaders reads the redirect path's headers from the request Node received: the header
// lines are sent as raw bytes over a real socket, so case, duplicates and the purpose and country
// fallbacks are what a visitor's client can actually produce, and each case states the fields
// the redirect path must read from them.
import net from 'node:net';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visitHeaders, type VisitHeaders } from '../../src/redirect/visitor';

let server: http.Server;
const seen: http.IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(req.headers);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends one request with exactly these header lines and returns the headers the server received. */
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

const none = { userAgent: undefined, referer: undefined, purpose: undefined, country: undefined };

describe('visitHeaders', () => {
  const cases: Array<[string, string[], VisitHeaders]> = [
    [
      'usual browser visit',
      ['Host: sho.rt', 'User-Agent: Mozilla/5.0 Chrome/120.0', 'Referer: https://news.example/a', 'Accept: */*'],
      { host: 'sho.rt', userAgent: 'Mozilla/5.0 Chrome/120.0', referer: 'https://news.example/a', purpose: undefined, country: undefined },
    ],
    [
      'names in any case',
      ['HOST: Sho.Rt:8443', 'user-AGENT: curl/8', 'REFERER: https://r.example/', 'SEC-PURPOSE: prefetch', 'Cf-IpCountry: de'],
      { host: 'Sho.Rt:8443', userAgent: 'curl/8', referer: 'https://r.example/', purpose: 'prefetch', country: 'de' },
    ],
    [
      'repeated host, user agent and referer: the first wins',
      ['Host: a.example', 'Host: b.example', 'User-Agent: first', 'User-Agent: second', 'Referer: https://1/', 'Referer: https://2/'],
      { host: 'a.example', userAgent: 'first', referer: 'https://1/', purpose: undefined, country: undefined },
    ],
    [
      'repeated purpose and country headers are joined',
      ['Host: h', 'Purpose: preview', 'Purpose: other', 'CF-IPCountry: US', 'CF-IPCountry: FR'],
      { ...none, host: 'h', purpose: 'preview, other', country: 'US, FR' },
    ],
    [
      'sec-purpose before purpose before x-purpose before x-moz',
      ['Host: h', 'X-Moz: prefetch', 'X-Purpose: preview', 'Purpose: prerender', 'Sec-Purpose: prefetch;prerender'],
      { ...none, host: 'h', purpose: 'prefetch;prerender' },
    ],
    ['purpose before x-purpose', ['Host: h', 'X-Purpose: preview', 'Purpose: prerender'], { ...none, host: 'h', purpose: 'prerender' }],
    ['x-purpose before x-moz', ['Host: h', 'X-Moz: prefetch', 'X-Purpose: preview'], { ...none, host: 'h', purpose: 'preview' }],
    ['x-moz alone', ['Host: h', 'X-Moz: prefetch'], { ...none, host: 'h', purpose: 'prefetch' }],
    ['x-country-code when there is no cf-ipcountry', ['Host: h', 'X-Country-Code: fr'], { ...none, host: 'h', country: 'fr' }],
    ['cf-ipcountry before x-country-code', ['Host: h', 'X-Country-Code: fr', 'CF-IPCountry: NL'], { ...none, host: 'h', country: 'NL' }],
    [
      'empty user agent and lookalike names',
      ['Host: h', 'User-Agent:', 'X-Referer: no', 'Purposes: no', 'Hosts: no'],
      { ...none, host: 'h', userAgent: '' },
    ],
  ];
  for (const [name, lines, expected] of cases) {
    it(name, async () => {
      expect(visitHeaders(await received(lines))).toEqual(expected);
    });
  }

  it('gives an empty host when an HTTP/1.0 request sends none', async () => {
    const before = seen.length;
    const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('data', () => resolve());
      socket.write('GET /x HTTP/1.0\r\nUser-Agent: old\r\n\r\n');
    });
    socket.destroy();
    expect(visitHeaders(seen[before])).toEqual({ ...none, host: '', userAgent: 'old' });
  });
});
