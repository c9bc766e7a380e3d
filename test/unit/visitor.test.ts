// src/redirect/visitor.ts: what the redirect path reads of a visitor's request.
//
// keptUserAgent hands the redirect path a kept string with the same text as the User-Agent a
// request brought (src/redirect/visitor.ts). Its slots are picked from a few characters only, so
// different agents share slots; each must still come back as itself, or a visit would be judged
// (bot or person) and recorded (device, browser, OS) as another agent's.
//
// visitHeaders reads the redirect path's headers from the request Node received: the header
// lines are sent as raw bytes over a real socket, so case, duplicates and the purpose and country
// fallbacks are what a visitor's client can actually produce, and each case states the fields
// the redirect path must read from them.
import net from 'node:net';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBot, keptUserAgent, visitHeaders, type VisitHeaders } from '../../src/redirect/visitor';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
// The same length and the same text from the middle on: another agent in the same slot.
const BOT = CHROME.replace('Mozilla/5.0', 'Googlebot/2');

describe('keptUserAgent', () => {
  it('gives back the same text, for agents that share a slot as well', () => {
    // Same length, same characters at the middle, three-quarter and next-to-last positions:
    // the two pick the same slot.
    expect(CHROME.length).toBe(BOT.length);
    for (const at of [CHROME.length >> 1, (CHROME.length * 3) >> 2, CHROME.length - 2])
      expect(CHROME[at]).toBe(BOT[at]);
    for (let round = 0; round < 3; round++) {
      for (const ua of [CHROME, BOT, CHROME, CHROME, BOT]) {
        const fresh = Buffer.from(ua, 'latin1').toString('latin1'); // a new string, as Node's parser makes
        expect(keptUserAgent(fresh)).toBe(ua);
      }
    }
    expect(isBot(keptUserAgent(BOT))).toBe(true);
    expect(isBot(keptUserAgent(CHROME))).toBe(false);
  });

  it('passes short, very long and missing agents through', () => {
    const long = `${CHROME} ${'x'.repeat(600)}`;
    expect(keptUserAgent(long)).toBe(long);
    expect(keptUserAgent(undefined)).toBeUndefined();
    expect(keptUserAgent('')).toBe('');
    expect(keptUserAgent('curl/8.5.0')).toBe('curl/8.5.0');
  });

  it('keeps up with many distinct agents (every slot taken and retaken)', () => {
    for (let i = 0; i < 5000; i++) {
      const ua = `${CHROME} build/${i}`;
      expect(keptUserAgent(ua)).toBe(ua);
      expect(keptUserAgent(`${ua}`)).toBe(ua);
    }
  });
});

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
      {
        host: 'sho.rt',
        userAgent: 'Mozilla/5.0 Chrome/120.0',
        referer: 'https://news.example/a',
        purpose: undefined,
        country: undefined,
      },
    ],
    [
      'names in any case',
      [
        'HOST: Sho.Rt:8443',
        'user-AGENT: curl/8',
        'REFERER: https://r.example/',
        'SEC-PURPOSE: prefetch',
        'Cf-IpCountry: de',
      ],
      { host: 'Sho.Rt:8443', userAgent: 'curl/8', referer: 'https://r.example/', purpose: 'prefetch', country: 'de' },
    ],
    [
      'repeated host, user agent and referer: the first wins',
      [
        'Host: a.example',
        'Host: b.example',
        'User-Agent: first',
        'User-Agent: second',
        'Referer: https://1/',
        'Referer: https://2/',
      ],
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
    [
      'purpose before x-purpose',
      ['Host: h', 'X-Purpose: preview', 'Purpose: prerender'],
      { ...none, host: 'h', purpose: 'prerender' },
    ],
    [
      'x-purpose before x-moz',
      ['Host: h', 'X-Moz: prefetch', 'X-Purpose: preview'],
      { ...none, host: 'h', purpose: 'preview' },
    ],
    ['x-moz alone', ['Host: h', 'X-Moz: prefetch'], { ...none, host: 'h', purpose: 'prefetch' }],
    [
      'x-country-code when there is no cf-ipcountry',
      ['Host: h', 'X-Country-Code: fr'],
      { ...none, host: 'h', country: 'fr' },
    ],
    [
      'cf-ipcountry before x-country-code',
      ['Host: h', 'X-Country-Code: fr', 'CF-IPCountry: NL'],
      { ...none, host: 'h', country: 'NL' },
    ],
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
