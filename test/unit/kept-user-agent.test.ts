// keptUserAgent hands the redirect path a kept string with the same text as the User-Agent a
// request brought (src/redirect/visitor.ts). Its slots are picked from a few characters only, so
// different agents share slots; each must still come back as itself, or a visit would be judged
// (bot or person) and recorded (device, browser, OS) as another agent's.
import { describe, expect, it } from 'vitest';
import { isBot, keptUserAgent } from '../../src/redirect/visitor';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
// The same length and the same text from the middle on: another agent in the same slot.
const BOT = CHROME.replace('Mozilla/5.0', 'Googlebot/2');

describe('keptUserAgent', () => {
  it('gives back the same text, for agents that share a slot as well', () => {
    // Same length, same characters at the middle, three-quarter and next-to-last positions:
    // the two pick the same slot.
    expect(CHROME.length).toBe(BOT.length);
    for (const at of [CHROME.length >> 1, (CHROME.length * 3) >> 2, CHROME.length - 2]) expect(CHROME[at]).toBe(BOT[at]);
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
